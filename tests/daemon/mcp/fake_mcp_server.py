#!/usr/bin/env python3
"""A scriptable MCP stdio server for Raw's MCP client tests.

Speaks newline-delimited JSON-RPC on stdin/stdout. Flags choose faults:

  --slow-start MS        wait before reading anything
  --start-gate PATH      when PATH exists (a FIFO), read a line from it before
                         reading anything: the start waits until the test
                         writes one (a test creates PATH to hold later starts)
  --exit-at-start CODE   exit at once (a server that cannot start)
  --start-log PATH       append one line per start (to count restarts)
  --pages N              split tools/list into N pages (nextCursor)
  --answer-version V     answer initialize with protocol version V
  --want-version V       refuse other versions with -32602 and data.supported
  --garbage-at-start     print lines that are not JSON-RPC before anything
  --stderr-noise         write a few lines to stderr at start
  --stderr-hex HEX       write the bytes HEX (any bytes, not only UTF-8) and a
                         newline to stderr at start
  --stderr-flood N       write N lines to stderr at start
  --ignore-eof           keep running after stdin closes, ignoring SIGTERM
  --stop-log PATH NAME   append "eof NAME" to PATH when stdin closes and
                         "term NAME" on SIGTERM (one write each, O_APPEND, so
                         servers sharing PATH record the order of their stops)
  --error-data JSON      the "data" of the -32602 that --want-version sends
  --server-info JSON     the "serverInfo" of the initialize answer
  --log-level JSON       send notifications/message with this "level" before
                         answering initialize
  --log-data JSON        the "data" of that notifications/message
  --stdout-hex HEX       write the bytes HEX and a newline to stdout at start
                         (a line that is not JSON-RPC)
  --description-bytes N  pad every tool's description to N bytes
  --flood-pings N        the hang tool first sends N ping requests, then (to a
                         call that asked for progress) a progress notification
                         "flooded"; it reads nothing meanwhile nor after
  --stall-gate PATH      after answering its first tools/call, read nothing
                         until a line arrives on the FIFO at PATH; then read
                         on, or, when the line is "close", close stdin and
                         wait for the parent to go away (as the hang tool does)
  --input-log PATH       append every line read from stdin to PATH
  --extra-tools JSON     also list these tools (a JSON array of tool entries);
                         a call to one answers with its arguments as JSON text
  --page-delay MS        wait MS before answering each tools/list page
  --exit-after-calls N   exit (code 0) right after answering the Nth tools/call,
                         so that it is gone between calls

Tools: echo, fail, crash, hang, huge, garbage, add_tool, progress,
wait_cancel, cancelled_ids, ask_client, env, mixed, spawn_child, destroy,
tasks_only, weird.name/with:colons.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--slow-start", type=int, default=0)
parser.add_argument("--start-gate", default="")
parser.add_argument("--exit-at-start", type=int, default=None)
parser.add_argument("--start-log", default="")
parser.add_argument("--pages", type=int, default=1)
parser.add_argument("--answer-version", default="")
parser.add_argument("--want-version", default="")
parser.add_argument("--garbage-at-start", action="store_true")
parser.add_argument("--stderr-noise", action="store_true")
parser.add_argument("--ignore-eof", action="store_true")
parser.add_argument("--stderr-hex", default="")
parser.add_argument("--stderr-flood", type=int, default=0)
parser.add_argument("--stop-log", nargs=2, default=None)
parser.add_argument("--error-data", default="")
parser.add_argument("--server-info", default="")
parser.add_argument("--log-level", default="")
parser.add_argument("--log-data", default='"hello from the fake"')
parser.add_argument("--stdout-hex", default="")
parser.add_argument("--description-bytes", type=int, default=0)
parser.add_argument("--flood-pings", type=int, default=0)
parser.add_argument("--stall-gate", default="")
parser.add_argument("--input-log", default="")
parser.add_argument("--extra-tools", default="[]")
parser.add_argument("--page-delay", type=int, default=0)
parser.add_argument("--exit-after-calls", type=int, default=0)
args = parser.parse_args()


def log_stop(event):
    if not args.stop_log:
        return
    path, name = args.stop_log
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    os.write(fd, f"{event} {name}\n".encode())
    os.close(fd)


def on_sigterm(signum, frame):  # logged, then ignored with --ignore-eof
    log_stop("term")
    if not args.ignore_eof:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


if args.stop_log:
    signal.signal(signal.SIGTERM, on_sigterm)

if args.start_log:
    with open(args.start_log, "a") as log:
        log.write("start\n")
if args.stderr_hex:
    sys.stderr.buffer.write(bytes.fromhex(args.stderr_hex) + b"\n")
    sys.stderr.buffer.flush()
if args.exit_at_start is not None:
    sys.stderr.write("fake server: refusing to start\n")
    sys.exit(args.exit_at_start)
if args.stderr_noise:
    for i in range(3):
        sys.stderr.write(f"fake server: noise line {i}\n")
    sys.stderr.flush()
if args.stderr_flood:
    sys.stderr.write("".join(f"fake server: flood line {i}\n" for i in range(args.stderr_flood)))
    sys.stderr.flush()
if args.slow_start:
    time.sleep(args.slow_start / 1000.0)
if args.start_gate and os.path.exists(args.start_gate):
    with open(args.start_gate) as gate:
        gate.readline()

out = sys.stdout


def send(message):
    out.write(json.dumps(message) + "\n")
    out.flush()


if args.stdout_hex:
    sys.stdout.flush()
    sys.stdout.buffer.write(bytes.fromhex(args.stdout_hex) + b"\n")
    sys.stdout.buffer.flush()
if args.garbage_at_start:
    out.write("this is not JSON\n{\"half\": \n[1, 2, 3]\n\n")
    out.flush()

inbox = []  # messages read while a tool waited for something else
cancelled = []
next_id = [1000]
stalled = []  # not empty once the stall gate was passed


def read_message():
    if inbox:
        return inbox.pop(0)
    while True:
        line = sys.stdin.readline()
        if not line:
            log_stop("eof")
            return None
        if args.input_log:
            with open(args.input_log, "a") as log:
                log.write(line if line.endswith("\n") else line + "\n")
        line = line.strip()
        if line:
            return json.loads(line)


def schema(properties=None, required=None):
    s = {"type": "object", "properties": properties or {}}
    if required:
        s["required"] = required
    return s


TOOLS = [
    {"name": "echo", "description": "Echoes text.",
     "inputSchema": schema({"text": {"type": "string"}}, ["text"]),
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "fail", "description": "Always fails.", "inputSchema": schema(),
     "annotations": {"readOnlyHint": True, "destructiveHint": True}},
    {"name": "crash", "description": "Exits mid-call.", "inputSchema": schema()},
    {"name": "hang", "description": "Never answers.", "inputSchema": schema()},
    {"name": "huge", "description": "Returns N bytes.",
     "inputSchema": schema({"bytes": {"type": "integer"}}, ["bytes"])},
    {"name": "garbage", "description": "Writes junk lines, then answers.", "inputSchema": schema()},
    {"name": "add_tool", "description": "Adds a tool.",
     "inputSchema": schema({"name": {"type": "string"}}, ["name"])},
    {"name": "progress", "description": "Reports progress.",
     "inputSchema": schema({"steps": {"type": "integer"},
                            "message_bytes": {"type": "integer"}})},
    {"name": "wait_cancel", "description": "Waits for its cancellation.", "inputSchema": schema()},
    {"name": "cancelled_ids", "description": "Lists cancelled requests.", "inputSchema": schema()},
    {"name": "ask_client", "description": "Sends requests to the client.", "inputSchema": schema()},
    {"name": "env", "description": "Reads an environment variable.",
     "inputSchema": schema({"name": {"type": "string"}}, ["name"])},
    {"name": "mixed", "description": "Returns every content type.", "inputSchema": schema()},
    {"name": "spawn_child", "description": "Starts a process in the background.",
     "inputSchema": schema()},
    {"name": "destroy", "description": "Claims to be read-only and destructive.",
     "inputSchema": schema(), "annotations": {"readOnlyHint": True, "destructiveHint": True}},
    {"name": "lookup", "description": "Read-only, but reaches the outside world.",
     "inputSchema": schema(), "annotations": {"readOnlyHint": True}},
    {"name": "tasks_only", "description": "Needs tasks.", "inputSchema": schema(),
     "execution": {"taskSupport": "required"}},
    {"name": "weird.name/with:colons", "description": "Needs sanitizing.", "inputSchema": schema()},
]


EXTRA_TOOLS = json.loads(args.extra_tools)
TOOLS.extend(EXTRA_TOOLS)

if args.description_bytes:
    for tool in TOOLS:
        tool["description"] = tool["description"].ljust(args.description_bytes, "x")


def wait_for_parent_to_go():
    """Sleeps (up to an hour) until the process that started this one is gone."""
    parent = os.getppid()
    deadline = time.monotonic() + 3600
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.2)
    if os.getppid() != parent:
        os._exit(0)


def stall():
    """Reads nothing until the test writes a line to the stall gate."""
    with open(args.stall_gate) as gate:
        line = gate.readline().strip()
    if line == "close":
        os.close(0)
        wait_for_parent_to_go()


def text_result(text, is_error=False):
    result = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def ask_client():
    answers = {}
    for method in ["ping", "sampling/createMessage"]:
        rid = next_id[0]
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": {}})
        while True:
            m = read_message()
            if m is None:
                sys.exit(0)
            if m.get("id") == rid and "method" not in m:
                answers[method] = m.get("result", m.get("error"))
                break
            inbox.append(m)
    return json.dumps(answers, sort_keys=True)


answered_calls = []


def call_tool(request):
    params = request.get("params", {})
    name = params.get("name")
    arguments = params.get("arguments", {})
    meta = params.get("_meta", {})
    if name == "echo":
        return text_result("echo: " + arguments.get("text", ""))
    if any(tool.get("name") == name for tool in EXTRA_TOOLS):
        return text_result(json.dumps(arguments, sort_keys=True))
    if name == "fail":
        return text_result("it failed on purpose", is_error=True)
    if name == "crash":
        sys.stderr.write("fake server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "hang":
        # Never answers, and reads nothing meanwhile; but ends once the
        # process that started it is gone (a test that SIGKILLs rawd
        # mid-call leaves no hung server behind).
        if args.flood_pings:
            out.write("".join(
                json.dumps({"jsonrpc": "2.0", "id": f"flood-{i}", "method": "ping"}) + "\n"
                for i in range(args.flood_pings)))
            token = meta.get("progressToken")
            if token is not None:
                out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": {"progressToken": token, "progress": 1,
                                                 "message": "flooded"}}) + "\n")
            out.flush()
        wait_for_parent_to_go()
    if name == "huge":
        return text_result("x" * int(arguments.get("bytes", 0)))
    if name == "garbage":
        out.write("garbage line one\nnot { json\n")
        out.flush()
        return text_result("after garbage")
    if name == "add_tool":
        TOOLS.append({"name": arguments["name"], "description": "Added later.",
                      "inputSchema": schema()})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text_result("added")
    if name == "progress":
        steps = int(arguments.get("steps", 3))
        # message_bytes: a hostile server's long messages ("step N" then x's).
        pad = int(arguments.get("message_bytes", 0))
        token = meta.get("progressToken")
        for i in range(1, steps + 1):
            if token is not None:
                message = f"step {i}"
                if pad > len(message):
                    message += "x" * (pad - len(message))
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": i, "total": steps,
                                 "message": message}})
        return text_result(f"done after {steps} steps")
    if name == "wait_cancel":
        token = meta.get("progressToken")
        if token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": 0, "message": "waiting"}})
        while True:
            m = read_message()
            if m is None:
                sys.exit(0)
            if (m.get("method") == "notifications/cancelled"
                    and m.get("params", {}).get("requestId") == request["id"]):
                cancelled.append(request["id"])
                return None  # a cancelled request gets no response
            inbox.append(m)
    if name == "cancelled_ids":
        return text_result(json.dumps(cancelled))
    if name == "ask_client":
        return text_result(ask_client())
    if name == "spawn_child":
        child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return text_result(str(child.pid))
    if name == "env":
        return text_result(os.environ.get(arguments["name"], "<unset>"))
    if name == "mixed":
        return {
            "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///tmp/a.txt", "name": "a.txt",
                 "mimeType": "text/plain", "size": 12, "description": "a file"},
                {"type": "resource", "resource": {"uri": "mem://note", "mimeType": "text/plain",
                                                  "text": "note body"}},
                {"type": "resource", "resource": {"uri": "mem://bin",
                                                  "mimeType": "application/octet-stream",
                                                  "blob": "AAECAw=="}},
            ],
            "structuredContent": {"answer": 42},
        }
    return text_result(f"MCP error -32602: Tool {name} not found", is_error=True)


def handle(request):
    method = request.get("method")
    rid = request.get("id")
    if rid is None:
        return  # notifications
    if method == "initialize":
        requested = request["params"]["protocolVersion"]
        if args.want_version and requested != args.want_version:
            data = {"supported": [args.want_version], "requested": requested}
            if args.error_data:
                data = json.loads(args.error_data)
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32602, "message": "Unsupported protocol version",
                            "data": data}})
            return
        if args.log_level:
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": json.loads(args.log_level),
                             "data": json.loads(args.log_data)}})
        server_info = {"name": "fake", "version": "1.0"}
        if args.server_info:
            server_info = json.loads(args.server_info)
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": args.answer_version or requested,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": server_info}})
        return
    if method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
        return
    if method == "tools/list":
        if args.page_delay:
            time.sleep(args.page_delay / 1000.0)
        cursor = request.get("params", {}).get("cursor")
        page = int(cursor.split("-")[1]) if cursor else 0
        per_page = (len(TOOLS) + args.pages - 1) // args.pages
        chunk = TOOLS[page * per_page:(page + 1) * per_page]
        result = {"tools": chunk}
        if page + 1 < args.pages:
            result["nextCursor"] = f"page-{page + 1}"
        send({"jsonrpc": "2.0", "id": rid, "result": result})
        return
    if method == "tools/call":
        result = call_tool(request)
        if result is not None:
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        answered_calls.append(rid)
        if args.exit_after_calls and len(answered_calls) == args.exit_after_calls:
            sys.stdout.flush()
            os._exit(0)
        if args.stall_gate and not stalled:
            stalled.append(True)
            stall()
        return
    send({"jsonrpc": "2.0", "id": rid,
          "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main():
    if args.ignore_eof and not args.stop_log:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        m = read_message()
        if m is None:
            break
        handle(m)
    if args.ignore_eof:
        while True:
            time.sleep(3600)


main()
