// @ts-check
// The recovery dialog's rows, as the chat's recovery menu has them: one per way out, in
// the daemon's order except that compact goes last unless it fits the failure best, and
// one row for ways out that take the same nodes out and leave the head at the same node
// (a failed prompt alone at the head: deep rollback and clear turn do the same), named by
// all of them. Each row says what it takes out of the context (the daemon's preview).

import { span } from "./dialog-progress.js";

/** @typedef {import("./api-types.js").RecoveryAction} RecoveryAction */
/** @typedef {import("./api-types.js").RecoveryPreview} RecoveryPreview */

/** Each way out's name and what it does, as `omnictl recover` explains them. */
const WAYS_OUT = {
  compact: ["compact", "summarise the older turns (kept in the tree, one undo away), then send again"],
  deep: ["deep rollback", "drop the last prompt and its whole tool chain from the context"],
  clear: ["clear turn", "drop only the last node from the context"],
  ignore: ["ignore", "keep the history as it is and clear the state"],
  retry: ["retry", "send the same context again"],
};

/**
 * A way out's name: `deep rollback`, `clear turn`, ...
 * @param {RecoveryAction} action
 */
export function wayName(action) {
  return WAYS_OUT[action]?.[0] ?? action;
}

/**
 * The daemon's order, except that compact goes last unless it fits the failure best.
 * @param {RecoveryPreview[]} previews
 */
function ordered(previews) {
  const demoted = (p) => p.action === "compact" && !p.first;
  const kept = previews.filter((p) => !demoted(p));
  return [...kept.filter((p) => p.first), ...kept.filter((p) => !p.first), ...previews.filter(demoted)];
}

/**
 * What a way out takes out of the context, in the command line's words.
 * @param {RecoveryPreview} preview
 */
function takesText(preview) {
  if (preview.action === "compact" && preview.covers) {
    return `summarises ${span(preview.covers)} into one node, then sends again; they stay in the tree`;
  }
  if (!preview.drops) return "which nodes it takes out is not known (the session could not be read)";
  if (preview.drops.length === 0) return "the context stays as it is";
  const nodes = [...preview.drops].reverse().map((n) => `#${n}`);
  return `takes ${nodes.join(", ")} out of the context`;
}

/**
 * Whether `preview` does what the row of `earlier` does: the same nodes out, the same head.
 * @param {RecoveryPreview} preview
 * @param {RecoveryPreview} earlier
 */
function same(preview, earlier) {
  return (
    preview.action !== "compact" &&
    earlier.action !== "compact" &&
    Boolean(preview.drops?.length) &&
    earlier.head_after === preview.head_after &&
    String(earlier.drops) === String(preview.drops)
  );
}

/**
 * The rows for `previews`: `{action, actions, name, takes, explanation, best}`, where
 * `action` is what choosing the row applies (the first of `actions`, the ways out merged
 * into it).
 * @param {RecoveryPreview[]} previews
 */
export function recoveryRows(previews) {
  const rows = [];
  for (const preview of ordered(previews)) {
    const row = rows.find((r) => same(preview, r.preview));
    if (row) {
      row.actions.push(preview.action);
      row.name = `${row.name} / ${wayName(preview.action)}`;
      row.explanation = `${row.explanation} (here ${wayName(preview.action)} does the same)`;
      row.best ||= preview.first;
      continue;
    }
    rows.push({
      preview,
      action: preview.action,
      actions: [preview.action],
      name: wayName(preview.action),
      takes: takesText(preview),
      explanation: WAYS_OUT[preview.action]?.[1] ?? "",
      best: preview.first,
    });
  }
  return rows;
}
