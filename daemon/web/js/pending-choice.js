// @ts-check
// The question the chat asks before a new prompt goes out while an earlier one is still
// pending (a failed or stopped send left it unanswered): keep it and send both, merged,
// or replace it (it stays in the tree, off the path). When the session needs recovery
// because of it, keeping cannot help: replace it or do not send.

import { h } from "./dom.js";

/**
 * Asks what becomes of the pending prompt `entry`; `failed`: the session needs recovery.
 * Resolves with "keep", "replace", or null (cancelled: nothing is sent).
 */
export function askKeepOrReplace(entry, failed) {
  return new Promise((resolve) => {
    const choose = (choice) => {
      dialog.close();
      dialog.remove();
      resolve(choice);
    };
    const first = (entry?.text ?? "").split("\n")[0];
    const state = failed ? "failed and needs recovery" : "is still pending (unanswered)";
    const dialog = h(
      "dialog",
      { id: "pending-choice", "aria-labelledby": "pending-choice-title" },
      h("h2", { id: "pending-choice-title" }, "A prompt is still pending"),
      h("p", {}, `#${entry?.id ?? "?"} ${state}: `, h("q", {}, first)),
      h(
        "div",
        { class: "dialog-buttons" },
        failed
          ? null
          : h("button", { class: "primary", type: "button", dataset: { choice: "keep" }, onclick: () => choose("keep") }, "Keep it: send both, merged"),
        h(
          "button",
          { class: failed ? "primary" : null, type: "button", dataset: { choice: "replace" }, onclick: () => choose("replace") },
          "Replace it (it stays in the tree)",
        ),
        h("button", { type: "button", dataset: { choice: "cancel" }, onclick: () => choose(null) }, "Cancel"),
      ),
    );
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      choose(null);
    });
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector("button")?.focus(); // Keep, or Replace when it is the first
  });
}
