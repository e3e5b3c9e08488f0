// Jobs page: every job with its parameters, live status and progress, duration, result and
// error; queued and running jobs can be cancelled. Refreshes while any job is active.
import { $, api, el, emptyState, duration, showError, clearError, showWorkerNotice, when } from "./ui.js";

const form = $("job-filters");
let timer = null;

function params(job) {
  const p = { ...job.parameters };
  if (job.seed !== null && job.seed !== undefined) p.seed = job.seed;
  return Object.entries(p)
    .filter(([, v]) => v !== null && v !== "" && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(" · ");
}

function resultLink(job) {
  if (!job.has_result) return job.error ? el("span", { class: "errors small", text: job.error }) : "—";
  if (job.kind === "agreement_report" && job.corpus_id) return el("a", { href: `/corpora/${job.corpus_id}/agreement/?report=${job.id}`, text: "open report" });
  if (job.kind === "export" && job.status === "succeeded") return el("a", { href: `/api/jobs/${job.id}/download/`, download: "", text: "download file" });
  if (job.kind === "prefill" && job.corpus_id) return el("a", { href: `/corpora/${job.corpus_id}/prefill/`, text: "see the run" });
  return el("a", { href: `/api/jobs/${job.id}/result/`, text: "JSON" });
}

async function cancel(job, button) {
  button.disabled = true;
  try {
    await api("POST", `/api/jobs/${job.id}/cancel/`);
  } catch (error) {
    showError($("jobs-error"), error);
  }
  load();
}

async function load() {
  clearTimeout(timer);
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
  let jobs;
  try {
    jobs = await api("GET", `/api/jobs/?${q}`);
    clearError($("jobs-error"));
  } catch (error) {
    showError($("jobs-error"), error);
    timer = setTimeout(load, 5000);
    return;
  }
  showWorkerNotice($("worker-notice"), jobs);
  $("jobs-table").hidden = jobs.length === 0;
  $("jobs-empty").hidden = jobs.length > 0;
  $("jobs-empty").replaceChildren(emptyState("No job", "Jobs appear here when a report, a prefill or a training is started."));
  $("jobs-table").tBodies[0].replaceChildren(
    ...jobs.map((job) => {
      const active = job.status === "pending" || job.status === "running";
      const button = el("button", { class: "btn", type: "button", text: "Cancel" });
      button.addEventListener("click", () => cancel(job, button));
      return el(
        "tr",
        { "data-job": job.id },
        el("td", {}, `#${job.id}`, el("div", { class: "muted small", text: when(job.created_at) })),
        el("td", { text: job.kind.replace("_", " ") }),
        el("td", {}, job.corpus_id ? el("a", { href: `/corpora/${job.corpus_id}/`, text: job.corpus }) : "—"),
        el("td", { text: job.owner || "—" }),
        el("td", { class: "small clip", title: params(job), text: params(job) || "—" }),
        el("td", {}, el("span", { class: `badge ${job.status}`, text: job.status }), job.message && active ? el("div", { class: "muted small", text: job.message }) : null),
        el("td", {}, el("div", { class: "progress", role: "progressbar", "aria-valuenow": job.progress, "aria-valuemin": 0, "aria-valuemax": 100, "aria-label": `job ${job.id}` }, el("span", { style: `width:${job.progress}%` })), el("span", { class: "small muted", text: `${job.progress}%` })),
        el("td", { class: "num", text: duration(job.duration_seconds) }),
        el("td", {}, resultLink(job)),
        el("td", {}, active ? button : ""),
      );
    }),
  );
  if (jobs.some((j) => j.status === "pending" || j.status === "running")) timer = setTimeout(load, 2000);
}

form.addEventListener("change", load);
load();
