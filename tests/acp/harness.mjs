// Shared by the raw-acp drivers: starts raw-acp (RAW_ACP_BIN, with the
// environment the test gives: RAW_SOCKET and friends) as a child process
// and records every line it writes, so that drivers can assert the exact
// wire order (the SDK dispatches notification handlers without waiting).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { PassThrough, Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

export function startAgent(extraArgs = []) {
  const bin = process.env.RAW_ACP_BIN;
  if (!bin) fail("RAW_ACP_BIN is not set");
  const args = [...(process.env.RAW_ACP_ARGS ? JSON.parse(process.env.RAW_ACP_ARGS) : []), ...extraArgs];
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"] });
  const logs = watchLog(child.stderr);
  const wire = [];  // every message raw-acp wrote, parsed, in order
  let pending = "";
  const tap = new PassThrough();
  child.stdout.on("data", (chunk) => {
    pending += chunk.toString("utf8");
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        wire.push(JSON.parse(line));
      } catch {
        wire.push({ unparseable: line });
      }
    }
  });
  child.stdout.pipe(tap);
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(tap));
  // A scenario that hangs ends with what raw-acp wrote last, rather than
  // leaving the C++ test to wait for its own timeout with nothing to show.
  setTimeout(() => {
    const last = wire.slice(-20).map((m) => JSON.stringify(m).slice(0, 400)).join("\n  ");
    fail(`no result after 60 s; raw-acp's last ${Math.min(wire.length, 20)} messages:\n  ${last}`);
  }, 60000).unref();
  return { child, stream, wire, exited, logs };
}

// raw-acp's stderr, passed on to ours; `logs.waitFor(text)` resolves once a
// line containing `text` was written (already or later).
function watchLog(stderr) {
  const lines = [];
  const waiters = [];
  let pending = "";
  stderr.on("data", (chunk) => {
    process.stderr.write(chunk);
    pending += chunk.toString("utf8");
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      lines.push(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) {
      if (lines.some((l) => l.includes(w.text))) w.resolve();
      else waiters.push(w);
    }
  });
  return {
    waitFor(text) {
      if (lines.some((l) => l.includes(text))) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ text, resolve }));
    },
  };
}

export const clientInfo = { name: "raw-acp-test", version: "1.0.0" };

export async function initialize(agent, protocolVersion = acp.PROTOCOL_VERSION) {
  return agent.request(acp.methods.agent.initialize, {
    protocolVersion,
    clientCapabilities: {},
    clientInfo,
  });
}

// The kinds of the session/update notifications in `wire` for `sessionId`,
// with "response:<id>" where a response to one of our requests was written.
export function wireOrder(wire, sessionId) {
  const out = [];
  for (const m of wire) {
    if (m.method === "session/update" && m.params.sessionId === sessionId) {
      out.push(m.params.update.sessionUpdate);
    } else if (m.method === "session/request_permission") {
      out.push("request_permission");
    } else if (m.id !== undefined && m.method === undefined) {
      out.push("response");
    }
  }
  return out;
}

export function fail(message) {
  process.stderr.write(`driver: ${message}\n`);
  process.exit(1);
}

export function check(condition, message) {
  if (!condition) fail(message);
}

// Prints the driver's result (one JSON line) and exits 0.
export function done(result) {
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
}

// rawd (RAWD_PID) stopped with SIGSTOP answers nothing until it is
// continued, so that a driver can send what must arrive before any answer;
// it is continued whatever happens to the driver.
const rawdPid = process.env.RAWD_PID ? Number(process.env.RAWD_PID) : 0;
let rawdStopped = false;
export function stopRawd() {
  if (!rawdPid) fail("RAWD_PID is not set");
  process.kill(rawdPid, "SIGSTOP");
  rawdStopped = true;
  // The signal stops rawd's threads one by one: none may answer anything
  // sent from here on, so this returns once every one is stopped.
  const stopped = () => readdirSync(`/proc/${rawdPid}/task`).every((task) => {
    try {
      const stat = readFileSync(`/proc/${rawdPid}/task/${task}/stat`, "utf8");
      return /^\S+ \(.*\) [Tt] /s.test(stat);
    } catch {
      return true;  // the thread has ended
    }
  });
  for (let i = 0; !stopped(); i++) {
    if (i > 1e6) fail("rawd did not stop");
  }
}
export function continueRawd() {
  if (rawdStopped) process.kill(rawdPid, "SIGCONT");
  rawdStopped = false;
}
process.on("exit", continueRawd);

export { acp };
