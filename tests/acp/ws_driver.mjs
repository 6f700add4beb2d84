// Drives `raw-acp --listen 127.0.0.1:0` over its WebSocket: the upgrade is
// refused without the token, with a wrong token and from a foreign Origin;
// with the token printed at start, the SDK's WebSocket client runs a
// session and a prompt. Prints what it saw.
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
