// Unit tests of the API client's errors, run by `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError } from "../../../frontend/static/frontend/api.js";

test("an error says the server's message, else the status", () => {
  assert.equal(new ApiError(409, { error: { code: "stale", message: "changed elsewhere" } }).message, "changed elsewhere");
  assert.equal(new ApiError(502, null).message, "HTTP 502");
  assert.equal(new ApiError(400, {}).message, "HTTP 400");
});
