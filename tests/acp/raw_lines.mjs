// Talks to raw-acp in hand-written lines (no SDK), for what an SDK would
// never send: requests before initialize, malformed JSON, batches, unknown
// methods and notifications, an oversized line, and $/cancel_request.
// Prints the responses it got, keyed by what was sent.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { continueRawd, done, fail, stopRawd } from "./harness.mjs";

const child = spawn(process.env.RAW_ACP_BIN, ["--max-message-bytes", "4096"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const lines = createInterface({ input: child.stdout });
// A request left unanswered fails the run with what came back so far.
setTimeout(() => fail(`no answer after 60 s; got: ${JSON.stringify(out)}`), 60000).unref();
const received = [];
const waiters = [];
lines.on("line", (line) => {
  received.push(line);
  while (waiters.length) waiters.shift()();
});

async function next() {
  while (received.length === 0) await new Promise((r) => waiters.push(r));
  return JSON.parse(received.shift());
}

async function send(text) {
  child.stdin.write(text + "\n");
  return next();
}

const out = {};
out.beforeInit = await send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } }));
out.malformed = await send("{not json");
out.batch = await send("[]");
out.noVersion = await send(JSON.stringify({ id: 2, method: "initialize", params: {} }));
out.badVersion = await send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "1" } }));
out.oversized = await send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "initialize", params: { pad: "x".repeat(8000) } }));
// Blank lines and a trailing \r are fine.
child.stdin.write("\n   \n");
out.init = await send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "initialize", params: { protocolVersion: 1 } }) + "\r");
out.again = await send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "initialize", params: { protocolVersion: 1 } }));
// An unknown notification gets no answer: the next answer is the next request's.
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "_unknown/notification", params: {} }) + "\n");
out.unknownMethod = await send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "session/fly", params: {} }));
out.relativeCwd = await send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "session/new", params: { cwd: "rel", mcpServers: [] } }));
out.unknownSession = await send(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "session/prompt", params: { sessionId: "nope", prompt: [] } }));
// session/list waits for rawd: cancelled before its answer, it answers -32800 once.
// rawd is stopped meanwhile (RAWD_PID), so it cannot answer before the cancel.
stopRawd();
out.cancelled = await send(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "session/list", params: {} }) + "\n" +
  JSON.stringify({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 10 } }));
continueRawd();
out.afterCancel = await send(JSON.stringify({ jsonrpc: "2.0", id: 11, method: "session/fly", params: {} }));
// A prompt sent right behind session/close, in the same write: the bridge
// reads it before the close has finished, and the session is already closed.
async function nextResponse() {
  for (;;) {
    const m = await next();
    if (m.id !== undefined && m.method === undefined) return m;
  }
}
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 12, method: "session/new", params: { cwd: process.env.WORKDIR, mcpServers: [] } }) + "\n");
const created = await nextResponse();
const sessionId = created.result?.sessionId;
if (!sessionId) fail(`session/new failed: ${JSON.stringify(created)}`);
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 13, method: "session/close", params: { sessionId } }) + "\n" +
  JSON.stringify({ jsonrpc: "2.0", id: 14, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x" }] } }) + "\n");
for (const m of [await nextResponse(), await nextResponse()]) {
  if (m.id === 13) out.closed = m;
  if (m.id === 14) out.promptAfterClose = m;
}
// Notifications the new session sent are not answers.
for (let i = received.length - 1; i >= 0; i--) {
  if (JSON.parse(received[i]).method !== undefined) received.splice(i, 1);
}
child.stdin.end();
const exit = await new Promise((r) => child.on("exit", (code) => r(code)));
if (received.length) fail(`unexpected extra lines: ${received.join(" | ")}`);
out.exit = exit;
done(out);
