// Corpora page: the list, and importing files into a new or existing corpus.
import { $, api, el, emptyState, integer, jobPanel, showError, clearError, csrfToken, ApiError } from "./ui.js";

async function loadCorpora() {
  const corpora = await api("GET", "/api/corpora/");
  const table = $("corpora-table");
  table.hidden = corpora.length === 0;
  $("corpora-empty").hidden = corpora.length > 0;
  if (!corpora.length) {
    $("corpora-empty").replaceChildren(emptyState("No corpus yet", "Import files on the right: RTE-2 alignments, Edinburgh++ JSON, Pharaoh folders, MSRP, STS or the project's JSONL."));
  }
  $("corpus-names").replaceChildren(...corpora.map((c) => el("option", { value: c.name })));
  table.tBodies[0].replaceChildren(
    ...corpora.map((c) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: `/corpora/${c.id}/` }, c.name), c.description ? el("div", { class: "muted small", text: c.description }) : null),
        el("td", { class: "num", text: integer(c.n_pairs) }),
        el("td", { class: "muted", text: c.prefill_aligner ? `${c.prefill_aligner}, every ${c.prefill_retrain_every} pairs` : "off" }),
        el("td", { class: "btn-row" }, el("a", { class: "btn", href: `/corpora/${c.id}/pairs/`, text: "Pairs" }), el("a", { class: "btn", href: `/corpora/${c.id}/agreement/`, text: "Agreement" })),
      ),
    ),
  );
}

function syncFormat() {
  const option = $("up-format").selectedOptions[0];
  $("up-annotator-field").hidden = !option.dataset.annotator;
  $("up-files-help").textContent = option.dataset.folder
    ? "Choose every file of the folder at once (e.g. source.txt, target.txt, alignment.txt)."
    : "Choose every file of the import at once.";
}

async function upload(event) {
  event.preventDefault();
  const box = $("upload-error");
  clearError(box);
  $("upload-done").hidden = true;
  const form = new FormData($("upload-form"));
  if (!$("up-annotator-field").hidden && !form.get("annotator")) form.delete("annotator");
  if (!String(form.get("corpus") || "").trim()) {
    showError(box, new Error("Name the corpus to import into."));
    return;
  }
  if (!$("up-files").files.length) {
    showError(box, new Error("Choose the files to import."));
    return;
  }
  $("upload-submit").disabled = true;
  $("upload-busy").hidden = false;
  const finish = () => {
    $("upload-submit").disabled = false;
    $("upload-busy").hidden = true;
  };
  try {
    const response = await fetch("/api/corpora/import/", { method: "POST", body: form, credentials: "same-origin", headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" } });
    const job = await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(response.status, job);
    // The files are stored; a job imports them (all or nothing) while the panel shows progress.
    jobPanel($("upload-job"), job.id, {
      onDone: async (done) => {
        finish();
        if (done.status !== "succeeded") {
          if (done.error) {
            $("upload-job").replaceChildren(); // the error box says it all
            showError(box, new Error(done.error));
          }
          return;
        }
        try {
          showImported(await api("GET", `/api/jobs/${job.id}/result/`));
          $("upload-job").replaceChildren();
          $("upload-form").reset();
          syncFormat();
          await loadCorpora();
        } catch (error) {
          showError(box, error);
        }
      },
    });
  } catch (error) {
    showError(box, error);
    finish();
  }
}

function showImported(report) {
  const done = $("upload-done");
  done.hidden = false;
  done.replaceChildren(
    `Imported ${integer(report.pairs)} pairs into `,
    el("a", { href: `/corpora/${report.corpus_id}/`, text: report.corpus }),
    report.annotations ? `, ${integer(report.annotations)} annotations` : "",
    report.gold_alignments ? `, ${integer(report.gold_alignments)} gold alignments` : "",
    report.created_users.length ? `; new annotator accounts: ${report.created_users.join(", ")}` : "",
    ".",
  );
}

$("up-format").addEventListener("change", syncFormat);
$("upload-form").addEventListener("submit", upload);
syncFormat();
loadCorpora();
