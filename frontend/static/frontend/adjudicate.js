// The adjudication page: the gold alignment is edited in a GridModel and saved like an
// annotation (autosave with versions, the conflict banner, the offline queue of savequeue.js);
// each annotator's links are a layer of marks on the grid, and the majority is the server's
// (the scoring rule's), shown with its ties and accepted for the whole pair or a block.
import { api, ApiError, el } from "./api.js";
import { ACCEPT_LABEL, blockIndices, changedSince, keptMeanwhile, Overlay, PALETTE, planSummary, TieTracker } from "./adjudication_state.js";
import { GridView, renderSentences } from "./grid.js";
import { bindKeys, bindToolbar, openDialog } from "./keys.js";
import { conflictBanner, pointToConflict } from "./conflict.js";
import { wayBack } from "./wayback.js";
import { alreadySaved, notSavedBecause, SaveQueue, statusAnnouncer, statusWords } from "./savequeue.js";
import { EMPTY, GridModel, SURE, sameLinks } from "./state.js";

const root = document.getElementById("adjudication");
const pairId = Number(root.dataset.pair);
const storageKey = SaveQueue.tabKey(`paw:gold:${pairId}`); // this tab's own copy of unsent gold
const $ = (id) => document.getElementById(id);
// The list this pair was opened from (its filters and order): `n` goes to the next waiting
// pair of that list (the back link, from the server, returns to the page holding this pair).
const listQuery = new URLSearchParams(window.location.search);
listQuery.delete("page");
// Right after `n`, the pair `n` left: where `b` returns.
const back = wayBack("paw:adjudication-left");
// This page for another pair, opened from the same list.
const pageOf = (id) => {
  const search = listQuery.toString();
  return root.dataset.pageUrl.replace(/0\/$/, `${id}/`) + (search ? `?${search}` : "");
};

async function main() {
  const data = await api("GET", `/api/pairs/${pairId}/adjudication/`);
  const { pair } = data;
  // The annotators' work as the server last gave it: the layers, the majority, and what the
  // page compares the server's answer with before it accepts a majority or copies a layer.
  let work = data;
  let annotations = withPrefill(data.annotations, data.prefill);
  const n = pair.source_tokens.length;
  const m = pair.target_tokens.length;
  let overlay = new Overlay({ n, m, annotations, majority: data.majority });
  const ties = new TieTracker(overlay); // which ties the adjudicator has decided here
  // Without gold, the version a save names is that of the pair's last gold change, a clear
  // (Back to waiting), or 0 when it never had gold: a page from before a clear names an older
  // one and is told, instead of making a new gold unasked.
  const gold = data.gold || data.cleared || { links: [], version: 0 };
  let saved = gold.links; // the links the server holds, as far as this page knows
  let hasGold = Boolean(data.gold); // whether the server holds a gold, as far as this page knows
  const model = new GridModel(n, m, gold.links);
  const view = new GridView({
    model,
    table: $("grid"),
    wrap: $("grid-wrap"),
    source: pair.source_tokens,
    target: pair.target_tokens,
    info: $("cursor-info"),
    decorate: (k) => {
      const tie = overlay.tieAt(k);
      const code = overlay.majorityAt(k);
      const cls = tie ? `ov tie-${tie}` : code === EMPTY ? (overlay.votesAt(k).length ? "ov" : "") : code === SURE ? "ov maj-s" : "ov maj-p";
      const decided = tie && ties.isDecided(k) ? " · decided by you" : "";
      return { class: cls, title: overlay.votesAt(k).length || tie ? overlay.describe(k) + decided : "" };
    },
    overlay: (k) => overlay.marks(k),
  });
  renderSentences(view, $("src-sentence"), $("tgt-sentence"));
  window.__adjudication = { model, view, overlay, ties };
  const room = $("grid-wrap").parentElement.getBoundingClientRect();
  const taken = [...$("grid-wrap").parentElement.children].filter((e) => e.id !== "grid-wrap").reduce((sum, e) => sum + e.getBoundingClientRect().height, 0);
  view.chooseOrientation(room.width - 4, room.height - taken - 12);
  view.fitZoom(room.width - 4, room.height - taken - 12);
  const renderStart = performance.now();
  view.render();
  void $("grid-wrap").offsetHeight; // include style and layout in the measured first render
  window.__adjudication.firstRenderMs = performance.now() - renderStart;
  view.updateInfo();
  // The prefill starts hidden beside the annotators' work, unless its layer shares a toggle with
  // the first annotator's (eight layers of classes, repeated).
  const prefillApart = data.annotations.length > 0 && data.annotations.length < PALETTE.length;
  renderLayers(overlay, $("grid-wrap"), { hidden: (layer) => prefillApart && layer.status === PREFILL_STATUS });

  // An annotator may have reopened, changed or submitted their work since the page was loaded:
  // accepting the majority shown then, or copying a layer, would make a gold of work that is no
  // longer theirs. So the page asks the server first, and when the work changed it shows the
  // layers and majority as they are now and lets the adjudicator look before accepting them.
  // Returns the annotators whose work changed (an empty list when none did), or null when the
  // server could not be asked (offline: the work shown is the best known).
  const refreshWork = async () => {
    let fresh;
    try {
      fresh = await api("GET", `/api/pairs/${pairId}/adjudication/`);
    } catch {
      return null;
    }
    const changed = workChanges(work, fresh);
    if (!changed.length && sameMajority(work.majority, fresh.majority)) return changed;
    const off = new Set(overlay.layers.filter((layer) => !document.querySelector(`#layers input[data-layer="${layer.index}"]`)?.checked).map((layer) => layer.name));
    work = fresh;
    annotations = withPrefill(fresh.annotations, fresh.prefill);
    overlay = new Overlay({ n, m, annotations, majority: fresh.majority });
    window.__adjudication.overlay = overlay;
    ties.use(overlay);
    showTiesLeft();
    renderLayers(overlay, $("grid-wrap"), { hidden: (layer) => off.has(layer.name) });
    view.render();
    view.placeCursor();
    view.highlightWords(model.cursor.i, model.cursor.j);
    view.updateInfo();
    return changed.length ? changed : ["the majority"];
  };

  const indicator = $("save-status");
  const announce = statusAnnouncer($("save-announce"));
  const queue = new SaveQueue({
    key: storageKey,
    version: gold.version,
    baseLinks: gold.links,
    storage: window.localStorage,
    send: async (body) => {
      const result = await api("PUT", `/api/pairs/${pairId}/gold/`, { version: body.version, links: body.links });
      hasGold = true;
      return result;
    },
    // A gold sent back to waiting elsewhere is never merged without asking: that would start a new one.
    mayMerge: (server) => server.origin !== CLEARED,
    onStatus: (status, detail) => {
      const words = statusWords(status, detail, hasGold ? `Gold saved · v${queue.version}` : "No gold yet");
      indicator.dataset.state = status;
      indicator.textContent = words.text;
      indicator.title = words.title;
      announce(status, words);
      // only a pair with gold can go back to waiting; a trial pair's gold is its feedback key
      $("gold-clear").hidden = !hasGold || "trial" in $("gold-clear").dataset;
      // a refused "next" asked to wait for this: once saved, its "not saved yet" is untrue
      const waiting = $("adj-message");
      if (status === "saved" && waiting.dataset.waitsForSave) {
        waiting.hidden = true;
        delete waiting.dataset.waitsForSave;
      }
    },
    onConflict: (server, mine) => {
      if (server.origin === CLEARED) {
        hasGold = false; // there is none to send back to waiting
        $("gold-clear").hidden = true;
      }
      showConflict(server, mine);
    },
    onSaved: (result) => {
      saved = result.links;
      $("history-empty")?.remove(); // there is gold now, whatever the history says next
      loadHistory();
    },
  });
  window.__adjudication.queue = queue;
  queue.setStatus("saved");
  // The conflict banner names who saved the gold it meets, and the job when a bulk accept (or
  // its undo) saved it in their name; a cell changed on both sides is named by its words.
  const showConflict = conflictBanner({
    queue,
    model,
    describe: (server) => {
      const job = server.job ? ` (job #${server.job})` : "";
      if (server.origin === CLEARED) {
        const at = server.updated_at ? ` at ${when(server.updated_at)}` : "";
        const sent = server.job
          ? `the pair was sent back to waiting in bulk by ${server.adjudicator || "an adjudicator"}${job}`
          : `${server.adjudicator || "another adjudicator"} sent the pair back to waiting`;
        return `The gold was removed elsewhere: ${sent}${at} (version ${server.version});`;
      }
      if (!server.version) return "The gold was removed elsewhere: the pair has no gold;";
      const who = server.adjudicator || (server.origin ? "an import" : "another adjudicator");
      const at = server.updated_at ? ` at ${when(server.updated_at)}` : "";
      const how = server.job ? "accepted in bulk" : "saved";
      return `The gold was changed elsewhere: version ${server.version} was ${how} by ${who}${job}${at};`;
    },
    nameCell: ([i, j]) => `${pair.source_tokens[i]}–${pair.target_tokens[j]}`,
    adopt: (server) => {
      saved = server.links;
      hasGold = server.origin !== CLEARED && Boolean(server.version);
    },
    onShown: () => loadHistory(),
    gone: (server) => server.origin === CLEARED,
  });
  // The gold history (`loadHistory`) shows only the newest request's answer: an older one,
  // answered late, describes the gold before a save this page has made since. Counted from
  // here, before a conflict found in the browser's storage below asks for the history.
  let historyAsked = 0;

  // Gold edited in this browser and not saved (offline, a closed tab, a crash).
  const stored = SaveQueue.claim(window.localStorage, `paw:gold:${pairId}`, storageKey);
  if (stored && Array.isArray(stored.links)) {
    if (sameLinks(stored.links, gold.links) || alreadySaved(stored, gold.links)) {
      window.localStorage.removeItem(storageKey);
    } else if (stored.base === gold.version) {
      model.load(stored.links);
      queue.update(stored.links, stored.changes || 1);
    } else {
      model.load(stored.links);
      queue.pending = stored.links;
      if (Number.isInteger(stored.base)) queue.version = stored.base;
      queue.baseLinks = Array.isArray(stored.baseLinks) ? stored.baseLinks : null;
      queue.conflict = { ...gold };
      if (!queue.settle()) {
        queue.setStatus("conflict");
        showConflict(queue.conflict, stored.links);
      }
    }
  }
  // The new gold goes to the save queue after the repaint, once per burst of changes; a state
  // equal to the server's is not sent unless an unsaved one is waiting (an undo back to it).
  let handOver = null;
  const handOverNow = () => {
    if (handOver === null) return;
    clearTimeout(handOver);
    handOver = null;
    const links = model.links();
    if (queue.pending === null && sameLinks(links, saved)) return;
    queue.update(links);
  };
  model.on("cells", () => {
    if (handOver === null) handOver = setTimeout(handOverNow, 0);
  });
  window.__adjudication.handOverNow = handOverNow;
  const unsaved = () => handOver !== null || queue.pending !== null;
  // Leaving warns only when the server does not have the gold on the screen.
  window.addEventListener("beforeunload", (event) => {
    handOverNow();
    if (!unsaved()) return;
    queue.flush();
    event.preventDefault();
    event.returnValue = "";
  });

  const message = $("adj-message");
  // The last accept's summary, while it is the message shown: its count of ties left follows
  // the ties decided since (and undone), down to saying that none is left.
  let accepted = null;
  const say = (text) => {
    accepted = null;
    message.textContent = text;
    message.hidden = false;
    delete message.dataset.waitsForSave;
  };
  const showTiesLeft = () => {
    if (!accepted) return;
    const text = planSummary(accepted.plan, accepted.where, ties.undecided(accepted.indices).length) + accepted.kept;
    if (message.textContent !== text) message.textContent = text;
  };
  model.on("edited", (edit) => {
    if (ties.record(edit)) {
      showTiesLeft();
      view.updateInfo(); // the cursor's tie may have just been decided
    }
  });
  const workChanged = (names) => `The annotators' work changed since this page was loaded (${names.join(", ")}): the layers and the majority now show it as it is.`;
  let asking = false; // one question to the server at a time
  const accept = async (indices, where) => {
    if (asking) return;
    asking = true;
    const pressed = model.cells.slice(); // the grid when the key was pressed
    try {
      const before = work.majority;
      const changed = await refreshWork();
      if (changed && !sameMajority(before, work.majority)) {
        return say(`${workChanged(changed)} Nothing was accepted: look at it, then accept it again.`);
      }
      if (!overlay.counted) return say("No annotation of this pair is submitted: there is no majority to accept.");
      const meanwhile = changedSince(pressed, model.cells, indices);
      const plan = overlay.acceptPlan(model.cells, meanwhile.size ? indices.filter((k) => !meanwhile.has(k)) : indices, ties.decided);
      model.commit(plan.targets, ACCEPT_LABEL);
      say(planSummary(plan, where) + keptMeanwhile(meanwhile.size));
      if (plan.ties) {
        accepted = { plan, where, indices, kept: keptMeanwhile(meanwhile.size) };
        showTiesLeft();
      }
    } finally {
      asking = false;
    }
  };
  const acceptBlock = () => {
    const block = model.anchor !== null;
    accept(blockIndices(model.selection(), m), block ? "in the block" : "in this cell");
  };
  const acceptAll = () => accept(blockIndices({ i0: 0, i1: n - 1, j0: 0, j1: m - 1 }, m), "for the whole pair");

  // The next waiting pair of the list: send the gold first; stay if it cannot be saved.
  const next = async () => {
    handOverNow();
    if (!(await queue.drain())) {
      pointToConflict(queue);
      say(`Your latest changes to the gold are not saved yet: ${notSavedBecause(queue)}. They are kept in this browser; try again when the indicator says saved.`);
      message.dataset.waitsForSave = "true";
      return;
    }
    const query = new URLSearchParams(listQuery);
    query.set("after", pairId);
    const found = await api("GET", `/api/adjudication/next/?${query}`);
    if (found.id === null) return say("No other pair of this list waits for adjudication.");
    back.remember(pairId, found.id);
    window.location.href = pageOf(found.id);
  };

  // The pair before this one in the list (its link, from the server), or, right after `n`, the
  // pair `n` left: in a list of the waiting pairs the one just adjudicated has left the list,
  // and the pair before would skip it (a browser's back does not). The gold is sent first, as
  // for `n`. Any other way to this page ends the way back.
  const left = back.from(pairId);
  if (left === null) back.forget();
  const control = $("open-previous");
  if (left !== null && control) {
    control.disabled = false;
    control.dataset.action = "previous";
    control.title = "b: the pair you came from";
  }
  const previous = async () => {
    const link = $("open-previous");
    const href = left !== null ? pageOf(left) : link?.href;
    if (!href) return say("This is the first pair of the list.");
    handOverNow();
    if (!(await queue.drain())) {
      pointToConflict(queue);
      say(`Your latest changes to the gold are not saved yet: ${notSavedBecause(queue)}. They are kept in this browser; try again when the indicator says saved.`);
      message.dataset.waitsForSave = "true";
      return;
    }
    back.forget();
    window.location.href = href;
  };
  $("open-previous")?.addEventListener("click", (event) => {
    event.preventDefault(); // the toolbar's handler saves first, then follows the link
  });

  const toggleLayer = (index) => {
    const box = document.querySelector(`#layers input[data-layer="${index}"]`);
    if (!box) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change"));
  };
  const layerKeys = {}; // 1–9, whatever layers the work has now
  for (let index = 0; index < 9; index++) layerKeys[String(index + 1)] = () => toggleLayer(index);
  $("layers").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-use]");
    if (!button || asking) return;
    const name = annotations[Number(button.dataset.use)].annotator;
    asking = true;
    const pressed = model.cells.slice(); // the grid when the button was pressed
    try {
      const changed = await refreshWork();
      if (changed && changed.includes(name)) return say(`${workChanged(changed)} Nothing was copied: look at ${name}'s work, then use it again.`);
      const layer = annotations.find((a) => a.annotator === name);
      if (!layer) return say(`${name}'s work is no longer on this pair: nothing was copied.`);
      const meanwhile = changedSince(pressed, model.cells, model.cells.keys());
      const links = layer.links.filter(([i, j]) => !meanwhile.has(i * m + j));
      for (const k of meanwhile) if (model.cells[k] !== EMPTY) links.push([Math.floor(k / m), k % m, model.cells[k] === SURE ? "S" : "P"]);
      model.replaceAll(links, `use ${layer.annotator}`);
      say(`${layer.annotator}'s alignment copied into the gold (undo brings the previous back).${keptMeanwhile(meanwhile.size)}`);
    } finally {
      asking = false;
    }
  });

  async function loadHistory() {
    const asked = ++historyAsked;
    try {
      const body = await api("GET", `/api/pairs/${pairId}/gold/events/`);
      if (asked === historyAsked) renderHistory(body, pair, hasGold);
    } catch (error) {
      if (asked !== historyAsked) return;
      $("history").replaceChildren(el("li", { class: "muted", text: `The history could not be loaded: ${error.message}` }));
    }
  }
  loadHistory();

  // Back to waiting: the server removes the gold (its history keeps it) and the page shows
  // the pair as one never adjudicated: no gold over the annotators' layers and the majority.
  const clearDialog = $("clear-dialog");
  $("gold-clear").addEventListener("click", () => {
    const count = saved.length;
    const links = count ? `${count} link${count === 1 ? "" : "s"}` : "no link";
    $("clear-text").textContent =
      `The gold (version ${queue.version}, ${links}) is removed: the pair waits for adjudication again, ` +
      "and exports, corpus statistics and prefill training no longer use it. The gold history keeps every version.";
    $("clear-error").hidden = true;
    $("clear-stale").hidden = true;
    openDialog(clearDialog);
    $("clear-cancel").focus();
  });
  let clearing = false; // one request at a time
  $("clear-form").addEventListener("submit", async (event) => {
    if (event.submitter && event.submitter.value === "cancel") return;
    event.preventDefault();
    if (clearing) return;
    clearing = true;
    $("clear-confirm").disabled = true;
    try {
      await clearGold();
    } finally {
      clearing = false;
      $("clear-confirm").disabled = false;
    }
  });
  $("clear-reload").addEventListener("click", () => window.location.reload());
  clearDialog.addEventListener("close", () => $("grid-wrap").focus({ preventScroll: true }));
  async function clearGold() {
    const fail = (text) => {
      $("clear-error").textContent = text;
      $("clear-error").hidden = false;
    };
    handOverNow(); // the clear names the version the server holds: send what is waiting first
    if (!(await queue.drain())) return fail(`Your latest changes to the gold are not saved yet: ${notSavedBecause(queue)}. Nothing was removed.`);
    let result;
    try {
      result = await api("POST", `/api/pairs/${pairId}/gold/clear/`, { version: queue.version });
    } catch (error) {
      const stale = error instanceof ApiError && error.status === 409;
      $("clear-stale").hidden = !stale;
      const why = error.message.charAt(0).toUpperCase() + error.message.slice(1);
      if (stale) return fail(`${why}. Nothing was removed: load the current gold to see it.`);
      return fail(error instanceof ApiError ? `The gold could not be removed: ${error.message}` : `The server could not be reached (${error.message}); nothing was removed.`);
    }
    clearDialog.close();
    saved = [];
    hasGold = false;
    queue.takeTheirs({ version: result.version, links: [] }); // the next save names the clear's version
    model.load([]);
    model.forgetHistory(); // undo would bring the removed gold back as a new version
    ties.forget(); // with the gold gone every tie waits for a decision again
    say(
      result.changed
        ? `The pair waits for adjudication again: its gold (v${result.cleared_version - 1}) was removed; the history keeps every version.`
        : "The pair was already waiting: its gold had been removed elsewhere.",
    );
    loadHistory();
  }

  const showKeys = () => openDialog($("keymap-dialog"), $("grid-wrap"));
  // d / D: the cursor to the next (previous) undecided tie in reading order, wrapping; the
  // grid's live region (the cursor line) says which of how many it is, or that none is left.
  const goToTie = (step) => {
    const cols = view.transposed ? n : m;
    const rank = (cell) => {
      const [row, col] = view.toDisplay(Math.floor(cell / m), cell % m);
      return row * cols + col;
    };
    const k = ties.next(model.cursor.i * m + model.cursor.j, step, rank);
    const info = $("cursor-info");
    if (k === null) {
      const none = ties.ties.length ? `every tie of this pair is decided (${ties.ties.length})` : "the annotators' majority has no tie on this pair";
      info.textContent = `No undecided tie: ${none}.`;
      return;
    }
    model.moveTo(Math.floor(k / m), k % m);
    const left = ties.undecided(null, rank);
    info.textContent = `Tie ${left.indexOf(k) + 1} of ${left.length} undecided. ${info.textContent}`;
  };
  const saveNow = () => {
    handOverNow();
    return queue.drain();
  };
  bindKeys({ model, view, actions: { a: acceptBlock, A: acceptAll, d: () => goToTie(1), D: () => goToTie(-1), n: next, b: previous, "?": showKeys, save: saveNow, ...layerKeys } });
  bindToolbar(root, {
    model,
    view,
    actions: { accept: acceptBlock, "accept-all": acceptAll, next, previous, keys: showKeys },
  });
  // Back online, or back to this tab or window (where the annotator may have signed in again,
  // or waited out a busy server): a save held back is tried at once, not at the end of its
  // back-off (up to 15 s).
  window.addEventListener("online", () => queue.online());
  window.addEventListener("focus", () => queue.online());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      handOverNow();
      queue.flush();
    } else queue.online();
  });
  $("grid-wrap").focus({ preventScroll: true });
  window.__adjudication.readyMs = performance.now();
  root.dataset.ready = "true";
}

// The pair's automatic prefill as one more layer, after the annotators' and never in the
// majority: what a pair nobody has annotated yet shows, and a starting point for its gold.
const PREFILL_STATUS = "prefill";
// The origin of the server's state of a pair whose gold was sent back to waiting.
const CLEARED = "cleared";
function withPrefill(annotations, prefill) {
  if (!prefill) return annotations;
  const links = prefill.links.map(([i, j, kind]) => [i, j, kind]);
  return [...annotations, { annotator: `prefill (${prefill.aligner})`, status: PREFILL_STATUS, counted: false, links }];
}

// The annotators whose work differs between two answers of the adjudication API (a new, gone,
// reopened, changed or submitted annotation), by name.
function workChanges(before, after) {
  const state = (body) => new Map(body.annotations.map((a) => [a.annotator, `${a.status} ${a.version}`]));
  const was = state(before);
  const now = state(after);
  return [...new Set([...was.keys(), ...now.keys()])].filter((name) => was.get(name) !== now.get(name)).sort();
}

function sameMajority(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

// The legend of the layers: a toggle, the colour and marker, and the work of each annotator.
// Layers for which `hidden(layer)` is true start hidden (the prefill, beside the annotators' work).
function renderLayers(overlay, wrap, { hidden = () => false } = {}) {
  const list = $("layers");
  const uncounted = (layer) => (layer.status === PREFILL_STATUS ? " · automatic, not in the majority" : " · not submitted, not in the majority");
  list.replaceChildren(
    ...overlay.layers.map((layer) => {
      const id = `layer-${layer.index}`;
      const shown = !hidden(layer);
      const box = el("input", { type: "checkbox", id, checked: shown, "data-layer": layer.index });
      box.addEventListener("change", () => wrap.classList.toggle(`hide-l${layer.index % 8}`, !box.checked));
      wrap.classList.toggle(`hide-l${layer.index % 8}`, !shown);
      const detail = `${layer.sure} sure, ${layer.possible} possible${layer.counted ? "" : uncounted(layer)}`;
      return el(
        "li",
        { class: layer.counted ? "" : "uncounted" },
        box,
        el("label", { for: id }, el("i", { class: `mk-key l${layer.index % 8}`, "aria-hidden": "true" }), el("b", { text: layer.name }), layer.index < 9 ? el("kbd", { text: String(layer.index + 1) }) : null),
        el("span", { class: "layer-detail small muted", text: detail }),
        el("button", { class: "btn small", type: "button", "data-use": layer.index, "aria-label": `Use ${layer.name}'s alignment as the gold`, text: "Use" }),
      );
    }),
  );
  const counted = overlay.counted;
  $("majority-note").textContent = counted
    ? `The majority of the ${counted} submitted annotation${counted === 1 ? "" : "s"}: a link is in it when more than half linked it, sure when more than half said sure; a tie is yours to decide.`
    : "No annotation of this pair is submitted yet, so there is no majority.";
}

// The gold's changes, newest first: version, who, when, and the word pairs set and cleared;
// the hint for a pair without gold while the page knows of no saved version.
function renderHistory(body, pair, hasGold) {
  const words = ([i, j]) => `${pair.source_tokens[i]}–${pair.target_tokens[j]}`;
  const cells = (links, count, suffix) => {
    const shown = links.slice(0, 6).map((link) => `${words(link)}${suffix(link)}`);
    return shown.join(", ") + (count > shown.length ? ` and ${count - shown.length} more` : "");
  };
  const items = body.events.map((event) => {
    const actor = event.kind === "imported" ? "imported" : event.actor || "an adjudicator";
    // a bulk accept (or its undo) saves in its adjudicator's name: the job says it was one
    const who = event.job ? `${actor} (job #${event.job})` : actor;
    if (event.kind === "cleared") {
      const removed = event.cleared ? `removed ${cells(event.removed, event.cleared, () => "")}` : "the gold had no link";
      return el(
        "li",
        { class: "cleared" },
        el("b", { text: `v${event.version}` }),
        ` back to waiting · ${who} · ${when(event.created_at)}`,
        el("div", { class: "small muted", text: removed }),
      );
    }
    const changes = [];
    if (event.set) changes.push(`set ${cells(event.added, event.set, (l) => ` (${l[2]})`)}`);
    if (event.cleared) changes.push(`cleared ${cells(event.removed, event.cleared, () => "")}`);
    return el(
      "li",
      {},
      el("b", { text: `v${event.version}` }),
      ` ${who} · ${when(event.created_at)}`,
      el("div", { class: "small muted", text: changes.join("; ") || "no link" }),
    );
  });
  // Without gold, the version the first change makes: 1, or the one after a clear.
  const first = body.events.length ? body.events[0].version + 1 : 1;
  if (!hasGold && (!items.length || body.events[0].kind === "cleared")) {
    const waiting = items.length ? "Waiting for adjudication again" : "No gold yet";
    items.unshift(el("li", { class: "muted", id: "history-empty", text: `${waiting}: the first change you make is saved as version ${first}.` }));
  }
  if (body.total > body.events.length) items.push(el("li", { class: "muted", text: `and ${body.total - body.events.length} older versions` }));
  $("history").replaceChildren(...items);
}

main().catch((error) => {
  const text = error instanceof ApiError ? `The pair could not be loaded: ${error.message}` : `The server could not be reached. Reload the page when the network is back. (${error.message})`;
  root.prepend(el("p", { class: "notice error", role: "alert", text }));
  // The indicator said "Loading…": nothing was loaded, so nothing is saved either.
  const indicator = document.getElementById("save-status");
  indicator.dataset.state = "error";
  indicator.textContent = "Not loaded";
});

// A time as the server's pages write it: "25 Nov 2026, 22:01".
function when(iso) {
  return new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}
