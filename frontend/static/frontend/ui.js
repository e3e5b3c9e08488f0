// Building blocks of the scripts that read the API themselves: an element look-up, a date,
// inline display of API errors and an empty state. No page logic lives here.
import { api, ApiError, csrfToken, el } from "./api.js";

export const $ = (id) => document.getElementById(id);

export const when = (iso) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "—");

// Shows an API failure in `box` (an element with role=alert): the message, and for a file or
// field error the file, line and field the server named.
export function showError(box, error) {
  box.hidden = false;
  box.replaceChildren();
  if (error instanceof ApiError && error.body) {
    const body = error.body.error || error.body;
    if (body.message) {
      box.append(el("p", { text: body.message }));
      const where = ["file", "line", "field"].filter((k) => body[k] !== undefined && body[k] !== null && body[k] !== "");
      if (where.length) box.append(el("p", {}, ...where.flatMap((k) => [el("b", { text: `${k}: ` }), el("code", { text: String(body[k]) }), " "])));
      return;
    }
    // DRF validation errors: {field: ["message", ...], ...}
    const list = el("ul");
    for (const [field, messages] of Object.entries(body)) {
      for (const message of [].concat(messages)) list.append(el("li", {}, el("b", { text: `${field}: ` }), typeof message === "string" ? message : JSON.stringify(message)));
    }
    box.append(list);
    return;
  }
  box.append(el("p", { text: String(error.message || error) }));
}

export function emptyState(title, text, ...actions) {
  return el("div", { class: "empty" }, el("strong", { text: title }), el("p", { text }), actions.length ? el("p", { class: "btn-row", style: "justify-content:center" }, ...actions) : null);
}

export { api, ApiError, csrfToken, el };
