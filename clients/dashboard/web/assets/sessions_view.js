// The session list: newest activity first, 50 a page ("More" loads the
// next), search by title or directory, a form to start a session with an
// agent and a directory, and delete with a confirmation.
import { api } from "./api.js";
import { h, clear, announce } from "./dom.js";
import { formatTime, shortSessionId } from "./format.js";
import { confirmDialog } from "./app.js";

const PAGE = 50;

export class SessionsView {
  constructor(root) {
    this.root = root;
    this.nextToken = "";
    this.query = "";
    this.search = h("input", { type: "search", id: "session-search", placeholder: "Search title or directory",
                                "aria-label": "Search sessions by title or directory", oninput: () => this.onSearch() });
    this.list = h("ul", { class: "session-list", "aria-label": "Sessions", id: "session-list" });
    this.more = h("button", { type: "button", id: "sessions-more", hidden: true, onclick: () => this.load(false) }, "More sessions");
    this.status = h("p", { class: "muted", role: "status", id: "sessions-status" });
    this.agentSelect = h("select", { id: "new-agent", "aria-label": "Agent" });
    this.dirInput = h("input", { id: "new-directory", type: "text", required: true, placeholder: "/absolute/path",
                                  "aria-label": "Working directory (absolute path)" });
    this.createError = h("p", { class: "error", role: "alert" });
    const form = h("form", { class: "new-session", "aria-label": "New session", onsubmit: (e) => this.create(e) },
      h("h2", {}, "New session"),
      h("label", { for: "new-agent" }, "Agent"), this.agentSelect,
      h("label", { for: "new-directory" }, "Directory"), this.dirInput,
      h("button", { type: "submit", id: "new-session-submit" }, "Start session"),
      this.createError);
    root.append(h("section", { class: "sessions" },
      h("h1", {}, "Sessions"),
      h("div", { class: "row" }, this.search),
      this.status, this.list, this.more),
    form);
    this.loadAgents();
    this.load(true);
  }

  async loadAgents() {
    try {
      const { agents = [] } = await api.agents();
      clear(this.agentSelect);
      for (const a of agents) {
        this.agentSelect.append(h("option", { value: a.name, selected: a.isDefault }, a.isDefault ? `${a.name} (default)` : a.name));
      }
    } catch (e) {
      this.createError.textContent = `Could not list agents: ${e.message}`;
    }
  }

  onSearch() {
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      this.query = this.search.value.trim();
      this.load(true);
    }, 200);
  }

  async load(reset) {
    if (reset) {
      this.nextToken = "";
      this.generation = (this.generation ?? 0) + 1;
    }
    const generation = this.generation;
    this.status.textContent = "Loading…";
    try {
      const r = await api.sessions({ page_size: PAGE, page_token: this.nextToken, query: this.query });
      if (generation !== this.generation) return;  // a newer search won
      if (reset) clear(this.list);
      for (const s of r.sessions ?? []) this.list.append(this.row(s));
      this.nextToken = r.nextPageToken ?? "";
      this.more.hidden = !this.nextToken;
      const count = this.list.children.length;
      this.status.textContent = count === 0 ? (this.query ? "No session matches." : "No sessions yet.") : `${count} shown`;
    } catch (e) {
      this.status.textContent = `Could not list sessions: ${e.message}`;
    }
  }

  row(s) {
    const title = s.title || "(untitled)";
    const expires = formatTime(s.expiresAtUnixMs);
    return h("li", { class: "session", dataset: { id: s.id } },
      h("a", { href: `#/s/${encodeURIComponent(s.id)}`, class: "session-link" },
        h("span", { class: "title" }, title),
        h("span", { class: "meta" }, `${s.agent} · ${s.cwd} · ${formatTime(s.lastActivityUnixMs)} · ${shortSessionId(s.id)}`,
          expires ? ` · expires ${expires}` : "")),
      h("button", { type: "button", class: "danger small", "aria-label": `Delete session ${title}`,
                    onclick: () => this.remove(s, title) }, "Delete"));
  }

  async remove(s, title) {
    const ok = await confirmDialog("Delete this session?", `“${title}” (${s.cwd}) and its whole history will be deleted. This cannot be undone.`, "Delete");
    if (!ok) return;
    try {
      await api.deleteSession(s.id);
      this.list.querySelector(`li[data-id="${CSS.escape(s.id)}"]`)?.remove();
      announce("Session deleted");
    } catch (e) {
      this.status.textContent = `Could not delete: ${e.message}`;
    }
  }

  async create(e) {
    e.preventDefault();
    this.createError.textContent = "";
    const directory = this.dirInput.value.trim();
    if (!directory.startsWith("/")) {
      this.createError.textContent = "The directory must be an absolute path (starting with /).";
      this.dirInput.focus();
      return;
    }
    try {
      const r = await api.createSession({ agent: this.agentSelect.value, cwd: directory });
      location.hash = `#/s/${encodeURIComponent(r.session.id)}`;
    } catch (err) {
      this.createError.textContent = `Could not start the session: ${err.message}`;
    }
  }

  onKey(e) {
    if (e.key === "/") {
      this.search.focus();
      return true;
    }
    if (e.key === "n") {
      this.dirInput.focus();
      return true;
    }
    return false;
  }
}
