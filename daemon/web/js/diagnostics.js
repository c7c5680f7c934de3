// @ts-check
// The diagnostics dialog: the errors omnid recorded for a session (what `omnictl logs list`
// shows), each with a link to its diagnostic bundle, and one for the whole session's. The
// links are plain same-origin downloads, so the browser's login cookie goes with them.

import { errorBundleHref, getSession, listErrors } from "./api.js";
import { fill, h, localTime } from "./dom.js";
import { errorLine, errorText, keyHints, openModal, showError } from "./dialog-base.js";

/** @typedef {import("./api-types.js").ErrorSummary} ErrorSummary */

/** The HTTP status a recorded error's message names (`... answered HTTP 400 ...`), if any. */
function statusOf(message) {
  return /\bHTTP (\d{3})\b/.exec(message ?? "")?.[1] ?? null;
}

/** A recorded error's time (RFC 3339, UTC) in local time, or as it was given. */
function timeOf(text) {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : localTime(ms);
}

function bundleLink(session, error, label) {
  return h(
    "a",
    { class: "bundle", download: "", href: errorBundleHref({ session, error }) },
    label,
  );
}

/** @param {ErrorSummary} record */
function recordItem(record) {
  const [first, ...rest] = (record.message ?? "").split("\n");
  const status = statusOf(record.message);
  return h(
    "li",
    { class: "diag-record", dataset: { error: record.id } },
    h(
      "div",
      { class: "diag-head" },
      h("time", { class: "diag-time", datetime: record.time, title: record.time }, timeOf(record.time)),
      h("span", { class: "badge diag-class" }, record.class),
      status && h("span", { class: "badge diag-status" }, `HTTP ${status}`),
    ),
    h("p", { class: "diag-message" }, first),
    rest.length > 0 &&
      h("details", { class: "diag-more" }, h("summary", {}, "whole message"), h("pre", {}, record.message)),
    h(
      "div",
      { class: "diag-foot" },
      h("code", { class: "diag-id muted" }, record.id),
      bundleLink(record.session, record.id, "Download its bundle"),
    ),
  );
}

/**
 * Shows `dialog#diagnostics`: the session's recorded errors, newest first, each with a link
 * to its bundle, and a link to the whole session's bundle. Resolves when it is closed.
 */
export function openDiagnostics(sessionId) {
  return new Promise((resolve) => {
    const list = h("ol", { class: "diag-records" });
    const status = h("p", { class: "muted" }, "Reading the recorded errors…");
    const error = errorLine();
    const whole = h("p", { class: "diag-session" }, bundleLink(sessionId, null, "Download the whole session's bundle"));
    const close = h("button", { type: "button", class: "primary", onclick: () => dialog.close() }, "Close");
    const dialog = openModal(
      "diagnostics",
      "Diagnostics",
      [
        status,
        list,
        error,
        whole,
        h("p", { class: "muted diag-note" }, "A bundle holds the failed requests, the answers, the configuration (secrets redacted) and the transcript."),
        h("div", { class: "dialog-actions" }, close),
        keyHints([["Esc", "close"]]),
      ],
      { onClose: () => resolve(undefined) },
    );
    close.focus();
    load(sessionId, { list, status, error, whole });
  });
}

/** Reads the session's full id (a prefix is resolved) and its recorded errors. */
async function load(sessionId, { list, status, error, whole }) {
  try {
    const summary = await getSession(sessionId);
    fill(whole, bundleLink(summary.id, null, "Download the whole session's bundle"));
    const { errors } = await listErrors({ session: summary.id });
    fill(list, errors.map(recordItem));
    status.className = errors.length === 0 ? "empty" : "muted";
    status.textContent =
      errors.length === 0
        ? "No errors recorded for this session."
        : `${errors.length} recorded error${errors.length === 1 ? "" : "s"}, newest first.`;
  } catch (problem) {
    status.textContent = "";
    showError(error, `The recorded errors could not be read: ${errorText(problem)}`);
  }
}
