// A corpus's pairs: filters, search, sorting and pages, all done by the server. The filters are
// kept in the address, so a filtered list can be bookmarked and shared.
import { $, api, el, emptyState, pager, showError, clearError, sortableHead } from "./ui.js";

const corpusId = document.getElementById("corpus-page").dataset.corpusId;
const form = $("filters");
const params = new URLSearchParams(window.location.search);
let sort = params.get("sort") || "position";
let page = Number(params.get("page") || 1);
let timer = null;

function fill(select, values) {
  for (const value of values) select.append(el("option", { value: value === "" ? "(none)" : value, text: value === "" ? "(none)" : value }));
}

async function setUp() {
  const corpus = await api("GET", `/api/corpora/${corpusId}/`);
  fill(form.elements.subcorpus, corpus.overview.subcorpora.map((s) => s.subcorpus));
  fill(form.elements.split, corpus.overview.splits.map((s) => s.split));
  fill(form.elements.annotator, corpus.overview.annotators.map((a) => a.username));
  for (const [key, value] of params) if (form.elements[key]) form.elements[key].value = value;
  const mark = sortableHead($("pairs-table"), (key, dir) => {
    sort = dir === "asc" ? key : `-${key}`;
    page = 1;
    load();
  });
  if (sort !== "position") mark(sort.replace(/^-/, ""), sort.startsWith("-") ? "desc" : "asc");
}

function query() {
  const q = new URLSearchParams();
  for (const [key, value] of new FormData(form)) if (String(value).trim() !== "") q.set(key, String(value).trim());
  if (sort !== "position") q.set("sort", sort);
  if (page > 1) q.set("page", String(page));
  return q;
}

async function load() {
  const q = query();
  history.replaceState(null, "", `?${q}`);
  const box = $("pairs-error");
  clearError(box);
  let data;
  try {
    data = await api("GET", `/api/corpora/${corpusId}/pairs/?${q}`);
  } catch (error) {
    showError(box, error);
    return;
  }
  $("pairs-table").hidden = data.total === 0;
  $("pairs-empty").hidden = data.total > 0;
  $("pairs-empty").replaceChildren(emptyState("No pair matches", "Change or clear the filters."));
  $("pairs-table").tBodies[0].replaceChildren(
    ...data.results.map((p) =>
      el(
        "tr",
        {},
        el("td", {}, p.submitted >= 1 ? el("a", { href: `/adjudicate/${p.id}/`, title: "Open the annotations side by side" }, p.external_id) : p.external_id),
        el("td", { text: p.subcorpus || "—" }),
        el("td", { text: p.split || "—" }),
        el("td", { class: "num", text: `${p.n_source}×${p.n_target}` }),
        el("td", { class: "clip", title: `${p.source_text}\n${p.target_text}`, text: p.source_text }),
        el("td", { class: "num", text: `${p.submitted} / ${p.assigned}`, title: "submitted / assigned" }),
        el("td", {}, p.has_gold ? el("span", { class: "badge adjudicated", text: "gold" }) : "—"),
      ),
    ),
  );
  pager($("pager"), { page: data.page, pages: data.pages, total: data.total, noun: "pairs" }, (next) => {
    page = next;
    load();
  });
}

form.addEventListener("input", () => {
  clearTimeout(timer);
  page = 1;
  timer = setTimeout(load, 250);
});
form.addEventListener("reset", () => setTimeout(() => { page = 1; load(); }, 0));
form.addEventListener("submit", (event) => event.preventDefault());
setUp().then(load);
