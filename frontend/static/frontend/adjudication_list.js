// Adjudication list: which pairs wait for an adjudicator, which are done, and where each
// gold alignment came from.
import { $, api, el, emptyState, showError, when } from "./ui.js";

const status = new URLSearchParams(location.search).get("status") || "";
const SOURCES = { adjudicated: "saved by an adjudicator", imported: "imported with the corpus", trial: "trial sample" };

for (const tab of $("adj-filter").children) if (tab.dataset.status === status) tab.setAttribute("aria-current", "page");

async function load() {
  let pairs;
  try {
    pairs = await api("GET", `/api/adjudication/${status ? `?status=${status}` : ""}`);
  } catch (error) {
    showError($("adj-error"), error);
    return;
  }
  $("adj-table").hidden = pairs.length === 0;
  $("adj-empty").hidden = pairs.length > 0;
  $("adj-empty").replaceChildren(emptyState("No pair here", status === "waiting" ? "Every pair with two submitted annotations has a gold alignment." : "Pairs appear once two annotators have submitted them."));
  $("adj-table").tBodies[0].replaceChildren(
    ...pairs.map((p) =>
      el(
        "tr",
        {},
        el("td", { text: p.external_id }),
        el("td", { text: p.corpus }),
        el("td", { class: "num", text: p.n_submitted }),
        el("td", {}, el("span", { class: `badge ${p.status}`, text: p.status })),
        el("td", { class: "small" }, p.gold_source ? `${SOURCES[p.gold_source] || p.gold_source}${p.adjudicator ? ` (${p.adjudicator}, ${when(p.gold_updated_at)})` : ""}` : el("span", { class: "muted", text: "none yet" })),
        el("td", {}, el("a", { class: p.status === "waiting" ? "btn primary" : "btn", href: `/adjudicate/${p.id}/`, text: p.status === "waiting" ? "Adjudicate" : "Review" })),
      ),
    ),
  );
}

load();
