// Building blocks shared by the pages that still build their rows in the browser: numbers, a
// live job panel (progress bar, status, cancel), sortable paged tables and inline display of
// API errors. Pages import what they use; no page logic lives here.
import { api, ApiError, csrfToken, el } from "./api.js";

export const $ = (id) => document.getElementById(id);

export const integer = (value) => (value === null || value === undefined ? "—" : Number(value).toLocaleString("en-US"));

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

export function clearError(box) {
  box.hidden = true;
  box.replaceChildren();
}

const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

// A live panel for one job: status badge, progress bar with percentage, message, duration, and
// a Cancel button while it is queued or running. Polls until the job finishes, then calls
// onDone(job). Returns a function that stops polling.
export function jobPanel(container, jobId, { onDone = () => {}, onUpdate = () => {}, interval = 1000 } = {}) {
  let timer = null;
  let stopped = false;
  const badge = el("span", { class: "badge" });
  const bar = el("span", { style: "width:0%" });
  const progress = el("div", { class: "progress lg", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": 0, "aria-label": `Job ${jobId} progress` }, bar);
  const pct = el("span", { class: "pct" });
  const message = el("span", { class: "muted" });
  const cancel = el("button", { class: "btn", type: "button", text: "Cancel job" });
  const error = el("p", { class: "errors", role: "alert", hidden: true });
  const notice = el("p", { class: "notice warn worker-notice", role: "status", hidden: true });
  container.replaceChildren(el("div", { class: "jobline", "data-job": jobId }, el("a", { href: "/jobs/", text: `Job #${jobId}` }), badge, progress, pct, message, cancel), notice, error);
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      await api("POST", `/api/jobs/${jobId}/cancel/`);
    } catch (err) {
      showError(error, err);
    }
    poll();
  });
  async function poll() {
    clearTimeout(timer);
    if (stopped) return;
    let job;
    try {
      job = await api("GET", `/api/jobs/${jobId}/`);
    } catch (err) {
      message.textContent = "cannot reach the server; retrying…";
      timer = setTimeout(poll, interval * 3);
      return;
    }
    badge.className = `badge ${job.status}`;
    badge.textContent = job.status;
    bar.style.width = `${job.progress}%`;
    progress.setAttribute("aria-valuenow", job.progress);
    pct.textContent = `${job.progress}%`;
    message.textContent = job.error || job.message || "";
    showWorkerNotice(notice, [job]);
    cancel.hidden = FINISHED.has(job.status);
    onUpdate(job);
    if (FINISHED.has(job.status)) onDone(job);
    else timer = setTimeout(poll, interval);
  }
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// The server's "no worker is running" notice, which it sets on a queued job while no worker is
// alive to run it, shown in `box` while any of `jobs` carries it.
export function showWorkerNotice(box, jobs) {
  if (!box) return;
  const notice = jobs.find((j) => j.worker_notice)?.worker_notice || "";
  box.hidden = !notice;
  box.textContent = notice;
}

// Sort buttons in a table head: each <th data-sort="key"> gets a button; clicking calls
// onSort(key, direction) and marks aria-sort. Returns a setter for the current sort.
export function sortableHead(table, onSort) {
  const heads = [...table.tHead.querySelectorAll("th[data-sort]")];
  const mark = (key, dir) => {
    for (const th of heads) th.setAttribute("aria-sort", th.dataset.sort === key ? (dir === "asc" ? "ascending" : "descending") : "none");
  };
  for (const th of heads) {
    const label = th.textContent;
    th.replaceChildren(el("button", { class: "sort", type: "button", text: label }));
    th.firstChild.addEventListener("click", () => {
      const dir = th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc";
      mark(th.dataset.sort, dir);
      onSort(th.dataset.sort, dir);
    });
  }
  return mark;
}

// "Page 2 of 7 · 312 pairs" with previous/next buttons.
export function pager(container, { page, pages, total, noun = "rows" }, onPage) {
  const prev = el("button", { class: "btn", type: "button", text: "← Previous", disabled: page <= 1 });
  const next = el("button", { class: "btn", type: "button", text: "Next →", disabled: page >= pages });
  prev.addEventListener("click", () => onPage(page - 1));
  next.addEventListener("click", () => onPage(page + 1));
  container.replaceChildren(el("span", { class: "muted", text: `Page ${page} of ${Math.max(pages, 1)} · ${integer(total)} ${noun}` }), prev, next);
}

export function emptyState(title, text, ...actions) {
  return el("div", { class: "empty" }, el("strong", { text: title }), el("p", { text }), actions.length ? el("p", { class: "btn-row", style: "justify-content:center" }, ...actions) : null);
}

export { api, ApiError, csrfToken, el };
