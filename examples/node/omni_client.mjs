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

// One request over the Unix socket; resolves to the response, body unread.
function request(method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, method, path: urlPath, headers: { "Content-Type": "application/json", Accept: "application/json" } },
      resolve,
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// One request; resolves to { status, body } with the body parsed as JSON.
async function call(method, urlPath, body) {
  const res = await request(method, urlPath, body);
  let text = "";
  for await (const chunk of res) text += chunk;
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

// POSTs and yields { event, data } for each server-sent event as it arrives.
async function* stream(urlPath, body) {
  const res = await new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method: "POST", path: urlPath, headers: { "Content-Type": "application/json" } }, resolve);
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
  let buffer = "";
  for await (const chunk of res) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (data) yield { event, data: JSON.parse(data) };
    }
  }
}

const created = await call("POST", "/v1/sessions", {});
if (created.status !== 201) fail(`could not create a session: ${JSON.stringify(created.body)}`);
const session = created.body.session;
console.log(`session ${session}`);

process.stdout.write("answer: ");
let result = null;
for await (const { event, data } of stream(`/v1/sessions/${session}/send`, { prompt: "Hello, Omni!" })) {
  if (event === "text") process.stdout.write(data.text);
  else if (event === "result") result = data;
  else if (event === "error") fail(data.error.message);
}
console.log();
if (!result) fail("the stream ended without a result");
console.log(`stored as node ${result.node}`);

const moved = await call("POST", `/v1/sessions/${session}/undo`);
if (moved.status !== 200) fail(`undo failed: ${JSON.stringify(moved.body)}`);
console.log(`undo: head at ${moved.body.head_summary}`);

console.log("history:");
let history = (await call("GET", `/v1/sessions/${session}/history`)).body;
for (const entry of history.entries) {
  console.log(`  ${entry.reverted ? "[REVERTED] " : ""}#${entry.id} ${entry.role}: ${entry.text.slice(0, 60)}`);
}

// A second answer, cancelled from another connection once it starts to arrive.
let cancelled = null;
for await (const { event, data } of stream(`/v1/sessions/${session}/send`, { prompt: "Tell me a long story" })) {
  if (event === "text" && !cancelled) {
    cancelled = await call("POST", `/v1/sessions/${session}/cancel`);
    if (cancelled.status !== 200) fail(`cancel failed: ${JSON.stringify(cancelled.body)}`);
    console.log(`cancelled: partial answer kept as node ${cancelled.body.kept}, out of the context`);
  } else if (event === "error") {
    if (data.error.kind !== "cancelled") fail(data.error.message);
    console.log("the stream ended: cancelled");
  } else if (event === "result") {
    fail("the answer completed before the cancel");
  }
}
history = (await call("GET", `/v1/sessions/${session}/history`)).body;
const kept = history.entries.find((e) => e.model && e.model.interrupted);
if (!kept || !kept.reverted) fail("the interrupted answer is not in the history as reverted");
console.log(`history marks node ${kept.id} interrupted and reverted; head at node ${history.head}`);
