// @ts-check
// The session page's keyboard shortcuts and their help (`dialog#shortcuts`, opened by `?`).
// Escape stops a streaming answer from anywhere; the Alt shortcuts work outside text
// fields and in the prompt box (where they type nothing); `/` and `?` outside text fields.

import { h } from "./dom.js";

/** Keys and what they do, as the help lists them. */
const HELP = [
  ["Enter", "send the prompt (in the prompt box)"],
  ["Shift+Enter", "a new line in the prompt"],
  ["Escape", "stop the answer streaming now; cancel an edit"],
  ["Alt+Z", "undo: drop the latest answer"],
  ["Alt+Shift+Z", "redo"],
  ["Alt+B", "back: drop the latest whole round (stopping an answer that streams)"],
  ["Alt+E", "edit the last prompt (sends as a new branch)"],
  ["Alt+R", "retry the pending prompt"],
  ["Alt+Shift+R", "resume a suspended session"],
  ["Alt+C", "compact: summarise the older turns (Undo right after brings them back)"],
  ["Alt+L", "the session's diagnostic logs (recorded errors and their bundles)"],
  ["Alt+M", "switch the model"],
  ["Alt+T", "focus the tree (arrows move, Enter checks out)"],
  ["/", "focus the prompt"],
  ["?", "this help"],
];

/** Alt + the key's physical code: the action's name. */
const ALT_KEYS = {
  KeyZ: "undo",
  KeyB: "back",
  KeyE: "editLast",
  KeyR: "retry",
  KeyM: "model",
  KeyT: "tree",
  KeyC: "compact",
  KeyL: "diagnostics",
};

/** The action of Alt+Shift+key, where it differs from Alt+key's. */
const SHIFTED = { undo: "redo", retry: "resume" };

/** Shows the list of shortcuts in a modal dialog (Escape or Close shuts it). */
export function showShortcuts() {
  document.getElementById("shortcuts")?.remove();
  const close = h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, "Close");
  const dialog = h(
    "dialog",
    { id: "shortcuts", "aria-labelledby": "shortcuts-title" },
    h("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
    h(
      "dl",
      { class: "shortcut-list" },
      HELP.map(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)]),
    ),
    h("div", { class: "dialog-buttons" }, close),
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
}

function inTextField(target) {
  return target instanceof HTMLElement && (target.isContentEditable || target.matches("input, textarea, select"));
}

/**
 * Listens for the shortcuts on the window; `actions` as actions.js makes them, `page` the
 * view (for `answering()`, `editing`, the tree). Returns the function that stops listening.
 */
export function installShortcuts(actions, page) {
  const onKey = (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey) return;
    if (document.querySelector("dialog[open]")) return; // a dialog has the keyboard
    const typing = inTextField(event.target);
    if (event.key === "Escape") {
      if (page.answering()) actions.stop();
      else if (page.editing) actions.cancelEdit();
      else return;
      event.preventDefault();
      return;
    }
    if (event.altKey) {
      if (typing && event.target.id !== "prompt") return;
      let name = ALT_KEYS[event.code];
      if (event.shiftKey) name = SHIFTED[name];
      if (!name) return;
      event.preventDefault();
      if (name === "tree") page.tree.focus();
      else actions[name]();
      return;
    }
    if (typing) return;
    if (event.key === "/") {
      event.preventDefault();
      page.composer.focus();
    } else if (event.key === "?") {
      event.preventDefault();
      showShortcuts();
    }
  };
  window.addEventListener("keydown", onKey);
  return () => window.removeEventListener("keydown", onKey);
}
