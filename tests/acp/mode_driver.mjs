// Session modes with the 1.x SDK's ClientSideConnection (session/set_mode is
// part of protocol version 1; the 2.x SDK no longer offers it): the modes of
// session/new, an unknown mode refused, set_mode "allow_all" announced with
// current_mode_update, then a prompt whose tool call no rule matches (it
// runs unless a permission request rejects it). Prints what it saw.
import * as acp from "acp-sdk-v1";
import { done, startAgent } from "./harness.mjs";

const { child, stream, exited } = startAgent();
const updates = [];
const permissions = [];
const conn = new acp.ClientSideConnection(() => ({
  async requestPermission(p) {
    permissions.push(p);
    const reject = p.options.find((o) => o.kind === "reject_once");
    return { outcome: { outcome: "selected", optionId: reject.optionId } };
  },
  async sessionUpdate(n) { updates.push(n.update); },
  async readTextFile() { return { content: "" }; },
  async writeTextFile() { return {}; },
}), stream);
await conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
const created = await conn.newSession({ cwd: process.env.WORKDIR, mcpServers: [] });
const { sessionId } = created;
let unknownMode = null;
try {
  await conn.setSessionMode({ sessionId, modeId: "yolo" });
} catch (e) {
  unknownMode = { code: e.code, message: e.message };
}
const set = await conn.setSessionMode({ sessionId, modeId: "allow_all" });
const { stopReason } = await conn.prompt({ sessionId, prompt: [{ type: "text", text: "run it" }] });
child.stdin.end();
const exit = await exited;
done({
  modes: created.modes,
  modeOption: (created.configOptions || []).find((o) => o.id === "mode") || null,
  unknownMode,
  set,
  modeUpdates: updates.filter((u) => u.sessionUpdate === "current_mode_update"),
  permissions: permissions.length,
  stopReason,
  exit,
});
