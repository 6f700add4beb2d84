// Drives prompt turns in hand-written lines (no SDK), for what an SDK
// would never send. node raw_turns.mjs SCENARIO:
//   bad_answers     answers the turn's two permission requests with a
//                   wrongly typed error and a wrongly typed result
//   cancel_request  cancels a streaming prompt with $/cancel_request, then
//                   sends the next prompt
//   cancel_request_permission
//                   cancels a prompt waiting on a permission request with
//                   $/cancel_request and leaves that request unanswered
//   close_while_opening
//                   session/close right behind a session/load (and a
//                   session/resume) of the same session, in one write
//   cancel_open     $/cancel_request right behind a session/load and a
//                   session/new, in one write; then opens normally
//   cancel_command  session/cancel during /stats, /clear and /agent, with
//                   rawd stopped (RAWD_PID) until the cancel was read
//   close_during_agent_command
//                   session/close during `/agent asker`, with rawd stopped
//                   until the close was answered
//   session_cap     opens more sessions than one connection keeps
//   close_while_rawd_stopped
//                   session/close of a session whose /stats waits on a
//                   stopped rawd, then a request raw-acp answers itself;
//                   then, rawd continued, a prompt in the other session
//                   and the closed session opened and prompted again
//   close_prompt_while_rawd_stopped
//                   session/close of a session whose prompt's StartTurn
//                   waits on a stopped rawd
//   exit_while_rawd_stopped
//                   the client closes stdin while /stats waits on a
//                   stopped rawd (nothing is written after end of input)
// Prints what it saw; every message raw-acp wrote is in `wire`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { clientInfo, continueRawd, done, fail, stopRawd } from "./harness.mjs";

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

// Several messages in one write: raw-acp reads them together, before rawd
// can have answered anything the first one asked.
function sendTogether(...messages) {
  child.stdin.write(messages.map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n").join(""));
}


// Reads messages until the response to `id`; `onMessage` sees the others.
async function responseTo(id, onMessage = () => {}) {
  for (;;) {
    const m = await next();
    if (m.id === id && m.method === undefined) return m;
    onMessage(m);
  }
}

// Reads messages until the responses to every id in `ids` (keyed by id,
// with `order`: the ids as their answers came); `onMessage` sees the others.
async function responsesTo(ids, onMessage = () => {}) {
  const got = { order: [] };
  while (got.order.length < ids.length) {
    const m = await next();
    if (m.method === undefined && ids.includes(m.id)) {
      got[m.id] = m;
      got.order.push(m.id);
    } else {
      onMessage(m);
    }
  }
  return got;
}

// `promise`, or a failed run when it has not settled after `seconds`: an
// answer that needs no daemon must not wait for a stopped one.
function within(seconds, promise, what) {
  let timer;
  const late = new Promise(() => {
    timer = setTimeout(() => fail(`${what}: nothing after ${seconds} s; wrote: ${JSON.stringify(wire).slice(-2000)}`),
                       seconds * 1000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const kindOf = (m) => (m.method === "session/update" ? m.params.update.sessionUpdate : m.method);

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
} else if (scenario === "cancel_request_permission") {
  prompt(3, "run it");
  out.permissionIds = [];
  out.withdrawn = [];  // requestIds of raw-acp's $/cancel_request, before the answer
  out.response = await responseTo(3, (m) => {
    if (m.method === "session/request_permission") {
      out.permissionIds.push(m.id);
      // The client cancels the prompt, not the dialog: it never answers it.
      send({ method: "$/cancel_request", params: { requestId: 3 } });
    } else if (m.method === "$/cancel_request") {
      out.withdrawn.push(m.params.requestId);
    }
  });
} else if (scenario === "close_while_opening") {
  send({ id: 3, method: "session/close", params: { sessionId } });
  await responseTo(3);
  const cwd = process.env.WORKDIR;
  sendTogether({ id: 4, method: "session/load", params: { sessionId, cwd, mcpServers: [] } },
               { id: 5, method: "session/close", params: { sessionId } });
  const load = await responsesTo([4, 5]);
  out.load = { answers: load.order, open: load[4], close: load[5] };
  sendTogether({ id: 6, method: "session/resume", params: { sessionId, cwd, mcpServers: [] } },
               { id: 7, method: "session/close", params: { sessionId } });
  const resume = await responsesTo([6, 7]);
  out.resume = { answers: resume.order, open: resume[6], close: resume[7] };
  // Closed: not open to prompts.
  prompt(8, "still there?");
  out.prompt = await responseTo(8);
} else if (scenario === "cancel_open") {
  send({ id: 3, method: "session/close", params: { sessionId } });
  await responseTo(3);
  const cwd = process.env.WORKDIR;
  // Every session/update from here on, by session.
  const updates = {};
  const record = (m) => {
    if (m.method !== "session/update") return;
    (updates[m.params.sessionId] ??= []).push(kindOf(m));
  };
  sendTogether({ id: 4, method: "session/load", params: { sessionId, cwd, mcpServers: [] } },
               { method: "$/cancel_request", params: { requestId: 4 } });
  out.cancelledLoad = await responseTo(4, record);
  sendTogether({ id: 5, method: "session/new", params: { cwd, mcpServers: [] } },
               { method: "$/cancel_request", params: { requestId: 5 } });
  out.cancelledNew = await responseTo(5, record);
  // The session opens normally now (a bridge left behind by the cancelled
  // load would refuse this as still opening, or send its own updates).
  send({ id: 6, method: "session/load", params: { sessionId, cwd, mcpServers: [] } });
  out.load = await responseTo(6, record);
  send({ id: 7, method: "session/new", params: { cwd, mcpServers: [] } });
  out.created = await responseTo(7, record);
  // rawd's answers to every earlier call have come back by now, and the
  // commands of both opens follow their answers.
  send({ id: 8, method: "session/list", params: {} });
  await responseTo(8, record);
  while (received.length) record(received.shift());
  out.updates = updates;
  out.createdId = out.created.result?.sessionId;
} else if (scenario === "cancel_command") {
  out.commands = {};
  let id = 10;
  for (const command of ["/stats", "/clear", "/agent"]) {
    const promptId = id++;
    const markerId = id++;
    stopRawd();
    prompt(promptId, command);
    send({ method: "session/cancel", params: { sessionId } });
    // Answered without rawd: once it is here, the cancel was read.
    prompt(markerId, "another");
    const marker = await responseTo(markerId);
    continueRawd();
    const response = await responseTo(promptId);
    out.commands[command] = { response, marker };
  }
} else if (scenario === "close_during_agent_command") {
  stopRawd();
  prompt(3, "/agent asker");
  send({ id: 4, method: "session/close", params: { sessionId } });
  // Both are answered while rawd is stopped (or never: the run times out).
  const answers = await responsesTo([3, 4]);
  out.beforeRawd = answers.order;
  continueRawd();
  out.prompt = answers[3];
  out.close = answers[4];
  // The daemon's answer to /agent has come back by the time this one does
  // (the connection's calls run in order).
  send({ id: 6, method: "session/list", params: {} });
  out.list = await responseTo(6);
  // Nothing more is said about the closed session.
  const closedAt = wire.findIndex((m) => m.id === 4 && m.method === undefined);
  out.afterClose = wire.slice(closedAt + 1)
    .filter((m) => m.method === "session/update" && m.params.sessionId === sessionId)
    .map(kindOf);
} else if (scenario === "session_cap") {
  const cwd = process.env.WORKDIR;
  // One is open already: 32 more at once, of which the last is one too many.
  const ids = [];
  const opens = [];
  for (let i = 0; i < 32; i++) {
    ids.push(100 + i);
    opens.push({ id: 100 + i, method: "session/new", params: { cwd, mcpServers: [] } });
  }
  sendTogether(...opens);
  const got = await responsesTo(ids);
  out.opened = ids.filter((i) => got[i].result?.sessionId).length;
  out.refused = ids.filter((i) => got[i].error).map((i) => ({ id: i, error: got[i].error }));
  // Opening a session open here already replaces its bridge: allowed.
  send({ id: 200, method: "session/resume", params: { sessionId, cwd, mcpServers: [] } });
  out.resumeAtCap = await responseTo(200);
  const other = got[100].result.sessionId;
  send({ id: 201, method: "session/close", params: { sessionId: other } });
  await responseTo(201);
  send({ id: 202, method: "session/new", params: { cwd, mcpServers: [] } });
  out.afterClose = await responseTo(202);
} else if (scenario === "close_while_rawd_stopped") {
  const cwd = process.env.WORKDIR;
  send({ id: 3, method: "session/new", params: { cwd, mcpServers: [] } });
  const other = (await responseTo(3)).result?.sessionId;
  if (!other) fail("the second session/new failed");
  stopRawd();
  // /stats is a call to rawd from the session's own bridge, in flight
  // while the close comes.
  prompt(4, "/stats");
  send({ id: 5, method: "session/close", params: { sessionId } });
  const closing = await within(10, responsesTo([4, 5]), "the prompt and the close");
  out.prompt = closing[4];
  out.close = closing[5];
  // Sent once the close was answered, so read after the closed bridge
  // began to go away.
  send({ id: 6, method: "raw/unknown", params: {} });
  out.unknown = await within(10, responseTo(6), "an unknown method");
  continueRawd();
  send({ id: 7, method: "session/prompt", params: { sessionId: other, prompt: [{ type: "text", text: "hello" }] } });
  out.other = await responseTo(7);
  // The closed session let go of its lease: it opens and takes a prompt
  // here again.
  send({ id: 8, method: "session/resume", params: { sessionId, cwd, mcpServers: [] } });
  out.resume = await responseTo(8);
  prompt(9, "again");
  out.again = await responseTo(9);
} else if (scenario === "close_prompt_while_rawd_stopped") {
  stopRawd();
  // StartTurn waits on rawd; the close's interrupt would wait behind it.
  prompt(3, "hello");
  send({ id: 4, method: "session/close", params: { sessionId } });
  const closing = await within(10, responsesTo([3, 4]), "the prompt and the close");
  out.prompt = closing[3];
  out.close = closing[4];
  continueRawd();
  send({ id: 5, method: "session/list", params: {} });
  out.list = await responseTo(5);
} else if (scenario === "exit_while_rawd_stopped") {
  stopRawd();
  prompt(3, "/stats");
  finished = true;
  child.stdin.end();
  out.exit = await within(10, exited, "raw-acp's exit");
  continueRawd();
} else {
  fail(`unknown scenario ${scenario}`);
}
finished = true;
child.stdin.end();
out.exit = await exited;
done(out);
