// Editing state of one alignment grid, independent of the DOM (see docs/architecture.md).
//
// Cells are source × target (rows i, columns j) stored as EMPTY / SURE / POSSIBLE codes.
// Every edit is a list of cell changes [index, before, after]; undo/redo replay them, so
// history is unlimited within the pair. Listeners receive exactly the changed cell indices,
// which lets the renderer repaint those cells only.

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
    this.listeners = { cells: [], cursor: [], history: [] };
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
  commit(targets, label = "edit") {
    if (this.readOnly) return 0;
    const changes = [];
    for (const [key, after] of targets) {
      const before = this.cells[key];
      if (before !== after) changes.push([key, before, after]);
    }
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
    const targets = [];
    for (let k = 0; k < next.length; k++) targets.push([k, next[k]]);
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
  undo() {
    const step = this.undoStack.pop();
    if (!step) return false;
    this.apply(step.changes, "before");
    this.redoStack.push(step);
    this.moveTo(step.cursor.i, step.cursor.j);
    this.emit("history");
    return true;
  }
  redo() {
    const step = this.redoStack.pop();
    if (!step) return false;
    this.apply(step.changes, "after");
    this.undoStack.push(step);
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
