// @ts-check
// Follows the session's events (`GET .../events`): every client's prompts and answers as
// they stream (this page's own sends included: they are drawn from here, not from their
// request), retries and fallbacks as notices, and a reload of the transcript, the tree and
// the state whenever something is stored, so two tabs never disagree. After a reconnect
// (`attached` again) everything is loaded afresh.
//
// Only a page that can be seen follows: a browser keeps at most six connections to one
// host (HTTP/1.1), and every following tab holds one open, so a seventh tab (or pages kept
// in the back-forward cache) would leave the others' requests waiting. A hidden page lets
// its stream go and follows again, catching up, when it is shown.

import { failureText } from "./actions.js";
import { followEvents } from "./api.js";

/** Events after which what is stored changed (`changed`: the title, model or archive
 * state): the page loads it again. */
const STORED = new Set(["moved", "recovered", "resumed", "tool_result_stored", "missed", "changed"]);

/** Events that end an answer (or a compaction) in flight. */
const ENDED = new Set(["answered", "failed", "compacted"]);

/**
 * Follows session `page.id` until `signal` aborts. `page`: the view (session.js), whose
 * transcript, activity and header show what happens.
 */
export function followSession(page, signal) {
  const onEvent = (name, data) => handle(page, name, data);
  const onState = (state) => page.header.showLive(state === "closed" ? "not followed" : state);
  /** @type {AbortController | null} */
  let stream = null;
  const start = () => {
    if (stream || signal.aborted) return;
    const controller = new AbortController();
    stream = controller;
    followEvents(page.id, onEvent, { signal: controller.signal, onState });
  };
  const pause = () => {
    if (!stream) return;
    stream.abort();
    stream = null;
    onState("paused");
  };
  const onVisibility = () => (document.hidden ? pause() : start());
  document.addEventListener("visibilitychange", onVisibility);
  window.addEventListener("pagehide", pause);
  window.addEventListener("pageshow", onVisibility);
  signal.addEventListener("abort", () => {
    pause();
    document.removeEventListener("visibilitychange", onVisibility);
    window.removeEventListener("pagehide", pause);
    window.removeEventListener("pageshow", onVisibility);
  });
  onVisibility();
}

function handle(page, name, data) {
  const { transcript, activity } = page;
  if (name === "attached") {
    transcript.stopStreaming();
    page.setStreaming(false);
    page.reload({ summary: data.session });
  } else if (name === "prompt_stored") {
    startAnswer(page);
    page.reload();
  } else if (name === "compacting") {
    startAnswer(page, "summarising…");
    activity.add("info", `Compacting: ${data.covers} nodes into one summary (${data.model}).`);
  } else if (name === "prompts_merged") {
    activity.add("info", `Sent together: ${data.prompts.map((n) => `#${n}`).join(", ")}.`);
  } else if (name === "text") {
    streaming(page).growStreaming((entry) => entry.addText(data.text));
  } else if (name === "thought") {
    streaming(page).growStreaming((entry) => entry.addThought(data.text));
  } else if (name === "function_call") {
    streaming(page).growStreaming((entry) => entry.addCall(data.name, data.args));
  } else if (name === "retrying") {
    retrying(page, data);
  } else if (ENDED.has(name)) {
    transcript.stopStreaming();
    page.setStreaming(false);
    activity.answerEnded();
    if (name === "failed") failed(page, data.error ?? {});
    page.reload();
  } else if (STORED.has(name)) {
    page.reload();
  }
}

/** An answer begins: its streaming entry, and the last answer's notices go. */
function startAnswer(page, label) {
  page.activity.newAnswer();
  page.setStreaming(true);
  page.transcript.startStreaming(label);
}

/** The transcript with a streaming entry (a retry or a tool continuation may start one). */
function streaming(page) {
  if (!page.transcript.streaming) {
    page.setStreaming(true);
    page.transcript.startStreaming();
  }
  return page.transcript;
}

function retrying(page, data) {
  page.activity.retrying(data);
  const entry = streaming(page).streaming;
  if (data.discarded_partial) {
    entry.text = "";
    entry.schedule();
  }
  entry.setStatus(data.fallback_to ? `asking ${data.fallback_to}…` : `retrying (attempt ${data.attempt + 1})…`);
}

/** An answer failed (whoever asked): why, and what the user can do about it. */
function failed(page, error) {
  if (error.kind === "needs_recovery") return; // the recovery dialog says it
  page.activity.add(error.kind === "cancelled" ? "info" : "warn", failureText(error), error.message);
}
