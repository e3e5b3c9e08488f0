// The keyboard map shared by the workspace and the adjudication page.
import { EMPTY, POSSIBLE, SURE } from "./state.js";

const JUMP_KEYS = new Set(["Home", "End", "PageUp", "PageDown"]);
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// A field that takes the keys itself; a tick box (such as a layer's) takes only Space.
function typingInto(target) {
  if (!target) return false;
  if (target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName)) return true;
  return target.tagName === "INPUT" && !isCheckbox(target);
}

function isCheckbox(target) {
  return target.tagName === "INPUT" && target.type === "checkbox";
}

// The key as meant. With Caps Lock on, the browser reports "A" for a and "a" for Shift+A, so a
// letter's case is turned back: Caps Lock must not make a (one cell) into Shift+A (the whole
// pair), nor make the letter keys do nothing.
export function keyOf(event) {
  const key = event.key;
  if (key.length !== 1 || !(event.getModifierState && event.getModifierState("CapsLock"))) return key;
  const lower = key.toLowerCase();
  if (lower === key.toUpperCase()) return key;
  return key === lower ? key.toUpperCase() : lower;
}

// Where Home, End, Page Up and Page Down take the cursor on a grid too large to cross with the
// arrows, in display space: `at` is the cursor's [row, column], `size` the grid's [rows,
// columns], `page` the rows its box shows. Home and End stay in the row (with Ctrl: the first
// and last cell), the page keys in the column. Null for any other key, and for Ctrl with a page
// key (the browser's switch to another tab).
export function jumpTarget(key, ctrl, { at, size, page }) {
  const [row, col] = at;
  const [rows, cols] = size;
  if (key === "Home") return ctrl ? [0, 0] : [row, 0];
  if (key === "End") return ctrl ? [rows - 1, cols - 1] : [row, cols - 1];
  if (ctrl || (key !== "PageUp" && key !== "PageDown")) return null;
  const step = Math.max(1, page) * (key === "PageUp" ? -1 : 1);
  return [Math.max(0, Math.min(rows - 1, row + step)), col];
}

// A closed dialog gives the focus back to what had it when it opened, which is a toolbar
// button when it was clicked there: Space and Enter would then press that button again (the
// key map opened once more) instead of driving the grid. With `returnTo` (the grid) the focus
// goes there instead, unless the page has put it somewhere else meanwhile (the trial feedback's
// Next pair).
export function openDialog(dialog, returnTo = null) {
  if (dialog.open) return;
  const opener = document.activeElement;
  dialog.showModal();
  if (!returnTo) return;
  dialog.addEventListener(
    "close",
    () => {
      const now = document.activeElement;
      if (now === null || now === opener || now === document.body) returnTo.focus({ preventScroll: true });
    },
    { once: true },
  );
}

export function bindKeys({ model, view, actions = {} }) {
  document.addEventListener("keydown", (event) => {
    if (typingInto(event.target) || document.querySelector("dialog[open]")) return;
    const onControl = event.target && (/^(BUTTON|A)$/.test(event.target.tagName) || isCheckbox(event.target));
    const key = keyOf(event);
    const ctrl = event.ctrlKey || event.metaKey;
    let handled = true;
    // Measured only for a jump key: reading the layout on every key would cost each arrow.
    const jump = JUMP_KEYS.has(key) && !event.altKey && jumpTarget(key, ctrl, view.displayPlace());
    if (ARROWS[key] && !ctrl) {
      const [dRow, dCol] = ARROWS[key];
      const [di, dj] = view.step(dRow, dCol);
      model.move(di, dj, event.shiftKey);
    } else if (jump) {
      const [i, j] = view.toModel(jump[0], jump[1]);
      model.moveTo(i, j, event.shiftKey);
    } else if (ctrl && key.toLowerCase() === "z") {
      if (event.shiftKey) model.redo();
      else model.undo();
    } else if (ctrl && key.toLowerCase() === "y") {
      model.redo();
    } else if (ctrl && key.toLowerCase() === "s" && actions.save) {
      actions.save();
    } else if (ctrl || event.altKey) {
      handled = false;
    } else if (key === "s") {
      model.setBlock(SURE);
    } else if (key === "p") {
      model.setBlock(POSSIBLE);
    } else if (key === "x" || key === "Delete" || key === "Backspace") {
      model.setBlock(EMPTY);
    } else if (key === " " && !onControl) {
      model.cycle(model.cursor.i, model.cursor.j);
    } else if (key === "Escape") {
      model.clearSelection();
    } else if (key === "+" || key === "=") {
      view.zoomBy(1);
    } else if (key === "-" || key === "_") {
      view.zoomBy(-1);
    } else if (key === "t") {
      view.transpose();
    } else if (key === "Enter" && onControl) {
      handled = false;
    } else if (actions[key]) {
      actions[key]();
    } else {
      handled = false;
    }
    if (handled) event.preventDefault();
  });
}

// Toolbar buttons (data-action): the grid's own actions, as on the keyboard, plus the page's.
export function bindToolbar(root, { model, view, actions = {} }) {
  // The grid's own buttons hand the focus back to the grid once pressed, so that the next key
  // (Enter to submit, Space, an arrow) goes to the grid, not to the button again.
  const onGrid = {
    sure: () => model.setBlock(SURE),
    possible: () => model.setBlock(POSSIBLE),
    clear: () => model.setBlock(EMPTY),
    undo: () => model.undo(),
    redo: () => model.redo(),
    "zoom-in": () => view.zoomBy(1),
    "zoom-out": () => view.zoomBy(-1),
    transpose: () => view.transpose(),
  };
  root.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const action = button.dataset.action;
    if (actions[action]) {
      actions[action]();
    } else if (onGrid[action]) {
      onGrid[action]();
      view.wrap.focus({ preventScroll: true });
    }
  });
}

// Buttons that hide their own box (the conflict banner, the merge note): once one is pressed
// the focus goes back to `target` (the grid) instead of being lost with the box, so it stays
// visible and the keys go on from the same place.
export function refocusAfter(target, ...boxes) {
  for (const box of boxes) {
    box.addEventListener("click", (event) => {
      if (event.target.closest("button") && box.hidden) target.focus({ preventScroll: true });
    });
  }
}
