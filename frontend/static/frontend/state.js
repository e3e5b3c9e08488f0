// Editing state of one alignment grid, independent of the DOM (see docs/architecture.md).
//
// Cells are source × target (rows i, columns j) stored as EMPTY / SURE / POSSIBLE codes.
// Every edit is a list of cell changes [index, before, after]; undo/redo replay them, so
// history is unlimited within the pair. Listeners receive exactly the changed cell indices,
// which lets the renderer repaint those cells only.
//
// `touched` holds the cells the annotator has looked at: changed, or confirmed by setting a link
// to the state it already had (pressing s on a prefilled sure link). A prefilled link outside
// it is still "automatic prefill, not yet checked". Confirming is not an undoable step: like a
// change that was undone, a link once checked stays checked (the server keeps it so too).

export const EMPTY = 0;
export const SURE = 1;
export const POSSIBLE = 2;
const CYCLE = { [EMPTY]: SURE, [SURE]: POSSIBLE, [POSSIBLE]: EMPTY };
const CODE = { S: SURE, P: POSSIBLE };

export class GridModel {
  constructor(nSource, nTarget, links = []) {
    if (!(nSource > 0 && nTarget > 0)) throw new Error(`bad grid size ${nSource}×${nTarget}`);
    this.n = nSource;
    this.m = nTarget;
    this.cells = new Uint8Array(nSource * nTarget);
    for (const [i, j, kind] of links) this.cells[this.index(i, j)] = CODE[kind];
    this.cursor = { i: 0, j: 0 };
    this.anchor = null; // selection corner opposite the cursor, or null for no selection
    this.undoStack = [];
    this.redoStack = [];
    this.revision = 0; // bumps on every change (save queue dirtiness)
    this.touched = new Set(); // cells the user has changed (prefill shading stops there)
    this.readOnly = false;
    this.listeners = { cells: [], touched: [], cursor: [], history: [], refused: [], edited: [] };
  }

  // --- queries ---------------------------------------------------------------------------
  index(i, j) {
    if (!(i >= 0 && i < this.n && j >= 0 && j < this.m)) {
      throw new RangeError(`cell ${i}-${j} outside the ${this.n}×${this.m} grid`);
    }
    return i * this.m + j;
  }
  get(i, j) {
    return this.cells[this.index(i, j)];
  }
  links() {
    const out = [];
    for (let k = 0; k < this.cells.length; k++) {
      const code = this.cells[k];
      if (code !== EMPTY) out.push([Math.floor(k / this.m), k % this.m, code === SURE ? "S" : "P"]);
    }
    return out;
  }
  selection() {
    const a = this.anchor || this.cursor;
    return {
      i0: Math.min(a.i, this.cursor.i),
      i1: Math.max(a.i, this.cursor.i),
      j0: Math.min(a.j, this.cursor.j),
      j1: Math.max(a.j, this.cursor.j),
    };
  }
  inSelection(i, j) {
    if (!this.anchor) return false;
    const s = this.selection();
    return i >= s.i0 && i <= s.i1 && j >= s.j0 && j <= s.j1;
  }
  canUndo() {
    return this.undoStack.length > 0;
  }
  canRedo() {
    return this.redoStack.length > 0;
  }

  // --- events ----------------------------------------------------------------------------
  on(kind, callback) {
    this.listeners[kind].push(callback);
  }
  emit(kind, ...args) {
    for (const callback of this.listeners[kind]) callback(...args);
  }

  // --- edits -----------------------------------------------------------------------------
  // Apply {index: code} as one undoable step; returns the number of cells that changed.
  // Links set to the state they already had are confirmed (see `touched`).
  commit(targets, label = "edit") {
    if (this.readOnly) return this.refuse(0);
    // Every cell an edit set, changed or not: "x" on an empty cell is a decision too (the
    // adjudication page counts the ties decided by hand).
    this.emit("edited", { cells: targets.map(([key]) => key), label, via: "edit" });
    const changes = [];
    const confirmed = [];
    for (const [key, after] of targets) {
      const before = this.cells[key];
      if (before !== after) changes.push([key, before, after]);
      else if (after !== EMPTY && !this.touched.has(key)) confirmed.push(key);
    }
    if (confirmed.length) this.confirm(confirmed);
    if (!changes.length) return 0;
    this.apply(changes, "after");
    this.undoStack.push({ label, changes, cursor: { ...this.cursor } });
    this.redoStack.length = 0;
    this.emit("history");
    return changes.length;
  }
  apply(changes, side) {
    const indices = [];
    for (const [key, before, after] of changes) {
      this.cells[key] = side === "after" ? after : before;
      this.touched.add(key);
      indices.push(key);
    }
    this.revision += 1;
    this.emit("cells", indices);
  }
  // Mark links as checked without changing them. Listeners of "touched" (the renderer, the
  // workspace's save queue) get the cell indices; "cells" stays for changes of links only.
  confirm(indices) {
    for (const key of indices) this.touched.add(key);
    this.emit("touched", indices);
  }
  // Cells given as [i, j] that were checked elsewhere (an earlier visit, another tab).
  markTouched(cells) {
    const fresh = [];
    for (const [i, j] of cells) {
      const key = this.index(i, j);
      if (!this.touched.has(key)) fresh.push(key);
    }
    if (fresh.length) this.confirm(fresh);
    return fresh.length;
  }
  set(i, j, code) {
    return this.commit([[this.index(i, j), code]]);
  }
  cycle(i, j) {
    const key = this.index(i, j);
    return this.commit([[key, CYCLE[this.cells[key]]]], "cycle");
  }
  setBlock(code) {
    const s = this.selection();
    const targets = [];
    for (let i = s.i0; i <= s.i1; i++) {
      for (let j = s.j0; j <= s.j1; j++) targets.push([i * this.m + j, code]);
    }
    return this.commit(targets, "block");
  }
  replaceAll(links, label = "replace") {
    const next = new Uint8Array(this.cells.length);
    for (const [i, j, kind] of links) next[this.index(i, j)] = CODE[kind];
    // Only the cells that change: a link both sides have is not thereby checked (`touched`).
    const targets = [];
    for (let k = 0; k < next.length; k++) if (next[k] !== this.cells[k]) targets.push([k, next[k]]);
    return this.commit(targets, label);
  }
  // Replace the state without history (loading the server's or a stored copy).
  load(links) {
    const indices = [];
    const next = new Uint8Array(this.cells.length);
    for (const [i, j, kind] of links) next[this.index(i, j)] = CODE[kind];
    for (let k = 0; k < next.length; k++) {
      if (next[k] !== this.cells[k]) indices.push(k);
    }
    this.cells = next;
    this.revision += 1;
    this.emit("cells", indices);
  }
  // An edit asked of a read-only grid: listeners of "refused" (the page) say why nothing changed.
  refuse(result) {
    this.emit("refused");
    return result;
  }
  // Forget every undo and redo step (the state they would bring back was removed on purpose).
  forgetHistory() {
    this.undoStack = [];
    this.redoStack = [];
    this.emit("history");
  }
  // Undo and redo are edits too: on a read-only grid (a submitted pair) they would change what
  // the page shows while the server, refusing the save, keeps the submitted links.
  undo() {
    if (this.readOnly) return this.refuse(false);
    const step = this.undoStack.pop();
    if (!step) return false;
    this.apply(step.changes, "before");
    this.emit("edited", { cells: step.changes.map(([key]) => key), label: step.label, via: "undo" });
    this.redoStack.push(step);
    this.moveTo(step.cursor.i, step.cursor.j);
    this.emit("history");
    return true;
  }
  redo() {
    if (this.readOnly) return this.refuse(false);
    const step = this.redoStack.pop();
    if (!step) return false;
    this.apply(step.changes, "after");
    this.emit("edited", { cells: step.changes.map(([key]) => key), label: step.label, via: "redo" });
    this.undoStack.push(step);
    this.moveTo(step.cursor.i, step.cursor.j); // back where the change was made, as undo does
    this.emit("history");
    return true;
  }

  // --- cursor and selection ----------------------------------------------------------------
  moveTo(i, j, extend = false) {
    const previous = { cursor: { ...this.cursor }, anchor: this.anchor && { ...this.anchor } };
    const ci = Math.max(0, Math.min(this.n - 1, i));
    const cj = Math.max(0, Math.min(this.m - 1, j));
    if (extend && !this.anchor) this.anchor = { ...this.cursor };
    if (!extend) this.anchor = null;
    this.cursor = { i: ci, j: cj };
    this.emit("cursor", previous);
  }
  move(di, dj, extend = false) {
    this.moveTo(this.cursor.i + di, this.cursor.j + dj, extend);
  }
  selectRect(i0, j0, i1, j1) {
    const previous = { cursor: { ...this.cursor }, anchor: this.anchor && { ...this.anchor } };
    this.anchor = { i: i0, j: j0 };
    this.cursor = { i: i1, j: j1 };
    this.emit("cursor", previous);
  }
  clearSelection() {
    if (this.anchor) this.moveTo(this.cursor.i, this.cursor.j);
  }
}

export function sameLinks(a, b) {
  if (a.length !== b.length) return false;
  const key = (l) => `${l[0]}-${l[1]}-${l[2]}`;
  const set = new Set(a.map(key));
  return b.every((l) => set.has(key(l)));
}

export function diffCount(a, b) {
  const map = (links) => new Map(links.map((l) => [`${l[0]}-${l[1]}`, l[2]]));
  const ma = map(a);
  const mb = map(b);
  let count = 0;
  for (const [k, v] of ma) if (mb.get(k) !== v) count++;
  for (const k of mb.keys()) if (!ma.has(k)) count++;
  return count;
}

// The checked links that still equal the prefill: what a save must tell the server so that a
// reviewed prefill link is not shown as unchecked on the next visit (a changed cell the server
// knows from the change itself). `prefill` maps a cell index to {code}. Sorted [i, j] pairs.
export function reviewedPrefill(model, prefill) {
  const out = [];
  for (const key of model.touched) {
    const code = model.cells[key];
    const pf = prefill && prefill.get(key);
    if (code !== EMPTY && pf && pf.code === code) out.push(key);
  }
  return out.sort((a, b) => a - b).map((key) => [Math.floor(key / model.m), key % model.m]);
}

// Three-way merge of two alignments edited from a common version (as in diff3): `base` is the
// state both started from, `theirs` the server's current state, `mine` the local one, each a
// list of [i, j, "S"|"P"]. Each cell is empty, sure or possible. A cell changed on one side only
// takes that side's state; a cell changed on both sides to different states is a conflict,
// settled for mine (the annotator at this screen sees the result and can change it), and
// reported. Returns {links (sorted), conflicts: [[i, j, theirs, mine]], fromTheirs, fromMine}
// where the counts are cells taken from that side's changes ("" stands for empty).
export function mergeLinks(base, theirs, mine) {
  const states = (links) => new Map(links.map(([i, j, kind]) => [`${i}-${j}`, kind]));
  const b = states(base);
  const t = states(theirs);
  const m = states(mine);
  const keys = new Set([...b.keys(), ...t.keys(), ...m.keys()]);
  const links = [];
  const conflicts = [];
  let fromTheirs = 0;
  let fromMine = 0;
  for (const key of keys) {
    const [i, j] = key.split("-").map(Number);
    const kb = b.get(key) || "";
    const kt = t.get(key) || "";
    const km = m.get(key) || "";
    let kind = km;
    if (kt === km) kind = km;
    else if (kt === kb) fromMine += 1;
    else if (km === kb) {
      kind = kt;
      fromTheirs += 1;
    } else conflicts.push([i, j, kt, km]);
    if (kind) links.push([i, j, kind]);
  }
  const order = (x, y) => x[0] - y[0] || x[1] - y[1];
  links.sort(order);
  conflicts.sort(order);
  return { links, conflicts, fromTheirs, fromMine };
}
