// The "Score a pair" form of the scorers page: one call to POST /api/score.
import { api, ApiError } from "./api.js";

const form = document.getElementById("score-form");
if (form) {
  const result = document.getElementById("score-result");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      model: document.getElementById("score-model").value,
      pairs: [[document.getElementById("score-first").value,
               document.getElementById("score-second").value]],
    };
    result.textContent = "scoring…";
    try {
      const answer = await api("POST", "/api/score", body);
      const value = answer.scores[0];
      result.textContent = answer.task === "classification"
        ? (value >= 1 ? "paraphrase" : "not a paraphrase")
        : `similarity ${value.toFixed(3)}`;
    } catch (error) {
      result.textContent = error instanceof ApiError ? error.message : "the server did not answer";
    }
  });
}
