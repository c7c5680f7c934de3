// @ts-check
// What the session page's dialogs share: a modal <dialog> made for one use, put in the
// page, opened with showModal and taken out of the page again once it closes, and the
// few pieces every one of them shows (a line for errors, a line of keyboard hints).

import { h } from "./dom.js";

/**
 * Opens a new modal `dialog#id` titled `title` with `children` in it, and removes it from
 * the page when it closes (Esc, a button, or `dialog.close()`); `onClose` runs then.
 * `mayLeave()` returning false keeps Esc from closing it (while a change is applied).
 * Only one dialog of an id is ever in the page: an older one is closed first.
 * @param {string} id
 * @param {string} title
 * @param {Node[]} children
 * @param {{ onClose?: () => void, mayLeave?: () => boolean }} [options]
 */
export function openModal(id, title, children, { onClose, mayLeave } = {}) {
  const older = document.getElementById(id);
  if (older instanceof HTMLDialogElement) {
    older.close();
    older.remove();
  }
  const heading = h("h2", { id: `${id}-title` }, title);
  const dialog = h(
    "dialog",
    { id, class: "omni-dialog", "aria-labelledby": heading.id },
    heading,
    ...children,
  );
  dialog.addEventListener("cancel", (event) => {
    if (mayLeave && !mayLeave()) event.preventDefault();
  });
  dialog.addEventListener("close", () => {
    dialog.remove();
    onClose?.();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** An empty line for a dialog's errors, read out when it is filled. */
export function errorLine() {
  return h("p", { class: "dialog-error", role: "alert", hidden: true });
}

/** Shows `message` in an `errorLine()` (hides it when `message` is empty). */
export function showError(line, message) {
  line.textContent = message ?? "";
  line.hidden = !message;
}

/** A line of keyboard hints: `[["Enter", "apply"], ["Esc", "leave"]]`. */
export function keyHints(pairs) {
  const items = pairs.map(([key, what]) => h("span", {}, h("kbd", {}, key), ` ${what}`));
  return h("p", { class: "key-hints muted" }, items);
}

/** The text of an error for a person: the API's message, or what the browser said. */
export function errorText(error) {
  if (error?.name === "AbortError") return "stopped reading the answer";
  if (error?.kind === "disconnected" || error instanceof TypeError) {
    return `the connection to omnid broke (${error.message}); the daemon may still be working`;
  }
  return error?.message || String(error);
}
