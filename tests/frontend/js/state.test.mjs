// Unit tests of the grid state model and the save queue, run by `node --test` (no bundler).
import assert from "node:assert/strict";
import { test } from "node:test";

import { notSavedBecause, SaveQueue, SERVER_BUSY, SERVER_ERROR, statusWords } from "../../../frontend/static/frontend/savequeue.js";
import { diffCount, EMPTY, GridModel, POSSIBLE, SURE } from "../../../frontend/static/frontend/state.js";

test("a click cycles empty, sure, possible, empty", () => {
  const model = new GridModel(2, 3);
  const seen = [];
  for (let k = 0; k < 3; k++) {
    model.cycle(1, 2);
    seen.push(model.get(1, 2));
  }
  assert.deepEqual(seen, [SURE, POSSIBLE, EMPTY]);
});

test("a block is set in one undoable step and repaints only its cells", () => {
  const model = new GridModel(4, 4, [[0, 0, "S"]]);
  const repainted = [];
  model.on("cells", (indices) => repainted.push(...indices));
  model.moveTo(1, 1);
  model.move(1, 0, true);
  model.move(0, 2, true);
  assert.deepEqual(model.selection(), { i0: 1, i1: 2, j0: 1, j1: 3 });
  assert.equal(model.setBlock(POSSIBLE), 6);
  assert.deepEqual(repainted.sort((a, b) => a - b), [5, 6, 7, 9, 10, 11]);
  assert.equal(model.links().length, 7);
  model.undo();
  assert.deepEqual(model.links(), [[0, 0, "S"]]);
  model.redo();
  assert.equal(model.links().filter((l) => l[2] === "P").length, 6);
});

test("a grid loaded after its gold was removed forgets its undo and redo steps", () => {
  const model = new GridModel(2, 2);
  model.cycle(0, 0);
  model.cycle(1, 1);
  model.undo();
  model.load([]);
  model.forgetHistory();
  assert.equal(model.undo(), false);
  assert.equal(model.redo(), false);
  assert.deepEqual(model.links(), []);
});

test("undo is unlimited and a new edit clears the redo stack", () => {
  const model = new GridModel(10, 10);
  for (let i = 0; i < 10; i++) model.set(i, i, SURE);
  while (model.undo());
  assert.deepEqual(model.links(), []);
  model.redo();
  model.set(5, 4, POSSIBLE);
  assert.equal(model.canRedo(), false);
  assert.deepEqual(model.links(), [[0, 0, "S"], [5, 4, "P"]]);
});

test("the cursor stays inside the grid and setting a cell to its value changes nothing", () => {
  const model = new GridModel(2, 2);
  model.move(-5, 9);
  assert.deepEqual(model.cursor, { i: 0, j: 1 });
  model.set(0, 1, SURE);
  assert.equal(model.set(0, 1, SURE), 0);
  assert.equal(model.undoStack.length, 1);
  assert.throws(() => model.get(2, 0), /outside the 2×2 grid/);
});

test("a read-only model refuses edits", () => {
  const model = new GridModel(2, 2);
  model.readOnly = true;
  assert.equal(model.cycle(0, 0), 0);
  assert.deepEqual(model.links(), []);
});

test("a read-only model tells its page of every edit it refuses, undo and redo included", () => {
  const model = new GridModel(2, 2);
  model.set(0, 0, SURE);
  let refused = 0;
  model.on("refused", () => (refused += 1));
  model.set(1, 1, SURE);
  assert.equal(refused, 0); // an edit that is made is no refusal
  model.readOnly = true;
  model.cycle(0, 1);
  model.moveTo(0, 0, false);
  model.move(1, 1, true);
  model.setBlock(EMPTY);
  model.undo();
  model.redo();
  assert.equal(refused, 4);
  model.moveTo(1, 0); // moving is no edit
  assert.equal(refused, 4);
});

test("diffCount counts cells whose state differs", () => {
  assert.equal(diffCount([[0, 0, "S"], [1, 1, "P"]], [[0, 0, "P"], [2, 2, "S"]]), 3);
});

class MemoryStorage {
  constructor() {
    this.items = new Map();
  }
  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }
  setItem(key, value) {
    this.items.set(key, String(value));
  }
  removeItem(key) {
    this.items.delete(key);
  }
  get length() {
    return this.items.size;
  }
  key(index) {
    return [...this.items.keys()][index] ?? null;
  }
}

const manualTimers = () => {
  const pending = [];
  return {
    set: (fn) => pending.push(fn),
    clear: () => {},
    run: async () => {
      while (pending.length) await pending.shift()();
    },
  };
};

test("the save queue stores before sending and clears storage once saved", async () => {
  const storage = new MemoryStorage();
  const sent = [];
  const timers = manualTimers();
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage,
    timers,
    send: async (body) => {
      sent.push(body);
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  assert.deepEqual(JSON.parse(storage.getItem("k")).links, [[0, 0, "S"]]);
  await timers.run();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].version, 1);
  assert.equal(queue.version, 2);
  assert.equal(queue.status, "saved");
  assert.equal(storage.getItem("k"), null);
});

test("replacing every link (a merge, their version) checks only the cells it changes", () => {
  const model = new GridModel(3, 3, [[0, 0, "S"], [1, 1, "P"]]); // two prefilled links, unchecked
  assert.equal(model.replaceAll([[0, 0, "S"], [1, 1, "P"], [2, 2, "S"]], "merge"), 1);
  assert.deepEqual([...model.touched], [8]);
  model.undo();
  assert.deepEqual(model.links(), [[0, 0, "S"], [1, 1, "P"]]);
});

test("a tab's save never clears another tab's unsent work, which the next page of the pair takes", async () => {
  const storage = new MemoryStorage();
  const conflict = Object.assign(new Error("changed elsewhere"), {
    status: 409,
    body: { error: { server: { version: 2, links: [[0, 0, "S"]] } } },
  });
  const tab = (key, send) => new SaveQueue({ key, version: 1, storage, timers: manualTimers(), send });
  const first = tab(SaveQueue.tabKey("k"), async (body) => ({ version: body.version + 1 }));
  const second = tab(SaveQueue.tabKey("k"), async () => {
    throw conflict;
  });
  assert.notEqual(first.key, second.key);
  second.update([[2, 2, "S"]]);
  await second.flush();
  assert.equal(second.status, "conflict");
  first.update([[0, 0, "S"]]);
  await first.flush();
  assert.equal(first.status, "saved");
  const own = SaveQueue.tabKey("k"); // the second tab reloaded
  assert.deepEqual(SaveQueue.claim(storage, "k", own).links, [[2, 2, "S"]]);
  assert.deepEqual([...storage.items.keys()], [own]);
  assert.equal(SaveQueue.claim(storage, "kk", SaveQueue.tabKey("kk")), null);
});

test("a page takes the newest copy of a pair, also one stored under the pair's key alone", () => {
  const storage = new MemoryStorage();
  storage.setItem("k", JSON.stringify({ base: 1, links: [[0, 0, "S"]], at: 5 }));
  storage.setItem("k:a", JSON.stringify({ base: 1, links: [[1, 1, "S"]], at: 3 }));
  storage.setItem("k2:b", JSON.stringify({ base: 1, links: [[2, 2, "S"]], at: 9 }));
  assert.deepEqual(SaveQueue.claim(storage, "k", "k:mine").links, [[0, 0, "S"]]);
  assert.deepEqual([...storage.items.keys()].sort(), ["k2:b", "k:a", "k:mine"]);
  assert.deepEqual(SaveQueue.claim(storage, "k", "k:next").links, [[0, 0, "S"]]);
});

test("offline saves stay in storage and every change is sent when the network returns", async () => {
  const storage = new MemoryStorage();
  const timers = manualTimers();
  let online = false;
  const received = [];
  const queue = new SaveQueue({
    key: "k",
    version: 3,
    storage,
    timers,
    send: async (body) => {
      if (!online) throw new TypeError("Failed to fetch");
      received.push(body.links);
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "offline");
  queue.update([[0, 0, "S"], [1, 1, "P"]]);
  assert.deepEqual(JSON.parse(storage.getItem("k")).links, [[0, 0, "S"], [1, 1, "P"]]);
  online = true;
  queue.online();
  await timers.run();
  assert.deepEqual(received.at(-1), [[0, 0, "S"], [1, 1, "P"]]);
  assert.equal(queue.status, "saved");
  assert.equal(queue.version, 4);
  assert.equal(storage.getItem("k"), null);
});

test("a 409 stops the queue, reports the server state and keeps the local copy", async () => {
  const storage = new MemoryStorage();
  const conflicts = [];
  const error = Object.assign(new Error("changed elsewhere"), {
    status: 409,
    body: { error: { server: { version: 7, links: [[2, 2, "S"]] } } },
  });
  const queue = new SaveQueue({
    key: "k",
    version: 5,
    storage,
    timers: manualTimers(),
    send: async () => {
      throw error;
    },
    onConflict: (server, mine) => conflicts.push([server, mine]),
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "conflict");
  assert.deepEqual(conflicts[0][0], { version: 7, links: [[2, 2, "S"]] });
  assert.deepEqual(JSON.parse(storage.getItem("k")).links, [[0, 0, "S"]]);
  queue.keepMine(7);
  assert.equal(JSON.parse(storage.getItem("k")).base, 7);
});

test("edits made while a save is in flight are sent on top of the new version", async () => {
  const storage = new MemoryStorage();
  const timers = manualTimers();
  const sent = [];
  let release;
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage,
    timers,
    send: (body) => {
      sent.push(body);
      return new Promise((resolve) => {
        release = () => resolve({ version: body.version + 1 });
      });
    },
  });
  queue.update([[0, 0, "S"]]);
  const first = queue.flush();
  queue.update([[0, 0, "P"]]);
  release();
  await first;
  assert.equal(queue.status, "unsaved");
  const second = timers.run();
  await new Promise((r) => setImmediate(r));
  release();
  await second;
  assert.deepEqual(sent.map((b) => [b.version, b.links]), [
    [1, [[0, 0, "S"]]],
    [2, [[0, 0, "P"]]],
  ]);
  assert.equal(queue.status, "saved");
});

test("a server error (500) is retried and said to be the server's, not a lost network", async () => {
  const timers = manualTimers();
  let failing = true;
  const statuses = [];
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage: new MemoryStorage(),
    timers,
    onStatus: (status, detail) => statuses.push([status, detail]),
    send: async (body) => {
      if (failing) throw Object.assign(new Error("HTTP 500"), { status: 500 });
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.deepEqual(statuses.at(-1), ["offline", SERVER_ERROR]);
  assert.equal(statusWords("offline", SERVER_ERROR, "Saved").text, "Server error · retrying");
  assert.match(notSavedBecause(queue), /server failed/);
  failing = false;
  await timers.run();
  assert.equal(queue.status, "saved");
});

test("a busy server (503) is retried like a lost network and said to be busy, not offline", async () => {
  const storage = new MemoryStorage();
  const timers = manualTimers();
  let busy = true;
  const statuses = [];
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage,
    timers,
    onStatus: (status, detail) => statuses.push([status, detail]),
    send: async (body) => {
      if (busy) throw Object.assign(new Error("the database is busy"), { status: 503 });
      return { version: body.version + 1 };
    },
  });
  queue.update([[0, 0, "S"]]);
  await queue.flush();
  assert.equal(queue.status, "offline");
  assert.deepEqual(statuses.at(-1), ["offline", SERVER_BUSY]);
  busy = false;
  await timers.run();
  assert.equal(queue.status, "saved");
  assert.equal(queue.version, 2);
});

test("undo and redo both bring the cursor back to the cell they change", () => {
  const model = new GridModel(6, 6);
  model.moveTo(2, 3);
  model.set(2, 3, SURE);
  model.moveTo(5, 0);
  model.undo();
  assert.deepEqual(model.cursor, { i: 2, j: 3 });
  model.moveTo(0, 5);
  const moves = [];
  model.on("cursor", () => moves.push({ ...model.cursor }));
  model.redo();
  assert.equal(model.get(2, 3), SURE);
  assert.deepEqual(model.cursor, { i: 2, j: 3 });
  assert.deepEqual(moves, [{ i: 2, j: 3 }]);
});

test("edits made while a save was in flight are sent once that save is refused", async () => {
  const timers = new Map();
  let next = 0;
  const clock = { set: (fn) => timers.set(++next, fn) && next, clear: (id) => timers.delete(id) };
  const fire = () => {
    const due = [...timers.values()];
    timers.clear();
    return Promise.all(due.map((fn) => fn()));
  };
  const sent = [];
  let refuse;
  const queue = new SaveQueue({
    key: "k",
    version: 1,
    storage: new MemoryStorage(),
    timers: clock,
    send: (body) => {
      sent.push(body);
      if (sent.length === 1) return new Promise((_, reject) => (refuse = reject));
      return Promise.resolve({ version: body.version + 1 });
    },
  });
  queue.update([[0, 0, "S"]]);
  const first = queue.flush(); // a block too large for the server, on its way
  queue.update([[1, 1, "S"]]); // the annotator clears it and sets one cell meanwhile
  fire(); // its save is due while the first is in flight: it waits for it
  refuse(Object.assign(new Error("links: at most 10000"), { status: 400 }));
  await first;
  await fire();
  assert.deepEqual(sent.map((body) => body.links), [[[0, 0, "S"]], [[1, 1, "S"]]]);
  assert.equal(queue.status, "saved");
});

test("a read-only grid (a submitted pair) neither undoes nor redoes, and keeps its history", () => {
  const model = new GridModel(2, 2);
  model.set(0, 0, SURE);
  model.set(1, 1, SURE);
  model.undo(); // (1, 1) back to empty, ready to be redone
  const changed = [];
  model.on("cells", (indices) => changed.push(...indices));
  model.readOnly = true;
  assert.equal(model.undo(), false);
  assert.equal(model.redo(), false);
  assert.deepEqual(model.links(), [[0, 0, "S"]]);
  assert.deepEqual(changed, []);
  model.readOnly = false; // reopened: the history is still there
  assert.equal(model.redo(), true);
  assert.deepEqual(model.links(), [[0, 0, "S"], [1, 1, "S"]]);
});

test("every edit tells which cells it set, changed or not, and undo and redo which they change back", () => {
  const model = new GridModel(2, 2, []);
  const edits = [];
  model.on("edited", (edit) => edits.push(edit));
  model.set(0, 1, EMPTY); // no change, still a decision
  model.setBlock(SURE);
  model.undo();
  model.redo();
  assert.deepEqual(edits, [
    { cells: [1], label: "edit", via: "edit" },
    { cells: [0], label: "block", via: "edit" },
    { cells: [0], label: "block", via: "undo" },
    { cells: [0], label: "block", via: "redo" },
  ]);
});
