// The annotation workspace page: wires the model, the grid view, the save queue and the API.
import { api, ApiError } from "./api.js";
import { GridView, renderSentences } from "./grid.js";
import { bindKeys, bindToolbar, openDialog } from "./keys.js";
import { conflictBanner, pointToConflict } from "./conflict.js";
import { wayBack } from "./wayback.js";
import { alreadySaved, notSavedBecause, SaveQueue, statusAnnouncer, statusWords } from "./savequeue.js";
import { GridModel, POSSIBLE, reviewedPrefill, SURE, sameLinks } from "./state.js";

const HEARTBEAT_MS = 20000;
const root = document.getElementById("workspace");
const id = Number(root.dataset.assignment);
// Right after a submit, the pair submitted: where `b` on the pair it opened returns.
const back = wayBack("paw:back-after-submit");
const base = `/api/assignments/${id}`;
const storageKey = SaveQueue.tabKey(`paw:annotation:${id}`); // this tab's own copy of unsent work
const viewKey = `paw:view:${id}`; // where this tab's annotator was: cursor, scroll, zoom
const $ = (sel) => document.getElementById(sel);
const workUrl = (other) => root.dataset.workUrl.replace(/0\/$/, `${other}/`);

async function main() {
  const data = await api("POST", `${base}/open/`);
  if (back.from(id) === null) back.forget(); // another pair than a submit opened
  const pair = data.pair;
  const n = pair.source_tokens.length;
  const m = pair.target_tokens.length;
  const model = new GridModel(n, m, data.annotation.links);
  for (const [i, j] of data.annotation.touched || []) model.touched.add(i * m + j);
  const prefill = new Map();
  for (const [i, j, kind, confidence] of (data.prefill && data.prefill.links) || []) {
    prefill.set(i * m + j, { code: kind === "S" ? SURE : POSSIBLE, confidence });
  }
  let feedback = null;
  const view = new GridView({
    model,
    table: $("grid"),
    wrap: $("grid-wrap"),
    source: pair.source_tokens,
    target: pair.target_tokens,
    prefill,
    info: $("cursor-info"),
    decorate: (k) => (feedback ? feedback.get(k) : null),
  });
  renderSentences(view, $("src-sentence"), $("tgt-sentence"));
  window.__workspace = { model, view }; // for tests and the performance benchmark
  const room = gridRoom();
  view.chooseOrientation(room.width, room.height);
  view.fitZoom(room.width, room.height);
  const renderStart = performance.now();
  view.render();
  void $("grid-wrap").offsetHeight; // include style and layout in the measured first render
  window.__workspace.firstRenderMs = performance.now() - renderStart;
  restoreView(view);
  view.updateInfo();
  // The height the grid's box was fitted to: it keeps it when the trial feedback opens below
  // (the page scrolls) instead of shrinking to make room for it.
  $("grid-wrap").style.setProperty("--grid-usable", `${$("grid-wrap").getBoundingClientRect().height}px`);

  const indicator = $("save-status");
  const announce = statusAnnouncer($("save-announce"));
  const queue = new SaveQueue({
    key: storageKey,
    version: data.annotation.version,
    baseLinks: data.annotation.links,
    storage: window.localStorage,
    send: async (body) => {
      let result;
      try {
        result = await api("PUT", `${base}/annotation/`, body);
      } catch (error) {
        // Submitted in another tab: this one turns read-only and offers to reopen; the refused
        // change stays in browser storage and comes back in the conflict banner once reopened.
        if (error instanceof ApiError && error.body && error.body.error && error.body.error.code === "already_submitted") {
          keptForReopen = true;
          setAssignmentStatus("submitted");
        }
        throw error;
      }
      for (const [i, j] of body.reviewed || []) serverKnows.add(i * m + j);
      return result;
    },
    onStatus: (status, detail) => {
      const words = statusWords(status, detail, `Saved · v${queue.version}`);
      indicator.dataset.state = status;
      indicator.textContent = words.text;
      indicator.title = words.title;
      announce(status, words);
      if (status === "saved") $("ws-message").hidden = true; // what it asked to wait for is done
    },
    onConflict: (server, mine) => showConflict(server, mine),
  });
  window.__workspace.queue = queue;
  queue.setStatus("saved");
  // The conflict banner: a cell changed on both sides is named by its words' positions.
  const showConflict = conflictBanner({
    queue,
    model,
    describe: (server) => `This pair was changed elsewhere (server version ${server.version}):`,
    nameCell: ([i, j]) => `source word ${i + 1} × target word ${j + 1}`,
    adopt: (server) => model.markTouched(server.touched || []),
  });
  // Checked cells the server already knows of; a save names only the other checked prefill links.
  const serverKnows = new Set(model.touched);
  const reviewedToSend = () => reviewedPrefill(model, prefill).filter(([i, j]) => !serverKnows.has(i * m + j));

  // Work left in this browser by an earlier visit (offline, closed tab, crash). On a submitted
  // pair it cannot be saved: it stays in storage, said so, for the page that reopens the pair.
  let keptForReopen = false;
  const stored = SaveQueue.claim(window.localStorage, `paw:annotation:${id}`, storageKey);
  if (stored && Array.isArray(stored.links)) {
    const reviewed = Array.isArray(stored.reviewed) ? stored.reviewed : [];
    if (sameLinks(stored.links, data.annotation.links) || alreadySaved(stored, data.annotation.links)) {
      window.localStorage.removeItem(storageKey);
      if (model.markTouched(reviewed)) queue.update(model.links(), 1, reviewedToSend());
    } else if (data.assignment.status === "submitted") {
      keptForReopen = true;
    } else if (stored.base === data.annotation.version) {
      model.load(stored.links);
      model.markTouched(reviewed);
      queue.update(stored.links, stored.changes || 1, reviewedToSend());
    } else {
      model.load(stored.links);
      model.markTouched(reviewed);
      queue.pending = stored.links;
      queue.reviewed = reviewedToSend();
      if (Number.isInteger(stored.base)) queue.version = stored.base;
      queue.baseLinks = Array.isArray(stored.baseLinks) ? stored.baseLinks : null;
      queue.conflict = { version: data.annotation.version, links: data.annotation.links, touched: data.annotation.touched };
      if (!queue.settle()) {
        queue.setStatus("conflict");
        showConflict(queue.conflict, stored.links);
      }
    }
  }
  // Hand the new state to the save queue just after the repaint, once per burst of changes,
  // so a toggle's frame pays only for the cell itself; leaving the page flushes it at once.
  let handOver = null;
  const handOverNow = () => {
    if (handOver === null) return;
    clearTimeout(handOver);
    handOver = null;
    queue.update(model.links(), 1, reviewedToSend());
  };
  const handOverSoon = () => {
    if (handOver === null) handOver = setTimeout(handOverNow, 0);
  };
  model.on("cells", handOverSoon);
  // A checked prefill link is saved too; a submitted pair's are checked by the submission.
  model.on("touched", () => {
    if (!model.readOnly) handOverSoon();
  });
  window.addEventListener("pagehide", handOverNow);
  window.__workspace.handOverNow = handOverNow;
  // Leaving (a link, the tab closed, another address) while the latest changes cannot be sent
  // (offline, signed out, in conflict) asks first: they would wait in this browser alone until
  // the pair is opened here again. Changes merely on their way go with the page (the save sent
  // as it hides), and n, b and Enter wait for the save themselves; a refused save ("error") is
  // kept for a reopen and asks nothing.
  window.addEventListener("beforeunload", (event) => {
    handOverNow();
    if (queue.pending === null || !["offline", "conflict"].includes(queue.status)) return;
    event.preventDefault();
    event.returnValue = "";
  });

  // Status, read-only mode, trial feedback.
  const statusBadge = $("assignment-status");
  function setAssignmentStatus(status) {
    statusBadge.textContent = status.replace("_", " ");
    statusBadge.className = `badge ${status}`;
    const submitted = status === "submitted";
    model.readOnly = submitted;
    root.classList.toggle("readonly", submitted);
    $("grid-wrap").setAttribute("aria-readonly", String(submitted));
    $("readonly").hidden = !submitted;
    $("show-feedback").hidden = !(submitted && data.trial);
    $("reopen").hidden = Boolean(data.trial); // a submitted trial pair is final
    $("readonly-text").textContent = data.trial
      ? "This trial pair is submitted and final; its feedback shows the gold alignment."
      : keptForReopen
        ? "This pair was submitted, with changes made here after it not saved: they are kept in this browser and come back once you reopen the pair."
        : "This pair is submitted; the grid shows your links but does not change.";
    $("submit-button").disabled = submitted;
  }
  setAssignmentStatus(data.assignment.status);
  queue.onSaved = (result) => setAssignmentStatus(result.status);
  // An edit key (or Enter) on a submitted pair changes nothing: the focus goes to "Reopen to
  // edit", so that the next Enter reopens it instead of the keys seeming to do nothing.
  const pointToReopen = () => {
    if (model.readOnly && !$("reopen").hidden) $("reopen").focus();
  };
  model.on("refused", pointToReopen);

  async function showFeedback() {
    const body = await api("GET", `${base}/feedback/`);
    const gold = new Map(body.gold.map(([i, j, kind]) => [i * m + j, kind]));
    const mine = new Map(body.mine.map(([i, j, kind]) => [i * m + j, kind]));
    feedback = new Map();
    for (const k of new Set([...gold.keys(), ...mine.keys()])) {
      const inGold = gold.has(k);
      const inMine = mine.has(k);
      const cls = inGold && inMine ? "fb-ok" : inGold ? "fb-miss" : "fb-extra";
      const title = `gold: ${gold.get(k) || "none"}, yours: ${mine.get(k) || "none"}`;
      feedback.set(k, { class: cls, title });
    }
    view.repaintAll();
    const s = body.scores;
    const why = { Precision: "you set no sure link", Recall: "the gold has no sure link", F1: "precision or recall is undefined, or both are 0" };
    $("feedback-scores").replaceChildren(
      ...[["Precision", s.precision], ["Recall", s.recall], ["F1", s.f1]].map(([label, value]) => {
        const span = document.createElement("span");
        span.innerHTML = `${label} <b></b>`;
        const figure = span.querySelector("b");
        if (value === null || value === undefined) {
          figure.textContent = "—";
          span.title = `${label} is undefined: ${why[label]}`;
        } else figure.textContent = `${(100 * value).toFixed(1)}%`;
        return span;
      }),
    );
    root.classList.add("with-feedback");
    $("feedback").hidden = false;
    $("feedback-next").focus({ preventScroll: true });
    $("feedback").scrollIntoView({ block: "nearest" });
  }
  $("show-feedback").addEventListener("click", () =>
    showFeedback().catch((error) => say(`The trial feedback could not be loaded: ${reason(error)}.`)),
  );

  // Navigation: send what is pending first, and stay while it waits to be sent (offline, in
  // conflict): the other page could not load offline, and the banner's choice is made here. A
  // refused save (the pair submitted in another tab) stays in browser storage and cannot be
  // retried here: the annotator moves on.
  let nextAfterSubmit = null;
  async function go(otherId) {
    handOverNow();
    if (!(await queue.drain()) && queue.status !== "error") {
      pointToConflict(queue);
      $("ws-message").textContent = `Your latest changes are not saved yet: ${notSavedBecause(queue)}. They are kept in this browser; try again when the indicator says Saved.`;
      $("ws-message").hidden = false;
      return;
    }
    // Leaving the pair a submit opened ends the way back to the submitted one (a submit from
    // here just wrote a new one).
    if (nextAfterSubmit === null) back.forget();
    window.location.href = otherId ? workUrl(otherId) : root.dataset.home;
  }
  const next = () => go(nextAfterSubmit ?? data.assignment.next_id);
  // b (and ← Previous) on the pair a submit opened returns to the pair just submitted, as a
  // browser's back would; on any other page, to the pair before this one in queue order.
  const previous = () => go(back.from(id) ?? data.assignment.previous_id);
  $("feedback-next").addEventListener("click", next);

  // Submit. The dialog starts from the flags, rating and comment saved with the pair: a pair
  // reopened and submitted again keeps them unless they are changed here.
  const dialog = $("submit-dialog");
  fillSubmitForm($("submit-form"), data.annotation);
  const openSubmit = () => {
    if (model.readOnly) return pointToReopen();
    if (pointToConflict(queue)) return;
    $("submit-error").hidden = true;
    $("submit-stale").hidden = true;
    // Enter twice submits: say when that would hand in prefill links nobody looked at.
    const links = model.links();
    const unchecked = links.filter(([i, j]) => !model.touched.has(model.index(i, j))).length;
    $("submit-unchecked").textContent = unchecked
      ? `${unchecked} of the ${links.length} links are the automatic prefill, not yet checked: submitting keeps them as yours.`
      : "";
    $("submit-unchecked").hidden = !unchecked;
    openDialog(dialog, $("grid-wrap"));
    $("submit-confirm").focus();
  };
  // One submission at a time: a second press while the first is out would be refused (409).
  let submitting = false;
  $("submit-form").addEventListener("submit", async (event) => {
    if (event.submitter && event.submitter.value === "cancel") return;
    event.preventDefault();
    if (submitting) return;
    submitting = true;
    $("submit-confirm").disabled = true;
    try {
      await submitPair(event.target);
    } finally {
      submitting = false;
      $("submit-confirm").disabled = false;
    }
  });
  async function submitPair(formElement) {
    const form = new FormData(formElement);
    const rating = form.get("rating");
    const fail = (text) => {
      $("submit-error").textContent = text;
      $("submit-error").hidden = false;
    };
    handOverNow();
    if (!(await queue.drain())) {
      return fail(`Your latest changes are not saved yet: ${notSavedBecause(queue)}. They are kept in this browser; try again when the indicator says Saved.`);
    }
    try {
      const result = await api("POST", `${base}/submit/`, {
        version: queue.version,
        flags: form.getAll("flags"),
        comment: form.get("comment") || "",
        rating: rating === "" || rating === null ? null : Number(rating),
      });
      dialog.close();
      queue.version = result.version;
      queue.setStatus("saved");
      nextAfterSubmit = result.next_id;
      back.remember(id, result.next_id);
      setAssignmentStatus("submitted");
      model.markTouched(model.links()); // drawn checked: the server counts a submission's links so
      if (result.trial) await showFeedback();
      else await go(result.next_id);
    } catch (error) {
      fail(error instanceof ApiError ? error.message : `The server could not be reached (${error.message}).`);
      // Changed elsewhere since this tab's version: every change of this tab is saved (the
      // queue drained above), so loading the current version loses nothing.
      $("submit-stale").hidden = !(error instanceof ApiError && error.status === 409 && error.body?.error?.server);
    }
  }
  $("submit-reload").addEventListener("click", () => window.location.reload());

  $("reopen").addEventListener("click", async () => {
    try {
      await api("POST", `${base}/reopen/`);
    } catch (error) {
      // 409: no longer submitted (reopened in another tab), so the reload below opens it for
      // editing as asked; any other failure is said, and the button stays to try again.
      if (!(error instanceof ApiError && error.status === 409)) {
        say(`The pair could not be reopened: ${reason(error)}.`);
        return;
      }
    }
    window.location.reload();
  });

  // Guidelines and key map.
  async function showGuidelines() {
    openDialog($("guidelines-dialog"), $("grid-wrap"));
    const text = $("guidelines-dialog-body");
    try {
      const body = await api("GET", "/api/guidelines/");
      text.innerHTML = body.html; // sanitised on the server (nh3)
    } catch (error) {
      text.textContent = `The guidelines could not be loaded: ${reason(error)}. Close this and press g to try again.`;
    }
  }
  const showKeys = () => openDialog($("keymap-dialog"), $("grid-wrap"));

  bindKeys({
    model,
    view,
    actions: {
      n: next,
      b: previous,
      Enter: openSubmit,
      "?": showKeys,
      g: showGuidelines,
      save: () => {
        handOverNow();
        return queue.drain();
      },
    },
  });
  bindToolbar(root, {
    model,
    view,
    actions: {
      keys: showKeys,
      guidelines: showGuidelines,
      previous,
      next,
      submit: openSubmit,
    },
  });

  // Active time: the server counts the gaps between signs of activity and skips pauses longer
  // than a minute. A visible tab sends a heartbeat at most every 20 s while its annotator types,
  // clicks, scrolls or moves the pointer; a hidden or untouched tab sends none.
  let lastBeat = Date.now();
  const beat = () => {
    if (document.visibilityState !== "visible" || Date.now() - lastBeat < HEARTBEAT_MS) return;
    lastBeat = Date.now();
    api("POST", `${base}/heartbeat/`).catch(() => {});
  };
  for (const type of ["keydown", "mousedown", "wheel", "pointermove"]) {
    document.addEventListener(type, beat, { passive: true });
  }

  // Back online, or back to this tab or window (where the annotator may have signed in again,
  // or waited out a busy server): a save held back is tried at once, not at the end of its
  // back-off (up to 15 s).
  window.addEventListener("online", () => queue.online());
  window.addEventListener("focus", () => queue.online());
  rememberView(view);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      handOverNow();
      queue.flush();
    } else queue.online();
  });
  $("grid-wrap").focus({ preventScroll: true });
  root.dataset.ready = "true";
}

// The submit dialog's fields as the annotation holds them (`flags`, `rating`, `comment`).
function fillSubmitForm(form, annotation) {
  const flags = new Set(annotation.flags || []);
  for (const box of form.querySelectorAll("input[name=flags]")) box.checked = flags.has(box.value);
  form.elements.rating.value = annotation.rating === null || annotation.rating === undefined ? "" : String(annotation.rating);
  form.elements.comment.value = annotation.comment || "";
}

// A short notice under the pair's title (what a button could not do).
function say(text) {
  $("ws-message").textContent = text;
  $("ws-message").hidden = false;
}

const reason = (error) =>
  error instanceof ApiError ? error.message : `the server could not be reached (${error.message})`;

// The space the grid's box may take: the page's width, and its height less what the other
// parts of the page take (measured while the box is still empty; 4 px for its border).
function gridRoom() {
  const wrap = $("grid-wrap");
  const bottom = Math.max(...[...root.children].filter((e) => !e.hidden).map((e) => e.getBoundingClientRect().bottom));
  const free = root.getBoundingClientRect().bottom - bottom;
  return { width: root.clientWidth - 4, height: wrap.getBoundingClientRect().height + free - 4 };
}

// Where the annotator was in this tab (sessionStorage: a reload or coming back from another
// page returns there; another tab keeps its own place): cursor, scroll, zoom and orientation.
function restoreView(view) {
  let saved;
  try {
    saved = JSON.parse(window.sessionStorage.getItem(viewKey) || "null");
  } catch {
    return; // unreadable or disabled storage: start at the first cell
  }
  if (!saved || typeof saved !== "object") return;
  const whole = (x) => Number.isInteger(x) && x >= 0;
  if (typeof saved.transposed === "boolean" && saved.transposed !== view.transposed) view.transpose();
  if (whole(saved.zoom) && saved.zoom !== view.zoom) view.zoomBy(saved.zoom - view.zoom);
  if (whole(saved.i) && whole(saved.j)) view.model.moveTo(saved.i, saved.j);
  const wrap = view.wrap;
  if (Number.isFinite(saved.top)) wrap.scrollTop = saved.top;
  if (Number.isFinite(saved.left)) wrap.scrollLeft = saved.left;
}

function rememberView(view) {
  const save = () => {
    const { i, j } = view.model.cursor;
    const record = { i, j, top: view.wrap.scrollTop, left: view.wrap.scrollLeft, zoom: view.zoom, transposed: view.transposed };
    try {
      window.sessionStorage.setItem(viewKey, JSON.stringify(record));
    } catch {
      // Storage disabled or full: the page works, it only starts at the first cell next time.
    }
  };
  let timer = null;
  const soon = () => {
    if (timer === null) timer = setTimeout(() => ((timer = null), save()), 200);
  };
  view.model.on("cursor", soon);
  view.wrap.addEventListener("scroll", soon, { passive: true });
  window.addEventListener("pagehide", save);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") save();
  });
}

main().catch((error) => {
  const note = document.createElement("p");
  note.className = "notice error";
  note.setAttribute("role", "alert");
  note.textContent =
    error instanceof ApiError
      ? `This pair could not be opened: ${error.message}`
      : `The server could not be reached. Reload the page when the network is back. (${error.message})`;
  root.prepend(note);
  // The indicator said "Loading…": nothing was loaded, so nothing is saved either.
  const indicator = document.getElementById("save-status");
  indicator.dataset.state = "error";
  indicator.textContent = "Not loaded";
});
