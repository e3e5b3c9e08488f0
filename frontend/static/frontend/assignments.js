// Assignments tab: plan K annotators per pair with a doubly annotated share, see coverage and
// progress per annotator and sub-corpus, and hand an annotator's open work over to others.
import { $, api, el, emptyState, duration, figure, integer, jobPanel, showError, clearError } from "./ui.js";
import { barChart } from "./chart.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;
const label = (value) => (value === "" ? "(none)" : value);
const percent = (part, whole) => (whole ? `${Math.round((100 * part) / whole)}%` : "—");

function tile(value, text, title = "") {
  return el("div", { class: "count", title }, el("b", { text: value }), text);
}

function progressBar(done, total, name) {
  const share = total ? (100 * done) / total : 0;
  return el("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": Math.round(share), "aria-label": `${name}: ${Math.round(share)}% submitted` }, el("span", { style: `width:${share}%` }));
}

// Every count from 0 to at least 3 annotators gets a bar, empty ones too.
function annotatorBins(histogram) {
  const top = Math.max(3, ...histogram.map((b) => b.annotators));
  return Array.from({ length: top + 1 }, (_, k) => ({ label: String(k), count: histogram.find((b) => b.annotators === k)?.pairs ?? 0 }));
}

// The share of prefill cells the annotator changed, or a dash whose title says why there is none.
function editRateCell(a) {
  if (a.edit_rate === null || a.edit_rate === undefined) {
    const why = "No edit rate yet: it counts the cells changed from the prefill over submitted pairs that have one, and none of this annotator's submitted pairs has a prefill";
    return el("td", { class: "num undefined", title: why }, "—", el("span", { class: "visually-hidden", text: ` (${why})` }));
  }
  return el("td", { class: "num", title: `over ${integer(a.edit_rate_pairs)} submitted pairs with a prefill` }, figure(a.edit_rate, { percent: true, digits: 4 }));
}

async function loadProgress() {
  const p = await api("GET", `/api/corpora/${corpusId}/assignments/progress/`);
  const c = p.coverage;
  const unassigned = c.annotators_per_pair.find((b) => b.annotators === 0)?.pairs ?? 0;
  const totals = p.annotators.reduce((t, a) => ({ assigned: t.assigned + a.assigned, submitted: t.submitted + a.submitted }), { assigned: 0, submitted: 0 });
  $("tiles").replaceChildren(
    tile(integer(c.pairs), "pairs"),
    tile(integer(unassigned), "without an annotator"),
    tile(c.doubly_annotated_fraction === null ? "—" : `${(100 * c.doubly_annotated_fraction).toFixed(1)}%`, "with two or more annotators", `${integer(c.doubly_annotated)} pairs`),
    tile(percent(totals.submitted, totals.assigned), "of assignments submitted", `${integer(totals.submitted)} of ${integer(totals.assigned)}`),
  );
  $("coverage-chart").replaceChildren(
    c.pairs
      ? barChart({ bins: annotatorBins(c.annotators_per_pair), xLabel: "annotators per pair", yLabel: "pairs", title: "Pairs by their number of annotators" })
      : emptyState("No pairs", "Import files on the Corpora page."),
  );
  $("annotators-table").hidden = p.annotators.length === 0;
  $("annotators-empty").hidden = p.annotators.length > 0;
  $("annotators-empty").replaceChildren(emptyState("Nobody is assigned yet", "Choose annotators and assign above."));
  $("annotators-table").tBodies[0].replaceChildren(
    ...p.annotators.map((a) =>
      el(
        "tr",
        { "data-annotator": a.username },
        el("td", {}, el("a", { href: `/corpora/${corpusId}/pairs/?annotator=${encodeURIComponent(a.username)}`, text: a.username }), a.is_active ? null : el("span", { class: "badge deactivated", text: "deactivated" })),
        el("td", { class: "num", text: integer(a.assigned) }),
        el("td", { class: "num", text: integer(a.new) }),
        el("td", { class: "num", text: integer(a.in_progress) }),
        el("td", { class: "num", text: integer(a.submitted) }),
        el("td", {}, progressBar(a.submitted, a.assigned, a.username)),
        el("td", { class: "num", text: duration(a.median_active_seconds), title: a.median_active_seconds === null ? "no timed work: nothing submitted here, or only imported annotations" : "" }),
        editRateCell(a),
      ),
    ),
  );
  $("subs-table").tBodies[0].replaceChildren(
    ...p.subcorpora.map((s) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: `/corpora/${corpusId}/pairs/?subcorpus=${encodeURIComponent(label(s.subcorpus))}`, text: label(s.subcorpus) })),
        el("td", { class: "num", text: integer(s.pairs) }),
        el("td", { class: "num", text: integer(s.unassigned) }),
        el("td", { class: "num", text: integer(s.doubly_annotated) }),
        el("td", { class: "num", text: integer(s.pairs_done) }),
        el("td", { class: "num", text: integer(s.new) }),
        el("td", { class: "num", text: integer(s.in_progress) }),
        el("td", { class: "num", text: integer(s.submitted) }),
        el("td", { class: "num", text: duration(s.median_active_seconds), title: s.median_active_seconds === null ? "no timed work: nothing submitted here, or only imported annotations" : "" }),
      ),
    ),
  );
  return p;
}

async function loadAnnotators(progress) {
  const users = (await api("GET", "/api/users/?role=annotator")).filter((u) => u.is_active);
  const box = (name, user, checked) => el("label", {}, el("input", { type: "checkbox", name, value: user.username, checked }), user.username);
  $("plan-annotators").replaceChildren(...users.map((u) => box("annotators", u, !u.is_superuser)));
  if (!users.length) $("plan-annotators").replaceChildren(el("span", { class: "muted" }, "Nobody has the annotator role yet: add people on the ", el("a", { href: "/users/", text: "Users" }), " page."));
  const holders = progress.annotators.filter((a) => a.new + a.in_progress > 0);
  $("handover-from").replaceChildren(...holders.map((a) => el("option", { value: a.username, text: `${a.username} (${integer(a.new + a.in_progress)} open)` })));
  $("handover-form").hidden = false;
  $("handover-to").replaceChildren(...users.map((u) => box("to", u, false)));
  if (!holders.length) $("handover-from").replaceChildren(el("option", { value: "", text: "nobody has open work" }));
  $("handover-submit").disabled = !holders.length;
}

async function plan(event) {
  event.preventDefault();
  const box = $("plan-error");
  clearError(box);
  $("plan-done").hidden = true;
  const form = new FormData($("plan-form"));
  const body = { annotators: form.getAll("annotators"), per_pair: Number(form.get("per_pair")), double_fraction: Number(form.get("double_percent")) / 100 };
  if (form.get("seed") !== "") body.seed = Number(form.get("seed"));
  $("plan-submit").disabled = true;
  try {
    const job = await api("POST", `/api/corpora/${corpusId}/assignments/`, body);
    runJob($("plan-job"), job.id, box, async (report) => {
      $("plan-done").hidden = false;
      $("plan-done").textContent = `Created ${integer(report.created)} assignments (seed ${report.seed}). Open work now: ${Object.entries(report.load).map(([name, n]) => `${name} ${integer(n)}`).join(", ")}.`;
    }, () => { $("plan-submit").disabled = false; });
  } catch (error) {
    showError(box, error);
    $("plan-submit").disabled = false;
  }
}

// Plans and hand-overs run as jobs: a live panel while they run, then their report.
function runJob(container, jobId, box, show, always) {
  jobPanel(container, jobId, {
    onDone: async (job) => {
      always();
      if (job.status !== "succeeded") return;
      try {
        await show(await api("GET", `/api/jobs/${jobId}/result/`));
        container.replaceChildren();
        await refresh();
      } catch (error) {
        showError(box, error);
      }
    },
  });
}

async function handOver(event) {
  event.preventDefault();
  const box = $("handover-error");
  clearError(box);
  $("handover-done").hidden = true;
  const form = new FormData($("handover-form"));
  const body = { annotator: form.get("annotator"), to: form.getAll("to"), include_started: $("handover-started").checked };
  $("handover-submit").disabled = true;
  try {
    const job = await api("POST", `/api/corpora/${corpusId}/assignments/hand-over/`, body);
    runJob($("handover-job"), job.id, box, async (report) => {
      $("handover-done").hidden = false;
      $("handover-done").textContent = `Moved ${integer(report.moved)} assignments${report.stuck ? `; ${integer(report.stuck)} stay (every target already has those pairs)` : ""}.`;
    }, () => { $("handover-submit").disabled = false; });
  } catch (error) {
    showError(box, error);
    $("handover-submit").disabled = false;
  }
}

async function refresh() {
  const progress = await loadProgress();
  await loadAnnotators(progress);
}

$("plan-form").addEventListener("submit", plan);
$("handover-form").addEventListener("submit", handOver);
refresh();
