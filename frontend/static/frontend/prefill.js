// Prefill tab: choose an aligner and its options, run it as a job with live progress, and read
// every earlier run with its precision/recall/F1 against the gold.
import { $, api, el, emptyState, jobsWithResults, figure, integer, jobPanel, showError, clearError, when } from "./ui.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;
let aligners = [];

function optionInput(option) {
  const id = `opt-${option.name}`;
  const label = el("label", { for: id, text: option.name.replaceAll("_", " ") });
  let input;
  if (option.choices.length) {
    input = el("select", { id, name: option.name }, ...option.choices.map((c) => el("option", { value: c, text: c, selected: c === option.default })));
  } else if (option.type === "bool") {
    input = el("select", { id, name: option.name }, el("option", { value: "true", text: "yes", selected: option.default }), el("option", { value: "false", text: "no", selected: !option.default }));
  } else {
    input = el("input", { id, name: option.name, type: option.type === "str" ? "text" : "number", value: option.default, step: option.type === "float" ? "any" : "1" });
  }
  input.dataset.type = option.type;
  input.dataset.default = JSON.stringify(option.default);
  return el("div", { class: "field" }, label, input);
}

function showAligner() {
  const aligner = aligners.find((a) => a.name === $("prefill-aligner").value);
  $("prefill-description").textContent = aligner.description + (aligner.learns_from_annotations ? " Learns from the corpus' finished annotations." : "");
  $("prefill-options").replaceChildren(...aligner.options.map(optionInput));
  $("prefill-options-summary").textContent = `Options (${aligner.options.length}; the defaults suit most corpora)`;
  $("retrain-field").hidden = !aligner.learns_from_annotations;
}

// Only the options the admin changed are sent; the others keep the aligner's defaults.
function changedOptions() {
  const out = {};
  for (const input of $("prefill-options").querySelectorAll("input, select")) {
    const type = input.dataset.type;
    let value = input.value;
    if (type === "bool") value = value === "true";
    else if (type === "int" || type === "float") value = value.trim() === "" ? null : Number(value);
    if (JSON.stringify(value) !== input.dataset.default) out[input.name] = value;
  }
  return out;
}

async function loadState() {
  const corpus = await api("GET", `/api/corpora/${corpusId}/`);
  const o = corpus.overview;
  $("prefill-tiles").replaceChildren(
    el("div", { class: "count" }, el("b", { text: integer(o.prefilled_pairs) }), `of ${integer(o.pairs)} pairs prefilled`),
    el("div", { class: "count" }, el("b", { text: integer(o.gold_alignments) }), "gold alignments"),
    el("div", { class: "count" }, el("b", { text: corpus.prefill_aligner || "off" }), corpus.prefill_aligner ? `retrains after every ${integer(corpus.prefill_retrain_every)} finished pairs` : "automatic retraining"),
  );
}

function scoreCells(evaluation) {
  if (!evaluation) {
    const none = () => el("td", { class: "num muted", text: "—", title: "no gold alignment among the prefilled pairs" });
    return [el("td", { class: "num muted", text: "no gold" }), none(), none(), none(), none()];
  }
  const s = evaluation.all_links;
  const reason = (name) => (s.undefined.includes(name) ? "empty denominator" : "");
  return [
    el("td", { class: "num", text: integer(evaluation.pairs), title: evaluation.trained_on_gold ? "the aligner trained on this gold" : "" }),
    el("td", { class: "num" }, figure(s.precision, { reason: reason("precision") })),
    el("td", { class: "num" }, figure(s.recall, { reason: reason("recall") })),
    el("td", { class: "num" }, figure(s.f1, { reason: reason("f1") })),
    el("td", { class: "num" }, figure(evaluation.non_identical.f1, { reason: evaluation.non_identical.undefined.includes("f1") ? "no non-identical link" : "" })),
  ];
}

async function loadRuns() {
  const jobs = await jobsWithResults(`kind=prefill&corpus=${corpusId}`);
  $("runs-table").hidden = jobs.length === 0;
  $("runs-empty").hidden = jobs.length > 0;
  $("runs-empty").replaceChildren(emptyState("No prefill yet", "Choose an aligner above and run it."));
  $("runs-table").tBodies[0].replaceChildren(
    ...jobs.map((j) => {
      const r = j.result || {};
      return el(
        "tr",
        { "data-job": j.id },
        el("td", {}, `#${j.id}`, el("div", { class: "muted small", text: `${when(j.created_at)} · ${j.parameters.trigger || "request"}` })),
        el("td", {}, j.parameters.aligner, el("div", { class: "muted small", text: Object.entries(j.parameters.options || {}).map(([k, v]) => `${k}=${v}`).join(", ") })),
        el("td", {}, el("span", { class: `badge ${j.status}`, text: j.status }), j.error ? el("div", { class: "small errors-inline", text: j.error }) : null, j.worker_notice ? el("div", { class: "small notice warn worker-notice", role: "status", text: j.worker_notice }) : null),
        el("td", { class: "num", text: integer(r.prefilled_pairs) }),
        el("td", { class: "num", text: integer(r.skipped_started_pairs) }),
        el("td", { class: "num", text: integer(r.links) }),
        ...(j.has_result ? scoreCells(r.evaluation) : [1, 2, 3, 4, 5].map(() => el("td", { class: "num muted", text: "—" }))),
      );
    }),
  );
}

async function run(event) {
  event.preventDefault();
  const box = $("prefill-error");
  clearError(box);
  const body = { aligner: $("prefill-aligner").value, options: changedOptions() };
  const retrain = $("prefill-retrain").value.trim();
  if (!$("retrain-field").hidden && retrain !== "") body.retrain_every = Number(retrain);
  $("prefill-submit").disabled = true;
  try {
    const job = await api("POST", `/api/corpora/${corpusId}/prefill/`, body);
    loadRuns();
    jobPanel($("prefill-job"), job.id, {
      onDone: () => {
        $("prefill-submit").disabled = false;
        loadRuns();
        loadState();
      },
    });
  } catch (error) {
    showError(box, error);
    $("prefill-submit").disabled = false;
  }
}

async function setUp() {
  aligners = await api("GET", "/api/aligners/");
  $("prefill-aligner").replaceChildren(...aligners.map((a) => el("option", { value: a.name, text: a.name, selected: a.name === "em" })));
  $("prefill-aligner").addEventListener("change", showAligner);
  showAligner();
  $("prefill-form").addEventListener("submit", run);
  await Promise.all([loadState(), loadRuns()]);
}

setUp();
