// The web app's only way to the daemon: the HTTP API on the page's own origin, the
// browser's cookie carrying the login. JSON in and out; a streaming request's server-sent
// events read from the response body (EventSource can only GET).

/** An answer of the API that is not a success: its HTTP status and the error's kind. */
export class ApiError extends Error {
  constructor(status, kind, message, body) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.kind = kind;
    this.body = body;
  }
}

/** Called when an answer says the browser is no longer logged in (set by the app). */
let onLoggedOut = () => {};

/** Names what happens when the API answers 401 (the page shows how to log in again). */
export function whenLoggedOut(callback) {
  onLoggedOut = callback;
}

/** A path under /v1 with `params` as its query (undefined, null and "" are left out). */
export function apiPath(path, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
  }
  const text = query.toString();
  return `/v1${path}${text ? `?${text}` : ""}`;
}

/**
 * The session's path: an id is URL-encoded whatever it holds, dots too, so an address
 * like `#/s/..` names a session called ".." (not found) and never another route.
 */
export function sessionPath(id, rest = "") {
  return `/sessions/${encodeURIComponent(id).replace(/\./g, "%2E")}${rest}`;
}

async function failure(response) {
  const text = await response.text();
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

async function request(method, path, body, params, signal) {
  const init = { method, headers: { accept: "application/json" }, credentials: "same-origin", signal };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(apiPath(path, params), init);
  if (!response.ok) throw await failure(response);
  if (response.status === 204) return null;
  return response.json();
}

/** GET a JSON answer; `signal` aborts it (a fetch made for a view that went away). */
export function get(path, params, { signal } = {}) {
  return request("GET", path, undefined, params, signal);
}

/** POST a JSON body and wait for the whole JSON answer (never a stream). */
export function post(path, body = {}) {
  return request("POST", path, body);
}

/** PUT a JSON body. */
export function put(path, body) {
  return request("PUT", path, body);
}

/**
 * POSTs `body` to a streaming route (send, retry, recover, tool-results, compact) and calls
 * `onEvent(name, data)` for each server-sent event as it arrives. Resolves with the final
 * `result`'s data; rejects with an ApiError for a refusal or a final `error` event.
 * `signal` aborts the reading only: the daemon goes on (cancel is its own request).
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
  let outcome = null;
  await readEvents(response.body, (name, data) => {
    if (name === "result") outcome = { data };
    else if (name === "error") {
      // Sent inside a 200 stream: its kind, not an HTTP status, says what failed.
      const error = data?.error ?? data;
      outcome = { error: new ApiError(response.status, error?.kind ?? "error", error?.message ?? "", data) };
    }
    onEvent(name, data);
  });
  if (!outcome) throw new ApiError(0, "disconnected", "the stream ended before its result", null);
  if (outcome.error) throw outcome.error;
  return outcome.data;
}

/**
 * Follows `/v1/sessions/{id}/events` until `signal` aborts: `onEvent(name, data)` for every
 * event. When the stream breaks it connects again (after a pause that grows) and the first
 * event is then `attached` again, so the caller reloads whatever it shows.
 */
export async function follow(id, onEvent, { signal, onState = () => {} } = {}) {
  let pause = 500;
  while (!signal?.aborted) {
    try {
      const response = await fetch(apiPath(sessionPath(id, "/events")), {
        headers: { accept: "text/event-stream" },
        credentials: "same-origin",
        signal,
      });
      if (!response.ok) throw await failure(response);
      onState("live");
      pause = 500;
      await readEvents(response.body, onEvent);
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

/** Reads a text/event-stream body, calling `onEvent(name, parsedData)` per event. */
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
