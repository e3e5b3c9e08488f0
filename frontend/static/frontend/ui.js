// Building blocks shared by the pages whose scripts read the API: number formatting that never
// turns an undefined figure into 0, a live job panel (progress bar, status, cancel) and inline
// display of API errors. Pages import what they use; no page logic lives here.
import { api, ApiError, csrfToken, el } from "./api.js";

export const $ = (id) => document.getElementById(id);

// A figure, or a visibly undefined one. `reason` explains an undefined value on hover and to
// screen readers ("no shared items", "neither annotator edited the prefill").
export function figure(value, { digits = 3, percent = false, reason = "" } = {}) {
  if (value === null || value === undefined || Number.isNaN(value) || !Number.isFinite(value)) {
    return el("span", { class: "undefined", title: reason || "undefined", text: "undefined" }, reason ? el("span", { class: "visually-hidden", text: ` (${reason})` }) : null);
  }
  const text = percent ? `${(100 * value).toFixed(Math.max(0, digits - 2))}%` : Number(value).toFixed(digits);
  return el("span", { text });
}

export const integer = (value) => (value === null || value === undefined ? "—" : Number(value).toLocaleString("en-US"));

export function duration(seconds) {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

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
function showWorkerNotice(box, jobs) {
  if (!box) return;
  const notice = jobs.find((j) => j.worker_notice)?.worker_notice || "";
  box.hidden = !notice;
  box.textContent = notice;
}

// The jobs the list API gives for `query`, each finished one with its result attached.
export async function jobsWithResults(query) {
  const jobs = await api("GET", `/api/jobs/?${query}`);
  return Promise.all(jobs.map(async (j) => (j.has_result ? { ...j, result: await api("GET", `/api/jobs/${j.id}/result/`) } : j)));
}

export function emptyState(title, text, ...actions) {
  return el("div", { class: "empty" }, el("strong", { text: title }), el("p", { text }), actions.length ? el("p", { class: "btn-row", style: "justify-content:center" }, ...actions) : null);
}

export { api, ApiError, csrfToken, el };
