// The Details panel of a conversation: usage per field with how many
// requests reported it ("12 of 14 requests reported cache reads"), the
// cache-read ratio, the context estimate, compactions, Raw's own overhead
// per step, and the status of
// the MCP servers (GetStats and ListMcpServers through the gateway).
import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { cacheRatioText, formatContext, groupDigits, overheadText, usageRows } from "./format.js";

const MCP_STATES = {
  MCP_SERVER_STATE_STOPPED: "stopped",
  MCP_SERVER_STATE_STARTING: "starting",
  MCP_SERVER_STATE_READY: "ready",
  MCP_SERVER_STATE_FAILED: "failed",
};

export class DetailsView {
  constructor(sessionId) {
    this.sessionId = sessionId;
    this.el = h("aside", { id: "details", class: "details", "aria-labelledby": "details-title", hidden: true },
      h("h2", { id: "details-title" }, "Details"));
    this.body = h("div", {});
    this.el.append(this.body);
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
    this.body.append(
      h("h3", {}, "Usage"),
      h("p", { id: "details-requests" }, `${groupDigits(stats.requests ?? 0)} model requests`),
      h("table", { class: "usage", id: "usage-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Total"), h("th", { scope: "col" }, "Reported by"))),
        h("tbody", {}, rows.map((r) => h("tr", { dataset: { field: r.key } },
          h("th", { scope: "row" }, r.label), h("td", {}, r.total), h("td", { class: "coverage" }, r.coverage))))),
      h("p", { id: "cache-ratio" }, cacheRatioText(stats)),
      h("p", {}, `Context ${stats.context ? formatContext(stats.context) : "unknown"}`),
      h("p", {}, `Compactions: ${stats.compactions ?? 0}`));
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
