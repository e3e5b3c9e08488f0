// Thin fetch wrapper for the JSON API: CSRF header, JSON in/out, typed failures.
// A failure to reach the server at all is a NetworkError (the save queue goes offline on it);
// so is a request left unanswered for `TIMEOUT_MS`. An HTTP error is an ApiError carrying the
// status and the server's {error: {...}} body.

// How long a request may go unanswered before it counts as a lost connection. A request that
// hangs (a connection dropped without a reset, a stuck proxy) never settles by itself: the save
// queue sends one request at a time, so every later change, Ctrl+S, the next pair and submit would
// wait behind it until the page is reloaded. Well above the server's longest wait (the database
// busy timeout, 20 s, after which it answers 503). A save retried after a timeout is harmless:
// one that did go through is recognised as a repeat.
export const TIMEOUT_MS = 60000;

export class NetworkError extends Error {}

export class ApiError extends Error {
  constructor(status, body) {
    super(errorMessage(status, body));
    this.status = status;
    this.body = body;
  }
}

// The server's message (every API error is {error: {code, message, ...}}), else the status.
function errorMessage(status, body) {
  if (body && body.error && body.error.message) return body.error.message;
  return `HTTP ${status}`;
}

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function api(method, url, body, { timeoutMs = TIMEOUT_MS } = {}) {
  const controller = new AbortController();
  const options = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    signal: controller.signal,
  };
  if (method !== "GET") options.headers["X-CSRFToken"] = csrfToken();
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const lost = (error) =>
    new NetworkError(controller.signal.aborted ? `no answer within ${timeoutMs / 1000} s` : String(error));
  let response;
  let text;
  try {
    response = await fetch(url, options);
    text = await response.text().catch((error) => {
      if (controller.signal.aborted) throw lost(error); // not an empty answer: no answer
      return "";
    });
  } catch (error) {
    throw error instanceof NetworkError ? error : lost(error);
  } finally {
    clearTimeout(timer);
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    // Through the CSSOM: the Content-Security-Policy refuses style attributes.
    else if (key === "style") node.style.cssText = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
