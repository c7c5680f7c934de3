// @ts-check
// One node of a session's transcript as `omnictl history` shows it: a prompt as plain text,
// an answer as markdown, thoughts dim and folded, function calls and results folded, a
// compaction's summary marked with what it covers, and a node out of the context dimmed,
// struck through and marked `[ REVERTED ]` with why.

import { h, localTime } from "./dom.js";
import { renderMarkdown, renderPlain } from "./markdown.js";
import { revertReason } from "./words.js";

/** @typedef {import("./api-types.js").Entry} Entry */

/**
 * The text after `[ REVERTED ]`: why the node is out of the context.
 * @param {Entry} entry
 */
export function whyReverted(entry) {
  return revertReason(entry.why_reverted) ?? entry.why_reverted ?? "reverted";
}

/**
 * The role an entry is shown as: a compaction's summary is its own kind.
 * @param {Entry} entry
 */
export function shownRole(entry) {
  return entry.compaction ? "summary" : entry.role;
}

/**
 * What of an entry can change once it is stored (it moves in and out of the context):
 * equal signatures mean the element already drawn is still right.
 * @param {Entry} entry
 * @param {boolean} [onPathPrompt]
 */
export function entrySignature(entry, onPathPrompt) {
  return [entry.reverted, entry.why_reverted, entry.compacted, onPathPrompt].join("|");
}

/** "nodes 1–16", "node 5", or "6 nodes, 1–30" (as omnictl says a summary's span). */
function span(nodes) {
  if (!nodes?.length) return "no nodes";
  const low = Math.min(...nodes);
  const high = Math.max(...nodes);
  if (low === high) return `node ${low}`;
  if (nodes.length === high - low + 1) return `nodes ${low}–${high}`;
  return `${nodes.length} nodes, ${low}–${high}`;
}

/** Pretty JSON for a call's arguments or a result, as text; the raw text if not JSON. */
function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return String(text ?? "");
  }
}

/** A folded function call: `→ name(…)`, its arguments inside. */
export function callDetails(name, argsText) {
  return h(
    "details",
    { class: "call" },
    h("summary", {}, `→ ${name}(…)`),
    h("pre", { class: "json" }, prettyJson(argsText)),
  );
}

function resultDetails(name, responseText) {
  return h(
    "details",
    { class: "result" },
    h("summary", {}, `← ${name}`),
    h("pre", { class: "json" }, prettyJson(responseText)),
  );
}

/** A folded thought summary (dim): the model's reasoning never enters the answer. */
export function thoughtDetails(text, open = false) {
  return h(
    "details",
    { class: "thought", open },
    h("summary", {}, "thought"),
    h("div", { class: "thought-text" }, renderMarkdown(text)),
  );
}

/**
 * The line above an entry: its number, role, model, when, and marks.
 * @param {Entry} entry
 * @param {((entry: Entry) => void) | undefined} onEdit
 */
function meta(entry, onEdit) {
  const interrupted = entry.model?.interrupted;
  return h(
    "header",
    { class: "entry-meta" },
    h("span", { class: "node-id" }, `#${entry.id}`),
    h("span", { class: "role" }, shownRole(entry)),
    entry.model ? h("span", { class: "model" }, `${entry.model.provider}/${entry.model.model}`) : null,
    interrupted ? h("span", { class: "badge interrupted" }, "interrupted") : null,
    entry.client_compaction ? h("span", { class: "badge" }, "the client's own compaction") : null,
    h("time", { datetime: new Date(entry.created_at_ms).toISOString() }, localTime(entry.created_at_ms)),
    onEdit
      ? h(
          "button",
          {
            class: "edit",
            type: "button",
            title: "Edit this prompt: send it changed, as a new branch",
            "aria-label": `Edit prompt #${entry.id}`,
            onclick: () => onEdit(entry),
          },
          "Edit",
        )
      : null,
  );
}

/**
 * The entry's parts in order: thoughts, its text (one block), calls and results.
 * @param {Entry} entry
 */
function body(entry) {
  const thoughts = [];
  const folded = [];
  for (const part of entry.parts ?? []) {
    const content = part.content ?? {};
    if ("thought" in content && typeof content.thought === "string") thoughts.push(content.thought);
    else if ("function_call" in content && content.function_call) {
      folded.push(callDetails(content.function_call.name, content.function_call.args_json));
    } else if ("function_response" in content && content.function_response) {
      const response = content.function_response;
      folded.push(resultDetails(response.name, response.response_json));
    }
  }
  const text = entry.role === "user" ? renderPlain(entry.text) : renderMarkdown(entry.text);
  const hasText = (entry.text ?? "").trim() !== "";
  return [
    thoughts.length ? thoughtDetails(thoughts.join("\n\n")) : null,
    h("div", { class: ["entry-text", hasText ? null : "no-text"] }, hasText ? text : null),
    folded,
  ];
}

/**
 * The element of one history entry. `onEdit(entry)`, when given, adds the Edit button
 * (a prompt on the current path).
 * @param {Entry} entry
 * @param {{ onEdit?: (entry: Entry) => void }} [options]
 */
export function renderEntry(entry, { onEdit } = {}) {
  const role = shownRole(entry);
  const element = h(
    "article",
    {
      class: ["entry", entry.reverted && "reverted", entry.compacted && "compacted"],
      dataset: { node: entry.id, role },
    },
    meta(entry, onEdit),
    entry.compaction
      ? h("p", { class: "summary-mark" }, `summary of ${span(entry.compaction.covers)} (compacted: undo right after it returns to them)`)
      : null,
    entry.reverted ? h("p", { class: "reverted-mark" }, `[ REVERTED ] ${whyReverted(entry)}`) : null,
    entry.compacted && !entry.reverted ? h("p", { class: "compacted-mark" }, "[ COMPACTED ]") : null,
    body(entry),
  );
  return element;
}
