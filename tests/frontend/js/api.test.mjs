// Unit tests of the API client's errors, run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { api, ApiError, NetworkError } from "../../../frontend/static/frontend/api.js";

test("an error says the server's message, else the status", () => {
  assert.equal(new ApiError(409, { error: { code: "stale", message: "changed elsewhere" } }).message, "changed elsewhere");
  assert.equal(new ApiError(502, null).message, "HTTP 502");
  assert.equal(new ApiError(400, {}).message, "HTTP 400");
});

// A fetch that never answers, as over a connection dropped without a reset; it gives up only
// when its signal aborts, as the browser's does.
function fetchThatHangs(calls) {
  return (url, options) => {
    calls.push(options);
    return new Promise((resolve, reject) => {
      options.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
    });
  };
}

test("a request left unanswered fails as a lost connection instead of waiting for good", async () => {
  const calls = [];
  const previous = globalThis.fetch;
  globalThis.fetch = fetchThatHangs(calls);
  try {
    await assert.rejects(api("GET", "/api/me/", undefined, { timeoutMs: 20 }), (error) => {
      assert.ok(error instanceof NetworkError);
      assert.match(error.message, /no answer within 0.02 s/);
      return true;
    });
    assert.equal(calls.length, 1);
  } finally {
    globalThis.fetch = previous;
  }
});

test("an answer whose body never ends fails as a lost connection, not as an empty success", async () => {
  const previous = globalThis.fetch;
  globalThis.fetch = async (url, options) => ({
    ok: true,
    status: 200,
    text: () =>
      new Promise((resolve, reject) => {
        options.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      }),
  });
  try {
    await assert.rejects(api("GET", "/api/me/", undefined, { timeoutMs: 20 }), NetworkError);
  } finally {
    globalThis.fetch = previous;
  }
});

test("an answer in time is returned and its timer does not outlive it", async () => {
  const previous = globalThis.fetch;
  globalThis.fetch = async () => ({ ok: true, status: 200, text: async () => '{"version": 3}' });
  try {
    assert.deepEqual(await api("GET", "/api/me/", undefined, { timeoutMs: 60000 }), { version: 3 });
  } finally {
    globalThis.fetch = previous;
  }
});
