// A small client of omnid's HTTP API, Node.js (18+) standard library only.
//
// Creates a session, streams an answer, undoes it, shows the history, then cancels a slow
// answer. Exits non-zero if the daemon does not behave as described, so it doubles as a
// check. Usage: node omni_client.mjs [API_SOCKET]  (default: $OMNI_API_SOCKET, else
// $XDG_RUNTIME_DIR/omni/api.sock)
import http from "node:http";
import path from "node:path";

const socketPath =
  process.argv[2] ||
  process.env.OMNI_API_SOCKET ||
  path.join(process.env.XDG_RUNTIME_DIR || `/run/user/${process.getuid()}`, "omni", "api.sock");

function fail(message) {
  console.error(`error: ${message}`);
  process.exit(1);
}
// No daemon there, or the connection dropped.
process.on("uncaughtException", (e) => fail(`cannot talk to omnid: ${e.message}`));

// Starts a request over the Unix socket; resolves to the response, its body unread.
function request(method, urlPath, body, accept) {
  return new Promise((resolve, reject) => {
    const headers = { "Content-Type": "application/json", Accept: accept };
    const req = http.request({ socketPath, method, path: urlPath, headers }, (res) => {
      res.setEncoding("utf8"); // decodes UTF-8 across chunk boundaries
      resolve(res);
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// One request, one JSON reply. Errors arrive as {"error": {"kind", "message"}}.
async function call(method, urlPath, body, expect = 200) {
  const res = await request(method, urlPath, body, "application/json");
  let text = "";
  for await (const chunk of res) text += chunk;
  const reply = text ? JSON.parse(text) : null;
  if (res.statusCode !== expect) fail(`${method} ${urlPath}: HTTP ${res.statusCode} ${text}`);
  return reply;
}

// POSTs and yields { event, data } for each server-sent event as soon as it arrives:
// `event: NAME`, `data: JSON`, and a blank line ending each event.
async function* stream(urlPath, body) {
  const res = await request("POST", urlPath, body, "text/event-stream");
  if (res.statusCode !== 200) {
    let text = "";
    for await (const chunk of res) text += chunk;
    fail(`POST ${urlPath}: HTTP ${res.statusCode} ${text}`);
  }
  let buffer = "";
  let event = "message";
  let data = [];
  for await (const chunk of res) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      else if (line === "" && data.length) {
        yield { event, data: JSON.parse(data.join("\n")) };
        event = "message";
        data = [];
      }
    }
  }
}

const { session } = await call("POST", "/v1/sessions", {}, 201);
console.log(`session ${session}`);

// 1. Stream an answer, printing each piece of text as it arrives.
process.stdout.write("answer: ");
let streamed = "";
let result = null;
for await (const { event, data } of stream(`/v1/sessions/${session}/send`, { prompt: "Hello, Omni!" })) {
  if (event === "text") {
    streamed += data.text;
    process.stdout.write(data.text);
  } else if (event === "result") result = data; // the stored answer
  else if (event === "error") fail(`the answer failed: ${JSON.stringify(data.error)}`);
}
console.log();
if (!result) fail("the stream ended without a result");
if (!streamed || streamed !== result.text) fail(`streamed text ${JSON.stringify(streamed)} differs from the stored answer`);
console.log(`stored as node ${result.node}`);

// 2. Undo: the answer leaves the model's context, but stays in the history.
const moved = await call("POST", `/v1/sessions/${session}/undo`);
console.log(`undo: head at ${moved.head_summary}`);

console.log("history:");
let history = await call("GET", `/v1/sessions/${session}/history`);
for (const entry of history.entries) {
  console.log(`  ${entry.reverted ? "[REVERTED] " : ""}#${entry.id} ${entry.role}: ${entry.text.slice(0, 60)}`);
}
if (!history.entries.some((e) => e.id === result.node && e.reverted)) {
  fail(`the undone answer (node ${result.node}) is not marked reverted`);
}

// 3. A second answer, cancelled from a second connection once its first text arrives.
let cancelled = null;
let ended = null;
for await (const { event, data } of stream(`/v1/sessions/${session}/send`, { prompt: "Tell me a long story" })) {
  if (event === "text" && !cancelled) {
    cancelled = await call("POST", `/v1/sessions/${session}/cancel`);
    console.log(`cancelled: partial answer kept as node ${cancelled.kept}, out of the context`);
  } else if (event === "result") {
    fail("the answer completed despite the cancel");
  } else if (event === "error") {
    ended = data.error.kind;
    if (ended !== "cancelled") fail(`the stream ended with ${JSON.stringify(data.error)} instead of a cancel`);
    console.log("the stream ended: cancelled");
  }
}
if (!cancelled) fail("no text arrived, so nothing was cancelled");
if (!ended) fail("the stream ended without an error event of kind cancelled");

history = await call("GET", `/v1/sessions/${session}/history`);
const kept = history.entries.filter((e) => e.model && e.model.interrupted);
if (kept.length !== 1 || kept[0].id !== cancelled.kept || !kept[0].reverted) {
  fail(`expected node ${cancelled.kept} as the one interrupted, reverted answer: ${JSON.stringify(kept)}`);
}
console.log(`history marks node ${kept[0].id} interrupted and reverted; head at node ${history.head}`);
