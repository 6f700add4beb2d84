// Two raw-acp processes on one session: A creates it (and holds its write
// lease); B loads it with an MCP server of its own while A writes. The load
// succeeds (B follows read-only), B's prompt fails naming A (and asks A for
// a handover), A closes the session, B is granted the lease, its server
// becomes the session's own, and B's next prompt runs with its tools.
// Environment: EVERYTHING (the MCP server's script), WORKDIR.
import { acp, clientInfo, done, fail, initialize, startAgent } from "./harness.mjs";

const cwd = process.env.WORKDIR;
const a = startAgent();
const b = startAgent();
const server = { name: "Every thing", command: process.execPath, args: [process.env.EVERYTHING], env: [] };
const client = () => acp.client({ name: clientInfo.name });

const result = await client().connectWith(a.stream, async (agentA) => {
  await initialize(agentA);
  const { sessionId } = await agentA.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return client()
    .onNotification(acp.methods.client.session.update, () => {})
    .connectWith(b.stream, async (agentB) => {
      await initialize(agentB);
      const load = await agentB.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [server] })
        .then((result) => ({ result }), (e) => ({ error: { code: e.code, message: e.message } }));
      if (load.error) return { sessionId, load };
      const prompt = { sessionId, prompt: [{ type: "text", text: "echo through MCP" }] };
      const refused = await agentB.request(acp.methods.agent.session.prompt, prompt).then(
        (response) => ({ response }),
        (e) => ({ code: e.code, message: e.message, data: e.data }));
      await agentA.request(acp.methods.agent.session.close, { sessionId });
      await b.logs.waitFor(`session ${sessionId}: the client's MCP servers are the session's own`);
      const before = b.wire.length;
      const response = await agentB.request(acp.methods.agent.session.prompt, prompt);
      const updates = b.wire.slice(before)
        .filter((m) => m.method === "session/update" && m.params.sessionId === sessionId)
        .map((m) => m.params.update);
      return { sessionId, load, holderPid: a.child.pid, refused, stopReason: response.stopReason, updates };
    });
});
for (const agent of [a, b]) {
  agent.child.stdin.on("error", () => {});
  agent.child.stdin.end();
}
if (!result) fail("no result");
done(result);
