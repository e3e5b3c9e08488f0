// The conflict banner shared by the workspace and the adjudication page (the markup is
// `frontend/_conflict.html`): shown when a save finds that the server holds a version this page
// did not start from. It says what each choice would keep, counted from the three-way merge of
// the version the page started from, theirs and mine, and nothing is lost until one is chosen:
// "Merge both" and "Use theirs" replace the grid undoably (Ctrl+Z brings mine back), "Overwrite"
// sends mine over theirs.
import { refocusAfter } from "./keys.js";
import { diffCount } from "./state.js";

const $ = (id) => document.getElementById(id);

export const cells = (n) => `${n} cell${n === 1 ? "" : "s"}`;
export const changes = (n) => `${n} change${n === 1 ? "" : "s"}`;
const cellsDiffer = (n) => `${cells(n)} ${n === 1 ? "differs" : "differ"}`;

// A key that waits for a conflict to be settled (Enter, n, b) moves the focus to the banner's
// first choice, nine and more Shift+Tabs away from the grid, so that the next Enter takes it.
// Returns whether `queue` is in conflict.
export function pointToConflict(queue) {
  const choice = [...$("conflict").querySelectorAll("button")].find((button) => !button.hidden);
  if (queue.status === "conflict" && !$("conflict").hidden && choice) choice.focus();
  return queue.status === "conflict";
}

/**
 * Wire the banner's buttons; returns `show(server, mine)` for the save queue's `onConflict`.
 *
 * - `queue`: the page's SaveQueue (its `conflict`, `mergePreview()`, `merge()`, `keepMine()`,
 *   `takeTheirs()`);
 * - `model`: the page's GridModel, replaced (undoably) by a merge or by theirs;
 * - `describe(server)`: the page's words for who changed what, before the count of differing
 *   cells ("This pair was changed elsewhere (server version 3):");
 * - `nameCell([i, j])`: how the merge note names a cell changed on both sides;
 * - `adopt(server)`: what the page keeps of the server's version before the grid takes it
 *   (the workspace its checked prefill cells, the adjudication page its saved gold);
 * - `onShown()`: called each time the banner is shown;
 * - `gone(server)`: true when the server's state is no version to merge with but a removal (the
 *   adjudication page's gold sent back to waiting): the banner then offers to leave it removed
 *   (mine discarded, so no undo brings it back as a new version) or to start anew from mine.
 */
export function conflictBanner({ queue, model, describe, nameCell, adopt, onShown = () => {}, gone = () => false }) {
  // What each choice would keep, for the server's version and `mine`.
  function tell(server, mine) {
    if (gone(server)) {
      const count = (mine || []).length;
      $("conflict-merge").hidden = true;
      $("conflict-text").textContent =
        `${describe(server)} your ${count} link${count === 1 ? " is" : "s are"} not saved. ` +
        "Nothing is saved until you choose: leave the pair waiting, or start a new gold from yours.";
      $("conflict-theirs").textContent = "Leave it waiting (discards mine)";
      $("conflict-mine").textContent = "Start a new gold from mine";
      return;
    }
    $("conflict-theirs").textContent = "Use theirs (undo brings mine back)";
    const preview = queue.mergePreview(mine);
    const differ = `${describe(server)} ${cellsDiffer(diffCount(server.links, mine))} from yours.`;
    $("conflict-merge").hidden = preview === null;
    if (preview === null) {
      $("conflict-text").textContent = `${differ} Nothing is lost until you choose.`;
      $("conflict-mine").textContent = "Overwrite theirs with mine";
    } else {
      const overlap = preview.conflicts.length;
      $("conflict-text").textContent =
        `${differ} Merging keeps their ${changes(preview.fromTheirs)} and your ${changes(preview.fromMine + overlap)} ` +
        `since version ${queue.version}` +
        (overlap ? `; ${cells(overlap)} changed on both sides would keep yours.` : "; none was changed on both sides.") +
        " Nothing is lost until you choose.";
      const dropped = preview.fromTheirs + overlap;
      $("conflict-mine").textContent = dropped ? `Overwrite theirs with mine (drops their ${changes(dropped)})` : "Overwrite theirs with mine";
    }
  }
  function show(server, mine) {
    $("merge-note").hidden = true;
    tell(server, queue.pending ?? mine); // edits made while the refused save was on its way too
    $("conflict").hidden = false;
    onShown();
  }
  // Edits made while the banner waits for a choice change what each choice keeps: it says so
  // from the grid as it is (the choice itself takes the same state from the save queue).
  model.on("cells", () => {
    if (!$("conflict").hidden && queue.conflict) tell(queue.conflict, model.links());
  });

  $("conflict-merge").addEventListener("click", () => {
    const server = queue.conflict;
    const merged = queue.merge();
    if (merged === null) return;
    $("conflict").hidden = true;
    adopt(server);
    model.replaceAll(merged.links, "merge");
    const both = merged.conflicts.length;
    const where = merged.conflicts.slice(0, 5).map(nameCell);
    $("merge-note-text").textContent =
      `Merged with version ${server.version}: kept their ${changes(merged.fromTheirs)} and your ${changes(merged.fromMine)}` +
      (both ? `; ${cells(both)} changed on both sides kept yours (${where.join("; ")}${both > 5 ? "; …" : ""}).` : "; no cell was changed on both sides.");
    $("merge-note").hidden = false;
  });
  $("merge-note-close").addEventListener("click", () => {
    $("merge-note").hidden = true;
  });
  refocusAfter($("grid-wrap"), $("conflict"), $("merge-note"));
  $("conflict-mine").addEventListener("click", () => {
    $("conflict").hidden = true;
    queue.keepMine(queue.conflict.version);
  });
  $("conflict-theirs").addEventListener("click", () => {
    const server = queue.conflict;
    $("conflict").hidden = true;
    adopt(server);
    queue.takeTheirs(server);
    if (gone(server)) {
      model.load(server.links);
      model.forgetHistory(); // an undo would bring mine back as a new version, unasked
    } else model.replaceAll(server.links, "use theirs");
  });
  return show;
}
