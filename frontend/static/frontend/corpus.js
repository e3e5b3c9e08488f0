// A corpus's overview: key figures, the length histogram, annotators, sub-corpora and splits.
import { $, api, el, emptyState, integer } from "./ui.js";
import { barChart } from "./chart.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;
const label = (value) => (value === "" ? "(none)" : value);

function tile(value, text, title = "") {
  return el("div", { class: "count", title }, el("b", { text: value }), text);
}

async function load() {
  const corpus = await api("GET", `/api/corpora/${corpusId}/`);
  const o = corpus.overview;
  $("tiles").replaceChildren(
    tile(integer(o.pairs), "pairs"),
    tile(integer(o.tokens), "tokens"),
    tile(integer(o.annotations), "annotations"),
    tile(o.links_per_annotation ?? "—", "links per annotation"),
    tile(integer(o.prefilled_pairs), "prefilled pairs"),
    tile(integer(o.gold_alignments), "gold alignments"),
  );
  $("length-chart").replaceChildren(
    o.pairs
      ? barChart({ bins: o.length_histogram, xLabel: "tokens in the shorter sentence", yLabel: "pairs", title: "Pairs by the length of their shorter sentence" })
      : emptyState("No pairs", "Import files on the Corpora page."),
  );
  $("annotators-table").hidden = o.annotators.length === 0;
  $("annotators-empty").hidden = o.annotators.length > 0;
  $("annotators-empty").replaceChildren(emptyState("Nobody is assigned yet", "Imported annotations and assignments appear here."));
  $("annotators-table").tBodies[0].replaceChildren(
    ...o.annotators.map((a) =>
      el("tr", {}, el("td", {}, el("a", { href: `/corpora/${corpusId}/pairs/?annotator=${encodeURIComponent(a.username)}`, text: a.username })), el("td", { class: "num", text: integer(a.assigned) }), el("td", { class: "num", text: integer(a.in_progress) }), el("td", { class: "num", text: integer(a.submitted) })),
    ),
  );
  $("subcorpora-table").tBodies[0].replaceChildren(
    ...o.subcorpora.map((s) => el("tr", {}, el("td", {}, el("a", { href: `/corpora/${corpusId}/pairs/?subcorpus=${encodeURIComponent(label(s.subcorpus))}`, text: label(s.subcorpus) })), el("td", { class: "num", text: integer(s.pairs) }))),
  );
  $("splits-table").tBodies[0].replaceChildren(
    ...o.splits.map((s) => el("tr", {}, el("td", { text: label(s.split) }), el("td", { class: "num", text: integer(s.pairs) }))),
  );
}

load();
