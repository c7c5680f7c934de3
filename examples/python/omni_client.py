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
    """HTTP over omnid's Unix socket (api.sock)."""

    def __init__(self, path):
        super().__init__("omnid")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(api, method, path, body=None):
    """One request; returns (status, JSON body)."""
    conn = UnixConnection(api)
    conn.request(method, path, json.dumps(body) if body is not None else None,
                 {"Content-Type": "application/json", "Accept": "application/json"})
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read() or b"null")


def stream(api, path, body):
    """POSTs and yields (event, data) for each server-sent event as it arrives."""
    conn = UnixConnection(api)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    name, data = None, ""
    while True:
        line = resp.readline()
        if not line:
            return
        line = line.decode().rstrip("\n")
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data += line[5:].strip()
        elif line == "" and data:
            yield name, json.loads(data)
            name, data = None, ""


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    api = (sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OMNI_API_SOCKET")
           or os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/run/user/%d" % os.getuid()),
                           "omni", "api.sock"))
    status, created = call(api, "POST", "/v1/sessions", {})
    if status != 201:
        fail(f"could not create a session: {created}")
    session = created["session"]
    print(f"session {session}")

    print("answer: ", end="", flush=True)
    result = None
    for event, data in stream(api, f"/v1/sessions/{session}/send", {"prompt": "Hello, Omni!"}):
        if event == "text":
            print(data["text"], end="", flush=True)
        elif event == "result":
            result = data
        elif event == "error":
            fail(data["error"]["message"])
    print()
    if result is None:
        fail("the stream ended without a result")
    print(f"stored as node {result['node']}")

    status, moved = call(api, "POST", f"/v1/sessions/{session}/undo")
    if status != 200:
        fail(f"undo failed: {moved}")
    print(f"undo: head at {moved['head_summary']}")

    print("history:")
    _, history = call(api, "GET", f"/v1/sessions/{session}/history")
    for entry in history["entries"]:
        mark = "[REVERTED] " if entry["reverted"] else ""
        print(f"  {mark}#{entry['id']} {entry['role']}: {entry['text'][:60]}")

    # A second answer, cancelled from another connection once it starts to arrive.
    outcome = None
    for event, data in stream(api, f"/v1/sessions/{session}/send", {"prompt": "Tell me a long story"}):
        if event == "text" and outcome is None:
            status, outcome = call(api, "POST", f"/v1/sessions/{session}/cancel")
            if status != 200:
                fail(f"cancel failed: {outcome}")
            print(f"cancelled: partial answer kept as node {outcome['kept']}, out of the context")
        elif event == "error":
            if data["error"]["kind"] != "cancelled":
                fail(data["error"]["message"])
            print("the stream ended: cancelled")
        elif event == "result":
            fail("the answer completed before the cancel")
    _, history = call(api, "GET", f"/v1/sessions/{session}/history")
    kept = [e for e in history["entries"] if (e.get("model") or {}).get("interrupted")]
    if not kept or not kept[0]["reverted"]:
        fail("the interrupted answer is not in the history as reverted")
    print(f"history marks node {kept[0]['id']} interrupted and reverted; head at node {history['head']}")


if __name__ == "__main__":
    main()
