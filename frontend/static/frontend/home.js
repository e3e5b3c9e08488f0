// The home page's one key: N opens the next pair of the queue (the "Open next pair" link the
// server rendered), as in the workspace. Typing in a field is left alone.
const next = document.getElementById("open-next");

document.addEventListener("keydown", (event) => {
  if (!next || event.key !== "n" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (/^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) || event.target.isContentEditable) return;
  window.location.href = next.href;
});
