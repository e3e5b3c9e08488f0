// Autosave with versions and an offline queue: nothing an annotator does is ever lost.
//
// The latest unsent state of the grid is written to storage (localStorage) *before* any
// request, keyed by assignment, together with the server version it was based on and that
// version's links (`baseLinks`, the common ancestor a three-way merge needs). A debounced
// flush sends it; success clears storage, a network failure or 5xx keeps it and retries with
// back-off (and at once when the browser says it is online again), a 409 stops and reports the
// conflict with the server's state while the local copy stays in storage until the user
// decides: keep theirs, overwrite with mine, or merge both sides' changes since the common
// version. No DOM here: `send` and `storage` are injected so node can test it.
//
// Storage is shared by every tab of the browser, so each page writes under a key of its own
// (`tabKey`): one tab's save clears its own copy, never another tab's unsent or conflicting
// work. A page that opens takes over the newest copy left for the pair (`claim`).
import { mergeLinks } from "./state.js";

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 15000;

// The detail of an "offline" status when the server answered 503: it is there but busy (a
// database write lock held by a long import), and the save is retried the same way.
export const SERVER_BUSY = "server busy";

// The detail of an "offline" status when the server answered with another 5xx (a bug, a crash
// behind a proxy): it was reached, so "offline" would send the user to check a working network.
export const SERVER_ERROR = "server error";

// The detail of an "offline" status when the server answered 401: the session ended (logged
// out in another tab, expired). The save is kept and retried the same way, so it goes through
// once the annotator has signed in again (in another tab), or at once on Ctrl+S.
export const SIGNED_OUT = "signed out";

// The save indicator's words for a status: a short `text`, so that the editor's header keeps
// its layout as the status changes (the grid below it must not move under the mouse), and the
// whole story in `title` (the tooltip). `saved` is the page's words for the saved state.
export function statusWords(status, detail, saved) {
  const kept = "your changes are kept in this browser and sent again every few seconds";
  switch (status) {
    case "saved":
      return { text: saved, title: saved };
    case "unsaved":
      return { text: "Unsaved changes…", title: "Changes waiting to be sent (they are kept in this browser)" };
    case "saving":
      return { text: "Saving…", title: "Sending your changes" };
    case "offline":
      if (detail === SIGNED_OUT) return { text: "Signed out · sign in again", title: `Signed out: sign in again in another tab; ${kept}` };
      if (detail === SERVER_BUSY) return { text: "Server busy · retrying", title: `The server is busy; ${kept}` };
      if (detail === SERVER_ERROR) return { text: "Server error · retrying", title: `The server failed to save them; ${kept}` };
      return { text: "Offline · retrying", title: `The server cannot be reached; ${kept}` };
    case "conflict":
      return { text: "Conflict · choose above", title: "Changed elsewhere too: choose how to resolve it in the banner above the sentences" };
    default:
      return { text: `Not saved: ${detail}`, title: `Not saved: ${detail}` };
  }
}

// What the save status says to assistive technology, through a live region of its own (the
// visible indicator is not one): every edit is saved within a second, and "Unsaved changes…,
// Saving…, Saved" read out at each would talk over the cursor's description. The region says
// only what asks for the annotator: going offline or signed out, a conflict, a refused save
// (each once, not at every retry), then "Saved" when a save ends it. Returns
// `announce(status, words)`, `words` as `statusWords` gives them.
export function statusAnnouncer(region) {
  let trouble = null; // the indicator's words of the trouble last said, until a save ends it
  return (status, words) => {
    if (status === "unsaved" || status === "saving") return;
    if (status === "saved") {
      if (trouble !== null) region.textContent = "Saved";
      trouble = null;
    } else if (words.text !== trouble) {
      trouble = words.text;
      region.textContent = words.title;
    }
  };
}

// Why the latest changes are not on the server, for a button that waits for them (submit,
// next pair): the queue's status in a sentence, the end of which the page adds.
export function notSavedBecause(queue) {
  if (queue.status === "conflict") return "they conflict with a version saved elsewhere: choose how to resolve it first";
  if (queue.status === "offline" && queue.detail === SIGNED_OUT) return "you are signed out: sign in again in another tab, and they are sent";
  if (queue.status === "offline" && queue.detail === SERVER_BUSY) return "the server is busy; they are sent as soon as it answers";
  if (queue.status === "offline" && queue.detail === SERVER_ERROR) return "the server failed to save them; they are sent again every few seconds";
  if (queue.status === "offline") return "the server cannot be reached; they are sent as soon as it can";
  return "they are still being sent";
}

// Whether a copy of unsent work left in the browser (`claim`) is on the server already: every
// cell it changed since its version the server's `links` hold the same way. Its page was left
// (the queue, a closed tab) as its last save went through, before the answer came, so the copy
// stayed; the pair was changed elsewhere since. Such a copy brings nothing: the page opens on
// the server's version, as saved, instead of in the conflict banner (whose "Overwrite" would
// drop the other change). A copy without its version's links (an older page's) cannot be told.
export function alreadySaved(stored, links) {
  if (!stored || !Array.isArray(stored.links) || !Array.isArray(stored.baseLinks)) return false;
  const merged = mergeLinks(stored.baseLinks, links, stored.links);
  return merged.fromMine === 0 && merged.conflicts.length === 0;
}

export class SaveQueue {
  constructor({
    key,
    version,
    baseLinks = null,
    send,
    storage,
    debounceMs = 700,
    onStatus = () => {},
    onConflict = () => {},
    onSaved = () => {},
    mayMerge = () => true,
    timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t) },
  }) {
    this.key = key;
    this.version = version;
    this.baseLinks = baseLinks; // the links of `version`, or null when unknown
    this.send = send;
    this.storage = storage;
    this.debounceMs = debounceMs;
    this.onStatus = onStatus;
    this.onConflict = onConflict;
    this.onSaved = onSaved;
    // Whether a conflict with this server state may be merged without asking (`settle`): the
    // adjudication page says no to a gold sent back to waiting, whatever the cells say.
    this.mayMerge = mayMerge;
    this.timers = timers;
    this.pending = null; // links not yet acknowledged by the server
    this.reviewed = null; // optional extra state sent with them (checked prefill cells)
    this.changes = 0;
    this.inFlight = null;
    this.timer = null;
    this.retryMs = RETRY_MIN_MS;
    this.status = "saved";
    this.conflict = null;
    this.lastError = "";
  }

  // A key of this page's own under `key`, the key of its pair.
  static tabKey(key) {
    return `${key}:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  }

  // The newest copy stored for the pair `key` (under `key` itself, as older pages wrote, or
  // under a tab's key), moved to this page's key `own`; null when there is none. Copies older
  // than it stay where they are, for the next page of the pair to take.
  static claim(storage, key, own) {
    let newest = null;
    let newestKey = null;
    try {
      for (let k = 0; k < storage.length; k++) {
        const name = storage.key(k);
        if (name !== key && !(name && name.startsWith(`${key}:`))) continue;
        const record = SaveQueue.stored(storage, name);
        if (record && (newest === null || (record.at || 0) > (newest.at || 0))) {
          newest = record;
          newestKey = name;
        }
      }
      if (newest !== null && newestKey !== own) {
        storage.setItem(own, JSON.stringify(newest));
        storage.removeItem(newestKey);
      }
    } catch {
      // Storage disabled or full: whatever was read is still returned.
    }
    return newest;
  }

  static stored(storage, key) {
    try {
      const raw = storage.getItem(key);
      return raw ? JSON.parse(raw) : null;
    } catch {
      return null;
    }
  }

  setStatus(status, detail = "") {
    this.status = status;
    this.detail = detail;
    this.onStatus(status, detail);
  }

  persist() {
    const record = { base: this.version, baseLinks: this.baseLinks, links: this.pending, changes: this.changes, at: Date.now() };
    if (this.reviewed !== null) record.reviewed = this.reviewed;
    try {
      this.storage.setItem(this.key, JSON.stringify(record));
    } catch (error) {
      // Storage full or disabled: the in-memory queue still retries; say so.
      this.lastError = `browser storage unavailable: ${error}`;
    }
  }

  // `reviewed` (optional): cells sent along as `reviewed` in the request body.
  update(links, changes = 1, reviewed = undefined) {
    this.pending = links;
    if (reviewed !== undefined) this.reviewed = reviewed;
    this.changes += changes;
    this.persist();
    if (this.status === "conflict") return; // wait for the user's decision
    if (this.status !== "offline") this.setStatus("unsaved");
    this.schedule(this.status === "offline" ? this.retryMs : this.debounceMs);
  }

  schedule(delay) {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.flush();
    }, delay);
  }

  async flush() {
    if (this.inFlight) return this.inFlight;
    if (this.pending === null || this.status === "conflict") return;
    this.inFlight = this._send().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  async _send() {
    const links = this.pending;
    const changes = this.changes;
    const body = { version: this.version, links, client: { changes } };
    if (this.reviewed !== null) body.reviewed = this.reviewed;
    this.setStatus("saving");
    try {
      const result = await this.send(body);
      this.version = result.version;
      this.baseLinks = links; // the server now holds exactly these
      this.retryMs = RETRY_MIN_MS;
      this.changes -= changes;
      if (this.pending === links) {
        this.pending = null;
        this.storage.removeItem(this.key);
        this.setStatus("saved");
      } else {
        this.persist(); // newer edits arrived meanwhile: rebase them on the new version
        this.setStatus("unsaved");
        this.schedule(0);
      }
      this.onSaved(result);
    } catch (error) {
      if (error && error.status === 409 && error.body && error.body.error && error.body.error.server) {
        // A 409 without the server's state (the pair was submitted elsewhere) is a refusal below.
        this.conflict = error.body.error.server;
        if (this.settle()) return;
        this.setStatus("conflict", error.message);
        this.onConflict(this.conflict, links);
      } else if (error && error.status && error.status < 500 && error.status !== 408 && error.status !== 401) {
        this.lastError = error.message;
        this.setStatus("error", error.message); // a refused save: retrying cannot help
        if (this.pending !== links) this.schedule(0); // but edits made since may be saved
      } else {
        const status = error && error.status;
        const why = { 503: SERVER_BUSY, 401: SIGNED_OUT }[status] || (status >= 500 ? SERVER_ERROR : null);
        this.setStatus("offline", why || String((error && error.message) || error));
        this.schedule(this.retryMs);
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
      }
    }
  }

  // The browser is back online: try at once.
  online() {
    if (this.status === "offline" && this.pending !== null) {
      this.retryMs = RETRY_MIN_MS;
      this.schedule(0);
    }
  }

  // Conflict resolution: put our state on top of the server's version, overwriting every change
  // made there since the common version.
  keepMine(serverVersion) {
    this.version = serverVersion;
    if (this.conflict && this.conflict.version === serverVersion) this.baseLinks = this.conflict.links;
    this.conflict = null;
    this.persist();
    this.setStatus("unsaved");
    this.schedule(0);
  }

  // Conflict resolution: adopt the server's state (the caller loads it into the model).
  takeTheirs(server) {
    this.version = server.version;
    this.baseLinks = server.links;
    this.conflict = null;
    this.pending = null;
    this.changes = 0;
    this.storage.removeItem(this.key);
    this.setStatus("saved");
  }

  // The three-way merge a conflict would resolve to (see `mergeLinks`) with `mine` (the pending
  // links, unless the grid has changed since), or null when there is no conflict or the common
  // version's links are unknown (work stored by an older page).
  mergePreview(mine = this.pending) {
    if (!this.conflict || this.baseLinks === null || mine === null) return null;
    return mergeLinks(this.baseLinks, this.conflict.links, mine);
  }

  // A conflict in which the server holds no change that is not also ours (every cell it changed
  // since the common version we changed the same way: this tab's own save whose answer was
  // lost, a reload while a save was on its way, a reopened pair) loses nothing either way: it is
  // merged at once, without asking. Returns true when it was.
  settle() {
    if (!this.conflict || !this.mayMerge(this.conflict)) return false;
    const preview = this.mergePreview();
    if (preview === null || preview.fromTheirs > 0 || preview.conflicts.length > 0) return false;
    this.merge();
    return true;
  }

  // Conflict resolution: keep both sides' changes since the common version, cells changed on
  // both sides as mine, and send the result on top of the server's version. Returns the merge
  // (the caller loads `links` into its model), or null as `mergePreview`.
  merge() {
    const merged = this.mergePreview();
    if (merged === null) return null;
    const server = this.conflict;
    this.version = server.version;
    this.baseLinks = server.links;
    this.conflict = null;
    this.pending = merged.links;
    this.persist();
    this.setStatus("unsaved");
    this.schedule(0);
    return merged;
  }

  // Send everything now; resolves true when nothing is left unsaved. A save refused before is
  // tried once more: the refusal may be over (another user had signed in in this browser, and
  // the annotator is back), and Ctrl+S, submit and the next pair ask for exactly that.
  async drain() {
    if (this.timer !== null) {
      this.timers.clear(this.timer);
      this.timer = null;
    }
    if (this.status === "error" && this.pending !== null) this.status = "unsaved";
    for (let attempt = 0; attempt < 5 && this.pending !== null; attempt++) {
      if (this.status === "conflict" || this.status === "error") return false;
      if (this.status === "offline") this.status = "unsaved";
      await this.flush();
      if (this.status === "offline") return false;
    }
    return this.pending === null;
  }
}
