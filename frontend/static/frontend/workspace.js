// The annotation workspace page: wires the model, the grid view, the save queue and the API.
import { api, ApiError } from "./api.js";
import { GridView, renderSentences } from "./grid.js";
import { bindKeys, bindToolbar, openDialog } from "./keys.js";
import { SaveQueue } from "./savequeue.js";
import { diffCount, GridModel, POSSIBLE, SURE, sameLinks } from "./state.js";

const HEARTBEAT_MS = 20000;
const root = document.getElementById("workspace");
const id = Number(root.dataset.assignment);
const base = `/api/assignments/${id}`;
const storageKey = `paw:annotation:${id}`;
const $ = (sel) => document.getElementById(sel);
const workUrl = (other) => root.dataset.workUrl.replace(/0\/$/, `${other}/`);

const STATUS_TEXT = {
  saved: (q) => `Saved · v${q.version}`,
  unsaved: () => "Unsaved changes…",
  saving: () => "Saving…",
  offline: () => "Offline · changes kept in this browser, retrying",
  conflict: () => "Conflict · choose a version",
  error: (q, detail) => `Not saved: ${detail}`,
};

async function main() {
  const data = await api("POST", `${base}/open/`);
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
  const renderStart = performance.now();
  view.render();
  void $("grid-wrap").offsetHeight; // include style and layout in the measured first render
  window.__workspace.firstRenderMs = performance.now() - renderStart;
  view.updateInfo();

  const indicator = $("save-status");
  const queue = new SaveQueue({
    key: storageKey,
    version: data.annotation.version,
    storage: window.localStorage,
    send: (body) => api("PUT", `${base}/annotation/`, body),
    onStatus: (status, detail) => {
      indicator.dataset.state = status;
      indicator.textContent = STATUS_TEXT[status](queue, detail);
    },
    onConflict: (server, mine) => showConflict(server, mine),
  });
  window.__workspace.queue = queue;
  queue.setStatus("saved");

  // Work left in this browser by an earlier visit (offline, closed tab, crash).
  const stored = SaveQueue.stored(window.localStorage, storageKey);
  if (stored && Array.isArray(stored.links)) {
    if (sameLinks(stored.links, data.annotation.links)) {
      window.localStorage.removeItem(storageKey);
    } else if (stored.base === data.annotation.version) {
      model.load(stored.links);
      queue.update(stored.links, stored.changes || 1);
    } else {
      model.load(stored.links);
      queue.pending = stored.links;
      queue.conflict = { version: data.annotation.version, links: data.annotation.links };
      queue.setStatus("conflict");
      showConflict(queue.conflict, stored.links);
    }
  }
  // Hand the new state to the save queue just after the repaint, once per burst of changes,
  // so a toggle's frame pays only for the cell itself; leaving the page flushes it at once.
  let handOver = null;
  const handOverNow = () => {
    if (handOver === null) return;
    clearTimeout(handOver);
    handOver = null;
    queue.update(model.links());
  };
  model.on("cells", () => {
    if (handOver === null) handOver = setTimeout(handOverNow, 0);
  });
  window.addEventListener("pagehide", handOverNow);
  window.__workspace.handOverNow = handOverNow;

  function showConflict(server, mine) {
    $("conflict-text").textContent =
      `This pair was changed elsewhere (server version ${server.version}); ` +
      `${diffCount(server.links, mine)} cell(s) differ from yours. Nothing is lost until you choose.`;
    $("conflict").hidden = false;
  }
  $("conflict-mine").addEventListener("click", () => {
    $("conflict").hidden = true;
    queue.keepMine(queue.conflict.version);
  });
  $("conflict-theirs").addEventListener("click", () => {
    const server = queue.conflict;
    $("conflict").hidden = true;
    queue.takeTheirs(server);
    model.replaceAll(server.links, "use theirs"); // undoable: Ctrl+Z brings yours back
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
    $("readonly-text").textContent = data.trial ? "This trial pair is submitted and final; its feedback shows the gold alignment." : "This pair is submitted; the grid shows your links but does not change.";
    $("submit-button").disabled = submitted;
  }
  setAssignmentStatus(data.assignment.status);
  queue.onSaved = (result) => setAssignmentStatus(result.status);

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
    const fmt = (x) => (x === null || x === undefined ? "undefined" : `${(100 * x).toFixed(1)}%`);
    const s = body.scores;
    $("feedback-scores").replaceChildren(
      ...[["Precision", s.precision], ["Recall", s.recall], ["F1", s.f1]].map(([label, value]) => {
        const span = document.createElement("span");
        span.innerHTML = `${label} <b></b>`;
        span.querySelector("b").textContent = fmt(value);
        return span;
      }),
    );
    $("feedback").hidden = false;
    $("feedback-next").focus();
  }
  $("show-feedback").addEventListener("click", showFeedback);

  // Navigation: send what is pending first (it also stays in browser storage if offline).
  let nextAfterSubmit = null;
  async function go(otherId) {
    handOverNow();
    await queue.drain();
    window.location.href = otherId ? workUrl(otherId) : root.dataset.home;
  }
  const next = () => go(nextAfterSubmit ?? data.assignment.next_id);
  const previous = () => go(data.assignment.previous_id);
  $("feedback-next").addEventListener("click", next);

  // Submit.
  const dialog = $("submit-dialog");
  const openSubmit = () => {
    if (model.readOnly) return;
    $("submit-error").hidden = true;
    openDialog(dialog);
    $("submit-confirm").focus();
  };
  $("submit-form").addEventListener("submit", async (event) => {
    if (event.submitter && event.submitter.value === "cancel") return;
    event.preventDefault();
    const form = new FormData(event.target);
    const rating = form.get("rating");
    const fail = (text) => {
      $("submit-error").textContent = text;
      $("submit-error").hidden = false;
    };
    handOverNow();
    if (!(await queue.drain())) {
      return fail("Your latest changes are not saved yet (offline or in conflict); they are kept in this browser. Try again when the indicator says Saved.");
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
      setAssignmentStatus("submitted");
      if (result.trial) await showFeedback();
      else await go(result.next_id);
    } catch (error) {
      fail(error instanceof ApiError ? error.message : `The server could not be reached (${error.message}).`);
    }
  });

  $("reopen").addEventListener("click", async () => {
    await api("POST", `${base}/reopen/`);
    window.location.reload();
  });

  // Guidelines and key map.
  async function showGuidelines() {
    openDialog($("guidelines-dialog"));
    const body = await api("GET", "/api/guidelines/");
    $("guidelines-dialog-body").innerHTML = body.html; // sanitised on the server (nh3)
  }
  const showKeys = () => openDialog($("keymap-dialog"));

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

  window.addEventListener("online", () => queue.online());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      handOverNow();
      queue.flush();
    }
  });
  $("grid-wrap").focus({ preventScroll: true });
  root.dataset.ready = "true";
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
});
