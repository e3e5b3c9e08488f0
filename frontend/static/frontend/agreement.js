// Agreement tab: run a report as a job (live progress), list earlier reports, and read one as
// Cohn, Callison-Burch & Lapata (2008) print it: Tables 3-5 and Figure 4, with Fleiss' kappa,
// Krippendorff's alpha, null-link agreement and the pairs annotators agree on least.
import { $, api, el, emptyState, figure, integer, jobPanel, showError, clearError, when } from "./ui.js";
import { legend, lineChart } from "./chart.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;
const OVERALL = "overall";
let report = null;
let pairIndex = 0;

const groupName = (g) => (g === OVERALL ? "Overall" : g);
// Sub-corpora first, overall last; a corpus without sub-corpora shows its overall column only.
function orderGroups(groups) {
  const subs = groups.filter((g) => g !== OVERALL);
  const overall = groups.filter((g) => g === OVERALL);
  return subs.length === 1 && subs[0] === "(none)" && overall.length ? overall : [...subs, ...overall];
}

async function setUp() {
  const corpus = await api("GET", `/api/corpora/${corpusId}/`);
  const annotators = corpus.overview.annotators.filter((a) => a.submitted > 0);
  $("run-annotators").replaceChildren(
    ...annotators.map((a) =>
      el("label", {}, el("input", { type: "checkbox", name: "annotators", value: a.username, checked: true }), `${a.username} `, el("span", { class: "muted", text: `(${integer(a.submitted)} submitted)` })),
    ),
  );
  if (!annotators.length) $("run-annotators").replaceChildren(el("span", { class: "muted", text: "No annotator has submitted work in this corpus yet." }));
  const subs = corpus.overview.subcorpora.map((s) => s.subcorpus).filter((s) => s !== "");
  $("run-subcorpora-set").hidden = subs.length < 2;
  $("run-subcorpora").replaceChildren(...subs.map((s) => el("label", {}, el("input", { type: "checkbox", name: "subcorpora", value: s, checked: true }), s)));
}

// Lists the reports; opens `openId`, or without one the report named in the address or else the
// newest finished one (`null`: open nothing).
async function loadReports(openId) {
  const jobs = await api("GET", `/api/jobs/?kind=agreement_report&corpus=${corpusId}`);
  $("reports-table").hidden = jobs.length === 0;
  $("reports-empty").hidden = jobs.length > 0;
  $("reports-empty").replaceChildren(emptyState("No report yet", "Choose the annotators and run one."));
  $("reports-table").tBodies[0].replaceChildren(
    ...jobs.map((j) =>
      el(
        "tr",
        { "data-job": j.id },
        el("td", {}, j.has_result ? el("a", { href: `?report=${j.id}`, onclick: (e) => { e.preventDefault(); showReport(j.id); } }, `#${j.id}`) : `#${j.id}`, el("div", { class: "muted small", text: when(j.snapshot_at || j.created_at) })),
        el("td", { text: (j.parameters.annotators || []).join(", ") }),
        el("td", { class: "num", text: integer(j.parameters.samples) }),
        el("td", { class: "num", text: j.seed ?? "—" }),
        el("td", {}, el("span", { class: `badge ${j.status}`, text: j.status }), j.worker_notice ? el("div", { class: "small notice warn worker-notice", role: "status", text: j.worker_notice }) : null),
      ),
    ),
  );
  const fromAddress = Number(new URLSearchParams(location.search).get("report")) || null;
  const target = openId === undefined ? fromAddress ?? jobs.find((j) => j.has_result)?.id : openId;
  const job = jobs.find((j) => j.id === target && j.has_result);
  if (job) showReport(job.id);
}

async function run(event) {
  event.preventDefault();
  const box = $("run-error");
  clearError(box);
  const form = new FormData($("run-form"));
  const body = {
    annotators: form.getAll("annotators"),
    samples: Number(form.get("samples")),
    seed: Number(form.get("seed")),
    chance_model: form.get("chance_model"),
    subcorpora: $("run-subcorpora-set").hidden ? [] : form.getAll("subcorpora"),
  };
  if (body.annotators.length < 2) {
    showError(box, new Error("Choose at least two annotators."));
    return;
  }
  $("run-submit").disabled = true;
  try {
    const job = await api("POST", `/api/corpora/${corpusId}/agreement/`, body);
    loadReports(null);
    jobPanel($("run-job"), job.id, {
      onDone: (done) => {
        $("run-submit").disabled = false;
        loadReports(done.status === "succeeded" ? done.id : null);
      },
    });
  } catch (error) {
    $("run-submit").disabled = false;
    showError(box, error);
  }
}

async function showReport(jobId) {
  report = await api("GET", `/api/jobs/${jobId}/result/`);
  report.jobId = jobId;
  history.replaceState(null, "", `?report=${jobId}`);
  const s = report.signature;
  $("report").hidden = false;
  $("report-title").textContent = `Report #${jobId}`;
  $("report-meta").textContent = `${report.annotators.join(", ")} · J = ${integer(s.samples)} · seed ${s.seed} · chance model: ${s.chance_model_description} · annotations as of ${when(report.snapshot_at)}`;
  $("report-downloads").replaceChildren(
    el("a", { class: "btn", href: `/api/jobs/${jobId}/result/?format=csv`, text: "Download CSV" }),
    el("a", { class: "btn", href: `/api/jobs/${jobId}/result/?download=1`, text: "Download JSON" }),
  );
  pairIndex = 0;
  $("pair-tabs").replaceChildren(
    ...report.annotator_pairs.map((p, k) =>
      el("a", { href: "#", role: "tab", "aria-selected": String(k === 0), onclick: (e) => { e.preventDefault(); pairIndex = k; renderPair(); } }, `${p.candidate} vs ${p.reference}`),
    ),
  );
  renderStandard();
  renderTable5();
  renderDisagreements();
  renderPair();
}

// Table 3 / 4: sub-corpora as columns, Possible and Sure as row groups of P, R, F1 and C-hat.
function paperTable(table, caption) {
  const groups = orderGroups(Object.keys(table));
  const head = el("thead", {}, el("tr", {}, el("th", { text: "" }), ...groups.map((g) => el("th", { text: `${groupName(g)} (${integer(table[g].pairs)})` }))));
  const body = el("tbody");
  for (const [key, name] of [["poss", "Possible"], ["sure", "Sure"]]) {
    body.append(el("tr", { class: "group" }, el("th", { colspan: groups.length + 1, text: name })));
    for (const [measure, label] of [["precision", "Precision"], ["recall", "Recall"], ["f1", "F1"]]) {
      body.append(el("tr", {}, el("th", { text: label }), ...groups.map((g) => el("td", {}, figure(table[g][key][measure], { percent: true, digits: 3 })))));
    }
    body.append(
      el("tr", {}, el("th", {}, "Ĉ"), ...groups.map((g) => {
        const c = table[g].c_hat[key];
        return el("td", { title: c.undefined_reason || `π̂ ${c.pi_hat?.toFixed(3)}, π̂0 ${c.pi0_hat?.toFixed(3)}` }, figure(c.c_hat, { digits: 3, reason: c.undefined_reason }));
      })),
    );
  }
  return el("table", { class: "paper", "aria-label": caption }, head, body);
}

function renderPair() {
  const p = report.annotator_pairs[pairIndex];
  [...$("pair-tabs").children].forEach((tab, k) => tab.setAttribute("aria-current", k === pairIndex ? "page" : "false"));
  $("table3").replaceChildren(paperTable(p.table3, "Table 3"));
  $("table4").replaceChildren(paperTable(p.table4, "Table 4"));
  const groups = orderGroups(Object.keys(p.figure4));
  const select = $("fig-group");
  select.replaceChildren(...groups.map((g) => el("option", { value: g, text: groupName(g) })));
  select.value = OVERALL in p.figure4 ? OVERALL : groups[0];
  renderFigure();
  $("null-links").replaceChildren(
    el("table", { class: "paper" },
      el("thead", {}, el("tr", {}, el("th", { text: "" }), ...orderGroups(Object.keys(p.null_links)).map((g) => el("th", { text: groupName(g) })))),
      el("tbody", {}, el("tr", {}, el("th", { text: "F1 of unaligned words" }), ...orderGroups(Object.keys(p.null_links)).map((g) => el("td", { title: `${p.null_links[g].both} words left unaligned by both` }, figure(p.null_links[g].f1, { digits: 3, reason: p.null_links[g].undefined_reason }))))),
    ),
  );
}

function renderFigure() {
  const p = report.annotator_pairs[pairIndex];
  const group = $("fig-group").value;
  const level = $("fig-level").value;
  const bins = (p.figure4[group] || {})[level] || [];
  if (!bins.length) {
    $("figure4").replaceChildren(emptyState("No data", "No pair of this sub-corpus has both annotators and a chance model."));
    return;
  }
  const cat = (b) => (b.max_length_exclusive === null ? `${b.min_length}+` : `${b.min_length}–${b.max_length_exclusive - 1}`);
  const series = [
    { name: "π̂ (observed)", points: bins.map((b) => [cat(b), b.pi_hat]) },
    { name: "π̂0 (chance)", points: bins.map((b) => [cat(b), b.pi0_hat]), dashed: true },
    { name: "Ĉ", points: bins.map((b) => [cat(b), b.c_hat]) },
  ];
  const chart = lineChart({ series, categories: bins.map(cat), xLabel: "length of the shorter sentence (tokens)", yLabel: "agreement", yMin: Math.min(0, ...bins.map((b) => b.c_hat ?? 0)), yMax: 1, title: `Figure 4: π̂, π̂0 and Ĉ by length, ${groupName(group)}` });
  $("figure4").replaceChildren(chart, legend(series), el("p", { class: "muted small", text: `Pairs per bin: ${bins.map((b) => `${cat(b)}: ${b.pairs}`).join(" · ")}` }));
}

function renderStandard() {
  const groups = orderGroups(Object.keys(report.standard));
  const row = (key, label) =>
    el("tr", {}, el("th", { text: label }), ...groups.map((g) => {
      const s = report.standard[g][key];
      const ci = s.ci95 ? el("div", { class: "muted small", text: `95% CI ${s.ci95[0].toFixed(3)} – ${s.ci95[1].toFixed(3)}` }) : el("div", { class: "muted small", text: s.ci_undefined_reason || "" });
      return el("td", {}, figure(s.value, { digits: 3, reason: s.undefined_reason }), ci);
    }));
  const items = el("tr", {}, el("th", { text: "shared items (pairs)" }), ...groups.map((g) => el("td", { text: `${integer(report.standard[g].n_items)} (${integer(report.standard[g].n_pairs)})` })));
  $("standard").replaceChildren(
    el("table", { class: "paper" }, el("thead", {}, el("tr", {}, el("th", { text: "" }), ...groups.map((g) => el("th", { text: groupName(g) })))), el("tbody", {}, row("fleiss_kappa", "Fleiss' κ"), row("krippendorff_alpha", "Krippendorff's α"), items)),
    el("p", { class: "muted small", text: `Items: ${report.standard[OVERALL]?.items ?? ""}. Intervals: ${integer(report.signature.resamples)} bootstrap resamples of the pairs, seed ${report.signature.seed}.` }),
  );
}

function renderTable5() {
  const rows = report.table5.filter((t) => Object.values(t.groups).some((g) => g.pairs > 0));
  if (!rows.length) {
    $("table5").replaceChildren(emptyState("No prefill", "None of these pairs has an automatic prefill to compare the annotators with."));
    return;
  }
  const groups = orderGroups(Object.keys(rows[0].groups));
  const head = el("thead", {}, el("tr", {}, el("th", { text: "Annotator" }), ...groups.flatMap((g) => [el("th", { text: `${groupName(g)} P` }), el("th", { text: "R" }), el("th", { text: "F1" })])));
  const body = el("tbody", {}, ...rows.map((t) => el("tr", {}, el("th", { text: t.annotator }), ...groups.flatMap((g) => {
    const s = (t.groups[g] || { words: { poss: {} } }).words.poss;
    return [el("td", {}, figure(s.precision, { percent: true })), el("td", {}, figure(s.recall, { percent: true })), el("td", {}, figure(s.f1, { percent: true }))];
  }))));
  $("table5").replaceChildren(el("table", { class: "paper", "aria-label": "Table 5" }, head, body), el("p", { class: "muted small", text: "Words, possible links (P vs P); the prefill is the candidate, the annotator the reference." }));
}

function renderDisagreements() {
  const rows = report.pair_ranking.slice(0, 25);
  if (!rows.length) {
    $("disagreements").replaceChildren(emptyState("Nothing to compare", "No pair has two of these annotators."));
    return;
  }
  $("disagreements").replaceChildren(
    el("table", { class: "data", id: "disagreement-table" },
      el("thead", {}, el("tr", {}, el("th", { text: "Pair" }), el("th", { text: "Sub-corpus" }), el("th", { class: "num", text: "Lowest link F1" }), el("th", { text: "" }))),
      el("tbody", {}, ...rows.map((r) => el("tr", {},
        el("td", { text: r.id }),
        el("td", { text: r.subcorpus }),
        el("td", { class: "num", title: Object.entries(r.f1).map(([k, v]) => `${k}: ${v.toFixed(3)}`).join("\n") }, figure(r.min_f1, { digits: 3 })),
        el("td", {}, r.metadata && r.metadata.pk ? el("a", { href: `/adjudicate/${r.metadata.pk}/`, text: "compare" }) : ""),
      ))),
    ),
    el("p", { class: "muted small", text: `${integer(report.pair_ranking.length)} pairs ranked by the lowest F1 of links between any two annotators; the 25 lowest are shown.` }),
  );
}

$("run-form").addEventListener("submit", run);
$("fig-group").addEventListener("change", renderFigure);
$("fig-level").addEventListener("change", renderFigure);
setUp();
loadReports();
