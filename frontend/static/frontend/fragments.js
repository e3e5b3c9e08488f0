// The small script every server-rendered page loads. It does three things and holds no page
// logic: it refreshes live fragments (an element with data-fragment="name" and data-live is
// fetched again as `?fragment=name` every few seconds and replaced while it stays live); it
// submits a filter form when one of its fields changes (forms with data-autosubmit); and it
// asks for confirmation before a form with data-confirm="question" is posted.

const REFRESH_MS = 2000;
const timers = new Map();

function fragmentUrl(name) {
  const url = new URL(window.location.href);
  url.searchParams.set("fragment", name);
  return url;
}

async function refresh(node) {
  const name = node.dataset.fragment;
  timers.delete(name);
  let response;
  try {
    response = await fetch(fragmentUrl(name), { credentials: "same-origin", headers: { Accept: "text/html" } });
  } catch {
    schedule(node, REFRESH_MS * 3); // the server is away: try again later
    return;
  }
  if (response.redirected || !response.ok) return; // signed out or gone: stop refreshing
  const template = document.createElement("template");
  template.innerHTML = (await response.text()).trim();
  const fresh = template.content.firstElementChild;
  if (!fresh) return;
  const focused = document.activeElement && node.contains(document.activeElement) ? document.activeElement.id : "";
  node.replaceWith(fresh);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  watch(fresh);
}

function schedule(node, delay) {
  const name = node.dataset.fragment;
  clearTimeout(timers.get(name));
  timers.set(
    name,
    setTimeout(() => refresh(document.querySelector(`[data-fragment="${name}"]`) || node), delay),
  );
}

function watch(root) {
  const nodes = root.matches?.("[data-fragment]") ? [root] : [...root.querySelectorAll("[data-fragment]")];
  for (const node of nodes) if (node.hasAttribute("data-live")) schedule(node, Number(node.dataset.interval) || REFRESH_MS);
}

document.addEventListener("change", (event) => {
  const form = event.target.closest?.("form[data-autosubmit]");
  if (!form || event.target.matches("input[type=search], input[type=text]")) return;
  form.requestSubmit();
});

// A form with data-confirm-when="field" asks only when that field has a value: without it the
// form would change nothing, and the server's answer says which field is missing.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.dataset?.confirm;
  if (!question) return;
  const needed = form.dataset.confirmWhen;
  if (needed && !new FormData(form).getAll(needed).some((value) => value !== "")) return;
  if (!window.confirm(question)) event.preventDefault();
});

watch(document);
