// Two raw-acp processes on one session. node two_clients.mjs SCENARIO:
//   (none)  A creates it (and holds its write lease); B loads it with an
//           MCP server of its own while A writes. The load succeeds (B
//           follows read-only), B's prompt fails naming A (and asks A for a
//           handover), A closes the session, B is granted the lease, its
//           server becomes the session's own, and B's next prompt runs with
//           its tools.
//   holder_left
//           A creates it, B loads it (following A), A goes away; B's first
//           prompt then runs (the lease is free), without naming A.
//   setup_changed_elsewhere
//           A creates it (agent "coder", mode allow_all), B loads it
//           (following A); A switches the session to the agent "asker"
//           (mode default) and closes it; B prompts and, granted the lease,
//           tells its client the session's agent and mode as they are now
//           before the prompt's turn.
//   prompt_during_countdown
//           A creates it, B loads it and prompts (refused: it asks A for a
//           handover, whose countdown starts at once, A being idle); A
//           prompts once its log says the countdown runs, which declines the
//           handover: both bridges say so.
// Environment: EVERYTHING (the MCP server's script), WORKDIR.
import { acp, clientInfo, done, fail, initialize, startAgent } from "./harness.mjs";

const cwd = process.env.WORKDIR;
const a = startAgent();
const b = startAgent();
const server = { name: "Every thing", command: process.execPath, args: [process.env.EVERYTHING], env: [] };
const client = () => acp.client({ name: clientInfo.name });

const scenario = process.argv[2] ?? "";
const settle = (promise) => promise.then(
  (response) => ({ stopReason: response.stopReason }),
  (e) => ({ error: { code: e.code, message: e.message, data: e.data } }));

const scenarios = {};

// A request in hand-written lines, for an agent driven without the SDK
// (whose connection would fail once that agent goes away).
async function rawRequest(agent, id, method, params) {
  agent.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  for (;;) {
    const m = agent.wire.find((w) => w.id === id && w.method === undefined);
    if (m) return m;
    await new Promise((r) => agent.child.stdout.once("data", r));
  }
}

scenarios.holder_left = async () => {
  await rawRequest(a, 1, "initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo });
  const { sessionId } = (await rawRequest(a, 2, "session/new", { cwd, mcpServers: [] })).result;
  return client()
    .onNotification(acp.methods.client.session.update, () => {})
    .connectWith(b.stream, async (agentB) => {
      await initialize(agentB);
      await agentB.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
      // The holder quits: nobody holds the session, and B is not told.
      a.child.stdin.end();
      const holderExit = await a.exited;
      const prompt = { sessionId, prompt: [{ type: "text", text: "hello" }] };
      const response = await settle(agentB.request(acp.methods.agent.session.prompt, prompt));
      return { sessionId, holderPid: a.child.pid, holderExit, response };
    });
};

scenarios.setup_changed_elsewhere = () => client().connectWith(a.stream, async (agentA) => {
  await initialize(agentA);
  const { sessionId } = await agentA.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  return client()
    .onNotification(acp.methods.client.session.update, () => {})
    .connectWith(b.stream, async (agentB) => {
      await initialize(agentB);
      const load = await agentB.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
      await agentA.request(acp.methods.agent.session.setConfigOption,
        { sessionId, configId: "agent", value: "asker" });
      await agentA.request(acp.methods.agent.session.close, { sessionId });
      const before = b.wire.length;
      const prompt = () => settle(agentB.request(acp.methods.agent.session.prompt,
        { sessionId, prompt: [{ type: "text", text: "hello" }] }));
      let response = await prompt();
      if (response.error) {
        // rawd had not yet seen A let go: B's request for the session waits
        // for that, and B prompts again once it is granted, as told.
        await b.logs.waitFor(`session ${sessionId}: this bridge writes again`);
        response = await prompt();
      }
      const updates = b.wire.slice(before)
        .filter((m) => m.method === "session/update" && m.params.sessionId === sessionId)
        .map((m) => m.params.update);
      return { sessionId, loadModes: load.modes, stopReason: response.stopReason, updates };
    });
});

scenarios.prompt_during_countdown = () => client()
  .onNotification(acp.methods.client.session.update, () => {})
  .connectWith(a.stream, async (agentA) => {
    await initialize(agentA);
    const { sessionId } = await agentA.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    return client().connectWith(b.stream, async (agentB) => {
      await initialize(agentB);
      await agentB.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
      const prompt = (text) => ({ sessionId, prompt: [{ type: "text", text }] });
      const refused = await settle(agentB.request(acp.methods.agent.session.prompt, prompt("mine?")));
      // A prompts once its countdown runs (a prompt that came first would
      // start a turn, and the handover would wait for its end instead).
      await a.logs.waitFor(`session ${sessionId}: handing the session over to`);
      const answered = settle(agentA.request(acp.methods.agent.session.prompt, prompt("still mine")));
      // The prompt keeps A's lease: A declines, and rawd tells B so.
      await a.logs.waitFor(`session ${sessionId}: kept; declined the handover`);
      await b.logs.waitFor(`session ${sessionId}: the handover was declined by`);
      const response = await answered;
      return { sessionId, refused, response };
    });
  });

scenarios[""] = () => client().connectWith(a.stream, async (agentA) => {
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
if (!scenarios[scenario]) fail(`unknown scenario ${scenario}`);
const result = await scenarios[scenario]();
for (const agent of [a, b]) {
  agent.child.stdin.on("error", () => {});
  agent.child.stdin.end();
}
if (!result) fail("no result");
done(result);
