// @ts-check
// Every endpoint of the HTTP API the web app uses, by name: the one place that knows the
// daemon's paths (docs/openapi.json) and what each answers (api-types.js). The views call
// these; http.js carries the requests.

import { apiPath, follow, request, stream } from "./http.js";

export { ApiError, whenLoggedOut } from "./http.js";

/** @typedef {import("./http.js").EventHandler} EventHandler */
/** @typedef {import("./api-types.js").Answer} Answer */
/** @typedef {import("./api-types.js").Cancelled} Cancelled */
/** @typedef {import("./api-types.js").Compacted} Compacted */
/** @typedef {import("./api-types.js").DaemonStatus} DaemonStatus */
/** @typedef {import("./api-types.js").ErrorList} ErrorList */
/** @typedef {import("./api-types.js").HistoryView} HistoryView */
/** @typedef {import("./api-types.js").MoveOutcome} MoveOutcome */
/** @typedef {import("./api-types.js").RecoverOutcome} RecoverOutcome */
/** @typedef {import("./api-types.js").RecoveryAction} RecoveryAction */
/** @typedef {import("./api-types.js").Resumed} Resumed */
/** @typedef {import("./api-types.js").SearchResults} SearchResults */
/** @typedef {import("./api-types.js").SessionCreated} SessionCreated */
/** @typedef {import("./api-types.js").SessionPage} SessionPage */
/** @typedef {import("./api-types.js").SessionSummary} SessionSummary */
/** @typedef {import("./api-types.js").ToolResultOutcome} ToolResultOutcome */
/** @typedef {import("./api-types.js").TreeShape} TreeShape */
/** @typedef {import("./api-types.js").UsageReport} UsageReport */

/**
 * The session's path: an id is URL-encoded whatever it holds, dots too, so an address
 * like `#/s/..` names a session called ".." (not found) and never another route.
 * @param {string} id
 * @param {string} [rest] what follows, e.g. "/history"
 */
function sessionPath(id, rest = "") {
  return `/sessions/${encodeURIComponent(id).replace(/\./g, "%2E")}${rest}`;
}

// The daemon.

/**
 * The daemon's health and figures (the status page; the model dialog's known models).
 * @returns {Promise<DaemonStatus>}
 */
export function getStatus() {
  return request("GET", "/status");
}

/**
 * Tokens and cost, grouped (the model dialog asks per model).
 * @param {{ by?: "session" | "model" | "day" }} params
 * @returns {Promise<UsageReport>}
 */
export function getUsage(params) {
  return request("GET", "/usage", { params });
}

/**
 * The recorded errors, of one session when `session` is given (the diagnostics dialog).
 * @param {{ session?: string }} params
 * @returns {Promise<ErrorList>}
 */
export function listErrors(params) {
  return request("GET", "/errors", { params });
}

/**
 * The address of a diagnostic bundle to download (a link's href, never fetched here).
 * @param {{ session?: string, error?: string }} params
 */
export function errorBundleHref(params) {
  return apiPath("/errors/bundle", params);
}

// Sessions.

/**
 * A page of the session list, newest first; `before` is the last page's `next_before`.
 * @param {{ limit?: number, before?: string | null, origin?: string, model?: string, archived?: string, trash?: string }} params
 *   `archived` and `trash` are "true" or "" (left out)
 * @returns {Promise<SessionPage>}
 */
export function listSessions(params) {
  return request("GET", "/sessions", { params });
}

/**
 * A new empty session with the daemon's model.
 * @returns {Promise<SessionCreated>}
 */
export function createSession() {
  return request("POST", "/sessions", { body: {} });
}

/**
 * Full-text search over every session's nodes.
 * @param {{ q: string, limit?: number, archived?: string }} params `archived`: "true" or ""
 * @returns {Promise<SearchResults>}
 */
export function search(params) {
  return request("GET", "/search", { params });
}

/**
 * One session's summary.
 * @param {string} id
 * @returns {Promise<SessionSummary>}
 */
export function getSession(id) {
  return request("GET", sessionPath(id));
}

/**
 * A page of the session's transcript: `limit` nodes before node `before` (the latest
 * without it); `signal` aborts it.
 * @param {string} id
 * @param {{ limit?: number, before?: number }} params
 * @param {{ signal?: AbortSignal }} [options]
 * @returns {Promise<HistoryView>}
 */
export function getHistory(id, params, { signal } = {}) {
  return request("GET", sessionPath(id, "/history"), { params, signal });
}

/**
 * The shape of the session's whole tree (no text).
 * @param {string} id
 * @returns {Promise<TreeShape>}
 */
export function getTree(id) {
  return request("GET", sessionPath(id, "/tree"));
}

/**
 * Renames the session.
 * @param {string} id
 * @param {string} title
 * @returns {Promise<SessionSummary>}
 */
export function setTitle(id, title) {
  return request("PUT", sessionPath(id, "/title"), { body: { title } });
}

/**
 * Switches the model the session's next send asks.
 * @param {string} id
 * @param {string} model MODEL or PROVIDER/MODEL
 * @returns {Promise<SessionSummary>}
 */
export function setModel(id, model) {
  return request("PUT", sessionPath(id, "/model"), { body: { model } });
}

/**
 * Moves the session's head: undo, back, redo, or checkout (with `{ node }`).
 * @param {string} id
 * @param {"undo" | "back" | "redo" | "checkout"} op
 * @param {{ node?: number }} [body]
 * @returns {Promise<MoveOutcome>}
 */
export function moveHead(id, op, body = {}) {
  return request("POST", sessionPath(id, `/${op}`), { body });
}

/**
 * Stops the answer in flight (answered once the stopped turn is stored).
 * @param {string} id
 * @returns {Promise<Cancelled>}
 */
export function cancelAnswer(id) {
  return request("POST", sessionPath(id, "/cancel"), { body: {} });
}

/**
 * Lifts the suspension repeated failures put on the session.
 * @param {string} id
 * @returns {Promise<Resumed>}
 */
export function resumeSession(id) {
  return request("POST", sessionPath(id, "/resume"), { body: {} });
}

// Streamed requests: `onEvent(name, data)` per event, resolving with the final result.

/**
 * Sends a prompt (`replace`: a pending prompt is replaced instead of sent with it).
 * @param {string} id
 * @param {{ prompt: string, replace: boolean }} body
 * @param {EventHandler} onEvent
 * @returns {Promise<Answer>}
 */
export function sendPrompt(id, body, onEvent) {
  return stream(sessionPath(id, "/send"), body, onEvent);
}

/**
 * Asks the model again for the pending prompt, as it is.
 * @param {string} id
 * @param {EventHandler} onEvent
 * @returns {Promise<Answer>}
 */
export function retryPrompt(id, onEvent) {
  return stream(sessionPath(id, "/retry"), {}, onEvent);
}

/**
 * Summarises the older turns into one node.
 * @param {string} id
 * @param {EventHandler} onEvent
 * @returns {Promise<Compacted>}
 */
export function compactSession(id, onEvent) {
  return stream(sessionPath(id, "/compact"), {}, onEvent);
}

/**
 * Takes a way out of *needs recovery*.
 * @param {string} id
 * @param {RecoveryAction | "retry"} action
 * @param {EventHandler} onEvent
 * @returns {Promise<RecoverOutcome>}
 */
export function recoverSession(id, action, onEvent) {
  return stream(sessionPath(id, "/recover"), { action }, onEvent);
}

/**
 * Stores a function call's result; the last one missing continues the answer.
 * @param {string} id
 * @param {{ name: string, call_id?: string, response: object }} body
 * @param {EventHandler} onEvent
 * @returns {Promise<ToolResultOutcome>}
 */
export function sendToolResult(id, body, onEvent) {
  return stream(sessionPath(id, "/tool-results"), body, onEvent);
}

/**
 * Follows the session's events (`GET /v1/sessions/{id}/events`) until `signal` aborts,
 * connecting again when the stream breaks (the first event is then `attached` again).
 * @param {string} id
 * @param {EventHandler} onEvent
 * @param {{ signal?: AbortSignal, onState?: (state: string, error?: import("./http.js").ApiError) => void }} [options]
 */
export function followEvents(id, onEvent, options) {
  return follow(sessionPath(id, "/events"), onEvent, options);
}
