// Unit tests of checked prefill links and of resolving a conflict by a three-way merge, run by
// `node --test` (no bundler).
import assert from "node:assert/strict";
import { test } from "node:test";

import { alreadySaved, SaveQueue, SIGNED_OUT } from "../../../frontend/static/frontend/savequeue.js";
import { GridModel, mergeLinks, POSSIBLE, reviewedPrefill, SURE } from "../../../frontend/static/frontend/state.js";

class MemoryStorage {
  constructor() {
    this.items = new Map();
  }
  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }
  setItem(key, value) {
    this.items.set(key, String(value));
  }
  removeItem(key) {
    this.items.delete(key);
  }
}

const manualTimers = () => {
  const pending = [];
  return {
    set: (fn) => pending.push(fn),
    clear: () => {},
    run: async () => {
      while (pending.length) await pending.shift()();
    },
  };
};

// --- checked prefill links -------------------------------------------------------------------

test("setting a link to the state it has confirms it without an undo step", () => {
  const model = new GridModel(3, 3, [[1, 1, "S"], [2, 2, "P"]]);
  const repainted = [];
  const changed = [];
  model.on("touched", (indices) => repainted.push(...indices));
  model.on("cells", (indices) => changed.push(...indices));
  model.moveTo(1, 1);
  assert.equal(model.setBlock(SURE), 0, "no cell changed");
  assert.deepEqual(repainted, [4]);
  assert.ok(model.touched.has(4));
  assert.equal(model.canUndo(), false);
  assert.equal(model.setBlock(SURE), 0);
  assert.deepEqual(repainted, [4], "a checked link is confirmed once");
  assert.deepEqual(changed, [], "no link changed");
});

test("a block confirms its links and changes its other cells in one step", () => {
  const model = new GridModel(3, 3, [[0, 0, "P"], [1, 1, "P"]]);
  model.moveTo(0, 0);
  model.move(1, 1, true);
  assert.equal(model.setBlock(POSSIBLE), 2); // 0-1 and 1-0 become possible
  assert.deepEqual([...model.touched].sort(), [0, 1, 3, 4]);
  model.undo();
  assert.deepEqual(model.links(), [[0, 0, "P"], [1, 1, "P"]]);
  assert.ok(model.touched.has(0) && model.touched.has(4), "undo leaves the links checked");
});

test("a read-only model confirms nothing", () => {
  const model = new GridModel(2, 2, [[0, 0, "S"]]);
  model.readOnly = true;
  model.set(0, 0, SURE);
  assert.equal(model.touched.size, 0);
});

test("the reviewed prefill lists checked links that still equal the prefill", () => {
  const prefill = new Map([
    [0, { code: SURE }],
    [4, { code: SURE }],
    [8, { code: POSSIBLE }],
  ]);
  const model = new GridModel(3, 3, [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]]);
  assert.deepEqual(reviewedPrefill(model, prefill), [], "nothing looked at yet");
  model.set(2, 2, POSSIBLE); // confirmed
  model.set(1, 1, POSSIBLE); // changed: no longer the prefill's link
  model.set(0, 1, SURE); // the annotator's own link
  assert.deepEqual(reviewedPrefill(model, prefill), [[2, 2]]);
  model.undo();
  model.undo(); // 1-1 is back to the prefill's sure, and was looked at
  assert.deepEqual(reviewedPrefill(model, prefill), [[1, 1], [2, 2]]);
});

test("cells checked elsewhere are marked once and repainted", () => {
  const model = new GridModel(2, 2, [[0, 0, "S"]]);
  const repainted = [];
  model.on("touched", (indices) => repainted.push(...indices));
  assert.equal(model.markTouched([[0, 0], [1, 1]]), 2);
  assert.equal(model.markTouched([[0, 0]]), 0);
  assert.deepEqual(repainted, [0, 3]);
});

// --- three-way merge -------------------------------------------------------------------------

test("a merge takes each side's own changes and keeps the links nobody changed", () => {
  const base = [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]];
  const theirs = [[0, 0, "S"], [1, 1, "S"], [3, 3, "S"]]; // removed 2?2, added 3-3
  const mine = [[0, 0, "P"], [1, 1, "S"], [2, 2, "P"], [4, 4, "S"]]; // 0-0 possible, added 4-4
  const merged = mergeLinks(base, theirs, mine);
  assert.deepEqual(merged.links, [[0, 0, "P"], [1, 1, "S"], [3, 3, "S"], [4, 4, "S"]]);
  assert.deepEqual(merged.conflicts, []);
  assert.equal(merged.fromTheirs, 2);
  assert.equal(merged.fromMine, 2);
});

test("a cell changed differently on both sides keeps mine and is reported", () => {
  const base = [[0, 0, "S"], [1, 1, "S"]];
  const theirs = [[1, 1, "P"], [2, 2, "S"]]; // removed 0-0, 1-1 possible, added 2-2
  const mine = [[0, 0, "P"], [2, 2, "S"]]; // 0-0 possible, removed 1-1, added 2-2 too
  const merged = mergeLinks(base, theirs, mine);
  assert.deepEqual(merged.links, [[0, 0, "P"], [2, 2, "S"]]);
  assert.deepEqual(merged.conflicts, [
    [0, 0, "", "P"],
    [1, 1, "P", ""],
  ]);
  assert.equal(merged.fromTheirs + merged.fromMine, 0, "2-2 was the same change on both sides");
});

// Random alignments on a 4×4 grid (now and then theirs is the base): every cell against
// the rule written out per cell, and the merge's symmetries.
test("random merges follow the per-cell rule and its symmetries", () => {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const KINDS = ["", "S", "P"];
  const alignment = () => {
    const links = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
      const kind = KINDS[Math.floor(random() * 3)];
      if (kind) links.push([i, j, kind]);
    }
    return links;
  };
  const at = (links, i, j) => (links.find((l) => l[0] === i && l[1] === j) || [0, 0, ""])[2];
  for (let round = 0; round < 200; round++) {
    const base = alignment();
    const theirs = random() < 0.3 ? base : alignment();
    const mine = alignment();
    const merged = mergeLinks(base, theirs, mine);
    let conflicts = 0;
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
      const [b, t, m] = [at(base, i, j), at(theirs, i, j), at(mine, i, j)];
      const expected = t === b ? m : m === b ? t : m;
      if (t !== b && m !== b && t !== m) conflicts += 1;
      assert.equal(at(merged.links, i, j), expected, `cell ${i}-${j} of ${b}/${t}/${m}`);
    }
    assert.equal(merged.conflicts.length, conflicts);
    assert.deepEqual(mergeLinks(base, base, mine).links, mergeLinks(base, mine, mine).links);
    const swapped = mergeLinks(base, mine, theirs);
    assert.deepEqual(swapped.conflicts.map((c) => [c[0], c[1]]), merged.conflicts.map((c) => [c[0], c[1]]));
    assert.equal(swapped.fromTheirs, merged.fromMine);
  }
});

// --- the save queue's conflict choices -------------------------------------------------------

function conflictingQueue({ base, server, storage = new MemoryStorage(), mayMerge = undefined }) {
  const sent = [];
  const timers = manualTimers();
  let stale = true;
  const queue = new SaveQueue({
    key: "k",
    version: 2,
    baseLinks: base,
    storage,
    timers,
    mayMerge,
    send: async (body) => {
      sent.push(body);
      if (stale) {
        stale = false;
        throw Object.assign(new Error("changed elsewhere"), { status: 409, body: { error: { server } } });
      }
      return { version: body.version + 1 };
    },
  });
  return { queue, sent, timers, storage };
}

test("merging a conflict sends both tabs' links on top of the server's version", async () => {
  const base = [[0, 0, "S"]];
  const server = { version: 3, links: [[0, 0, "S"], [1, 1, "S"]], touched: [[1, 1]] };
  const { queue, sent, timers, storage } = conflictingQueue({ base, server });
  queue.update([[0, 0, "S"], [2, 2, "P"]]);
  await timers.run();
  assert.equal(queue.status, "conflict");
  assert.deepEqual(JSON.parse(storage.getItem("k")).baseLinks, base, "the common version is stored");
  const preview = queue.mergePreview();
  assert.deepEqual([preview.fromTheirs, preview.fromMine, preview.conflicts.length], [1, 1, 0]);
  const merged = queue.merge();
  assert.deepEqual(merged.links, [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]]);
  assert.equal(queue.status, "unsaved");
  await timers.run();
  assert.deepEqual(sent.at(-1), { version: 3, links: merged.links, client: { changes: 1 } });
  assert.equal(queue.status, "saved");
  assert.equal(queue.version, 4);
  assert.deepEqual(queue.baseLinks, merged.links);
  assert.equal(storage.getItem("k"), null);
});

test("overwriting with mine bases the next merge on the server's links", async () => {
  const server = { version: 3, links: [[1, 1, "S"]] };
  const { queue, timers, sent } = conflictingQueue({ base: [], server });
  queue.update([[2, 2, "S"]]);
  await timers.run();
  queue.keepMine(3);
  assert.deepEqual(queue.baseLinks, server.links);
  await timers.run();
  assert.deepEqual(sent.at(-1).links, [[2, 2, "S"]]);
  assert.equal(queue.version, 4);
});

test("without the common version's links there is no merge to offer", async () => {
  const { queue, timers } = conflictingQueue({ base: null, server: { version: 3, links: [] } });
  queue.update([[2, 2, "S"]]);
  await timers.run();
  assert.equal(queue.status, "conflict");
  assert.equal(queue.mergePreview(), null);
  assert.equal(queue.merge(), null);
  assert.equal(queue.status, "conflict");
});

test("reviewed cells travel with the links only when the page gives them", async () => {
  const sent = [];
  const timers = manualTimers();
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage: new MemoryStorage(),
    timers,
    send: async (body) => {
      sent.push(body);
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await timers.run();
  queue.update([[0, 0, "S"]], 1, [[0, 0]]);
  await timers.run();
  assert.equal("reviewed" in sent[0], false);
  assert.deepEqual(sent[1].reviewed, [[0, 0]]);
});

test("a 409 without the server's state is a refused save, not a conflict to resolve", async () => {
  const conflicts = [];
  const queue = new SaveQueue({
    key: "k",
    version: 2,
    storage: new MemoryStorage(),
    timers: manualTimers(),
    send: async () => {
      const body = { error: { code: "already_submitted", message: "this pair was submitted" } };
      throw Object.assign(new Error("this pair was submitted"), { status: 409, body });
    },
    onConflict: (server) => conflicts.push(server),
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "error");
  assert.equal(queue.lastError, "this pair was submitted");
  assert.deepEqual(conflicts, []);
});

test("a 409 whose server state holds only our own changes (a save whose answer was lost) is merged without asking", async () => {
  // The first save reached the server (version 3) but its answer was lost; an edit made since is
  // sent on the old version 2. The server's changes are all ours: nothing to choose between.
  const base = [[0, 0, "S"]];
  const server = { version: 3, links: [[0, 0, "S"], [1, 1, "S"]], touched: [[1, 1]] };
  const { queue, sent, timers, storage } = conflictingQueue({ base, server });
  const conflicts = [];
  queue.onConflict = (theirs) => conflicts.push(theirs);
  const mine = [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]];
  queue.update(mine);
  await timers.run(); // the refused save, merged on the spot
  assert.deepEqual(conflicts, [], "no banner");
  assert.equal(queue.status, "unsaved");
  assert.equal(await queue.drain(), true); // and sent on the server's version (a timer in the browser)
  assert.equal(queue.status, "saved");
  assert.deepEqual(sent.at(-1).version, 3);
  assert.deepEqual(sent.at(-1).links, mine);
  assert.equal(queue.version, 4);
  assert.equal(storage.getItem("k"), null);
});

test("settle leaves a conflict alone when the server has a change of its own or a cell changed both ways", async () => {
  const base = [[0, 0, "S"]];
  for (const [server, mine] of [
    [[[0, 0, "S"], [3, 3, "S"]], [[0, 0, "S"], [2, 2, "P"]]], // theirs added a link we lack
    [[[0, 0, "P"]], [[0, 0, "S"], [0, 1, "S"]]], // theirs changed a cell we did not
    [[[0, 0, "P"]], []], // both changed (0,0): to possible there, emptied here
  ]) {
    const { queue, timers } = conflictingQueue({ base, server: { version: 3, links: server } });
    queue.update(mine);
    await timers.run();
    assert.equal(queue.status, "conflict", JSON.stringify([server, mine]));
    assert.equal(queue.settle(), false);
    assert.equal(queue.status, "conflict");
  }
});

test("a signed-out save (401) is kept and retried, and goes through once signed in again", async () => {
  const storage = new MemoryStorage();
  const timers = manualTimers();
  let signedIn = false;
  const statuses = [];
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage,
    timers,
    onStatus: (status, detail) => statuses.push([status, detail]),
    send: async (body) => {
      if (!signedIn) throw Object.assign(new Error("Authentication credentials were not provided."), { status: 401 });
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "offline");
  assert.deepEqual(statuses.at(-1), ["offline", SIGNED_OUT]);
  assert.deepEqual(JSON.parse(storage.getItem("k")).links, [[0, 0, "S"]]);
  signedIn = true;
  assert.equal(await queue.drain(), true, "Ctrl+S saves at once");
  assert.equal(queue.status, "saved");
  assert.equal(queue.version, 2);
  assert.equal(storage.getItem("k"), null);
});

test("a refused save is tried again on drain (Ctrl+S), and goes through once the refusal is over", async () => {
  // Another user signed in in this browser: the annotator's save is refused (404), kept in
  // storage; once they are signed in again, Ctrl+S sends it.
  const storage = new MemoryStorage();
  let otherUser = true;
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage,
    timers: manualTimers(),
    send: async (body) => {
      if (otherUser) throw Object.assign(new Error("assignment 7 is not one of bob's"), { status: 404 });
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "error");
  assert.equal(await queue.drain(), false, "still refused: tried once, not in a loop");
  assert.equal(queue.status, "error");
  otherUser = false;
  assert.equal(await queue.drain(), true, "Ctrl+S saves at once");
  assert.equal(queue.status, "saved");
  assert.equal(storage.getItem("k"), null);
});

test("a copy left in the browser is already saved when the server holds every change it made", () => {
  // Its page was left as its save of (0, 0) went through; another tab then set (2, 2).
  const left = { base: 1, baseLinks: [[1, 1, "P"]], links: [[0, 0, "S"], [1, 1, "P"]] };
  assert.equal(alreadySaved(left, [[0, 0, "S"], [1, 1, "P"], [2, 2, "S"]]), true);
  assert.equal(alreadySaved(left, [[0, 0, "S"]]), true, "(1, 1) removed there: nothing of the copy's is missing");
  assert.equal(alreadySaved(left, [[1, 1, "P"], [2, 2, "S"]]), false, "(0, 0) is the copy's own");
  assert.equal(alreadySaved(left, [[0, 0, "P"], [1, 1, "P"]]), false, "(0, 0) changed on both sides, differently");
  const removed = { base: 1, baseLinks: [[1, 1, "P"]], links: [] };
  assert.equal(alreadySaved(removed, [[2, 2, "S"]]), true);
  assert.equal(alreadySaved(removed, [[1, 1, "P"], [2, 2, "S"]]), false, "the removal is not there");
  // An older page's copy does not know its version's links: it cannot be told.
  assert.equal(alreadySaved({ base: 1, links: [[0, 0, "S"]] }, [[0, 0, "S"], [2, 2, "S"]]), false);
  assert.equal(alreadySaved(null, []), false);
});

test("a conflict the page says may not be merged unasked (a gold sent back to waiting) waits for a choice, though it holds no change of the server's own", async () => {
  // The adjudication page's gold was sent back to waiting elsewhere: the server holds no link.
  // Merged on the spot, an empty gold or one whose links were all replaced became a new gold
  // nobody chose to start.
  const mayMerge = (server) => server.origin !== "cleared";
  for (const [base, mine] of [
    [[], [[1, 1, "S"]]], // the gold had no link
    [[[0, 0, "S"]], [[2, 2, "P"]]], // every link of it replaced
  ]) {
    const server = { version: 3, links: [], origin: "cleared" };
    const { queue, sent, timers } = conflictingQueue({ base, server, mayMerge });
    const conflicts = [];
    queue.onConflict = (theirs) => conflicts.push(theirs);
    queue.update(mine);
    await timers.run();
    assert.equal(queue.status, "conflict", JSON.stringify([base, mine]));
    assert.deepEqual(conflicts, [server]);
    assert.equal(queue.settle(), false);
    assert.equal(sent.length, 1, "nothing sent after the refusal");
    assert.deepEqual(queue.pending, mine, "mine kept for the choice");
    queue.keepMine(3); // "Start a new gold from mine": sent on the clear's version
    await timers.run();
    assert.deepEqual(sent.at(-1), { version: 3, links: mine, client: { changes: 1 } });
    assert.equal(queue.status, "saved");
  }
  const { queue, timers } = conflictingQueue({ base: [], server: { version: 3, links: [] } });
  queue.update([[1, 1, "S"]]);
  await timers.run();
  assert.equal(queue.status, "unsaved", "without the page's say, such a conflict is merged unasked");
  assert.equal(await queue.drain(), true);
});
