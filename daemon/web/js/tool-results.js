// @ts-check
// The form for function calls that wait for results: the model called functions the
// daemon does not run, so a person types each result (a JSON object). Each result is
// stored as it is sent; with the last one the model's continuation streams. Skipping
// undoes the calls, as the chat's /skip does (they stay in the tree, off the path).

import { getSession, moveHead, sendToolResult } from "./api.js";
import { h } from "./dom.js";
import { errorLine, errorText, keyHints, showError } from "./dialog-base.js";
import { progressLine } from "./dialog-progress.js";

/** @typedef {import("./api-types.js").PendingCall} PendingCall */

/**
 * The call's arguments (`args_json`) pretty-printed, or as they came when not JSON.
 * @param {PendingCall} call
 */
function prettyArgs(call) {
  try {
    return JSON.stringify(JSON.parse(call.args_json ?? "{}"), null, 2);
  } catch {
    return call.args_json ?? "";
  }
}

/** The result typed for a call as an object, or `{problem}` saying what is wrong with it. */
function parseResult(text) {
  if (text.trim() === "") return { problem: "Type the result: a JSON object such as {\"ok\": true}." };
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `This is not JSON: ${error.message}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { problem: `The result must be a JSON object ({…}), not ${kind}; wrap it, e.g. {"result": …}.` };
  }
  return { value };
}

/**
 * One call: its name and arguments, and the field for its result (none once answered).
 * @param {PendingCall} call
 * @param {number} index
 */
function callItem(call, index) {
  const key = call.id ?? call.name;
  const fieldId = `tool-result-${index}`;
  const field = h("textarea", {
    id: fieldId,
    class: "tool-result",
    dataset: { call: key, index },
    rows: 4,
    spellcheck: "false",
    placeholder: '{"result": …}',
    "aria-describedby": `${fieldId}-error`,
    disabled: call.answered,
  });
  const problem = h("p", { id: `${fieldId}-error`, class: "field-error", role: "alert", hidden: true });
  const item = h(
    "li",
    { class: ["tool-call", call.answered && "answered"], dataset: { call: key } },
    h(
      "div",
      { class: "call-head" },
      h("code", { class: "call-name" }, call.name),
      call.id && h("span", { class: "badge" }, `id ${call.id}`),
      h("span", { class: "call-stored badge" }, "result stored"),
    ),
    h("pre", { class: "call-args" }, prettyArgs(call)),
    h("label", { for: fieldId }, `Result of ${call.name} (a JSON object)`),
    field,
    problem,
  );
  return { call, item, field, problem };
}

/** Checks every unanswered call's result; shows what is wrong beside each. */
function validate(rows) {
  let valid = true;
  for (const row of rows.filter((r) => !r.call.answered)) {
    const parsed = parseResult(row.field.value);
    row.response = parsed.value;
    showError(row.problem, parsed.problem);
    row.field.setAttribute("aria-invalid", parsed.problem ? "true" : "false");
    if (parsed.problem && valid) row.field.focus();
    valid &&= !parsed.problem;
  }
  return valid;
}

/**
 * Marks the calls the daemon says are answered (a `ToolResultStored`'s `calls`).
 * @param {ReturnType<typeof callItem>[]} rows
 * @param {PendingCall[]} calls
 */
function markAnswered(rows, calls) {
  calls.forEach((call, index) => {
    const row = rows[index];
    if (!row || !call.answered) return;
    row.call.answered = true;
    row.item.classList.add("answered");
    row.field.disabled = true;
  });
}

/**
 * Mounts `form#tool-results` in `container` for `pendingCalls` (a summary's or an
 * Answer's `pending_calls`: `{name, id, args_json, answered}`). Sending stores each result
 * and streams the continuation: `onEvent(name, data)` per event, `onDone(answer)` at the
 * end. Skipping undoes the calls: `onDone({skipped: true, move})` with the daemon's move.
 * `onError(error)` when every result was stored but the continuation failed (a result the
 * daemon refuses is shown in the form instead). Returns a function that removes the form.
 * @param {HTMLElement} container
 * @param {string} sessionId
 * @param {PendingCall[]} pendingCalls
 * @param {{ onEvent?: (name: string, data: any) => void, onDone?: (outcome: any) => void, onError?: (error: any) => void }} [handlers]
 */
export function mountToolResults(container, sessionId, pendingCalls, { onEvent, onDone, onError } = {}) {
  const rows = pendingCalls.map((call, i) => callItem({ ...call }, i));
  const waiting = rows.filter((r) => !r.call.answered).length;
  const progress = progressLine();
  const error = errorLine();
  const send = h("button", { id: "send-tool-results", type: "submit", class: "primary" }, "Send results");
  const skip = h("button", { id: "skip-tool-calls", type: "button", onclick: () => skipCalls() }, "Skip (undo the calls)");
  const form = h(
    "form",
    { id: "tool-results", class: "tool-results", novalidate: true, onsubmit: (e) => (e.preventDefault(), sendAll()) },
    h("h3", {}, `The model called ${waiting === 1 ? "a function" : `${waiting} functions`} and waits for results`),
    h("p", { class: "muted" }, "Type each result as a JSON object, or skip: the calls are undone (they stay in the tree, off the path)."),
    h("ol", { class: "tool-calls" }, rows.map((r) => r.item)),
    progress.line,
    error,
    h("div", { class: "dialog-actions" }, skip, send),
    keyHints([["Ctrl+Enter", "send the results"]]),
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  container.append(form);
  rows.find((r) => !r.call.answered)?.field.focus();

  let removed = false;
  const unmount = () => {
    removed = true;
    progress.stop();
    form.remove();
  };

  function busy(on) {
    for (const control of form.querySelectorAll("button")) control.disabled = on;
    for (const row of rows) row.field.disabled = on || row.call.answered;
    form.classList.toggle("sending", on);
  }

  function relay(name, data) {
    progress.update(name, data);
    onEvent?.(name, data);
  }

  async function sendAll() {
    showError(error, "");
    if (!validate(rows)) return;
    busy(true);
    try {
      for (const row of rows.filter((r) => !r.call.answered)) {
        progress.say(`sending the result of ${row.call.name}…`);
        const body = { name: row.call.name, response: row.response };
        if (row.call.id) body.call_id = row.call.id;
        const outcome = await sendToolResult(sessionId, body, relay);
        // The stored results say which calls still wait; the last one's Answer ends the form.
        if (!("calls" in outcome && Array.isArray(outcome.calls))) return finish(outcome);
        markAnswered(rows, outcome.calls);
      }
      finish(null);
    } catch (problem) {
      await failed(problem);
    }
  }

  function finish(answer) {
    unmount();
    onDone?.(answer);
  }

  /** After a failure the session says which results it stored: the form stays only for the rest. */
  async function failed(problem) {
    progress.stop();
    progress.say("");
    if (removed) return;
    const calls = await getSession(sessionId).then((s) => s.pending_calls, () => null);
    if (calls) markAnswered(rows, calls);
    if (calls && calls.every((call) => call.answered)) {
      unmount();
      onError?.(problem);
      return;
    }
    busy(false);
    showError(error, errorText(problem));
  }

  async function skipCalls() {
    busy(true);
    showError(error, "");
    try {
      const move = await moveHead(sessionId, "undo");
      unmount();
      onDone?.({ skipped: true, move });
    } catch (problem) {
      busy(false);
      showError(error, `The calls could not be skipped: ${errorText(problem)}`);
    }
  }

  return unmount;
}
