// Unit tests of the adjudication page's overlay: layers, the server's majority and ties, and what
// accepting the majority changes. Run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ACCEPT_LABEL, blockIndices, KIND_TIE, LINK_TIE, marksMarkup, Overlay, planSummary, TieTracker } from "../../../frontend/static/frontend/adjudication_state.js";
import { EMPTY, GridModel, POSSIBLE, SURE } from "../../../frontend/static/frontend/state.js";

// Four annotators on a 3×3 pair; the majority as the server's scoring rule gives it.
const annotations = [
  { annotator: "alice", status: "submitted", counted: true, links: [[0, 0, "S"], [1, 1, "S"], [2, 2, "P"]] },
  { annotator: "bob", status: "submitted", counted: true, links: [[0, 0, "S"], [1, 1, "P"]] },
  { annotator: "cleo", status: "submitted", counted: true, links: [[0, 0, "P"], [2, 2, "S"], [0, 2, "S"]] },
  { annotator: "dan", status: "submitted", counted: true, links: [[0, 0, "S"], [1, 1, "S"], [0, 2, "P"]] },
  { annotator: "eve", status: "in_progress", counted: false, links: [[2, 0, "S"]] },
];
const majority = {
  annotators: ["alice", "bob", "cleo", "dan"],
  links: [[0, 0, "S"], [1, 1, "P"]],
  link_ties: [[0, 2], [2, 2]],
  kind_ties: [[1, 1]],
};

function overlay() {
  return new Overlay({ n: 3, m: 3, annotations, majority });
}

test("the overlay takes the server's majority and ties as they are", () => {
  const o = overlay();
  assert.equal(o.majorityAt(0), SURE);
  assert.equal(o.majorityAt(4), POSSIBLE);
  assert.equal(o.majorityAt(8), EMPTY, "a link tie is not in the majority");
  assert.equal(o.tieAt(2), LINK_TIE);
  assert.equal(o.tieAt(4), KIND_TIE);
  assert.equal(o.tieAt(6), null);
  // eve's link is shown on her layer but the server's majority does not count it
  assert.deepEqual(o.votesAt(6), [[4, "S"]]);
  assert.equal(o.majorityAt(6), EMPTY);
});

test("each layer says who linked what, sure or possible", () => {
  const o = overlay();
  assert.deepEqual(o.votesAt(0), [[0, "S"], [1, "S"], [2, "P"], [3, "S"]]);
  assert.equal(o.describe(0), "alice sure, bob sure, cleo possible, dan sure · majority: sure");
  assert.match(o.describe(2), /^cleo sure, dan possible · tie: 2 of 4 linked it/);
  assert.match(o.describe(4), /tie on sure/);
  assert.equal(o.describe(1), "no annotator linked it");
  assert.deepEqual(
    o.layers.map((l) => [l.name, l.counted, l.sure, l.possible]),
    [["alice", true, 2, 1], ["bob", true, 1, 1], ["cleo", true, 2, 1], ["dan", true, 2, 1], ["eve", false, 1, 0]],
  );
  assert.equal(new Set(o.layers.map((l) => l.colour)).size, 5);
  assert.equal(marksMarkup(o.votesAt(4)), '<i class="mk l0 s"></i><i class="mk l1 p"></i><i class="mk l3 s"></i>');
});

test("accepting the majority of the whole pair sets, removes and leaves ties, and says so", () => {
  const o = overlay();
  // The gold before: 1-1 empty (a kind tie), 0-2 sure (a link tie), 2-0 and 2-1 linked by nobody.
  const model = new GridModel(3, 3, [[0, 2, "S"], [2, 0, "P"], [2, 1, "S"]]);
  const plan = o.acceptPlan(model.cells, blockIndices({ i0: 0, i1: 2, j0: 0, j1: 2 }, 3));
  assert.deepEqual(plan.targets, [[0, SURE], [4, POSSIBLE], [6, EMPTY], [7, EMPTY]]);
  assert.deepEqual([plan.set, plan.removed, plan.ties], [2, 2, 3]);
  assert.equal(planSummary(plan, "for the whole pair"), "Majority accepted for the whole pair: 2 links set, 2 removed, 3 ties left for you.");
  model.commit(plan.targets, "accept majority");
  assert.deepEqual(model.links(), [[0, 0, "S"], [0, 2, "S"], [1, 1, "P"]]);
  model.undo();
  assert.deepEqual(model.links(), [[0, 2, "S"], [2, 0, "P"], [2, 1, "S"]]);
});

test("a kind tie keeps the adjudicator's kind and a block touches only its cells", () => {
  const o = overlay();
  const model = new GridModel(3, 3, [[1, 1, "S"], [2, 1, "S"]]);
  const plan = o.acceptPlan(model.cells, blockIndices({ i0: 1, i1: 1, j0: 0, j1: 1 }, 3));
  assert.deepEqual(plan.targets, [], "1-1 is a kind tie already linked; 1-0 is empty in both");
  assert.equal(plan.ties, 1);
  assert.equal(planSummary(plan, "in the block"), "The gold already follows the majority in the block, 1 tie left for you.");
});

test("without a submitted annotation there is nothing to accept", () => {
  const o = new Overlay({ n: 2, m: 2, annotations: [], majority: null });
  const plan = o.acceptPlan(new Uint8Array(4).fill(SURE), [0, 1, 2, 3]);
  assert.deepEqual(plan, { targets: [], set: 0, removed: 0, ties: 0 });
});

test("a tie is decided once its cell is set by hand, whatever to, and undecided when that is undone", () => {
  const o = overlay(); // ties: 0-2 (2) and 2-2 (8) linked, 1-1 (4) on sure
  const ties = new TieTracker(o);
  assert.deepEqual(ties.undecided(), [2, 4, 8]);
  assert.equal(ties.record({ cells: [0, 1, 2, 3, 4, 5, 6, 7, 8], label: ACCEPT_LABEL, via: "edit" }), false, "accepting decides none");
  assert.equal(ties.record({ cells: [4], label: "block", via: "edit" }), true);
  assert.equal(ties.record({ cells: [4, 0], label: "block", via: "edit" }), false, "already decided, 0-0 is no tie");
  assert.deepEqual(ties.undecided(), [2, 8]);
  assert.deepEqual(ties.undecided([0, 1, 2, 3, 4]), [2], "of a block only");
  ties.record({ cells: [4], label: "block", via: "undo" });
  assert.deepEqual(ties.undecided(), [2, 8], "the first edit of 1-1 by hand still stands");
  ties.record({ cells: [4], label: "block", via: "undo" });
  assert.deepEqual(ties.undecided(), [2, 4, 8]);
  ties.record({ cells: [4], label: "block", via: "redo" });
  ties.record({ cells: [8], label: ACCEPT_LABEL, via: "undo" });
  assert.deepEqual(ties.undecided(), [2, 8], "undoing an accept undecides nothing");
  // the annotators' work changed: 2-2 is no longer a tie, 1-1 still is and stays decided
  ties.use(new Overlay({ n: 3, m: 3, annotations, majority: { ...majority, link_ties: [[0, 2]] } }));
  assert.deepEqual(ties.undecided(), [2]);
  assert.equal(ties.isDecided(4), true);
  ties.forget();
  assert.deepEqual(ties.undecided(), [2, 4]);
});

test("the next undecided tie is found in reading order, round the grid either way", () => {
  const ties = new TieTracker(overlay()); // ties at 2, 4, 8
  assert.equal(ties.next(0), 2);
  assert.equal(ties.next(2), 4);
  assert.equal(ties.next(8), 2, "round the grid");
  assert.equal(ties.next(0, -1), 8, "back, round the grid");
  assert.equal(ties.next(4, -1), 2);
  // transposed (rows are target words): 0-2 is read after 1-1
  const rank = (k) => (k % 3) * 3 + Math.floor(k / 3);
  assert.deepEqual(ties.undecided(null, rank), [4, 2, 8]);
  assert.equal(ties.next(4, 1, rank), 2);
  ties.record({ cells: [2, 4], label: "block", via: "edit" });
  assert.equal(ties.next(8), 8, "the one left, from itself");
  ties.record({ cells: [8], label: "block", via: "edit" });
  assert.equal(ties.next(0), null);
});

test("an accept's summary counts the ties still undecided, and says when they all are decided", () => {
  assert.equal(planSummary({ set: 2, removed: 0, ties: 3 }, "for the whole pair", 1), "Majority accepted for the whole pair: 2 links set, 0 removed, 1 tie left for you.");
  assert.equal(planSummary({ set: 2, removed: 0, ties: 3 }, "for the whole pair", 0), "Majority accepted for the whole pair: 2 links set, 0 removed, all 3 ties decided by you.");
  assert.equal(planSummary({ set: 0, removed: 0, ties: 1 }, "in this cell", 0), "The gold already follows the majority in this cell, its tie decided by you.");
  assert.equal(planSummary({ set: 1, removed: 0, ties: 2 }, "in the block"), "Majority accepted in the block: 1 link set, 0 removed, 2 ties left for you.");
});

test("accepting the majority keeps what the adjudicator decided of a tie", () => {
  const o = overlay();
  const model = new GridModel(3, 3, []);
  const all = blockIndices({ i0: 0, i1: 2, j0: 0, j1: 2 }, 3);
  assert.deepEqual(o.acceptPlan(model.cells, all).targets, [[0, SURE], [4, POSSIBLE]], "an empty kind tie is linked possible");
  assert.deepEqual(o.acceptPlan(model.cells, all, new Set([4])).targets, [[0, SURE]], "unless the adjudicator left it empty");
});

test("undoing a later edit of a tie leaves it decided while an earlier edit of it by hand stands", () => {
  const o = overlay(); // 1-1 (cell 4) is a kind tie
  const model = new GridModel(3, 3, []);
  const ties = new TieTracker(o);
  model.on("edited", (edit) => ties.record(edit));
  model.set(1, 1, SURE); // decided: sure
  model.set(1, 1, POSSIBLE); // changed their mind: possible
  model.undo(); // back to sure, set by hand
  assert.equal(model.cells[4], SURE);
  assert.equal(ties.isDecided(4), true, "the cell still holds the adjudicator's own sure link");
});
