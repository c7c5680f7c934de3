// @ts-check
// The words the page shows for the daemon's names of things: the same words omnictl uses,
// kept in one place so the transcript, the tree and the search hits never disagree.

/** @typedef {import("./api-types.js").RevertReason} RevertReason */

/** Why a node is out of the context (`why_reverted`), as `omnictl history` says it. */
const REVERT_REASONS = {
  undone: "undone",
  rewound: "rewound",
  other_branch: "on another branch",
  interrupted: "interrupted",
  recovered: "recovered",
};

/**
 * The words for a `why_reverted` value; null for none or one this page does not know.
 * @param {RevertReason | null | undefined} why
 */
export function revertReason(why) {
  return REVERT_REASONS[why] ?? null;
}
