// @ts-check
// The model dialog: which model a session asks from its next prompt on (what `omnictl
// model REF` sets). It suggests the models this daemon is known to use: the session's own
// and its fallbacks, the daemon's default, and every model that answered so far.

import { getStatus, getUsage, setModel } from "./api.js";
import { h } from "./dom.js";
import { errorLine, errorText, keyHints, openModal, showError } from "./dialog-base.js";

/** @typedef {import("./api-types.js").SessionSummary} SessionSummary */

/**
 * "model: A, then B, then C" or "model: A (no fallback)", as the command line says it.
 * @param {SessionSummary | null | undefined} summary
 */
function describe(summary) {
  if (!summary?.model) return "";
  const fallback = summary.fallback ?? [];
  return fallback.length === 0
    ? `model: ${summary.model} (no fallback)`
    : `model: ${summary.model}, then ${fallback.join(", then ")}`;
}

/** Adds the models the daemon knows of (its default, those that answered) to `list`. */
async function suggest(list, known) {
  const add = (model) => {
    if (!model || known.has(model)) return;
    known.add(model);
    list.append(h("option", { value: model }));
  };
  const [status, usage] = await Promise.allSettled([getStatus(), getUsage({ by: "model" })]);
  if (status.status === "fulfilled") add(status.value.model);
  if (usage.status === "fulfilled") for (const row of usage.value.rows ?? []) add(row.key);
}

/**
 * Shows `dialog#model-dialog` to switch the model `summary`'s session asks. Resolves with
 * the session's new summary, or null when closed without a switch. A refusal (an unknown
 * provider) is shown in the dialog.
 */
export function openModelDialog(sessionId, summary) {
  return new Promise((resolve) => {
    const current = summary?.model ?? "";
    const known = new Set([current, ...(summary?.fallback ?? [])].filter(Boolean));
    const list = h("datalist", { id: "model-options" }, [...known].map((m) => h("option", { value: m })));
    const input = h("input", {
      id: "model-input",
      type: "text",
      list: "model-options",
      value: current,
      required: true,
      spellcheck: "false",
      autocomplete: "off",
      "aria-describedby": "model-help",
    });
    const apply = h("button", { id: "model-apply", type: "submit", class: "primary" }, "Switch");
    const cancel = h("button", { type: "button", onclick: () => dialog.close() }, "Cancel");
    const error = errorLine();
    /** @type {import("./api-types.js").SessionSummary | null} */
    let result = null;

    async function submit(event) {
      event.preventDefault();
      const model = input.value.trim();
      if (!model) return showError(error, "Name a model: MODEL or PROVIDER/MODEL.");
      apply.disabled = true;
      showError(error, "");
      try {
        result = await setModel(sessionId, model);
        dialog.close();
      } catch (problem) {
        showError(error, errorText(problem));
        input.focus();
      } finally {
        apply.disabled = false;
      }
    }

    const form = h(
      "form",
      { class: "model-form", onsubmit: submit },
      h("p", { class: "muted" }, describe(summary)),
      h("label", { for: "model-input" }, "Model"),
      input,
      list,
      h("p", { id: "model-help", class: "muted" }, "MODEL (of the default provider) or PROVIDER/MODEL; the fallbacks stay. It asks from the next prompt on."),
      error,
      h("div", { class: "dialog-actions" }, cancel, apply),
      keyHints([["Enter", "switch"], ["Esc", "cancel"]]),
    );
    const dialog = openModal("model-dialog", "Switch model", [form], { onClose: () => resolve(result) });
    input.focus();
    input.select();
    suggest(list, known);
  });
}
