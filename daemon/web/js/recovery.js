// @ts-check
// The recovery dialog: a session whose last request failed in a way a retry cannot fix
// waits for a person to choose how it goes on. Each way out says which nodes it takes out
// of the context (the daemon's preview in the session's summary), in the order and words
// of the command line's menu; choosing one applies it, and a retry or compaction streams
// its answer while the dialog shows how it goes. Nothing is ever deleted.

import { errorBundleHref, getSession, recoverSession } from "./api.js";
import { fill, h } from "./dom.js";
import { errorLine, errorText, keyHints, openModal, showError } from "./dialog-base.js";
import { progressLine } from "./dialog-progress.js";
import { recoveryRows } from "./recovery-rows.js";

/** The ways out that answer again (the dialog streams them). */
const STREAMED = new Set(["retry", "compact"]);

/**
 * Shows `dialog#recovery` for a session that needs recovery and applies the way out a
 * person chooses. `failure` is the ApiError (kind `needs_recovery`) the page got, or null:
 * the dialog reads the session's state either way. `onEvent(name, data)` gets the events
 * of a streamed retry or compaction. Resolves with `{action, outcome}` (the daemon's
 * `Recovered`, or the `Answer` of retry and compact), or null when left as it is.
 * `signal` aborting (the recovery was chosen elsewhere) closes it and resolves null,
 * unless a way out chosen here is being applied: that one settles by itself.
 * @param {string} sessionId
 * @param {any} failure
 * @param {{ onEvent?: (name: string, data: any) => void, signal?: AbortSignal }} [options]
 */
export function openRecovery(sessionId, failure, { onEvent, signal } = {}) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(null);
    const view = recoveryView(sessionId, failure, onEvent, resolve);
    signal?.addEventListener("abort", view.dismiss, { once: true });
    view.load();
  });
}

/** What the session's summary says about its failure, and the ways out's previews. */
function stateOf(summary, failure) {
  if (summary) return { reason: summary.needs_recovery, previews: summary.recovery_choices ?? [] };
  const options = failure?.body?.error?.options ?? [];
  return {
    reason: (failure?.message ?? "").split("\n")[0],
    previews: options.map((action) => ({ action, drops: null, covers: null, first: false })),
  };
}

/** The button of one row (recovery-rows.js): choosing it applies the row's first way out. */
function choiceButton(row, index, apply) {
  return h(
    "button",
    {
      type: "button",
      class: ["recovery-choice", row.best && "best"],
      dataset: { action: row.action, actions: row.actions.join(" ") },
      onclick: () => apply(row.action, row.name),
    },
    h("span", { class: "choice-key", "aria-hidden": "true" }, String(index + 1)),
    h("span", { class: "choice-name" }, row.name),
    h("span", { class: "takes" }, row.takes),
    h("span", { class: "choice-explanation muted" }, row.explanation),
  );
}

/** The dialog and its states: reading the session, choosing, applying. */
function recoveryView(sessionId, failure, onEvent, resolve) {
  const message = h("p", { class: "api-message" }, "Reading the session…");
  const choices = h("div", { class: "recovery-choices", role: "group", "aria-label": "Ways out" });
  const progress = progressLine();
  const error = errorLine();
  const bundle = h(
    "a",
    { class: "bundle", download: "", href: errorBundleHref({ session: sessionId }) },
    "Download the diagnostic bundle",
  );
  const leave = h("button", { type: "button", class: "leave", onclick: () => dialog.close() }, "Leave as it is");
  const hints = h("div");
  let applying = false;
  let settled = false;
  const settle = (value) => {
    if (!settled) resolve(value);
    settled = true;
  };

  const dialog = openModal(
    "recovery",
    "This session needs recovery",
    [
      message,
      choices,
      progress.line,
      error,
      h("p", { class: "recovery-bundle" }, bundle, h("span", { class: "muted" }, " (the state stays)")),
      h("div", { class: "dialog-actions" }, leave),
      hints,
    ],
    { onClose: () => applying || settle(null), mayLeave: () => !applying },
  );
  dialog.addEventListener("keydown", (event) => moveByKey(event, choices));

  function show(summary) {
    const { reason, previews } = stateOf(summary, failure);
    if (summary) bundle.href = errorBundleHref({ session: summary.id });
    if (!reason) {
      message.textContent = "This session does not need recovery; nothing to do.";
      fill(choices);
      fill(hints);
      leave.textContent = "Close";
      leave.focus();
      return;
    }
    message.textContent = reason;
    const buttons = recoveryRows(previews).map((row, i) => choiceButton(row, i, apply));
    fill(choices, buttons);
    const keys = [["↑/↓", "move"], [`1–${buttons.length}`, "choose"], ["Enter", "apply"]];
    fill(hints, keyHints([...keys, ["Esc", "leave as it is"]]));
    (buttons[0] ?? leave).focus();
  }

  async function load() {
    try {
      show(await getSession(sessionId));
    } catch (problem) {
      show(null);
      showError(error, `The session could not be read: ${errorText(problem)}`);
    }
  }

  function busy(on) {
    applying = on;
    for (const button of dialog.querySelectorAll("button")) button.disabled = on;
    dialog.classList.toggle("applying", on);
  }

  async function apply(action, name) {
    if (applying) return;
    busy(true);
    choices.querySelector(`[data-action="${CSS.escape(action)}"]`)?.classList.add("chosen");
    showError(error, "");
    progress.say(STREAMED.has(action) ? `${name}: waiting for the model…` : `${name}…`);
    progress.line.scrollIntoView({ block: "nearest" });
    try {
      const outcome = await recoverSession(sessionId, action, (event, data) => {
        progress.update(event, data);
        onEvent?.(event, data);
      });
      settle({ action, outcome });
      applying = false;
      dialog.close();
    } catch (problem) {
      progress.stop();
      progress.say("");
      busy(false);
      await load();
      const still = problem?.kind === "needs_recovery";
      showError(error, still ? `${name} failed: the session still needs recovery.` : errorText(problem));
      error.scrollIntoView({ block: "nearest" });
    }
  }

  /** Closes the dialog unless a way out chosen here is being applied. */
  function dismiss() {
    if (!applying && dialog.open) dialog.close();
  }

  return { load, dismiss };
}

/** ↑/↓ move between the ways out, a digit goes to that one; Enter applies the focused one. */
function moveByKey(event, choices) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const buttons = [...choices.querySelectorAll("button.recovery-choice:not(:disabled)")];
  if (buttons.length === 0) return;
  const at = buttons.indexOf(document.activeElement);
  /** @type {number | null} */
  let next = null;
  if (event.key === "ArrowDown") next = at < 0 ? 0 : Math.min(at + 1, buttons.length - 1);
  else if (event.key === "ArrowUp") next = at < 0 ? 0 : Math.max(at - 1, 0);
  else if (/^[1-9]$/.test(event.key)) next = Number(event.key) - 1;
  if (next === null || next >= buttons.length) return;
  event.preventDefault();
  buttons[next].focus();
}
