// Drives prompt turns in hand-written lines (no SDK), for what an SDK
// would never send. node raw_turns.mjs SCENARIO:
//   bad_answers     answers the turn's two permission requests with a
//                   wrongly typed error and a wrongly typed result
//   cancel_request  cancels a streaming prompt with $/cancel_request, then
//                   sends the next prompt
// Prints what it saw; every message raw-acp wrote is in `wire`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { clientInfo, done, fail } from "./harness.mjs";

const scenario = process.argv[2];
const args = process.env.RAW_ACP_ARGS ? JSON.parse(process.env.RAW_ACP_ARGS) : [];
const child = spawn(process.env.RAW_ACP_BIN, args, { stdio: ["pipe", "pipe", "inherit"] });
child.stdin.on("error", () => {});
const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
const wire = [];
const received = [];
const waiters = [];
createInterface({ input: child.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  wire.push(message);
  received.push(message);
  while (waiters.length) waiters.shift()();
});
// raw-acp dying (or hanging) fails the run with what it wrote.
child.on("exit", (code, signal) => {
  if (!finished) fail(`raw-acp exited (${code ?? signal}); wrote: ${JSON.stringify(wire).slice(-2000)}`);
});
setTimeout(() => fail(`no result after 60 s; wrote: ${JSON.stringify(wire).slice(-2000)}`), 60000).unref();
let finished = false;

async function next() {
  while (received.length === 0) await new Promise((r) => waiters.push(r));
  return received.shift();
}

function send(message) {
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

// Reads messages until the response to `id`; `onMessage` sees the others.
async function responseTo(id, onMessage = () => {}) {
  for (;;) {
    const m = await next();
    if (m.id === id && m.method === undefined) return m;
    onMessage(m);
  }
}

send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {}, clientInfo } });
await responseTo(1);
send({ id: 2, method: "session/new", params: { cwd: process.env.WORKDIR, mcpServers: [] } });
const sessionId = (await responseTo(2)).result?.sessionId;
if (!sessionId) fail("session/new failed");
const prompt = (id, text) => send({ id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } });
const out = { sessionId };

if (scenario === "bad_answers") {
  const badAnswers = [
    { error: { code: "oops", message: 12 } },
    { result: { outcome: { outcome: 1 } } },
  ];
  out.permissions = 0;
  out.toolStatuses = [];
  prompt(3, "run them");
  out.response = await responseTo(3, (m) => {
    if (m.method === "session/request_permission") {
      send({ id: m.id, ...badAnswers[out.permissions++ % badAnswers.length] });
    } else if (m.method === "session/update" && m.params.update.sessionUpdate === "tool_call_update") {
      if (m.params.update.status) out.toolStatuses.push(m.params.update.status);
    }
  });
  // Still serving: the next request is answered.
  send({ id: 4, method: "session/list", params: {} });
  out.afterwards = await responseTo(4);
} else if (scenario === "cancel_request") {
  prompt(3, "stream slowly");
  let cancelled = false;
  const after = [];  // what came after the cancel, in order
  out.response = await responseTo(3, (m) => {
    if (cancelled) after.push(m.method === "session/update" ? m.params.update.sessionUpdate : m.method);
    if (!cancelled && m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk") {
      cancelled = true;
      send({ method: "$/cancel_request", params: { requestId: 3 } });
    }
  });
  out.afterCancel = after;
  // The session takes the next prompt at once.
  prompt(4, "again");
  out.next = await responseTo(4);
} else {
  fail(`unknown scenario ${scenario}`);
}
finished = true;
child.stdin.end();
out.exit = await exited;
done(out);
