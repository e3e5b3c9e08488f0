// Users page: add (with a password, or invite with a one-time link), change roles with one
// click, deactivate or reactivate, and issue a new set-password link.
import { $, api, el, emptyState, integer, showError, clearError, when } from "./ui.js";

const ROLES = [...document.querySelectorAll("#user-form input[name=roles]")].map((box) => box.value);

function showLink(username, path, verb) {
  const url = new URL(path, location.origin).href;
  const field = el("input", { type: "text", readonly: true, value: url, "aria-label": `Link for ${username}`, class: "link-field" });
  const copy = el("button", { class: "btn", type: "button", text: "Copy" });
  copy.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(url);
      copy.textContent = "Copied";
    } catch {
      document.execCommand("copy");
    }
  });
  $("invite").hidden = false;
  $("invite").replaceChildren(el("p", {}, el("b", { text: username }), ` ${verb}. Pass this one-time link on; it works until a password is set with it:`), el("p", { class: "btn-row" }, field, copy));
  field.select();
}

async function change(user, body, box) {
  clearError(box);
  try {
    await api("PATCH", `/api/users/${user.id}/`, body);
  } catch (error) {
    showError(box, error);
  }
  load();
}

function row(user) {
  const box = $("list-error");
  // Only a superuser changes a superuser or a staff account (the server refuses it too).
  const locked = user.can_change ? "" : "only a superuser can change this account";
  const roleCells = ROLES.map((role) => {
    const box2 = el("input", { type: "checkbox", checked: user.roles.includes(role), disabled: user.is_superuser || !user.can_change, "aria-label": `${user.username} is ${role}`, title: user.is_superuser ? "a superuser holds every role" : locked });
    box2.addEventListener("change", () => {
      const roles = ROLES.filter((r) => (r === role ? box2.checked : user.roles.includes(r)));
      change(user, { roles }, box);
    });
    return el("td", { class: "center" }, box2);
  });
  const toggle = el("button", { class: "btn small", type: "button", text: user.is_active ? "Deactivate" : "Reactivate", disabled: !user.can_change, title: locked });
  toggle.addEventListener("click", () => change(user, { is_active: !user.is_active }, box));
  const link = el("button", { class: "btn small", type: "button", text: user.has_password ? "Reset link" : "Invite link", disabled: !user.is_active || !user.can_change, title: locked });
  link.addEventListener("click", async () => {
    clearError(box);
    try {
      const answer = await api("POST", `/api/users/${user.id}/password-link/`);
      showLink(user.username, answer.path, user.has_password ? "can set a new password" : "is invited");
    } catch (error) {
      showError(box, error);
    }
  });
  const state = user.is_active ? (user.has_password ? "active" : "no password") : "deactivated";
  const stateHelp = { active: "can log in", "no password": "cannot log in until a password is set with a link", deactivated: "cannot log in; the work stays" }[state];
  return el(
    "tr",
    { "data-user": user.username, class: user.is_active ? "" : "inactive" },
    el("td", {}, el("b", { text: user.username }), user.is_superuser ? el("span", { class: "badge", text: "superuser", title: "holds every role" }) : null, user.is_staff && !user.is_superuser ? el("span", { class: "badge", text: "staff", title: "can use the Django admin" }) : null, el("div", { class: "muted small", text: user.email || "" })),
    ...roleCells,
    el("td", { class: "num", text: integer(user.assigned) }),
    el("td", { class: "num", text: integer(user.submitted) }),
    el("td", { class: "small", text: user.last_login ? when(user.last_login) : "never" }),
    el("td", {}, el("div", { class: "btn-row nowrap" }, el("span", { class: `badge ${state.replace(" ", "-")}`, text: state, title: stateHelp }), toggle, link)),
  );
}

let timer = null;
async function load() {
  const params = new URLSearchParams();
  if ($("user-search").value.trim()) params.set("search", $("user-search").value.trim());
  if ($("user-role").value) params.set("role", $("user-role").value);
  const users = await api("GET", `/api/users/?${params}`);
  $("users-table").hidden = users.length === 0;
  $("users-empty").hidden = users.length > 0;
  $("users-empty").replaceChildren(emptyState("Nobody matches", "Change the search or the role filter."));
  $("users-table").tBodies[0].replaceChildren(...users.map(row));
}

async function create(event) {
  event.preventDefault();
  const box = $("user-error");
  clearError(box);
  const form = new FormData($("user-form"));
  const body = { username: form.get("username").trim(), email: form.get("email").trim(), roles: form.getAll("roles") };
  if (form.get("password")) body.password = form.get("password");
  $("user-submit").disabled = true;
  try {
    const user = await api("POST", "/api/users/create/", body);
    $("user-form").reset();
    if (user.invite_path) showLink(user.username, user.invite_path, "is invited");
    else {
      $("invite").hidden = false;
      $("invite").replaceChildren(el("p", {}, el("b", { text: user.username }), " can log in with the password you chose."));
    }
    load();
  } catch (error) {
    showError(box, error);
  }
  $("user-submit").disabled = false;
}

$("user-form").addEventListener("submit", create);
$("user-search").addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(load, 250);
});
$("user-role").addEventListener("change", load);
load();
