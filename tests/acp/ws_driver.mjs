// Drives `raw-acp --listen 127.0.0.1:0` over its WebSocket: the upgrade is
// refused without the token, with a wrong token and from a foreign Origin;
// with the token printed at start, the SDK's WebSocket client runs a
// session and a prompt. Prints what it saw.
//
// Other scenarios (node ws_driver.mjs SCENARIO):
//   signal  a prompt streams when raw-acp gets SIGINT: the prompt answers
//           cancelled before the process exits
//   sizes   one frame under the default message cap (answered) and one
//           over it (the socket is closed unanswered)
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { WebSocket } from "ws";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { acp, check, clientInfo, done, fail } from "./harness.mjs";

const child = spawn(process.env.RAW_ACP_BIN, ["--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
let stdout = "";
child.stdout.on("data", (d) => { stdout += d; });
const exited = new Promise((r) => child.on("exit", (code, signal) => r({ code, signal })));
const stderr = createInterface({ input: child.stderr });
let listening = false;
const url = await new Promise((resolve) => {
  stderr.on("line", (line) => {
    process.stderr.write(`raw-acp: ${line}\n`);
    const m = line.match(/listening on (ws:\/\/\S+)/);
    if (m) {
      listening = true;
      resolve(m[1]);
    }
  });
  child.on("exit", () => {
    if (!listening) fail("raw-acp exited before listening");
  });
});
const parsed = new URL(url);
const token = parsed.searchParams.get("token");
check(token && token.length >= 32, `no token in ${url}`);
const bare = `ws://${parsed.host}${parsed.pathname}`;

// The HTTP status an upgrade attempt got (101 when it was accepted).
function attempt(target, headers = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(target, { headers });
    ws.on("open", () => { ws.close(); resolve(101); });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode));
    ws.on("error", () => resolve(-1));
  });
}

const scenario = process.argv[2] || "";
if (scenario === "signal") done(await signalScenario());
if (scenario === "sizes") done(await sizesScenario());

const refused = {
  noToken: await attempt(bare),
  wrongToken: await attempt(`${bare}?token=${"0".repeat(token.length)}`),
  foreignOrigin: await attempt(url, { Origin: "http://evil.example" }),
  foreignHost: await attempt(url, { Host: "evil.example" }),
};

const stream = createWebSocketStream(url, { WebSocket });
const result = await acp
  .client({ name: clientInfo.name })
  .connectWith(stream, async (agent) => {
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1, clientCapabilities: {}, clientInfo });
    return agent.buildSession({ cwd: process.env.WORKDIR, mcpServers: [] }).withSession(async (s) => {
      const text = s.readText();
      const response = await s.prompt("over websocket");
      return { protocolVersion: init.protocolVersion, sessionId: s.sessionId, text: await text,
               stopReason: response.stopReason };
    });
  });
child.kill("SIGTERM");
const exit = await exited;
done({ refused, ...result, exit, stdout });

// SIGINT while a prompt streams: the turn is interrupted and its prompt
// answered `cancelled` before raw-acp exits (0).
async function signalScenario() {
  const stream = createWebSocketStream(url, { WebSocket });
  const result = await acp.client({ name: clientInfo.name }).connectWith(stream, async (agent) => {
    await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {}, clientInfo });
    const session = await agent.buildSession({ cwd: process.env.WORKDIR, mcpServers: [] }).start();
    const answer = session.prompt("stream slowly");
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk") break;
      if (m.kind === "stop") fail(`the turn ended early: ${m.stopReason}`);
    }
    child.kill("SIGINT");
    const response = await answer.then((r) => r, (e) => ({ error: { code: e.code, message: e.message } }));
    return { sessionId: session.sessionId, response };
  });
  return { ...result, exit: await exited };
}

// A raw socket's answer to one text frame: the answer's JSON, or the close
// code when the socket closed instead.
function frameAnswer(text) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on("open", () => ws.send(text));
    ws.on("message", (data) => { resolve({ answer: JSON.parse(data.toString("utf8")) }); ws.close(); });
    ws.on("close", (code) => resolve({ closed: code }));
    ws.on("error", () => {});
  });
}

async function sizesScenario() {
  const init = (pad) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize",
                                         params: { protocolVersion: 1, pad: "x".repeat(pad) } });
  const under = await frameAnswer(init(12 << 20));
  const over = await frameAnswer(init(17 << 20));
  child.kill("SIGTERM");
  return { under, over, exit: await exited };
}
