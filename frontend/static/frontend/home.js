// Home page: My queue for annotators, corpora and jobs for admins, pairs to adjudicate.
import { api, el } from "./api.js";
import { integer, pager, showWorkerNotice } from "./ui.js";

const $ = (id) => document.getElementById(id);
const roles = ($("queue").dataset.roles || "").split(",");
const workUrl = (id) => `/work/${id}/`;
const minutes = (seconds) => `${Math.round(seconds / 60)} min`;

// The queue comes a page at a time (an annotator may hold thousands of pairs); the page and the
// status shown are kept in the address, so going back to the home page returns to them.
const queueParams = new URLSearchParams(window.location.search);
let queuePage = Number(queueParams.get("page") || 1);
let queueStatus = queueParams.get("status") || "";
let nextId = null;

async function loadQueue() {
  const q = new URLSearchParams();
  if (queueStatus) q.set("status", queueStatus);
  if (queuePage > 1) q.set("page", String(queuePage));
  history.replaceState(null, "", q.toString() ? `?${q}` : window.location.pathname);
  const queue = await api("GET", `/api/queue/?${q}`);
  const labels = { new: "New", in_progress: "In progress", submitted: "Submitted" };
  $("queue-counts").replaceChildren(
    ...Object.entries(labels).map(([key, label]) =>
      el("div", { class: "count", "data-status": key }, el("b", { text: integer(queue.counts[key] ?? 0) }), label),
    ),
  );
  const tbody = $("queue-table").tBodies[0];
  tbody.replaceChildren(
    ...queue.assignments.map((a) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: workUrl(a.id) }, a.external_id)),
        el("td", { text: a.corpus }),
        el("td", { text: a.split || "—" }),
        el("td", { text: `${a.n_source}×${a.n_target}` }),
        el("td", {}, el("span", { class: `badge ${a.status}`, text: labels[a.status] })),
        el("td", { text: minutes(a.active_seconds) }),
      ),
    ),
  );
  const everything = Object.values(queue.counts).reduce((sum, n) => sum + n, 0);
  $("queue-empty").textContent = everything ? "No pairs with this status." : "No pairs are assigned to you yet.";
  $("queue-empty").hidden = queue.assignments.length > 0;
  $("queue-table").hidden = queue.assignments.length === 0;
  // The filter and the pages only where a queue is longer than one page.
  $("queue-filter").hidden = everything <= queue.per_page;
  const pages = Math.ceil(queue.total / queue.per_page);
  $("queue-pager").hidden = pages <= 1;
  pager($("queue-pager"), { page: queue.page, pages, total: queue.total, noun: "pairs" }, (page) => {
    queuePage = page;
    loadQueue();
  });
  nextId = queue.next_id;
  $("open-next").hidden = !nextId;
  if (nextId) $("open-next").href = workUrl(nextId);
  $("continue").hidden = !queue.continue_id;
  if (queue.continue_id) $("continue").href = workUrl(queue.continue_id);
}

$("queue-status").value = queueStatus;
$("queue-status").addEventListener("change", () => {
  queueStatus = $("queue-status").value;
  queuePage = 1;
  loadQueue();
});
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName)) return;
  if (event.key === "n" && nextId) window.location.href = workUrl(nextId);
});

async function loadAdjudication() {
  const table = $("adjudication-table");
  if (!table) return;
  const body = await api("GET", "/api/adjudication/?status=waiting&sort=disagreement");
  const shown = body.results.slice(0, 10);
  table.tBodies[0].replaceChildren(
    ...shown.map((p) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: `/adjudicate/${p.id}/?status=waiting&sort=disagreement` }, p.external_id)),
        el("td", { text: p.corpus }),
        el("td", { text: p.annotators.join(", ") }),
        el("td", { class: "num", text: p.lowest_f1.toFixed(2) }),
      ),
    ),
  );
  if (!shown.length) table.tBodies[0].append(el("tr", {}, el("td", { colspan: 4, class: "muted", text: "No pair waits: pairs appear once two annotators have submitted them." })));
  $("adjudication-total").textContent = body.total ? `${body.total.toLocaleString("en-US")} pair${body.total === 1 ? "" : "s"} wait, most disagreement first.` : "";
}

async function loadCorpora() {
  const table = $("corpora-table");
  if (!table) return;
  const corpora = await api("GET", "/api/corpora/");
  table.tBodies[0].replaceChildren(
    ...corpora.map((c) => {
      const s = c.stats || {};
      const a = s.assignments || {};
      const computed = s.corpus ? "computed" : "not computed yet";
      return el(
        "tr",
        { "data-corpus": c.name },
        el("td", { text: c.name }),
        el("td", { text: c.n_pairs }),
        el("td", { text: s.assignments ? `${a.new} / ${a.in_progress} / ${a.submitted}` : "—" }),
        el("td", { text: s.multiply_annotated_pairs ?? "—" }),
        el("td", { text: s.gold_alignments ?? "—" }),
        el("td", { class: "muted", text: computed }),
        el(
          "td",
          {},
          el("button", {
            class: "btn",
            type: "button",
            text: "Recompute statistics",
            onclick: async (event) => {
              event.target.disabled = true;
              await api("POST", `/api/corpora/${c.id}/stats/`);
              event.target.disabled = false;
              loadJobs();
            },
          }),
        ),
      );
    }),
  );
}

let polling = null;
async function loadJobs() {
  const table = $("jobs-table");
  if (!table) return;
  const jobs = await api("GET", "/api/jobs/");
  showWorkerNotice($("worker-notice"), jobs);
  table.tBodies[0].replaceChildren(
    ...jobs.slice(0, 15).map((j) =>
      el(
        "tr",
        { "data-job": j.id },
        el("td", { text: j.id }),
        el("td", { text: j.kind }),
        el("td", { text: j.corpus || "—" }),
        el("td", {}, el("span", { class: `badge ${j.status}`, text: j.status })),
        el("td", {}, el("div", { class: "progress", role: "progressbar", "aria-valuenow": j.progress, "aria-valuemin": 0, "aria-valuemax": 100 }, el("span", { style: `width:${j.progress}%` }))),
        el("td", { text: j.error || j.message }),
        el("td", { text: new Date(j.created_at).toLocaleString() }),
      ),
    ),
  );
  const active = jobs.some((j) => j.status === "pending" || j.status === "running");
  clearTimeout(polling);
  if (active) polling = setTimeout(() => Promise.all([loadJobs(), loadCorpora()]), 2000);
}

loadQueue();
if (roles.includes("adjudicator") || roles.includes("admin")) loadAdjudication();
if (roles.includes("admin")) {
  loadCorpora();
  loadJobs();
}
