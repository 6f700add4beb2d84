// The conversation as a list of display items, built from a session's events
// (protobuf JSON, in seq order). Pure: no DOM. The view renders each item and
// re-renders the ones `apply` reports as changed.
//
// Items (each has a unique `key` and the `seq` of the event that made it):
//   user       {text}
//   assistant  {text, reasoning, streaming, interrupted}
//   tools      {calls: [{callId, name, tool, arguments, state, status,
//                        content, display, durationMs, progress}]}
//   approval   {requestId, calls, pending, answers, resolution}
//   notice     {level, text}
//   turn_end   {reason, message}
//   compaction {phase: "running"|"ended", text, chunk, chunks}
//   cleared    {tokensBefore, tokensAfter}
import { compactionEndedText, compactionProgressText, compactionStartedText, int64 } from "./format.js";

export class Transcript {
  constructor() {
    this.items = [];
    this.byKey = new Map();
    this.callCard = new Map();  // call id -> tools item
    this.streaming = null;      // the assistant item receiving deltas
    this.approvals = new Map(); // request id -> approval item
    this.compaction = null;     // the running compaction item
    this.context = null;        // latest ContextEstimate
    this.turnRunning = false;
    this.compacting = false;    // between compaction_started and its end
    this.lastSeq = 0;
  }

  // A turn or a compaction runs: Interrupt stops either.
  get busy() {
    return this.turnRunning || this.compacting;
  }

  // Applies one event; returns the keys of the items it added or changed.
  apply(event) {
    const seq = int64(event.seq) ?? 0;
    if (seq > this.lastSeq) this.lastSeq = seq;
    const changed = [];
    const touch = (item) => changed.push(item.key);
    const add = (kind, fields) => {
      const item = { key: `${kind}-${seq}-${this.items.length}`, kind, seq, ...fields };
      this.items.push(item);
      this.byKey.set(item.key, item);
      touch(item);
      return item;
    };
    const streamingItem = () => this.streaming ?? (this.streaming = add("assistant", { text: "", reasoning: "", streaming: true }));

    if (event.turnStarted) {
      this.turnRunning = true;
    } else if (event.userMessage) {
      const images = (event.userMessage.images ?? []).map((i) => ({
        mimeType: i.mimeType ?? "", data: i.data ?? "", width: int64(i.width) ?? 0, height: int64(i.height) ?? 0,
      }));
      add("user", { text: event.userMessage.text ?? "", images });
    } else if (event.textDelta) {
      const item = streamingItem();
      item.text += event.textDelta.text ?? "";
      touch(item);
    } else if (event.reasoningDelta) {
      const item = streamingItem();
      item.reasoning += event.reasoningDelta.text ?? "";
      touch(item);
    } else if (event.streamReset) {
      if (this.streaming) {
        this.streaming.text = "";
        this.streaming.reasoning = "";
        touch(this.streaming);
      }
    } else if (event.assistantMessage) {
      const m = event.assistantMessage;
      const item = this.streaming ?? add("assistant", {});
      Object.assign(item, { text: m.text ?? "", reasoning: m.reasoning ?? "", streaming: false, interrupted: !!m.interrupted });
      this.streaming = null;
      touch(item);
    } else if (event.toolCallBatch) {
      this.streaming = null;
      const calls = (event.toolCallBatch.calls ?? []).map((c) => ({
        callId: c.callId, name: c.name, tool: c.tool, arguments: c.arguments ?? "", state: "queued",
      }));
      const item = add("tools", { calls });
      for (const c of calls) this.callCard.set(c.callId, item);
    } else if (event.toolStarted) {
      const item = this.callCard.get(event.toolStarted.callId);
      const call = item?.calls.find((c) => c.callId === event.toolStarted.callId);
      if (call) {
        call.state = "running";
        touch(item);
      }
    } else if (event.toolProgress) {
      const p = event.toolProgress;
      const item = this.callCard.get(p.callId);
      const call = item?.calls.find((c) => c.callId === p.callId);
      if (call) {
        call.progress = { progress: p.progress ?? 0, total: p.total, message: p.message ?? "" };
        touch(item);
      }
    } else if (event.toolResult) {
      const r = event.toolResult;
      let item = this.callCard.get(r.callId);
      if (!item) {
        // The call was in an older page than the one being read.
        item = add("tools", { calls: [{ callId: r.callId, name: r.name, tool: r.tool, arguments: "", orphan: true }] });
        this.callCard.set(r.callId, item);
      }
      const call = item.calls.find((c) => c.callId === r.callId);
      Object.assign(call, {
        state: "done", status: r.status ?? "TOOL_RESULT_STATUS_UNSPECIFIED", content: r.content ?? "",
        display: r.display ?? "", durationMs: int64(r.durationMs),
      });
      touch(item);
    } else if (event.approvalRequested) {
      const a = event.approvalRequested;
      const item = add("approval", {
        requestId: a.requestId,
        calls: (a.calls ?? []).map((c) => ({ ...c, arguments: c.arguments ?? "" })),
        pending: true, answers: [], resolution: "",
      });
      this.approvals.set(a.requestId, item);
    } else if (event.approvalResolved) {
      const r = event.approvalResolved;
      const item = this.approvals.get(r.requestId);
      if (item) {
        Object.assign(item, { pending: false, answers: r.answers ?? [], resolution: r.resolution ?? "" });
        touch(item);
      }
    } else if (event.notice) {
      add("notice", { level: event.notice.level ?? "NOTICE_LEVEL_INFO", text: event.notice.text ?? "" });
    } else if (event.turnEnded) {
      this.turnRunning = false;
      this.compacting = false;
      if (this.streaming) {
        this.streaming.streaming = false;
        touch(this.streaming);
        this.streaming = null;
      }
      for (const item of this.approvals.values()) {
        if (item.pending) {
          item.pending = false;
          touch(item);
        }
      }
      add("turn_end", { reason: event.turnEnded.reason ?? "", message: event.turnEnded.message ?? "" });
    } else if (event.compactionStarted) {
      this.compacting = true;
      this.compaction = add("compaction", { phase: "running", text: compactionStartedText(event.compactionStarted) });
    } else if (event.compactionProgress) {
      const item = this.compaction ?? add("compaction", { phase: "running", text: "" });
      this.compaction = item;
      Object.assign(item, {
        chunk: event.compactionProgress.chunk ?? 0, chunks: event.compactionProgress.chunks ?? 0,
        text: compactionProgressText(event.compactionProgress),
      });
      touch(item);
    } else if (event.compactionEnded) {
      const item = this.compaction ?? add("compaction", {});
      Object.assign(item, { phase: "ended", text: compactionEndedText(event.compactionEnded) });
      this.compaction = null;
      this.compacting = false;
      touch(item);
    } else if (event.contextCleared) {
      add("cleared", { tokensBefore: event.contextCleared.tokensBefore, tokensAfter: event.contextCleared.tokensAfter });
    } else if (event.contextEstimate) {
      this.context = event.contextEstimate;
    }
    return [...new Set(changed)];
  }

  // The approval still waiting for an answer, if any.
  pendingApproval() {
    for (const item of this.approvals.values()) if (item.pending) return item;
    return null;
  }
}

// What the events already read (newer than any older page still to load)
// say about calls and approvals: a page boundary can fall between a call
// and its result, or an approval and its answer.
export class LaterEvents {
  constructor() {
    this.results = new Map();      // call id -> toolResult
    this.started = new Set();      // call ids with a toolStarted
    this.resolutions = new Map();  // approval request id -> approvalResolved
    this.turnEnded = false;        // a turn ended: it settled every approval before it
  }

  note(event) {
    if (event.toolResult) this.results.set(event.toolResult.callId, event.toolResult);
    else if (event.toolStarted) this.started.add(event.toolStarted.callId);
    else if (event.approvalResolved) this.resolutions.set(event.approvalResolved.requestId, event.approvalResolved);
    else if (event.turnEnded) this.turnEnded = true;
  }
}

// Reads an older page (events oldest first) into items to put above the
// ones shown: a separate Transcript, so the live one's state is untouched.
// `later` (LaterEvents) completes what the page leaves open: a call whose
// result, or an approval whose answer, came in a newer page.
export function pageItems(events, later = new LaterEvents()) {
  const t = new Transcript();
  for (const e of events) t.apply(e);
  // A page cut mid-stream leaves nothing streaming in stored history.
  for (const item of t.items) if (item.kind === "assistant") item.streaming = false;
  for (const [callId, item] of t.callCard) {
    const call = item.calls.find((c) => c.callId === callId);
    if (call.state === "done") continue;
    const result = later.results.get(callId);
    if (result) t.apply({ seq: String(item.seq), toolResult: result });
    else if (later.started.has(callId)) call.state = "running";
  }
  for (const [requestId, item] of t.approvals) {
    if (!item.pending) continue;
    const resolved = later.resolutions.get(requestId);
    if (resolved) t.apply({ seq: String(item.seq), approvalResolved: resolved });
    else if (later.turnEnded) item.pending = false;
  }
  return t.items;
}

// The call ids `items` hold with their batch (not as a result alone).
export function batchCallIds(items) {
  return items.filter((i) => i.kind === "tools").flatMap((i) => i.calls.filter((c) => !c.orphan).map((c) => c.callId));
}

// Characters that change or hide what a reader sees without showing
// themselves: bidi embeddings, overrides and isolates (which reorder the
// text around them), zero-width and other format characters, tag
// characters, line and paragraph separators, C0/C1 controls.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

const hex4 = (unit) => `\\u${unit.toString(16).padStart(4, "0")}`;

// A JSON string token, normalized as JSON.stringify writes it, with every
// invisible character as its \uXXXX escape: the same value, every
// character of it visible.
function jsonString(token) {
  return JSON.stringify(JSON.parse(token)).replace(INVISIBLE, (ch) => {
    let out = "";
    for (let i = 0; i < ch.length; i++) out += hex4(ch.charCodeAt(i));
    return out;
  });
}

// Text with every invisible character (tab and newline aside) shown as a
// marker, e.g. "⟨U+202E⟩", so that it can neither reorder nor hide what is
// around it.
export function visibleText(text) {
  return String(text ?? "").replace(INVISIBLE, (ch) =>
    ch === "\n" || ch === "\t" ? ch : `⟨U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}⟩`);
}

const JSON_TOKEN = /\s+|[{}\[\],:]|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/gy;

// Pretty-prints valid JSON `text` as JSON.stringify(value, null, 2) would,
// from its tokens: numbers are copied as written (never rounded to a
// double), members in their order, duplicates included.
function prettyJson(text) {
  const tokens = (text.match(JSON_TOKEN) ?? []).filter((t) => !/^\s/.test(t));
  let out = "";
  let depth = 0;
  const newline = () => `\n${"  ".repeat(depth)}`;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === "{" || t === "[") {
      const close = t === "{" ? "}" : "]";
      if (tokens[i + 1] === close) {
        out += t + close;
        i++;
      } else {
        depth++;
        out += t + newline();
      }
    } else if (t === "}" || t === "]") {
      depth--;
      out += newline() + t;
    } else if (t === ",") {
      out += `,${newline()}`;
    } else if (t === ":") {
      out += ": ";
    } else if (t[0] === '"') {
      out += jsonString(t);
    } else {
      out += t;
    }
  }
  return out;
}

// Pretty-prints a tool call's JSON arguments in full and as they are:
// numbers as the model wrote them, invisible characters as escapes. Text
// that is not JSON is shown as it is, with invisible characters as markers.
export function formatArguments(args) {
  if (!args) return "";
  const text = String(args);
  try {
    JSON.parse(text);
  } catch {
    return visibleText(text);
  }
  return prettyJson(text);
}

// Whether a tool result's text is a unified diff, and each line's role.
export function isUnifiedDiff(text) {
  return /^(--- .*\n\+\+\+ .*\n@@ |@@ -\d)/m.test(String(text ?? ""));
}

export function diffLines(text) {
  return String(text ?? "").split("\n").map((line) => {
    let role = "context";
    if (line.startsWith("+++") || line.startsWith("---")) role = "file";
    else if (line.startsWith("@@")) role = "hunk";
    else if (line.startsWith("+")) role = "add";
    else if (line.startsWith("-")) role = "del";
    return { role, line };
  });
}
