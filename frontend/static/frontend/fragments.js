// The small script every server-rendered page loads. It holds no page logic:
// - it refreshes live fragments: an element with data-fragment="name" and data-live is fetched
//   again as `?fragment=name` every few seconds and replaced while it stays live;
// - it follows the jobs those fragments list (rows with data-job and data-job-status): when one
//   ends, the fragments that depend on it (data-follows="name") are fetched again, unless the
//   user has started editing a form in them, and a message about the job (data-notice-job,
//   "Report #12 queued") is replaced by how it ended;
// - it submits a filter form when one of its fields changes (forms with data-autosubmit);
// - it asks for confirmation before a form with data-confirm="question" is posted;
// - a select with data-excludes="id" hides (and leaves out of the post) the checkbox of the
//   element with that id whose value is the one selected: the server renders it so for the
//   first value, this follows the choice.

const REFRESH_MS = 2000;
const ACTIVE = new Set(["pending", "running"]);
const timers = new Map();

// A page answering a form posted to another address (the form again, with its errors) names
// its own address in data-page-url: its fragments are fetched from there, not from the post's.
function fragmentUrl(name) {
  const url = new URL(window.location.href);
  const page = document.body.dataset.pageUrl;
  if (page && url.pathname !== page) {
    url.pathname = page;
    url.search = "";
  }
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
  const before = jobStatuses(node);
  const focused = document.activeElement && node.contains(document.activeElement) ? document.activeElement.id : "";
  node.replaceWith(fresh);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
  watch(fresh);
  const ended = [...jobStatuses(fresh)].some(([job, status]) => ACTIVE.has(before.get(job)) && !ACTIVE.has(status));
  settleNotices();
  if (ended) refreshFollowers(name);
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

// Job id → status of every job row under root.
function jobStatuses(root) {
  const statuses = new Map();
  for (const row of root.querySelectorAll("[data-job][data-job-status]")) statuses.set(row.dataset.job, row.dataset.jobStatus);
  return statuses;
}

// Messages about a job that the page shows as ended: "Report #12 succeeded."
function settleNotices() {
  const statuses = jobStatuses(document);
  for (const notice of document.querySelectorAll("[data-notice-job]")) {
    const job = notice.dataset.noticeJob;
    const status = statuses.get(job);
    if (!status || ACTIVE.has(status)) continue;
    const failed = status === "failed";
    notice.textContent = `${notice.dataset.what} #${job} ${status}${failed ? "; the reason is shown below" : ""}.`;
    notice.classList.remove("success", "info", "warning", "error");
    notice.classList.add(failed ? "error" : status === "succeeded" ? "success" : "info");
    notice.removeAttribute("data-notice-job");
  }
}

function refreshFollowers(name) {
  for (const node of document.querySelectorAll(`[data-fragment][data-follows~="${name}"]`)) {
    if (!edited(node)) refresh(node);
  }
}

// Whether a form field under root differs from how the page rendered it.
function edited(root) {
  return [...root.querySelectorAll("input, select, textarea")].some((field) => {
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    if (field.tagName === "SELECT") {
      const options = [...field.options];
      if (field.multiple) return options.some((option) => option.selected !== option.defaultSelected);
      const chosen = options.map((option) => option.defaultSelected).lastIndexOf(true);
      return field.selectedIndex !== (chosen >= 0 ? chosen : options.findIndex((option) => !option.disabled));
    }
    return field.value !== field.defaultValue;
  });
}

document.addEventListener("change", (event) => {
  const form = event.target.closest?.("form[data-autosubmit]");
  if (!form || event.target.matches("input[type=search], input[type=text]")) return;
  form.requestSubmit();
});

document.addEventListener("change", (event) => {
  const select = event.target.closest?.("select[data-excludes]");
  const list = select && document.getElementById(select.dataset.excludes);
  if (!list) return;
  for (const box of list.querySelectorAll("input[type=checkbox]")) {
    const excluded = box.value === select.value;
    box.disabled = excluded;
    if (excluded) box.checked = false;
    box.closest("label").hidden = excluded;
  }
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

// A page answering a form posted to another address (the form again, with its errors) takes its
// own address: its links relative to the address ("?sort=status", "?report=7"), its forms
// without an action and a reload then open the page, not the address that only takes posts.
const ownPage = document.body.dataset.pageUrl;
if (ownPage && window.location.pathname !== ownPage) window.history.replaceState(window.history.state, "", ownPage);

watch(document);
settleNotices();
