// The Details panel of a conversation: usage per field with how many
// requests reported it ("12 of 14 requests reported cache reads"), the
// cache-read ratio, the context estimate, compactions, Raw's own overhead
// per step, and the status of
// the MCP servers (GetStats and ListMcpServers through the gateway).
// While a turn runs it keeps up with the footer: the context estimate is the
// footer's own (each estimate event redraws it), and the stats are read
// again after each model request (throttled: at most one read a second).
import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { cacheRatioText, formatContext, overheadText, requestsText, usageRows } from "./format.js";
import { throttle } from "./throttle.js";

export const STATS_REFRESH_MS = 1000;

const MCP_STATES = {
  MCP_SERVER_STATE_STOPPED: "stopped",
  MCP_SERVER_STATE_STARTING: "starting",
  MCP_SERVER_STATE_READY: "ready",
  MCP_SERVER_STATE_FAILED: "failed",
};

// Which events make the panel redraw what: "context" for a new estimate,
// "stats" for the end of a model request (its usage) or of a turn,
// compaction or clear; null for the others (text deltas above all).
export function detailsChange(event) {
  if (!event) return null;
  if (event.contextEstimate) return "context";
  if (event.usage || event.assistantMessage || event.turnEnded || event.compactionEnded || event.contextCleared) return "stats";
  return null;
}

export class DetailsView {
  // `context()`: the estimate the footer shows (the newest live one), used
  // before the one the stats carry. `onClose`: the panel's Hide button.
  constructor(sessionId, { context = () => null, onClose = () => {} } = {}) {
    this.sessionId = sessionId;
    this.context = context;
    this.closeButton = h("button", { type: "button", id: "details-close", class: "small", "aria-controls": "details",
                                     "aria-label": "Hide details", onclick: onClose }, "Hide");
    this.el = h("aside", { id: "details", class: "details", "aria-labelledby": "details-title", hidden: true },
      h("div", { class: "details-head" }, h("h2", { id: "details-title" }, "Details"), this.closeButton));
    this.body = h("div", {});
    this.el.append(this.body);
    this.refreshSoon = throttle(() => this.refresh(), STATS_REFRESH_MS);
  }

  // What a live event changes in the panel, when it is open.
  onEvent(event) {
    if (!this.open) return;
    const change = detailsChange(event);
    if (change === "context") this.showContext();
    else if (change === "stats") this.refreshSoon();
  }

  // The context line: the footer's estimate, else the one the stats read.
  showContext() {
    const line = this.el.querySelector("#details-context");
    if (!line) return;
    const estimate = this.context() ?? this.statsContext;
    line.textContent = `Context ${estimate ? formatContext(estimate) : "unknown"}`;
  }

  get open() {
    return !this.el.hidden;
  }

  async refresh() {
    if (!this.open) return;
    const [stats, mcp] = await Promise.allSettled([api.stats(this.sessionId), api.mcp(this.sessionId)]);
    clear(this.body);
    if (stats.status === "fulfilled") this.renderStats(stats.value);
    else this.body.append(h("p", { class: "error" }, `Usage unavailable: ${stats.reason.message}`));
    if (mcp.status === "fulfilled") this.renderMcp(mcp.value);
    else this.body.append(h("p", { class: "error" }, `MCP status unavailable: ${mcp.reason.message}`));
  }

  renderStats(stats) {
    const rows = usageRows(stats);
    this.statsContext = stats.context;
    this.body.append(
      h("h3", {}, "Usage"),
      h("p", { id: "details-requests" }, requestsText(stats.requests)),
      h("table", { class: "usage", id: "usage-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Total"), h("th", { scope: "col" }, "Reported by"))),
        h("tbody", {}, rows.map((r) => h("tr", { dataset: { field: r.key } },
          h("th", { scope: "row" }, r.label), h("td", {}, r.total), h("td", { class: "coverage" }, r.coverage))))),
      h("p", { id: "cache-ratio" }, cacheRatioText(stats)),
      h("p", { id: "details-context" }),
      h("p", {}, `Compactions: ${stats.compactions ?? 0}`));
    this.showContext();
    const overhead = overheadText(stats);
    if (overhead) this.body.append(h("p", { id: "overhead" }, overhead));
  }

  renderMcp(response) {
    const servers = response.servers ?? [];
    this.body.append(h("h3", {}, "MCP servers"));
    if (servers.length === 0) {
      this.body.append(h("p", { class: "muted" }, "No MCP servers configured."));
      return;
    }
    this.body.append(h("ul", { class: "mcp-list", id: "mcp-list" }, servers.map((s) => {
      const state = MCP_STATES[s.state] ?? "unknown";
      return h("li", { class: `mcp-${state}` },
        h("strong", {}, s.name), ` — ${state} (${s.transport}, ${s.endpoint})`,
        s.tools?.length ? h("span", { class: "muted" }, ` · ${s.tools.length} tools`) : null,
        s.lastError ? h("p", { class: "error" }, s.lastError) : null);
    })));
  }
}
