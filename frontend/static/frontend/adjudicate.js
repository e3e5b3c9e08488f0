// Adjudication: the gold alignment is edited in a GridModel; the annotators' alignments and the
// prefill are an overlay (agreement count per cell). Accept a cell/block or a whole annotator.
import { api, el } from "./api.js";
import { GridView, renderSentences } from "./grid.js";
import { bindKeys, bindToolbar, openDialog } from "./keys.js";
import { EMPTY, GridModel, POSSIBLE, SURE } from "./state.js";

const root = document.getElementById("adjudication");
const pairId = Number(root.dataset.pair);
const $ = (id) => document.getElementById(id);
const CODE = { S: SURE, P: POSSIBLE };

async function main() {
  const data = await api("GET", `/api/pairs/${pairId}/adjudication/`);
  const { pair, annotations } = data;
  const n = pair.source_tokens.length;
  const m = pair.target_tokens.length;
  const votes = new Map(); // index -> [{who, kind}]
  for (const a of annotations) {
    for (const [i, j, kind] of a.links) {
      const k = i * m + j;
      if (!votes.has(k)) votes.set(k, []);
      votes.get(k).push({ who: a.annotator, kind });
    }
  }
  const prefill = new Map(((data.prefill && data.prefill.links) || []).map(([i, j, kind]) => [i * m + j, kind]));
  const total = annotations.length;
  const majority = (k) => {
    const list = votes.get(k) || [];
    if (list.length * 2 <= total) return EMPTY;
    const sure = list.filter((v) => v.kind === "S").length;
    return sure * 2 >= list.length ? SURE : POSSIBLE;
  };
  const unanimous = (k) => {
    const list = votes.get(k) || [];
    if (!total || list.length !== total) return null;
    return list.every((v) => v.kind === list[0].kind) ? CODE[list[0].kind] : null;
  };
  // The gold version the grid was loaded from; a save names it, and a 409 means another save
  // came first (0: the pair had no gold).
  let goldVersion = data.gold ? data.gold.version : 0;
  let initial = data.gold ? data.gold.links : null;
  if (!initial) {
    initial = [];
    for (const k of votes.keys()) {
      const code = unanimous(k);
      if (code) initial.push([Math.floor(k / m), k % m, code === SURE ? "S" : "P"]);
    }
  }
  const model = new GridModel(n, m, initial);
  const view = new GridView({
    model,
    table: $("grid"),
    wrap: $("grid-wrap"),
    source: pair.source_tokens,
    target: pair.target_tokens,
    info: $("cursor-info"),
    decorate: (k) => {
      const list = votes.get(k) || [];
      const parts = list.map((v) => `${v.who} ${v.kind}`);
      if (prefill.has(k)) parts.push(`prefill ${prefill.get(k)}`);
      if (!list.length) return parts.length ? { title: parts.join(", "), agree: "" } : null;
      const all = list.length === total;
      return { class: all ? "agree-all" : "agree-some", agree: `${list.length}`, title: parts.join(", ") };
    },
  });
  renderSentences(view, $("src-sentence"), $("tgt-sentence"));
  window.__adjudication = { model, view };
  view.render();
  view.updateInfo();

  const status = $("save-status");
  const setStatus = (state, text) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  setStatus("saved", data.gold ? "Gold saved earlier" : "No gold yet");
  model.on("cells", () => setStatus("unsaved", "Gold changed · not saved"));

  const acceptBlock = () => {
    const s = model.selection();
    const targets = [];
    for (let i = s.i0; i <= s.i1; i++) for (let j = s.j0; j <= s.j1; j++) targets.push([i * m + j, majority(i * m + j)]);
    model.commit(targets, "accept majority");
  };
  const acceptAgreed = () => {
    const targets = [];
    for (const k of votes.keys()) {
      const code = unanimous(k);
      if (code) targets.push([k, code]);
    }
    model.commit(targets, "accept agreed");
  };
  const conflict = $("gold-conflict");
  let theirs = null;
  const showConflict = (server) => {
    theirs = server;
    const cells = (links) => new Map(links.map(([i, j, kind]) => [`${i},${j}`, kind]));
    const mine = cells(model.links());
    const other = cells(server.links);
    const differ = new Set([...mine.keys(), ...other.keys()].filter((k) => mine.get(k) !== other.get(k))).size;
    const sure = server.links.filter((l) => l[2] === "S").length;
    const who = server.adjudicator || "an import";
    const at = server.updated_at ? new Date(server.updated_at).toLocaleString() : "";
    $("gold-conflict-text").textContent =
      `The gold was changed elsewhere: version ${server.version} was saved by ${who}${at ? ` at ${at}` : ""}, ` +
      `with ${sure} sure and ${server.links.length - sure} possible links; ${differ} cell(s) differ from yours. Your gold is not saved.`;
    conflict.hidden = false;
  };
  const save = async () => {
    setStatus("saving", "Saving gold…");
    try {
      const saved = await api("PUT", `/api/pairs/${pairId}/gold/`, { version: goldVersion, links: model.links() });
      goldVersion = saved.version;
      conflict.hidden = true;
      setStatus("saved", "Gold saved");
    } catch (error) {
      if (error.status === 409 && error.body && error.body.error && error.body.error.server) {
        setStatus("conflict", "Conflict · the gold was changed elsewhere");
        showConflict(error.body.error.server);
      } else {
        setStatus("error", `Gold not saved: ${error.message}`);
      }
    }
  };
  $("gold-conflict-load").addEventListener("click", () => {
    conflict.hidden = true;
    goldVersion = theirs.version;
    model.replaceAll(theirs.links, "load their gold"); // undoable: Ctrl+Z brings yours back
    setStatus("saved", `Gold version ${theirs.version} loaded`);
  });
  $("gold-conflict-keep").addEventListener("click", () => {
    conflict.hidden = true;
    goldVersion = theirs.version;
    save();
  });
  $("take-buttons").replaceChildren(
    ...annotations.map((a) =>
      el("button", {
        class: "btn",
        type: "button",
        "data-annotator": a.annotator,
        text: `Use ${a.annotator}'s`,
        onclick: () => model.replaceAll(a.links, `use ${a.annotator}`),
      }),
    ),
  );
  $("annotators-table").tBodies[0].replaceChildren(
    ...annotations.map((a) =>
      el(
        "tr",
        {},
        el("td", { text: a.annotator }),
        el("td", { text: a.status.replace("_", " ") }),
        el("td", { text: `${a.links.filter((l) => l[2] === "S").length} / ${a.links.filter((l) => l[2] === "P").length}` }),
        el("td", { text: a.flags.join(", ") || "—" }),
        el("td", { text: a.rating ?? "—" }),
        el("td", { text: a.comment || "—" }),
      ),
    ),
  );
  const showKeys = () => openDialog($("keymap-dialog"));
  bindKeys({ model, view, actions: { a: acceptBlock, save, "?": showKeys } });
  bindToolbar(root, {
    model,
    view,
    actions: {
      accept: acceptBlock,
      "accept-agreed": acceptAgreed,
      keys: showKeys,
      "save-gold": save,
    },
  });
  $("grid-wrap").focus({ preventScroll: true });
  root.dataset.ready = "true";
}

main().catch((error) => {
  const note = el("p", { class: "notice error", role: "alert", text: `The pair could not be loaded: ${error.message}` });
  root.prepend(note);
});
