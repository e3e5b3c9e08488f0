// DOM rendering of a GridModel: built once, then repainted cell by cell (see docs/architecture.md).
//
// The model is always source × target; `transposed` only swaps how it is laid out.
// `decorate(index)` lets a page add overlay classes/attributes (trial diff, agreement), and
// `overlay(index)` static markup inside a cell (the adjudication page's annotator marks).

import { EMPTY, SURE } from "./state.js";

const ZOOM = [14, 18, 22, 26, 32, 40];
const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// No style attribute in the markup: the Content-Security-Policy refuses inline styles, so a
// prefill's confidence is set through the CSSOM once the cells exist (see render()).
function cellMarkup({ cls, agree, title }, inner = "") {
  let attrs = cls ? ` class="${cls}"` : "";
  if (agree !== undefined) attrs += ` data-agree="${escapeHtml(agree)}"`;
  if (title) attrs += ` title="${escapeHtml(title)}"`;
  return `<td${attrs}>${inner}</td>`;
}

export class GridView {
  constructor({ model, table, wrap, source, target, prefill = null, decorate = null, overlay = null, info = null, sentences = null }) {
    this.model = model;
    this.table = table;
    this.wrap = wrap;
    this.source = source;
    this.target = target;
    this.prefill = prefill; // Map index -> {code, confidence}
    this.decorate = decorate;
    this.overlay = overlay; // index -> markup inside the cell, drawn by render() only
    this.info = info;
    this.sentences = sentences; // {src: [span...], tgt: [span...]}
    this.transposed = false;
    // Long sentences start smaller so more of the grid fits; zoom changes it.
    const longest = Math.max(source.length, target.length);
    this.zoom = longest > 60 ? 1 : longest > 35 ? 2 : 3;
    this.cellEls = [];
    // The cursor is one box over the grid, moved to the cursor's cell, not a style of the cell:
    // a cell that changes its outline or positioning makes the browser lay out and repaint the
    // whole table (about 75 ms per arrow key at 150×140), the box only itself.
    this.cursorBox = document.createElement("div");
    this.cursorBox.className = "grid-cursor";
    this.cursorBox.setAttribute("aria-hidden", "true");
    this.pinned = null;
    this.hover = null;
    model.on("cells", (indices) => this.paintMany(indices));
    model.on("touched", (indices) => this.paintMany(indices));
    model.on("cursor", (previous) => this.cursorMoved(previous));
    this.bindMouse();
    this.keepCursorInViewOnResize();
    this.wrap.addEventListener("focus", () => this.showBox());
  }

  // Bring the grid's box wholly into the window when it is not (a short window, as at 200 %
  // zoom, where the page scrolls and the box starts below its edge): the arrow keys that would
  // scroll the page move the cursor, so a keyboard user could not reach the grid otherwise.
  showBox() {
    const box = this.wrap.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) this.wrap.scrollIntoView({ block: "nearest" });
  }

  // The grid's box shrinks when a notice or the conflict banner opens above it (the page is
  // as tall as the window): a cursor that was in view stays in view, instead of being left
  // below the box's new bottom where the annotator can no longer see the cell the keys change.
  // A cursor the annotator had scrolled away from is left where it is.
  keepCursorInViewOnResize() {
    if (typeof ResizeObserver === "undefined") return;
    let size = null; // the box's inner size when last observed
    new ResizeObserver(() => {
      const now = { width: this.wrap.clientWidth, height: this.wrap.clientHeight };
      const before = size;
      size = now;
      if (before === null || (now.width >= before.width && now.height >= before.height)) return;
      if (this.cursorInView(before)) this.scrollToCursor();
    }).observe(this.wrap);
  }

  // Whether the cursor's cell lies wholly in the box of `size` at the box's current scroll,
  // clear of the sticky headers.
  cursorInView(size) {
    const td = this.cellEls[this.model.cursor.i * this.model.m + this.model.cursor.j];
    if (!td || !this.rowHeads || !this.rowHeads.length) return false;
    const [left, top] = this.offsetInWrap(td);
    const headH = this.table.tHead.offsetHeight;
    const headW = this.rowHeads[0].offsetWidth;
    const { scrollTop, scrollLeft } = this.wrap;
    return (
      top - headH >= scrollTop &&
      top + td.offsetHeight <= scrollTop + size.height &&
      left - headW >= scrollLeft &&
      left + td.offsetWidth <= scrollLeft + size.width
    );
  }

  // model (i, j) <-> display (row, col)
  toDisplay(i, j) {
    return this.transposed ? [j, i] : [i, j];
  }
  toModel(row, col) {
    return this.transposed ? [col, row] : [row, col];
  }

  render() {
    const t0 = performance.now();
    const { n, m } = this.model;
    const rows = this.transposed ? this.target : this.source;
    const cols = this.transposed ? this.source : this.target;
    const rowName = this.transposed ? "target" : "source";
    const colName = this.transposed ? "source" : "target";
    const parts = ['<thead><tr><th class="corner" scope="col"><span class="visually-hidden">',
      `${rowName} \\ ${colName}</span></th>`];
    cols.forEach((word, c) => {
      parts.push(`<th scope="col" data-col="${c}" title="${colName} word ${c + 1}: ${escapeHtml(word)}"><span>${escapeHtml(word)}</span></th>`);
    });
    parts.push("</tr></thead><tbody>");
    // Each cell's state goes into the markup, so the browser styles the table once instead of
    // after 6,400 className writes at 80×80 (the first render was 70–120 ms that way).
    this.pinned = null;
    const confident = [];
    rows.forEach((word, r) => {
      parts.push(`<tr><th scope="row" data-row="${r}" title="${rowName} word ${r + 1}: ${escapeHtml(word)}">${escapeHtml(word)}</th>`);
      for (let c = 0; c < cols.length; c++) {
        const [i, j] = this.toModel(r, c);
        const state = this.cellState(i * m + j);
        if (state.conf !== null) confident.push([i * m + j, state.conf]);
        parts.push(cellMarkup(state, this.overlay ? this.overlay(i * m + j) : ""));
      }
      parts.push("</tr>");
    });
    parts.push("</tbody>");
    this.table.innerHTML = parts.join("");
    this.cellEls = new Array(n * m);
    const trs = this.table.tBodies[0].rows;
    for (let r = 0; r < trs.length; r++) {
      const tds = trs[r].cells;
      for (let c = 1; c < tds.length; c++) {
        const [i, j] = this.toModel(r, c - 1);
        this.cellEls[i * m + j] = tds[c];
      }
    }
    for (const [k, conf] of confident) this.cellEls[k].style.setProperty("--conf", conf);
    this.colHeads = Array.from(this.table.tHead.rows[0].cells).slice(1);
    this.rowHeads = Array.from(trs, (tr) => tr.cells[0]);
    if (this.cursorBox.nextElementSibling !== this.table) this.table.before(this.cursorBox);
    this.applyZoom();
    this.lastRender = performance.now() - t0;
    return this.lastRender;
  }

  // What cell k shows: its class list and, for overlays, confidence, agreement and title.
  cellState(k) {
    const { model } = this;
    const i = Math.floor(k / model.m);
    const j = k % model.m;
    const code = model.cells[k];
    let cls = code === EMPTY ? "" : code === SURE ? "s" : "p";
    let conf = null;
    const pf = this.prefill && this.prefill.get(k);
    if (pf && code !== EMPTY && !model.touched.has(k) && pf.code === code) {
      cls += " pf";
      conf = pf.confidence == null ? 1 : pf.confidence;
    }
    if (model.cursor.i === i && model.cursor.j === j) cls += " cur";
    if (model.inSelection(i, j)) cls += " sel";
    if (this.pinned) {
      const [row, col] = this.toDisplay(i, j);
      if (this.pinned.kind === "row" && this.pinned.at === row) cls += " rowhl";
      if (this.pinned.kind === "col" && this.pinned.at === col) cls += " colhl";
    }
    let agree;
    let title;
    if (this.decorate) {
      const extra = this.decorate(k, i, j);
      if (extra) {
        if (extra.class) cls += ` ${extra.class}`;
        agree = extra.agree;
        title = extra.title;
      }
    }
    return { cls: cls.trim(), conf, agree, title };
  }

  paint(k) {
    const td = this.cellEls[k];
    if (!td) return;
    const { cls, conf, agree, title } = this.cellState(k);
    if (conf !== null) td.style.setProperty("--conf", conf);
    if (agree !== undefined) td.dataset.agree = agree;
    if (title) td.title = title;
    td.className = cls;
  }

  paintMany(indices) {
    for (const k of indices) this.paint(k);
    this.updateInfo();
  }

  repaintAll() {
    for (let k = 0; k < this.cellEls.length; k++) this.paint(k);
  }

  rectIndices(cursor, anchor) {
    if (!anchor) return [cursor.i * this.model.m + cursor.j];
    const out = [];
    const i0 = Math.min(cursor.i, anchor.i);
    const i1 = Math.max(cursor.i, anchor.i);
    const j0 = Math.min(cursor.j, anchor.j);
    const j1 = Math.max(cursor.j, anchor.j);
    for (let i = i0; i <= i1; i++) for (let j = j0; j <= j1; j++) out.push(i * this.model.m + j);
    return out;
  }

  cursorMoved(previous) {
    const before = this.rectIndices(previous.cursor, previous.anchor);
    const after = this.rectIndices(this.model.cursor, this.model.anchor);
    for (const k of new Set([...before, ...after])) this.paint(k);
    this.placeCursor();
    this.scrollToCursor();
    this.showBox();
    this.highlightWords(this.model.cursor.i, this.model.cursor.j);
    this.updateInfo();
  }

  // Move the cursor's box onto the cursor's cell (offsets read while the layout is current: a
  // cursor move changes no cell's geometry).
  placeCursor() {
    const td = this.cellEls[this.model.cursor.i * this.model.m + this.model.cursor.j];
    if (!td) return;
    const box = this.cursorBox.style;
    const width = `${td.offsetWidth}px`;
    const height = `${td.offsetHeight}px`;
    if (box.width !== width) box.width = width;
    if (box.height !== height) box.height = height;
    const [left, top] = this.offsetInWrap(td);
    box.transform = `translate(${left}px, ${top}px)`;
  }

  // A cell's place in the grid's scroll box: its offsets up the chain of offset parents (the
  // positioned row, the table) to the box.
  offsetInWrap(td) {
    let left = 0;
    let top = 0;
    for (let node = td; node && node !== this.wrap; node = node.offsetParent) {
      left += node.offsetLeft;
      top += node.offsetTop;
    }
    return [left, top];
  }

  // Keep the cursor visible inside the grid's own scroll box (not the page), clear of the
  // sticky headers.
  scrollToCursor() {
    const td = this.cellEls[this.model.cursor.i * this.model.m + this.model.cursor.j];
    if (!td || !this.rowHeads.length) return;
    const wrap = this.wrap;
    const headH = this.table.tHead.offsetHeight;
    const headW = this.rowHeads[0].offsetWidth;
    const [left, top] = this.offsetInWrap(td);
    if (top - headH < wrap.scrollTop) wrap.scrollTop = top - headH;
    else if (top + td.offsetHeight > wrap.scrollTop + wrap.clientHeight) {
      wrap.scrollTop = top + td.offsetHeight - wrap.clientHeight;
    }
    if (left - headW < wrap.scrollLeft) wrap.scrollLeft = left - headW;
    else if (left + td.offsetWidth > wrap.scrollLeft + wrap.clientWidth) {
      wrap.scrollLeft = left + td.offsetWidth - wrap.clientWidth;
    }
  }

  updateInfo() {
    if (!this.info) return;
    const { i, j } = this.model.cursor;
    const code = this.model.get(i, j);
    let state = code === EMPTY ? "empty" : code === SURE ? "sure" : "possible";
    const k = i * this.model.m + j;
    const pf = this.prefill && this.prefill.get(k);
    if (pf && code !== EMPTY && pf.code === code) {
      state += this.model.touched.has(k) ? " (prefill, checked)" : " (automatic prefill, not yet checked: s or p checks it)";
    }
    const s = this.model.selection();
    const block = this.model.anchor ? ` · block ${s.i1 - s.i0 + 1}×${s.j1 - s.j0 + 1} selected` : "";
    const extra = this.decorate ? this.decorate(k, i, j) : null;
    const note = extra && extra.title ? ` · ${extra.title}` : "";
    // Positions are shown 1-based, as people count words; the model and the files stay 0-based.
    const text = `Source word ${i + 1} “${this.source[i]}” × target word ${j + 1} “${this.target[j]}”: ${state}${block}${note}`;
    // A new text in the same text node: replacing the node (textContent) restyles more of the
    // page, about 2 ms of every arrow key.
    const node = this.info.firstChild;
    if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) node.data = text;
    else this.info.textContent = text;
  }

  // Hovering (or the cursor on) a cell highlights its words, their links and its headers.
  highlightWords(i, j) {
    if (this.hover) {
      for (const node of this.hover) node.classList.remove("hl");
    }
    const nodes = [];
    const [row, col] = this.toDisplay(i, j);
    if (this.rowHeads[row]) nodes.push(this.rowHeads[row]);
    if (this.colHeads[col]) nodes.push(this.colHeads[col]);
    if (this.sentences) {
      for (const word of [this.sentences.src[i], this.sentences.tgt[j]]) {
        if (!word) continue;
        keepInView(word);
        nodes.push(word);
      }
    }
    for (const node of nodes) node.classList.add("hl");
    this.hover = nodes;
  }

  // A word in a sentence: highlight the words it is linked to.
  linkedWords(side, index) {
    const out = [];
    const { n, m } = this.model;
    if (side === "src") {
      for (let j = 0; j < m; j++) if (this.model.cells[index * m + j] !== EMPTY) out.push(j);
    } else {
      for (let i = 0; i < n; i++) if (this.model.cells[i * m + index] !== EMPTY) out.push(i);
    }
    return out;
  }

  pin(kind, at) {
    const same = this.pinned && this.pinned.kind === kind && this.pinned.at === at;
    const old = this.pinned;
    this.pinned = same ? null : { kind, at };
    for (const th of [...this.rowHeads, ...this.colHeads]) th.classList.remove("pinned");
    if (this.pinned) (kind === "row" ? this.rowHeads : this.colHeads)[at].classList.add("pinned");
    const touched = new Set();
    for (const p of [old, this.pinned]) {
      if (!p) continue;
      const count = p.kind === "row" ? this.colHeads.length : this.rowHeads.length;
      for (let x = 0; x < count; x++) {
        const [i, j] = p.kind === "row" ? this.toModel(p.at, x) : this.toModel(x, p.at);
        touched.add(i * this.model.m + j);
      }
    }
    for (const k of touched) this.paint(k);
  }

  cellAt(target) {
    const td = target.closest && target.closest("td");
    if (!td || !this.table.contains(td)) return null;
    const row = td.parentElement.sectionRowIndex;
    const col = td.cellIndex - 1;
    return this.toModel(row, col);
  }

  bindMouse() {
    let start = null;
    let dragged = false;
    this.table.addEventListener("mousedown", (event) => {
      if (event.button !== 0) return;
      const th = event.target.closest("th");
      const head = th && (th.dataset.row !== undefined ? "row" : th.dataset.col !== undefined ? "col" : null);
      if (head) {
        this.wrap.focus({ preventScroll: true }); // the keys go on working on the grid
        return this.pin(head, Number(head === "row" ? th.dataset.row : th.dataset.col));
      }
      const cell = this.cellAt(event.target);
      if (!cell) return;
      event.preventDefault();
      this.wrap.focus({ preventScroll: true });
      if (event.shiftKey) {
        this.model.moveTo(cell[0], cell[1], true);
        start = null;
        return;
      }
      start = cell;
      dragged = false;
      this.model.moveTo(cell[0], cell[1]);
    });
    this.table.addEventListener("mouseover", (event) => {
      const cell = this.cellAt(event.target);
      if (!cell) return;
      this.highlightWords(cell[0], cell[1]);
      if (start && event.buttons & 1 && (cell[0] !== start[0] || cell[1] !== start[1])) {
        dragged = true;
        this.model.selectRect(start[0], start[1], cell[0], cell[1]);
      }
    });
    window.addEventListener("mouseup", (event) => {
      if (!start) return;
      const cell = this.cellAt(event.target);
      if (!dragged && cell && cell[0] === start[0] && cell[1] === start[1]) {
        this.model.cycle(cell[0], cell[1]);
      }
      start = null;
    });
  }

  // The table's measures at a zoom level: cell, font, row-header width, whole width and height.
  sizes(zoom) {
    const cell = ZOOM[zoom];
    const font = Math.max(10, Math.min(14, cell * 0.5));
    const rows = this.transposed ? this.target : this.source;
    const cols = this.transposed ? this.source : this.target;
    const longest = rows.reduce((max, word) => Math.max(max, String(word).length), 1);
    const text = Math.min(12 * font, Math.max(2 * font, 0.62 * longest * font));
    const head = Math.round(text + 20); // + the header's horizontal padding
    // The column headers are 7.5em tall (app.css); every cell has a 1 px border.
    return { cell, font, head, width: head + 1 + cols.length * (cell + 1), height: Math.ceil(7.5 * font) + 1 + rows.length * (cell + 1) };
  }

  // Source words on the rows, unless the grid does not fit `width` × `height` px at the zoom
  // chosen from the sentence lengths and the target on the rows shows more of it: a long
  // sentence against a short one then runs along the wider side. Called before the first render.
  chooseOrientation(width, height) {
    const shown = () => {
      const s = this.sizes(this.zoom);
      return Math.min(1, width / s.width) * Math.min(1, height / s.height);
    };
    const asIs = shown();
    if (asIs >= 0.999) return;
    this.transposed = !this.transposed;
    if (shown() <= asIs + 0.01) this.transposed = !this.transposed;
  }

  // The largest zoom at which the whole table fits `width` × `height` px, if it is larger than
  // the one chosen from the sentence lengths (a grid that cannot fit scrolls at that size).
  fitZoom(width, height) {
    for (let z = ZOOM.length - 1; z > this.zoom; z--) {
      const s = this.sizes(z);
      if (s.width <= width && s.height <= height) {
        this.zoom = z;
        return;
      }
    }
  }

  // Fixed table layout with explicit widths: a toggled cell then never makes the browser
  // re-measure every column of an 80×80 table (auto table layout is O(cells) per change).
  applyZoom() {
    const { cell, font, head, width } = this.sizes(this.zoom);
    this.wrap.style.setProperty("--cell", `${cell}px`);
    this.wrap.style.setProperty("--head", `${head}px`);
    this.table.style.fontSize = `${font}px`;
    this.table.style.width = `${width}px`;
    this.placeCursor();
  }
  // Both move every cell: the cursor's cell is scrolled back into view (on a long pair it was
  // left far outside the box, and the annotator's place with it).
  zoomBy(step) {
    this.zoom = Math.max(0, Math.min(ZOOM.length - 1, this.zoom + step));
    this.applyZoom();
    this.scrollToCursor();
  }
  transpose() {
    this.transposed = !this.transposed;
    this.render();
    this.scrollToCursor();
    this.highlightWords(this.model.cursor.i, this.model.cursor.j); // the headers are new
  }

  // The cursor's place for the jump keys (keys.js jumpTarget), in display space: its [row,
  // column], the grid's [rows, columns] and the rows the box shows below the column headers.
  displayPlace() {
    const { n, m, cursor } = this.model;
    const td = this.cellEls[cursor.i * m + cursor.j];
    const rowHeight = td ? td.offsetHeight : 0;
    const shown = this.table.tHead ? this.wrap.clientHeight - this.table.tHead.offsetHeight : 0;
    return {
      at: this.toDisplay(cursor.i, cursor.j),
      size: this.transposed ? [m, n] : [n, m],
      page: rowHeight > 0 ? Math.floor(shown / rowHeight) - 1 : 1,
    };
  }

  // Arrow keys move in display space; convert to a model step.
  step(dRow, dCol) {
    return this.transposed ? [dCol, dRow] : [dRow, dCol];
  }
}

// Sentence lines above the grid; hovering a word highlights its linked words.
// Scroll a word's sentence (a box of a few lines, app.css) so that the word shows, without
// scrolling the page; a sentence that fits is left alone.
function keepInView(word) {
  const box = word.parentElement;
  if (!box || box.scrollHeight <= box.clientHeight) return;
  const top = word.offsetTop;
  const bottom = top + word.offsetHeight;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
}

export function renderSentences(view, srcLine, tgtLine) {
  const spans = { src: [], tgt: [] };
  for (const [side, line, words] of [["src", srcLine, view.source], ["tgt", tgtLine, view.target]]) {
    words.forEach((word, index) => {
      const span = document.createElement("span");
      span.className = "tok";
      span.textContent = word;
      span.dataset.index = index;
      // The word's row (or column) header lights up too, and so do the words it is linked to.
      const header = () => {
        const onRows = (side === "src") !== view.transposed;
        return (onRows ? view.rowHeads : view.colHeads)[index];
      };
      span.addEventListener("mouseenter", () => {
        const other = side === "src" ? spans.tgt : spans.src;
        span.classList.add("hl");
        header()?.classList.add("hl");
        for (const k of view.linkedWords(side, index)) other[k].classList.add("hl");
      });
      span.addEventListener("mouseleave", () => {
        for (const s of [...spans.src, ...spans.tgt]) s.classList.remove("hl");
        header()?.classList.remove("hl");
      });
      line.append(span);
      spans[side].push(span);
    });
  }
  view.sentences = spans;
  return spans;
}
