// @ts-check
// What the session page's buttons and shortcuts do, through the HTTP API: send (with an
// edit's fork and the keep-or-replace question), stop, the moves, retry, resume, compact,
// the model and diagnostics dialogs. An answer's text is drawn from the session's events
// (live.js), whoever asked; a request's own stream only says how it ended.

import { cancelAnswer, compactSession, moveHead, resumeSession, retryPrompt, sendPrompt } from "./api.js";
import { toast } from "./dom.js";
import { openDiagnostics } from "./diagnostics.js";
import { openModelDialog } from "./model-dialog.js";
import { askKeepOrReplace } from "./pending-choice.js";
import { showShortcuts } from "./shortcuts.js";

/** The first sentence of a daemon message (the rest is advice for the command line). */
function firstSentence(message) {
  return (message ?? "").split(/\.\s/)[0].split("\n")[0];
}

/** What a failed answer means here, in the page's terms (not omnictl's). */
export function failureText(error) {
  const kind = error?.kind;
  const first = firstSentence(error?.message ?? String(error));
  if (kind === "cancelled") return `Stopped: ${first}. The prompt stays pending: Retry asks again, Back drops it.`;
  if (kind === "suspended") return `${first}. Resume lifts the suspension.`;
  return `${first}.`;
}

/** The actions of one session page; `page` is the view (session.js). */
export function makeActions(page) {
  /**
   * Runs a streaming request of this page: resolves with `{ result }` or `{ error, stored }`
   * (`stored`: a prompt was stored before it failed, so its text is not lost). A request
   * that got going fails on the session's events too, which say how (live.js); one
   * refused at once is said here. Needing recovery opens its dialog either way.
   * @param {(onEvent: import("./http.js").EventHandler) => Promise<unknown>} start
   *   sends the request (send, retry or compact) with the handler of its events
   */
  async function streamed(start) {
    page.ownAnswer(+1);
    let stored = false;
    let started = false;
    try {
      const result = await start((name) => {
        if (name === "prompt_stored") stored = true;
        if (name !== "error") started = true;
      });
      return { result };
    } catch (error) {
      if (error.kind === "needs_recovery") page.recover(error);
      else if (!started) page.activity.add("warn", failureText(error), error.message);
      return { error, stored };
    } finally {
      page.ownAnswer(-1);
      page.reload();
    }
  }

  /**
   * A head move (undo, back, redo, checkout); a refusal is said in a toast.
   * @param {"undo" | "back" | "redo" | "checkout"} op
   * @param {{ node?: number }} [body]
   */
  async function move(op, body = {}) {
    try {
      const moved = await moveHead(page.id, op, body);
      page.reload();
      return moved;
    } catch (error) {
      toast(error.message, "error");
      return null;
    }
  }

  async function send() {
    const composer = page.composer;
    const text = composer.text;
    if (text.trim() === "" || page.answering()) return;
    let replace = false;
    if (page.editing) {
      if (!(await move("checkout", { node: page.editing.parent }))) return;
    } else {
      const pending = page.pendingPrompt();
      if (pending) {
        const choice = await askKeepOrReplace(pending, Boolean(page.summary?.needs_recovery));
        composer.focus();
        if (!choice) return;
        replace = choice === "replace";
      }
    }
    composer.text = "";
    page.setEditing(null);
    page.transcript.toLatest();
    page.transcript.toEnd(); // the answer is read at the end, followed as it streams
    const outcome = await streamed((onEvent) => sendPrompt(page.id, { prompt: text, replace }, onEvent));
    // A refused send stored nothing: its text goes back in the box, to send again.
    if (outcome.error && !outcome.stored && composer.text === "") composer.text = text;
  }

  /**
   * Back: the latest whole round out of the context. While an answer streams it is stopped
   * first (what arrived is kept out of the context), as a voice assistant's Back does.
   */
  async function back() {
    if (page.answering()) {
      try {
        await cancelAnswer(page.id); // answered once the stopped turn is stored
      } catch (error) {
        if (error.kind !== "wrong_state") return toast(error.message, "error"); // nothing in flight: back as usual
      }
    }
    return move("back");
  }

  async function stop() {
    try {
      await cancelAnswer(page.id); // the session's `failed` event says what was kept
    } catch (error) {
      toast(error.message, "error");
    }
  }

  async function resume() {
    try {
      await resumeSession(page.id);
      page.activity.add("info", "Resumed: the session takes prompts again.");
    } catch (error) {
      toast(error.message, "error");
    }
    page.reload();
  }

  /** Puts prompt `entry` in the box: the next send forks from before it. */
  function edit(entry) {
    page.setEditing({ node: entry.id, parent: entry.parent ?? 0 });
    page.composer.text = entry.text ?? "";
    page.composer.focus();
  }

  function editLast() {
    const entry = page.transcript.lastPromptOnPath();
    if (entry) edit(entry);
    else toast("No prompt on the current path to edit yet.");
  }

  function cancelEdit() {
    page.setEditing(null);
    page.composer.text = "";
  }

  async function model() {
    const summary = await openModelDialog(page.id, page.summary);
    if (summary) page.showSummary(summary);
    page.composer.focus();
  }

  return {
    send,
    stop,
    undo: () => move("undo"),
    back,
    redo: () => move("redo"),
    checkout: (node) => move("checkout", { node }),
    retry: () => streamed((onEvent) => retryPrompt(page.id, onEvent)),
    resume,
    compact: () => streamed((onEvent) => compactSession(page.id, onEvent)), // its `compacting` event says what it covers
    edit,
    editLast,
    cancelEdit,
    model,
    diagnostics: () => openDiagnostics(page.id),
    shortcuts: showShortcuts,
  };
}
