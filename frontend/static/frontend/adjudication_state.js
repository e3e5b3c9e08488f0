// What the adjudication page shows beside the gold grid, independent of the DOM: each
// annotator's links as a layer, and the server's majority with its ties. The majority is the
// server's (the scoring rule's); nothing here counts votes to decide one. acceptPlan() turns
// "accept the majority here" into grid changes and says what they are.
import { EMPTY, POSSIBLE, SURE } from "./state.js";

const CODE = { S: SURE, P: POSSIBLE };
// Okabe & Ito's colour-blind safe palette (black last); each layer also has its own marker
// shape and place in the cell, so colour is never the only cue.
export const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000"];
export const SHAPES = ["circle", "square", "diamond", "triangle"];
export const LINK_TIE = "link";
export const KIND_TIE = "kind";

export class Overlay {
  // annotations: [{annotator, status, counted, links: [[i, j, "S"|"P"]]}] in layer order;
  // majority: {annotators, links, link_ties, kind_ties} from the server, or null.
  constructor({ n, m, annotations, majority }) {
    this.n = n;
    this.m = m;
    this.layers = annotations.map((a, index) => ({
      index,
      name: a.annotator,
      status: a.status,
      counted: Boolean(a.counted),
      sure: a.links.filter((l) => l[2] === "S").length,
      possible: a.links.filter((l) => l[2] === "P").length,
      colour: PALETTE[index % PALETTE.length],
      shape: SHAPES[index % SHAPES.length],
    }));
    this.votes = new Map(); // cell -> [[layer index, "S"|"P"], ...] in layer order
    annotations.forEach((a, index) => {
      for (const [i, j, kind] of a.links) {
        const k = i * m + j;
        if (!this.votes.has(k)) this.votes.set(k, []);
        this.votes.get(k).push([index, kind]);
      }
    });
    this.counted = majority ? majority.annotators.length : 0;
    this.majority = new Uint8Array(n * m);
    this.ties = new Map(); // cell -> LINK_TIE | KIND_TIE
    if (majority) {
      for (const [i, j, kind] of majority.links) this.majority[i * m + j] = CODE[kind];
      for (const [i, j] of majority.link_ties) this.ties.set(i * m + j, LINK_TIE);
      for (const [i, j] of majority.kind_ties) this.ties.set(i * m + j, KIND_TIE);
    }
  }

  majorityAt(k) {
    return this.majority[k];
  }
  tieAt(k) {
    return this.ties.get(k) || null;
  }
  votesAt(k) {
    return this.votes.get(k) || [];
  }
  marks(k) {
    const votes = this.votes.get(k);
    return votes ? marksMarkup(votes) : "";
  }

  // Who linked cell k and what the majority says of it, in words (the cursor line, a title).
  describe(k) {
    const votes = this.votesAt(k);
    const who = votes.map(([index, kind]) => `${this.layers[index].name} ${kind === "S" ? "sure" : "possible"}`);
    const parts = [who.length ? who.join(", ") : "no annotator linked it"];
    if (this.counted) {
      const counted = votes.filter(([index]) => this.layers[index].counted).length;
      const tie = this.tieAt(k);
      if (tie === LINK_TIE) parts.push(`tie: ${counted} of ${this.counted} linked it, yours to decide`);
      else if (tie === KIND_TIE) parts.push(`majority linked, tie on sure: half of ${this.counted} said sure`);
      else if (this.majority[k] !== EMPTY) parts.push(`majority: ${this.majority[k] === SURE ? "sure" : "possible"}`);
    }
    return parts.join(" · ");
  }

  // Accept the majority over `indices` of the gold `cells`: the grid changes ([index, code]) and
  // how many links they set, how many they remove, and how many ties stay for the adjudicator.
  // A link tie leaves the cell as it is; a kind tie links an empty cell as possible (as the
  // majority alignment does) and leaves a linked cell's kind alone; both count as ties. A tie in
  // `decided` (the adjudicator's, see TieTracker) keeps what the adjudicator set.
  acceptPlan(cells, indices, decided = null) {
    const targets = [];
    let set = 0;
    let removed = 0;
    let ties = 0;
    if (!this.counted) return { targets, set, removed, ties };
    for (const k of indices) {
      const tie = this.tieAt(k);
      let after = this.majority[k];
      if (tie) {
        ties += 1;
        if (tie === LINK_TIE || cells[k] !== EMPTY || decided?.has(k)) continue;
        after = POSSIBLE;
      }
      if (cells[k] === after) continue;
      targets.push([k, after]);
      if (after === EMPTY) removed += 1;
      else set += 1;
    }
    return { targets, set, removed, ties };
  }
}

// The label of the grid step an accept makes: accepting leaves a tie undecided.
export const ACCEPT_LABEL = "accept majority";

// Which of an overlay's ties the adjudicator has decided on this page. A tie is decided once its
// cell is set by hand (s, p, x, Space, a click, a block over it, a copied layer that changes it),
// whatever it is set to; accepting the majority decides none, and undoing every edit of a tie
// by hand makes it undecided again. Fed with the grid's "edited" events ({cells, label, via}).
export class TieTracker {
  constructor(overlay) {
    this.decided = new Set();
    this.edits = new Map(); // tie cell → edits by hand that still stand (undo takes one back)
    this.use(overlay);
  }
  // The ties of a new overlay (the annotators' work changed): decisions on cells still tied stay.
  use(overlay) {
    this.overlay = overlay;
    this.ties = [...overlay.ties.keys()].sort((a, b) => a - b); // reading order: row by row
    for (const k of this.decided) if (!overlay.tieAt(k)) this.decided.delete(k);
    for (const k of this.edits.keys()) if (!overlay.tieAt(k)) this.edits.delete(k);
  }
  // A cell stays decided while any edit of it by hand stands: undoing a later one (or one that
  // changed nothing, which leaves no undo step: "x" on an empty tie) leaves the earlier.
  record({ cells, label, via }) {
    if (label === ACCEPT_LABEL) return false;
    let changed = false;
    for (const k of cells) {
      if (!this.overlay.tieAt(k)) continue;
      const had = this.decided.has(k);
      const count = Math.max(0, (this.edits.get(k) || 0) + (via === "undo" ? -1 : 1));
      if (count) this.edits.set(k, count);
      else this.edits.delete(k);
      if (count) this.decided.add(k);
      else this.decided.delete(k);
      changed ||= had !== this.decided.has(k);
    }
    return changed;
  }
  forget() {
    this.decided.clear();
    this.edits.clear();
  }
  isDecided(k) {
    return this.decided.has(k);
  }
  // The undecided ties in reading order (`rank`: a cell's place in it, row by row of the grid
  // as shown); of `indices` only, when given.
  undecided(indices = null, rank = null) {
    const among = indices && new Set(indices);
    const left = this.ties.filter((k) => !this.decided.has(k) && (!among || among.has(k)));
    return rank ? left.sort((a, b) => rank(a) - rank(b)) : left;
  }
  // The undecided tie after cell `from` in reading order (before it with `step` -1), wrapping
  // round the grid; `from` itself only when it is the one left. Null when none is left.
  next(from, step = 1, rank = (k) => k) {
    const left = this.undecided(null, rank);
    if (!left.length) return null;
    const at = rank(from);
    if (step > 0) return left.find((k) => rank(k) > at) ?? left[0];
    return left.findLast((k) => rank(k) < at) ?? left[left.length - 1];
  }
}

// "12 links set, 2 removed, 3 ties left for you" for a plan of acceptPlan(); `left` is how many of
// the plan's ties are still undecided (all of them unless told), and once none is, it says so.
export function planSummary({ set, removed, ties }, where, left = ties) {
  const plural = (count, one, many) => `${count} ${count === 1 ? one : many}`;
  const decided = ties === 1 ? ", its tie decided by you" : `, all ${ties} ties decided by you`;
  const tiesText = left ? `, ${plural(left, "tie", "ties")} left for you` : ties ? decided : "";
  if (!set && !removed) return `The gold already follows the majority ${where}${tiesText}.`;
  return `Majority accepted ${where}: ${plural(set, "link", "links")} set, ${removed} removed${tiesText}.`;
}

// The cells of `indices` whose state differs between `before` and `now` (two copies of a grid's
// cells). An accept or a copy asks the server first; a cell edited while it waits was edited
// after the key that asked for them, so that edit stands: they leave it as it is.
export function changedSince(before, now, indices) {
  const changed = new Set();
  for (const k of indices) if (before[k] !== now[k]) changed.add(k);
  return changed;
}

// `planSummary`'s words for the cells an accept or a copy left as edited meanwhile, or "".
export function keptMeanwhile(count) {
  if (!count) return "";
  return ` ${count} cell${count === 1 ? "" : "s"} you changed while the server was asked ${count === 1 ? "keeps its" : "keep their"} change.`;
}

// The cells of a rectangular selection {i0, i1, j0, j1} of an n × m grid.
export function blockIndices({ i0, i1, j0, j1 }, m) {
  const out = [];
  for (let i = i0; i <= i1; i++) for (let j = j0; j <= j1; j++) out.push(i * m + j);
  return out;
}

// The markup of the layers' marks in one cell (static: hiding a layer is a class on the grid).
export function marksMarkup(votes) {
  let html = "";
  for (const [index, kind] of votes) html += `<i class="mk l${index % PALETTE.length} ${kind === "S" ? "s" : "p"}"></i>`;
  return html;
}
