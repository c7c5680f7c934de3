// @ts-check
// How the web app talks HTTP to the daemon, whatever the endpoint (api.js names those): the
// API on the page's own origin under /v1, the browser's cookie carrying the login. JSON in
// and out; a streaming request's server-sent events read from the response body
// (EventSource can only GET); a followed event stream that connects again when it breaks.

/** An answer of the API that is not a success: its HTTP status and the error's kind. */
export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer, 200: an `error` event in a stream)
   * @param {string} kind the daemon's ErrorKind, or `http_STATUS` when the body had none
   * @param {string} message
   * @param {unknown} body the parsed answer, when it was JSON
   */
  constructor(status, kind, message, body) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.kind = kind;
    this.body = body;
  }
}

/**
 * A query's values: undefined, null and "" are left out.
 * @typedef {Record<string, string | number | boolean | null | undefined>} Query
 */

/**
 * What is called with each server-sent event: its name and its data (JSON parsed).
 * @typedef {(name: string, data: any) => void} EventHandler
 */

/** Called when an answer says the browser is no longer logged in (set by the app). */
let onLoggedOut = () => {};

/**
 * Names what happens when the API answers 401 (the page shows how to log in again).
 * @param {() => void} callback
 */
export function whenLoggedOut(callback) {
  onLoggedOut = callback;
}

/**
 * A path under /v1 with `params` as its query (undefined, null and "" are left out).
 * @param {string} path
 * @param {Query} [params]
 */
export function apiPath(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  const text = query.toString();
  return `/v1${path}${text ? `?${text}` : ""}`;
}

/**
 * The ApiError of an answer that is not a success (a 401 also tells the app).
 * @param {Response} response
 */
async function failure(response) {
  const text = await response.text();
  /** @type {any} */
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: a plain-text refusal (the origin's guard, a proxy)
  }
  const error = body?.error;
  if (response.status === 401) onLoggedOut();
  return new ApiError(
    response.status,
    error?.kind ?? `http_${response.status}`,
    error?.message ?? (text.trim() || response.statusText),
    body,
  );
}

/**
 * Sends one request and resolves with its JSON answer (null for 204).
 * @param {"GET" | "POST" | "PUT"} method
 * @param {string} path under /v1
 * @param {{ body?: unknown, params?: Query, signal?: AbortSignal }} [options] `body` is
 *   sent as JSON when given; `signal` aborts it (a fetch made for a view that went away)
 * @returns {Promise<any>}
 */
export async function request(method, path, { body, params, signal } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, headers, credentials: "same-origin", signal };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(apiPath(path, params), init);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  return response.json();
}

/**
 * POSTs `body` to a streaming route (send, retry, recover, tool-results, compact) and calls
 * `onEvent(name, data)` for each server-sent event as it arrives. Resolves with the final
 * `result`'s data; rejects with an ApiError for a refusal or a final `error` event.
 * `signal` aborts the reading only: the daemon goes on (cancel is its own request).
 * @param {string} path under /v1
 * @param {unknown} body
 * @param {EventHandler} onEvent
 * @param {{ signal?: AbortSignal }} [options]
 * @returns {Promise<any>}
 */
export async function stream(path, body, onEvent, { signal } = {}) {
  const response = await fetch(apiPath(path), {
    method: "POST",
    headers: { accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
    credentials: "same-origin",
    signal,
  });
  if (!response.ok) throw await failure(response);
  if (!(response.headers.get("content-type") || "").startsWith("text/event-stream")) {
    return response.json(); // a route that answered at once
  }
  /** @type {{ data?: any, error?: ApiError } | null} */
  let outcome = null;
  await readEvents(eventBody(response), (name, data) => {
    if (name === "result") outcome = { data };
    else if (name === "error") {
      // Sent inside a 200 stream: its kind, not an HTTP status, says what failed.
      const error = data?.error ?? data;
      outcome = { error: new ApiError(response.status, error?.kind ?? "error", error?.message ?? "", data) };
    }
    onEvent(name, data);
  });
  // Set by the handler above, which TypeScript does not follow into.
  const ended = /** @type {{ data?: any, error?: ApiError } | null} */ (outcome);
  if (!ended) throw new ApiError(0, "disconnected", "the stream ended before its result", null);
  if (ended.error) throw ended.error;
  return ended.data;
}

/**
 * Reads the event stream at `path` until `signal` aborts: `onEvent(name, data)` for every
 * event. When the stream breaks it connects again (after a pause that grows) and the first
 * event is then `attached` again, so the caller reloads whatever it shows. `onState` hears
 * "live", "reconnecting", and "closed" (with the ApiError) when a 401 or 404 ends it.
 * @param {string} path under /v1
 * @param {EventHandler} onEvent
 * @param {{ signal?: AbortSignal, onState?: (state: string, error?: ApiError) => void }} [options]
 */
export async function follow(path, onEvent, { signal, onState = () => {} } = {}) {
  let pause = 500;
  while (!signal?.aborted) {
    try {
      const response = await fetch(apiPath(path), {
        headers: { accept: "text/event-stream" },
        credentials: "same-origin",
        signal,
      });
      if (!response.ok) throw await failure(response);
      onState("live");
      pause = 500;
      await readEvents(eventBody(response), onEvent);
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
        onState("closed", error);
        return;
      }
    }
    if (signal?.aborted) return;
    onState("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, 8000);
  }
}

/**
 * The body of a streamed answer (a successful fetch's response always has one).
 * @param {Response} response
 */
function eventBody(response) {
  return /** @type {ReadableStream<BufferSource>} */ (response.body);
}

/**
 * Reads a text/event-stream body, calling `onEvent(name, parsedData)` per event.
 * @param {ReadableStream<BufferSource>} body
 * @param {EventHandler} onEvent
 */
async function readEvents(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer[end] === "\r" ? 4 : 2));
      dispatch(block, onEvent);
    }
  }
  if (buffer.trim() !== "") dispatch(buffer, onEvent);
}

/**
 * Hands one event's block (its `event:` and `data:` lines) to `onEvent`.
 * @param {string} block
 * @param {EventHandler} onEvent
 */
function dispatch(block, onEvent) {
  let name = "message";
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith(":")) continue; // a keep-alive comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return;
  let parsed;
  try {
    parsed = JSON.parse(data.join("\n"));
  } catch {
    parsed = data.join("\n");
  }
  onEvent(name, parsed);
}
