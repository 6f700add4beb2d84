// Drives raw-acp (through the official SDK, 2.x, of tests/acp) for the
// bridge's own operations: which turn or compaction is a prompt's, and the
// approval mode across a handover. node session_ops_driver.mjs SCENARIO:
//   compact_nothing  /compact in a new session (nothing to compact)
//   mode_handover    A creates a session and chooses ask_all; B takes the
//                    session over (A's handover countdown) and closes it;
//                    A prompts again while a burst of session/list keeps
//                    its other calls to rawd busy, and answers the
//                    permission requests allow_once. With DENY_CONFIG (the
//                    config file's path), the session's agent is made
//                    deny_all (in that file) before A prompts again, so
//                    that rawd refuses A's mode
// Environment: RAW_ACP_BIN (with rawd's environment), WORKDIR. Prints one
// JSON line with what it saw.
import { readFileSync, writeFileSync } from "node:fs";
import { acp, clientInfo, done, fail, initialize, startAgent } from "../../acp/harness.mjs";

const scenario = process.argv[2];
const cwd = process.env.WORKDIR;
const client = () => acp.client({ name: clientInfo.name });
const text = (u) => (u.content && u.content.type === "text" ? u.content.text : "");
const settle = (promise) => promise.then(
  (response) => ({ stopReason: response.stopReason }),
  (e) => ({ error: { code: e.code, message: e.message, data: e.data } }));

// Reads one prompt turn in wire order: the updates, then the stop.
async function readTurn(session) {
  const updates = [];
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === "stop") return { updates, stopReason: m.stopReason };
    updates.push(m.update);
  }
}
const message = (turn) =>
  turn.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(text).join("");

async function oneAgent(run) {
  const agent = startAgent();
  const result = await client().connectWith(agent.stream, run);
  agent.child.stdin.on("error", () => {});
  agent.child.stdin.end();
  result.exit = await agent.exited;
  return result;
}

const scenarios = {
  compact_nothing: () => oneAgent(async (agent) => {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const answer = session.prompt("/compact");
      const turn = await readTurn(session);
      const response = await answer;
      return { sessionId: session.sessionId, stopReason: response.stopReason, text: message(turn) };
    });
  }),

  async mode_handover() {
    const a = startAgent();
    const b = startAgent();
    const permissions = [];
    const modeUpdates = [];
    const kinds = [];  // A's session updates, in order
    const result = await client()
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        permissions.push(params.toolCall.toolCallId);
        const option = params.options.find((o) => o.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        kinds.push(params.update.sessionUpdate);
        if (params.update.sessionUpdate === "current_mode_update") modeUpdates.push(params.update);
      })
      .connectWith(a.stream, async (agentA) => {
        await initialize(agentA);
        const { sessionId } = await agentA.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
        await agentA.request(acp.methods.agent.session.setConfigOption,
          { sessionId, configId: "mode", value: "ask_all" });
        const prompt = (words) => ({ sessionId, prompt: [{ type: "text", text: words }] });
        return client()
          .onNotification(acp.methods.client.session.update, () => {})
          .connectWith(b.stream, async (agentB) => {
            await initialize(agentB);
            await agentB.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
            // Refused: B asks A for the session, which A (idle) hands over
            // at the end of its countdown.
            const refused = await settle(agentB.request(acp.methods.agent.session.prompt, prompt("mine?")));
            await b.logs.waitFor(`session ${sessionId}: this bridge writes again`);
            await a.logs.waitFor(`session ${sessionId} handed over to`);
            await agentB.request(acp.methods.agent.session.close, { sessionId });
            if (process.env.DENY_CONFIG) {
              const config = readFileSync(process.env.DENY_CONFIG, "utf8");
              // The first agent, the session's, allows all.
              writeFileSync(process.env.DENY_CONFIG,
                config.replace('"approval_mode": "allow_all"', '"approval_mode": "deny_all"'));
            }
            kinds.length = 0;
            // A takes the session back with its prompt. The lists, sent
            // first, occupy A's other channel to rawd, on which the mode is
            // chosen again.
            const lists = [];
            for (let i = 0; i < 300; i++) lists.push(agentA.request(acp.methods.agent.session.list, {}));
            const response = await settle(agentA.request(acp.methods.agent.session.prompt, prompt("run it")));
            await Promise.all(lists);
            return { sessionId, refused, response, permissions, modeUpdates, kinds };
          });
      });
    for (const agent of [a, b]) {
      agent.child.stdin.on("error", () => {});
      agent.child.stdin.end();
    }
    return result;
  },
};

const run = scenarios[scenario];
if (!run) fail(`unknown scenario ${scenario}`);
done(await run());
