// Unit tests of the editors' key reading, run by `node --test` (no bundler).
import assert from "node:assert/strict";
import { test } from "node:test";

import { keyOf } from "../../../frontend/static/frontend/keys.js";

const pressed = (key, capsLock = false) => ({ key, getModifierState: (name) => name === "CapsLock" && capsLock });

test("a letter reads as typed when Caps Lock is off", () => {
  assert.equal(keyOf(pressed("a")), "a");
  assert.equal(keyOf(pressed("A")), "A"); // Shift+A: the whole pair
});

test("with Caps Lock on a letter's case is turned back, so a stays one cell and Shift+A the pair", () => {
  assert.equal(keyOf(pressed("A", true)), "a");
  assert.equal(keyOf(pressed("a", true)), "A");
  assert.equal(keyOf(pressed("S", true)), "s");
});

test("keys other than letters are left alone, Caps Lock or not", () => {
  for (const key of ["?", "1", "+", "Enter", "ArrowUp", " "]) assert.equal(keyOf(pressed(key, true)), key);
});
