// Export tab: every export format for one annotator, the prefill, the gold or all of them, and
// phrase tables; built by a job with live progress, then downloaded.
import { $, api, el, emptyState, jobsWithResults, integer, jobPanel, showError, clearError, when } from "./ui.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;

function size(bytes) {
  if (bytes === undefined || bytes === null) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function describeWhich(p) {
  if (p.which === "annotator") return `annotator ${p.annotator}`;
  const text = { all: "all", prefill: "prefill", gold: "gold" }[p.which];
  return p.format === "phrases" ? `${text} · ${p.use === "sure" ? "S" : "P"} · ≤ ${p.max_length} tokens${p.keep_identical ? " · identical kept" : ""}` : text;
}

const downloadLink = (job) => el("a", { href: `/api/jobs/${job.id}/download/`, class: "btn small", download: "", text: `Download ${job.result?.file ?? ""}` });

async function loadExports() {
  const jobs = await jobsWithResults(`kind=export&corpus=${corpusId}`);
  $("exports-table").hidden = jobs.length === 0;
  $("exports-empty").hidden = jobs.length > 0;
  $("exports-empty").replaceChildren(emptyState("No export yet", "Choose a format above and build one."));
  $("exports-table").tBodies[0].replaceChildren(
    ...jobs.map((j) =>
      el(
        "tr",
        { "data-job": j.id },
        el("td", {}, `#${j.id}`, el("div", { class: "muted small", text: `${when(j.created_at)} · ${j.owner ?? ""}` })),
        el("td", { text: j.parameters.format }),
        el("td", { text: describeWhich(j.parameters) }),
        el("td", {}, el("span", { class: `badge ${j.status}`, text: j.status }), j.error ? el("div", { class: "small errors-inline", text: j.error }) : null, j.worker_notice ? el("div", { class: "small notice warn worker-notice", role: "status", text: j.worker_notice }) : null),
        el("td", { class: "num", text: integer(j.result?.pairs) }),
        el("td", { class: "num", text: size(j.result?.bytes) }),
        el("td", {}, j.status === "succeeded" ? downloadLink(j) : "—"),
      ),
    ),
  );
}

function syncForm() {
  const format = new FormData($("export-form")).get("format");
  $("phrase-set").hidden = format !== "phrases";
  const jsonl = format === "jsonl";
  for (const radio of document.querySelectorAll("input[name=which]")) {
    if (radio.value !== "all") radio.disabled = jsonl || radio.dataset.unavailable === "true";
  }
  if (jsonl) document.querySelector("input[name=which][value=all]").checked = true;
  $("which-all-help").textContent = jsonl ? "(jsonl always keeps every alignment)" : format === "phrases" ? "(every annotator's links counted together)" : "(one file per annotator, the prefill and the gold, zipped)";
  $("export-annotator").disabled = document.querySelector("input[name=which][value=annotator]").disabled;
}

async function build(event) {
  event.preventDefault();
  const box = $("export-error");
  clearError(box);
  $("export-ready").hidden = true;
  const form = new FormData($("export-form"));
  const body = { format: form.get("format"), which: form.get("which") };
  if (body.which === "annotator") body.annotator = $("export-annotator").value;
  if (body.format === "phrases") Object.assign(body, { use: form.get("use"), max_length: Number(form.get("max_length")), keep_identical: $("export-identical").checked });
  $("export-submit").disabled = true;
  try {
    const job = await api("POST", `/api/corpora/${corpusId}/export/`, body);
    loadExports();
    jobPanel($("export-job"), job.id, {
      onDone: async (done) => {
        $("export-submit").disabled = false;
        await loadExports();
        if (done.status === "succeeded") {
          const result = await api("GET", `/api/jobs/${done.id}/result/`);
          $("export-ready").hidden = false;
          $("export-ready").replaceChildren(downloadLink({ ...done, result }), el("span", { class: "muted", text: ` ${size(result.bytes)}` }));
        }
      },
    });
  } catch (error) {
    showError(box, error);
    $("export-submit").disabled = false;
  }
}

async function setUp() {
  const info = await api("GET", `/api/corpora/${corpusId}/export/`);
  const names = Object.keys(info.formats);
  $("export-formats").replaceChildren(...names.map((name, k) => el("label", {}, el("input", { type: "radio", name: "format", value: name, checked: k === 0 }), el("b", { text: name }))));
  $("format-help").replaceChildren(...names.flatMap((name) => [el("dt", { text: name }), el("dd", { text: info.formats[name] })]));
  $("export-annotator").replaceChildren(...info.annotators.map((a) => el("option", { value: a, text: a })));
  const unavailable = { annotator: info.annotators.length === 0, prefill: !info.prefill, gold: !info.gold };
  for (const radio of document.querySelectorAll("input[name=which]")) {
    if (radio.value in unavailable) {
      radio.dataset.unavailable = String(unavailable[radio.value]);
      if (unavailable[radio.value]) radio.parentElement.title = "this corpus has none";
    }
  }
  $("export-form").addEventListener("change", syncForm);
  $("export-form").addEventListener("submit", build);
  syncForm();
  await loadExports();
}

setUp();
