// One pass with the 1.x SDK's ClientSideConnection (what older editors
// use): initialize, a new session, a prompt with streamed text, a
// permission allowed once. Prints what it saw.
import * as acp from "acp-sdk-v1";
import { done, startAgent } from "./harness.mjs";

// The harness frames lines with the 2.x SDK; the message streams are the same.
const { child, stream, wire, exited } = startAgent();
const updates = [];
const permissions = [];
const conn = new acp.ClientSideConnection(() => ({
  async requestPermission(p) {
    permissions.push(p);
    const allow = p.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  },
  async sessionUpdate(n) { updates.push(n.update); },
  async readTextFile() { return { content: "" }; },
  async writeTextFile() { return {}; },
}), stream);
const init = await conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
const { sessionId } = await conn.newSession({ cwd: process.env.WORKDIR, mcpServers: [] });
const { stopReason } = await conn.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
child.stdin.end();
const exit = await exited;
done({
  protocolVersion: init.protocolVersion,
  sessionId,
  stopReason,
  permissions: permissions.length,
  kinds: updates.map((u) => u.sessionUpdate),
  text: updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join(""),
  usageUpdates: wire.filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "usage_update").length,
  exit,
});
