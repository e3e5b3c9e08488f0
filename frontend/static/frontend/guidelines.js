// Admins edit the guidelines markdown; the server sanitises and renders it.
import { api } from "./api.js";

const form = document.getElementById("guidelines-form");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = document.getElementById("guidelines-status");
  status.textContent = "Saving…";
  try {
    const body = await api("PUT", "/api/guidelines/", {
      markdown: document.getElementById("guidelines-text").value,
    });
    document.getElementById("guidelines-html").innerHTML = body.html;
    status.textContent = "Saved.";
  } catch (error) {
    status.textContent = `Not saved: ${error.message}`;
  }
});
