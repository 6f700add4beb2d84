// Drives raw-acp over stdio with the official SDK (2.x), one scenario per
// run: node stdio_driver.mjs SCENARIO. Environment: RAW_ACP_BIN (and the
// rawd environment it inherits), WORKDIR (the session directory),
// SESSION_ID (an existing session, for load/resume/held), DECISION (the
// permission option kind to choose). Prints one JSON line with what it saw
// and exits 0; the C++ test asserts on it and on rawd's side.
import { acp, check, clientInfo, done, fail, initialize, startAgent, wireOrder } from "./harness.mjs";

const scenario = process.argv[2];
const cwd = process.env.WORKDIR;
const { child, stream, wire, exited, logs } = startAgent();
const permissions = [];
const notifications = [];

function text(update) {
  return update.content && update.content.type === "text" ? update.content.text : "";
}

// Reads one prompt turn in wire order: the updates, then the stop.
async function readTurn(session, onUpdate = () => {}) {
  const updates = [];
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === "stop") return { updates, stopReason: m.stopReason };
    updates.push(m.update);
    await onUpdate(m.update);
  }
}

const app = acp
  .client({ name: clientInfo.name })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    permissions.push(params);
    if (scenario === "cancel_permission") {
      await agentRef.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    const kind = process.env.DECISION || "allow_once";
    const option = params.options.find((o) => o.kind === kind);
    check(option, `no option of kind ${kind}`);
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    notifications.push(params);
  });

let agentRef;

const scenarios = {
  async initialize(agent) {
    return { init: await initialize(agent) };
  },

  async version2(agent) {
    return { init: await initialize(agent, 2) };
  },

  // A prompt whose turn streams text and edits a file (tool call with diff).
  async prompt(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const answer = session.prompt("please edit a.txt");
      const turn = await readTurn(session);
      const response = await answer;
      return {
        sessionId: session.sessionId,
        configOptions: session.newSessionResponse.configOptions,
        kinds: turn.updates.map((u) => u.sessionUpdate),
        updates: turn.updates,
        text: turn.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(text).join(""),
        stopReason: turn.stopReason,
        responseStopReason: response.stopReason,
        wire: wireOrder(wire, session.sessionId),
      };
    });
  },

  // A prompt with an image (IMAGE_B64, IMAGE_MIME) after its text; then one
  // whose image data is not base64, which is refused.
  async image_prompt(agent) {
    const init = await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const image = { type: "image", mimeType: process.env.IMAGE_MIME, data: process.env.IMAGE_B64 };
      const answer = session.prompt([{ type: "text", text: "what is this?" }, image]);
      const turn = await readTurn(session);
      const response = await answer;
      let refused = null;
      try {
        await session.prompt([{ type: "image", mimeType: "image/png", data: "not base64!" }]);
      } catch (e) {
        refused = { code: e.code, message: e.message };
      }
      return {
        init,
        sessionId: session.sessionId,
        stopReason: response.stopReason,
        text: turn.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map(text).join(""),
        refused,
      };
    });
  },

  // A tool call that asks: the permission request and its answer (DECISION).
  async permission(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const answer = session.prompt("run it");
      const turn = await readTurn(session);
      await answer;
      return {
        sessionId: session.sessionId,
        permissions,
        kinds: turn.updates.map((u) => u.sessionUpdate),
        updates: turn.updates,
        stopReason: turn.stopReason,
        wire: wireOrder(wire, session.sessionId),
      };
    });
  },

  // session/cancel while the answer streams.
  async cancel_stream(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const answer = session.prompt("stream slowly");
      let cancelled = false;
      const turn = await readTurn(session, async (u) => {
        if (!cancelled && u.sessionUpdate === "agent_message_chunk") {
          cancelled = true;
          await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
        }
      });
      const response = await answer;
      return { sessionId: session.sessionId, stopReason: turn.stopReason, response };
    });
  },

  // session/cancel right behind the prompt, while rawd still prepares the
  // turn (the agent's model needs a variable whose command is slow).
  async cancel_preparing(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const started = Date.now();
      const answer = session.prompt("never sent");
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
      const response = await answer;
      return { sessionId: session.sessionId, response, ms: Date.now() - started };
    });
  },

  // session/cancel while a permission request is open (the handler cancels).
  async cancel_permission(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const answer = session.prompt("run it");
      const turn = await readTurn(session);
      const response = await answer;
      return { sessionId: session.sessionId, permissions, stopReason: turn.stopReason, response };
    });
  },

  // session/load and session/resume of the session whose prompt is running
  // on this connection: both refused; the prompt, cancelled, still answers.
  async reopen_running(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const sessionId = session.sessionId;
      const answer = session.prompt("stream slowly");
      for (;;) {
        const m = await session.nextUpdate();
        if (m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk") break;
        if (m.kind === "stop") fail(`the turn ended early: ${m.stopReason}`);
      }
      const refusal = (e) => ({ code: e.code, message: e.message, data: e.data });
      const load = await agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] })
        .then((result) => ({ result }), refusal);
      const resume = await agent.request(acp.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] })
        .then((result) => ({ result }), refusal);
      await agent.notify(acp.methods.agent.session.cancel, { sessionId });
      const response = await answer;
      return { sessionId, load, resume, stopReason: response.stopReason };
    });
  },

  // session/load of SESSION_ID: the whole history replayed before the answer.
  async load(agent) {
    await initialize(agent);
    const sessionId = process.env.SESSION_ID;
    const result = await agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const updates = notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    return { result, updates, wire: wireOrder(wire, sessionId) };
  },

  async load_unknown(agent) {
    await initialize(agent);
    try {
      await agent.request(acp.methods.agent.session.load, { sessionId: "no-such-session", cwd, mcpServers: [] });
    } catch (e) {
      return { error: { code: e.code, message: e.message, data: e.data } };
    }
    fail("loading an unknown session succeeded");
  },

  async list(agent) {
    await initialize(agent);
    const all = await agent.request(acp.methods.agent.session.list, {});
    const here = await agent.request(acp.methods.agent.session.list, { cwd });
    const elsewhere = await agent.request(acp.methods.agent.session.list, { cwd: "/nonexistent-dir" });
    return { all, here, elsewhere };
  },

  // session/resume (no replay), a prompt on it, then session/close.
  async resume_close(agent) {
    await initialize(agent);
    const sessionId = process.env.SESSION_ID;
    const before = wire.length;
    const result = await agent.request(acp.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
    const replayed = wire.slice(before).filter(
      (m) => m.method === "session/update" && m.params.update.sessionUpdate !== "available_commands_update");
    const response = await agent.request(acp.methods.agent.session.prompt, {
      sessionId, prompt: [{ type: "text", text: "after resume" }] });
    const closed = await agent.request(acp.methods.agent.session.close, { sessionId });
    let afterClose;
    try {
      await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "x" }] });
    } catch (e) {
      afterClose = { code: e.code, message: e.message };
    }
    return { result, replayed: replayed.length, stopReason: response.stopReason, closed, afterClose };
  },

  // A prompt while another client holds SESSION_ID's lease.
  async held(agent) {
    await initialize(agent);
    const sessionId = process.env.SESSION_ID;
    await agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    try {
      await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    } catch (e) {
      return { error: { code: e.code, message: e.message, data: e.data } };
    }
    fail("the prompt succeeded while another client held the lease");
  },

  // Goes away in the middle of a streamed answer: the connection closes
  // (and raw-acp's stdin with it) once this returns.
  async disconnect(agent) {
    await initialize(agent);
    const session = await agent.buildSession({ cwd, mcpServers: [] }).start();
    session.prompt("stream slowly").catch(() => {});
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind !== "stop" && m.update.sessionUpdate === "agent_message_chunk") break;
    }
    return { sessionId: session.sessionId };
  },

  // raw-acp gets SIGNAL in the middle of a streamed answer: the prompt
  // answers cancelled before the process exits.
  async signal(agent) {
    await initialize(agent);
    const session = await agent.buildSession({ cwd, mcpServers: [] }).start();
    const answer = session.prompt("stream slowly");
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk") break;
      if (m.kind === "stop") fail(`the turn ended early: ${m.stopReason}`);
    }
    child.kill(process.env.SIGNAL);
    const response = await answer.then((r) => r, (e) => ({ error: { code: e.code, message: e.message } }));
    // raw-acp exits right after its answer: the connection may close
    // before this returns (see the end of this file).
    settled = { sessionId: session.sessionId, response };
    return settled;
  },

  // raw-acp is killed with SIGKILL, which it cannot take, in the middle of
  // a streamed answer. The prompt is left unanswered; the test reads what
  // rawd recorded.
  async kill(agent) {
    await initialize(agent);
    const session = await agent.buildSession({ cwd, mcpServers: [] }).start();
    session.prompt("stream slowly").catch(() => {});
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk") break;
      if (m.kind === "stop") fail(`the turn ended early: ${m.stopReason}`);
    }
    child.kill("SIGKILL");
    settled = { sessionId: session.sessionId };
    return settled;
  },

  // Prompt content: a resource link and an embedded resource.
  async resources(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const response = await session.prompt([
        { type: "text", text: "look at " },
        { type: "resource_link", uri: `file://${cwd}/a.txt`, name: "a.txt" },
        { type: "text", text: " and " },
        { type: "resource", resource: { uri: `file://${cwd}/b.md`, text: "B body ``` here", mimeType: "text/markdown" } },
      ]);
      return { stopReason: response.stopReason };
    });
  },

  // session/set_config_option: the model, then the agent.
  async config(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const sessionId = session.sessionId;
      const initial = session.newSessionResponse.configOptions;
      const agentChange = await agent.request(acp.methods.agent.session.setConfigOption,
        { sessionId, configId: "agent", value: process.env.AGENT });
      const model = await agent.request(acp.methods.agent.session.setConfigOption,
        { sessionId, configId: "model", value: process.env.MODEL });
      let bad;
      try {
        await agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "nope" });
      } catch (e) {
        bad = { code: e.code, message: e.message };
      }
      const response = await session.prompt("hello");
      let late;
      try {
        await agent.request(acp.methods.agent.session.setConfigOption,
          { sessionId, configId: "agent", value: process.env.FIRST_AGENT });
      } catch (e) {
        late = { code: e.code, message: e.message };
      }
      const modeUpdates = wire
        .filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "current_mode_update")
        .map((m) => m.params.update.currentModeId);
      return { sessionId, initial, model: model.configOptions, agent: agentChange.configOptions, bad,
               stopReason: response.stopReason, late, modeUpdates };
    });
  },

  // rawd is killed (RAWD_PID) while the answer streams: the prompt in flight
  // fails at once; raw-acp starts a new rawd, takes the session back, and
  // the next prompt in the same session works.
  async restart(agent) {
    await initialize(agent);
    return agent.buildSession({ cwd, mcpServers: [] }).withSession(async (session) => {
      const first = session.prompt("stream slowly");
      for (;;) {
        const m = await session.nextUpdate();
        if (m.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk") break;
      }
      process.kill(Number(process.env.RAWD_PID), "SIGKILL");
      const failed = await first.then(
        (response) => ({ response }),
        (e) => ({ error: { code: e.code, message: e.message, data: e.data } }),
      );
      // raw-acp logs these once it holds the session's lease again and the
      // daemon no longer runs the cut turn.
      await logs.waitFor(`session ${session.sessionId}: this bridge writes again`);
      await logs.waitFor(`session ${session.sessionId}: the turn cut off when rawd went away has ended`);
      const before = wire.length;
      const response = await session.prompt("after the restart");
      const answer = wire
        .slice(before)
        .filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk")
        .map((m) => text(m.params.update))
        .join("");
      return { sessionId: session.sessionId, first: failed, second: { stopReason: response.stopReason, text: answer } };
    });
  },

  // A session-scoped MCP server passed in session/new, used by the model.
  async mcp(agent) {
    await initialize(agent);
    const server = { name: process.env.SERVER_NAME || "everything", command: process.execPath, args: [process.env.EVERYTHING], env: [] };
    return agent.buildSession({ cwd, mcpServers: [server] }).withSession(async (session) => {
      const answer = session.prompt("echo through MCP");
      const turn = await readTurn(session);
      await answer;
      return { sessionId: session.sessionId, updates: turn.updates, stopReason: turn.stopReason };
    });
  },
};

const run = scenarios[scenario];
if (!run) fail(`unknown scenario ${scenario}`);
// The result of a scenario that ends with raw-acp exiting on its own.
let settled;
const result = await app
  .connectWith(stream, async (agent) => {
    agentRef = agent;
    return run(agent);
  })
  .catch((e) => {
    if (settled) return settled;
    throw e;
  });
child.stdin.on("error", () => {});  // raw-acp may be gone already
child.stdin.end();
result.exit = await exited;
done(result);
