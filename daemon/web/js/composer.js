// @ts-check
// The bottom of a session: the prompt box (Enter sends, Shift+Enter a new line), Send and
// Stop, the moves (Undo, Back, Redo), Retry, Resume, Compact, the model and diagnostics
// buttons, the banner of an edit in progress and the note of a pending prompt. It holds
// no logic of its own: each button calls the matching action, and `update` enables each
// only when it makes sense.

import { h } from "./dom.js";

/** Button id, label, the action it calls, its shortcut (shown in its title). */
/** @type {[id: string, label: string, action: string, keys: string | null, what: string][]} */
const TOOLS = [
  ["undo", "Undo", "undo", "Alt+Z", "Drop the latest answer, keep the prompt"],
  ["back", "Back", "back", "Alt+B", "Drop the latest whole round (an answer streaming now is stopped first)"],
  ["redo", "Redo", "redo", "Alt+Shift+Z", "Take the last undo or back move back"],
  ["retry", "Retry", "retry", "Alt+R", "Answer the pending prompt again, as it is"],
  ["resume", "Resume", "resume", "Alt+Shift+R", "Lift the suspension after repeated failures"],
  ["compact", "Compact", "compact", "Alt+C", "Summarise the older turns into one node"],
  ["recover-button", "Recover…", "recover", null, "Choose how a session that needs recovery goes on"],
  ["model-button", "Model", "model", "Alt+M", "Switch the model the next send asks"],
  ["diagnostics-button", "Diagnostics", "diagnostics", "Alt+L", "Error records and bundles"],
  ["shortcuts-button", "?", "shortcuts", "?", "Keyboard shortcuts"],
];

/** The composer's elements. */
export class Composer {
  /** `actions`: send, stop, cancelEdit and one per button of TOOLS. */
  constructor(actions) {
    this.actions = actions;
    this.prompt = h("textarea", {
      id: "prompt",
      rows: 2,
      placeholder: "Ask something (Enter sends, Shift+Enter adds a line)",
      "aria-label": "Prompt",
      onkeydown: (event) => this.onKey(event),
    });
    this.send = h("button", { id: "send", class: "primary", type: "submit", title: "Send (Enter)" }, "Send");
    this.stop = h(
      "button",
      { id: "stop", class: "danger", type: "button", title: "Stop the answer (Escape)", onclick: () => actions.stop(), disabled: true },
      "Stop",
    );
    /** @type {Record<string, HTMLButtonElement>} */
    this.buttons = { send: this.send, stop: this.stop };
    const tools = TOOLS.map(([id, label, action, keys, what]) => {
      const title = keys ? `${what} (${keys})` : what;
      // A sign alone ("?") names nothing: such a button is named by what it does.
      const named = label.length > 1 ? {} : { "aria-label": what, "aria-keyshortcuts": keys };
      const button = h("button", { id, type: "button", title, ...named, onclick: () => actions[action]() }, label);
      this.buttons[id] = button;
      return button;
    });
    this.toolSlot = h("div", { id: "tool-slot" });
    this.pendingNote = h("div", { id: "pending-note", class: "composer-note", hidden: true });
    this.editBanner = h("div", { id: "edit-banner", class: "composer-note", hidden: true, role: "status" });
    this.element = h(
      "form",
      {
        id: "composer",
        "aria-label": "Compose",
        onsubmit: (event) => {
          event.preventDefault();
          actions.send();
        },
      },
      this.toolSlot,
      this.pendingNote,
      this.editBanner,
      h("div", { class: "composer-row" }, this.prompt, h("div", { class: "send-buttons" }, this.send, this.stop)),
      h("div", { class: "composer-tools", role: "toolbar", "aria-label": "Session actions" }, tools),
    );
  }

  onKey(event) {
    if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.isComposing) {
      event.preventDefault();
      this.actions.send();
    }
  }

  /** Enables each button by `can` ({ send, stop, undo, back, redo, retry, resume, compact }). */
  update(can) {
    for (const [name, enabled] of Object.entries(can)) {
      const button = this.buttons[name];
      if (button) button.disabled = !enabled;
    }
  }

  /** Shows the edit banner: the next send goes out as a new branch from `parent`. */
  showEdit(node, parent) {
    this.editBanner.hidden = false;
    this.editBanner.replaceChildren(
      h("span", {}, `editing #${node}: sends as a new branch from #${parent}`),
      h("button", { type: "button", class: "link", onclick: () => this.actions.cancelEdit() }, "Cancel (Esc)"),
    );
  }

  hideEdit() {
    this.editBanner.hidden = true;
    this.editBanner.replaceChildren();
  }

  /** Says that prompt `entry` waits for an answer (null: none does), with a Retry. */
  showPending(entry, failed) {
    this.pendingNote.hidden = !entry;
    if (!entry) return this.pendingNote.replaceChildren();
    const first = (entry.text ?? "").split("\n")[0];
    const state = failed ? "failed and needs recovery" : "is pending (unanswered)";
    this.pendingNote.replaceChildren(
      h("span", {}, `#${entry.id} ${state}: `, h("q", {}, first)),
      h("span", { class: "muted" }, "Retry asks again, Back drops it, a new prompt asks keep or replace"),
    );
  }

  /** The prompt's text, and putting text in it (the cursor at the end). */
  get text() {
    return this.prompt.value;
  }

  set text(value) {
    this.prompt.value = value;
    this.prompt.setSelectionRange(value.length, value.length);
  }

  focus() {
    this.prompt.focus();
  }
}
