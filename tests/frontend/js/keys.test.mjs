// Unit tests of the editors' key reading, run by `node --test` (no bundler).
import assert from "node:assert/strict";
import { test } from "node:test";

import { jumpTarget, keyOf } from "../../../frontend/static/frontend/keys.js";

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

// A grid of 60 rows × 62 columns shown 20 rows at a time, the cursor at row 30, column 40.
const grid = { at: [30, 40], size: [60, 62], page: 20 };
const jump = (key, ctrl = false) => jumpTarget(key, ctrl, grid);

test("Home and End go to the first and last column of the cursor's row", () => {
  assert.deepEqual(jump("Home"), [30, 0]);
  assert.deepEqual(jump("End"), [30, 61]);
});

test("Ctrl+Home and Ctrl+End go to the grid's first and last cell", () => {
  assert.deepEqual(jump("Home", true), [0, 0]);
  assert.deepEqual(jump("End", true), [59, 61]);
});

test("Page Up and Page Down move a box's height of rows, and stop at the grid's edge", () => {
  assert.deepEqual(jump("PageUp"), [10, 40]);
  assert.deepEqual(jump("PageDown"), [50, 40]);
  assert.deepEqual(jumpTarget("PageDown", false, { ...grid, at: [55, 40] }), [59, 40]);
  assert.deepEqual(jumpTarget("PageUp", false, { ...grid, at: [5, 40] }), [0, 40]);
  assert.deepEqual(jumpTarget("PageDown", false, { ...grid, page: 0 }), [31, 40]); // at least a row
});

test("other keys are no jump", () => {
  for (const key of ["ArrowUp", "s", "Enter"]) assert.equal(jump(key), null);
  assert.equal(jump("PageDown", true), null); // Ctrl+Page Down is the browser's next tab
});
