// @ts-check
// One line of the sessions list: a link to the session with its title, where it came from,
// the model it asks, its size and when it was last active, and badges for the states a
// person scanning the list should notice (archived, in the trash, needs recovery...).

import { ago, h, localTime, thousands } from "./dom.js";

/** @typedef {import("./api-types.js").OriginKind} OriginKind */
/** @typedef {import("./api-types.js").SessionSummary} SessionSummary */

/**
 * The origin as the list shows it: "own", "proxy · CLIENT" or "import". `origin` is the
 * daemon's description ("gemini proxy (my-agent/1.2)", "import (omni: FILE)"); the client
 * is what its parentheses hold. The whole description goes in the tooltip.
 * @param {OriginKind | undefined} kind
 * @param {string | null | undefined} origin
 */
export function originLabel(kind, origin) {
  if (kind === "proxy") {
    const client = /\((.*)\)\s*$/.exec(origin ?? "")?.[1];
    return client ? `proxy · ${client}` : "proxy";
  }
  return kind ?? "own";
}

/** @param {SessionSummary} summary */
function badges(summary) {
  return [
    summary.current && h("span", { class: "badge current", title: "omnictl's current session" }, "current"),
    summary.archived_at_ms && h("span", { class: "badge archived", title: `archived ${localTime(summary.archived_at_ms)}` }, "archived"),
    summary.deleted_at_ms && h("span", { class: "badge trash", title: `moved to the trash ${localTime(summary.deleted_at_ms)}` }, "trash"),
    summary.needs_recovery && h("span", { class: "badge problem", title: summary.needs_recovery }, "needs recovery"),
    summary.suspended && h("span", { class: "badge problem" }, "suspended"),
    summary.damaged && h("span", { class: "badge problem", title: summary.damaged }, "damaged"),
    summary.pending_calls?.length > 0 && h("span", { class: "badge waiting" }, "waiting for tool results"),
  ];
}

/**
 * The row of one session summary (`GET /v1/sessions`), a link that opens it.
 * @param {SessionSummary} summary
 */
export function sessionRow(summary) {
  const href = `#/s/${encodeURIComponent(summary.id)}`;
  const active = summary.updated_at_ms || summary.created_at_ms || 0;
  const turns = summary.nodes === 1 ? "1 turn" : `${thousands(summary.nodes)} turns`;
  return h(
    "a",
    { class: "session-row", href, dataset: { session: summary.id } },
    h(
      "span",
      { class: "row-head" },
      h("span", { class: ["title", !summary.title && "untitled"] }, summary.title || "untitled"),
      badges(summary),
    ),
    h(
      "span",
      { class: "row-meta" },
      h("span", { class: ["origin", summary.origin_kind], title: summary.origin ?? "made with omnictl or the API" }, originLabel(summary.origin_kind, summary.origin)),
      h("span", { class: "model" }, summary.model),
      h("span", { class: "turns" }, turns),
      h("time", { class: "activity", datetime: new Date(active).toISOString(), title: `last active ${localTime(active)}` }, ago(active)),
    ),
  );
}
