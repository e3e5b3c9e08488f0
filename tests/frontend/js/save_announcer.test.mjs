// Unit tests of what the save indicator says to assistive technology, run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { statusAnnouncer, statusWords } from "../../../frontend/static/frontend/savequeue.js";

function announcerOver(statuses) {
  const region = { textContent: "" };
  const announce = statusAnnouncer(region);
  const heard = [];
  for (const [status, detail] of statuses) {
    const before = region.textContent;
    announce(status, statusWords(status, detail, "Saved · v2"));
    if (region.textContent !== before) heard.push(region.textContent);
  }
  return heard;
}

test("routine saves are silent: unsaved, saving and saved say nothing", () => {
  const routine = [["unsaved"], ["saving"], ["saved"], ["unsaved"], ["saving"], ["saved"]];
  assert.deepEqual(announcerOver(routine), []);
});

test("going offline is said once over its retries, and the save that ends it says Saved", () => {
  const heard = announcerOver([
    ["unsaved"], ["saving"], ["offline", "Failed to fetch"], ["saving"], ["offline", "Failed to fetch"],
    ["saving"], ["saved"], ["unsaved"], ["saving"], ["saved"],
  ]);
  assert.equal(heard.length, 2);
  assert.match(heard[0], /cannot be reached/);
  assert.equal(heard[1], "Saved");
});

test("a conflict and a refused save are said, each as it starts", () => {
  const heard = announcerOver([["saving"], ["conflict", "changed elsewhere"], ["saving"], ["error", "too long"]]);
  assert.equal(heard.length, 2);
  assert.match(heard[0], /Changed elsewhere too/);
  assert.match(heard[1], /Not saved: too long/);
});
