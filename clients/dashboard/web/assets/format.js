// How counts, context estimates and usage coverage read in the dashboard,
// matching the terminal client (clients/present/usage_text.cc): an estimate
// always carries "~", a percentage only when the model's window is known,
// and a count no provider reported is "unknown", never 0.
//
// Pure functions over protobuf-JSON values (int64 fields arrive as strings).

// A protobuf-JSON int64 (string or number) as a number; undefined when absent.
export function int64(value) {
  if (value === undefined || value === null || value === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

// "~850", "~12.3k", "~240k", "~1.25M".
export function formatTokens(tokens) {
  const t = int64(tokens) ?? 0;
  if (t < 1000) return `~${t}`;
  if (t < 100000) return `~${(t / 1000).toFixed(1)}k`;
  if (t < 1000000) return `~${(t / 1000).toFixed(0)}k`;
  return `~${(t / 1000000).toFixed(2)}M`;
}

// "~12.3k", or "~12.3k (9.6%)" when the estimate carries a window.
export function formatContext(estimate) {
  if (!estimate) return "";
  let text = formatTokens(estimate.tokens);
  const window = int64(estimate.windowTokens);
  if (window !== undefined && window > 0) {
    const percent =
      typeof estimate.percent === "number" ? estimate.percent : (100 * (int64(estimate.tokens) ?? 0)) / window;
    text += ` (${percent.toFixed(percent < 10 ? 1 : 0)}%)`;
  }
  return text;
}

// A reported count: "850", "48.2k", "1.25M"; "unknown" when unreported.
export function formatCount(count) {
  const v = int64(count);
  if (v === undefined) return "unknown";
  if (v < 1000) return String(v);
  if (v < 1000000) return `${(v / 1000).toFixed(1)}k`;
  return `${(v / 1000000).toFixed(2)}M`;
}

// "1,234,567".
export function groupDigits(value) {
  const v = int64(value) ?? 0;
  const digits = String(Math.abs(Math.trunc(v)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return v < 0 ? `-${grouped}` : grouped;
}

// The usage fields of GetStatsResponse, in display order, with the noun the
// coverage sentence uses for each.
export const USAGE_FIELDS = [
  { key: "inputTokens", label: "Input tokens", noun: "input tokens" },
  { key: "outputTokens", label: "Output tokens", noun: "output tokens" },
  { key: "cacheReadTokens", label: "Cache reads", noun: "cache reads" },
  { key: "cacheWriteTokens", label: "Cache writes", noun: "cache writes" },
  { key: "reasoningTokens", label: "Reasoning tokens", noun: "reasoning tokens" },
];

// One row per usage field of a GetStatsResponse: its total ("unknown" when
// no request reported it) and "12 of 14 requests reported cache reads".
export function usageRows(stats) {
  const requests = int64(stats?.requests) ?? 0;
  return USAGE_FIELDS.map(({ key, label, noun }) => {
    const field = stats?.[key] ?? {};
    const reported = int64(field.requestsReported) ?? 0;
    const total = reported > 0 ? int64(field.total) : undefined;
    return {
      key,
      label,
      total: total === undefined ? "unknown" : groupDigits(total),
      coverage: `${reported} of ${requests} ${requests === 1 ? "request" : "requests"} reported ${noun}`,
    };
  });
}

// "Cache-read ratio 42.0% (over 12 requests)", or a sentence saying why there
// is none.
export function cacheRatioText(stats) {
  const ratio = stats?.cacheReadRatio;
  if (typeof ratio !== "number") return "Cache-read ratio: no request reported both input tokens and cache reads";
  const over = int64(stats.cacheRatioRequests) ?? 0;
  return `Cache-read ratio ${(ratio * 100).toFixed(1)}% (over ${over} ${over === 1 ? "request" : "requests"})`;
}

// Raw's own time per step as rawd timed it (GetStats' overhead); null
// until a step of the session was timed.
export function overheadText(stats) {
  const o = stats?.overhead;
  const steps = int64(o?.steps) ?? 0;
  if (steps === 0) return null;
  const ms = (us) => ((int64(us) ?? 0) / 1000).toFixed(2);
  return `Raw's own overhead per step: p50 ${ms(o.p50Us)} ms, p99 ${ms(o.p99Us)} ms (over ${steps} ${steps === 1 ? "step" : "steps"}; the model, tools and approvals left out)`;
}

// "01hx3k7q": the first 8 characters of a session id after any "sess_".
export function shortSessionId(id) {
  const s = String(id ?? "");
  return (s.startsWith("sess_") ? s.slice(5) : s).slice(0, 8);
}

// Compaction lines, as the terminal client words them.
export function compactionStartedText(started) {
  let text = started.trigger === "COMPACTION_TRIGGER_AUTOMATIC" ? "compacting the context automatically (" : "compacting the context (";
  text += `${formatTokens(started.tokensBefore)} tokens`;
  if ((started.chunks ?? 0) > 1) text += `, ${started.chunks} summaries`;
  return `${text})`;
}

export function compactionProgressText(progress) {
  return `compacting: summary ${progress.chunk ?? 0} of ${progress.chunks ?? 0}`;
}

const OUTCOMES = {
  COMPACTION_OUTCOME_ACCEPTED: "compacted",
  COMPACTION_OUTCOME_REJECTED: "summary rejected; context unchanged",
  COMPACTION_OUTCOME_FAILED: "failed; context unchanged",
  COMPACTION_OUTCOME_CANCELLED: "cancelled; context unchanged",
  COMPACTION_OUTCOME_NOTHING_TO_COMPACT: "nothing to compact yet",
};

export function compactionEndedText(ended) {
  if (ended.outcome === "COMPACTION_OUTCOME_ACCEPTED") {
    return `context compacted: ${formatTokens(ended.tokensBefore)} → ${formatTokens(ended.tokensAfter)} tokens`;
  }
  let outcome = OUTCOMES[ended.outcome] ?? "ended";
  if (ended.message) outcome += ` (${ended.message})`;
  return `compaction ${outcome}`;
}

// "2 minutes ago"-style relative time is locale noise; sessions show a
// date and time, in the browser's time zone ("2025-03-07 09:05").
export function formatTime(unixMs) {
  const ms = int64(unixMs);
  if (ms === undefined || ms === 0) return "";
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

// "1 model request", "12 model requests".
export function requestsText(requests) {
  const n = int64(requests) ?? 0;
  return `${groupDigits(n)} model ${n === 1 ? "request" : "requests"}`;
}

// The session list's status line: how many sessions it shows.
export function sessionsShownText(count, query) {
  if (count === 0) return query ? "No session matches." : "No sessions yet.";
  return `${count} shown`;
}

const TURN_END_REASONS = {
  TURN_END_REASON_COMPLETED: "Turn completed",
  TURN_END_REASON_MAX_STEPS: "Turn stopped at the agent's step limit",
  TURN_END_REASON_CANCELLED: "Turn interrupted",
  TURN_END_REASON_ERROR: "Turn failed",
};

// The line that ends a turn in the conversation, and what is announced to
// screen readers then: "Turn failed: the provider refused".
export function turnEndText(reason, message) {
  return `${TURN_END_REASONS[reason] ?? "Turn ended"}${message ? `: ${message}` : ""}`;
}

// A tool status enum as a short word.
export function toolStatusWord(status) {
  switch (status) {
    case "TOOL_RESULT_STATUS_OK": return "ok";
    case "TOOL_RESULT_STATUS_ERROR": return "error";
    case "TOOL_RESULT_STATUS_CANCELLED": return "cancelled";
    case "TOOL_RESULT_STATUS_DENIED": return "denied";
    case "TOOL_RESULT_STATUS_SKIPPED": return "skipped";
    default: return "done";
  }
}
