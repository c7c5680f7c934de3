#!/usr/bin/env python3
"""A small client of omnid's HTTP API, standard library only.

Creates a session, streams an answer, undoes it, shows the history, then cancels a slow
answer. Exits non-zero if the daemon does not behave as described, so it doubles as a
check. Usage: omni_client.py [API_SOCKET]  (default: $OMNI_API_SOCKET, else
$XDG_RUNTIME_DIR/omni/api.sock)
"""
import http.client
import json
import os
import socket
import sys


class UnixConnection(http.client.HTTPConnection):
    """HTTP over omnid's Unix socket (api.sock). The host name only fills the Host header."""

    def __init__(self, path):
        super().__init__("omnid")
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.unix_path)


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def call(api, method, path, body=None, expect=200):
    """One request, one JSON reply. Errors arrive as {"error": {"kind", "message"}}."""
    conn = UnixConnection(api)
    conn.request(method, path, json.dumps(body) if body is not None else None,
                 {"Content-Type": "application/json", "Accept": "application/json"})
    resp = conn.getresponse()
    reply = json.loads(resp.read() or b"null")
    conn.close()
    if resp.status != expect:
        fail(f"{method} {path}: HTTP {resp.status} {reply}")
    return reply


def stream(api, path, body):
    """POSTs and yields (event, data) for each server-sent event as soon as it arrives.

    The body is read line by line (never whole): `event: NAME`, `data: JSON`, and a blank
    line ending each event."""
    conn = UnixConnection(api)
    conn.request("POST", path, json.dumps(body),
                 {"Content-Type": "application/json", "Accept": "text/event-stream"})
    resp = conn.getresponse()
    if resp.status != 200:
        fail(f"POST {path}: HTTP {resp.status} {resp.read().decode()}")
    name, data = "message", []
    while True:
        line = resp.readline()  # blocks until the next line, not until the end
        if not line:
            break
        line = line.decode("utf-8").rstrip("\r\n")
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif line == "" and data:
            yield name, json.loads("\n".join(data))
            name, data = "message", []
    conn.close()


def main():
    api = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OMNI_API_SOCKET")
           or os.path.join(os.environ.get("XDG_RUNTIME_DIR", f"/run/user/{os.getuid()}"),
                           "omni", "api.sock"))
    session = call(api, "POST", "/v1/sessions", {}, expect=201)["session"]
    print(f"session {session}")

    # 1. Stream an answer, printing each piece of text as it arrives.
    print("answer: ", end="", flush=True)
    streamed, result = "", None
    for event, data in stream(api, f"/v1/sessions/{session}/send", {"prompt": "Hello, Omni!"}):
        if event == "text":
            streamed += data["text"]
            print(data["text"], end="", flush=True)
        elif event == "result":
            result = data  # the stored answer
        elif event == "error":
            fail(f"the answer failed: {data['error']}")
    print()
    if result is None:
        fail("the stream ended without a result")
    if not streamed or streamed != result["text"]:
        fail(f"streamed text {streamed!r} differs from the stored answer {result['text']!r}")
    print(f"stored as node {result['node']}")

    # 2. Undo: the answer leaves the model's context, but stays in the history.
    moved = call(api, "POST", f"/v1/sessions/{session}/undo")
    print(f"undo: head at {moved['head_summary']}")

    print("history:")
    history = call(api, "GET", f"/v1/sessions/{session}/history")
    for entry in history["entries"]:
        mark = "[REVERTED] " if entry["reverted"] else ""
        print(f"  {mark}#{entry['id']} {entry['role']}: {entry['text'][:60]}")
    if not any(e["id"] == result["node"] and e["reverted"] for e in history["entries"]):
        fail(f"the undone answer (node {result['node']}) is not marked reverted")

    # 3. A second answer, cancelled from a second connection once its first text arrives.
    cancelled, ended = None, None
    for event, data in stream(api, f"/v1/sessions/{session}/send", {"prompt": "Tell me a long story"}):
        if event == "text" and cancelled is None:
            cancelled = call(api, "POST", f"/v1/sessions/{session}/cancel")
            print(f"cancelled: partial answer kept as node {cancelled['kept']}, out of the context")
        elif event == "result":
            fail("the answer completed despite the cancel")
        elif event == "error":
            ended = data["error"]["kind"]
            if ended != "cancelled":
                fail(f"the stream ended with {data['error']} instead of a cancel")
            print("the stream ended: cancelled")
    if cancelled is None:
        fail("no text arrived, so nothing was cancelled")
    if ended is None:
        fail("the stream ended without an error event of kind cancelled")

    history = call(api, "GET", f"/v1/sessions/{session}/history")
    kept = [e for e in history["entries"] if (e.get("model") or {}).get("interrupted")]
    if len(kept) != 1 or kept[0]["id"] != cancelled["kept"] or not kept[0]["reverted"]:
        fail(f"expected node {cancelled['kept']} as the one interrupted, reverted answer: {kept}")
    print(f"history marks node {kept[0]['id']} interrupted and reverted; head at node {history['head']}")


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # no daemon there, or the connection dropped
        fail(f"cannot talk to omnid: {e}")
