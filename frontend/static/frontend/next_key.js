// The N key of a list page: it follows the page's "open next" link (`#open-next`, rendered by
// the server: the next pair of the annotator's queue, or the next waiting pair of the
// adjudication list), as n does in the grid editors. The page shows the key as a capital N, so
// Shift+N opens it too (nothing else on a list takes it). Typing in a field is left alone.
import { keyOf } from "./keys.js";

const next = document.getElementById("open-next");

document.addEventListener("keydown", (event) => {
  if (!next || keyOf(event).toLowerCase() !== "n" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (/^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) || event.target.isContentEditable) return;
  window.location.href = next.href;
});
