// The session list: newest activity first, 50 a page ("More" loads the
// next), search by title or directory, a form to start a session with an
// agent and a directory, and delete with a confirmation.
import { api } from "./api.js";
import { h, clear, announce } from "./dom.js";
import { formatTime, sessionsShownText, shortSessionId } from "./format.js";
import { confirmDialog, takeTypedAhead } from "./app.js";

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
    this.submitButton = h("button", { type: "submit", id: "new-session-submit" }, "Start session");
    const form = h("form", { class: "new-session", "aria-label": "New session", onsubmit: (e) => this.create(e) },
      h("h2", {}, "New session"),
      h("label", { for: "new-agent" }, "Agent"), this.agentSelect,
      h("label", { for: "new-directory" }, "Directory"), this.dirInput,
      this.submitButton,
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
      const rows = (r.sessions ?? []).map((s) => this.row(s));
      this.list.append(...rows);
      this.nextToken = r.nextPageToken ?? "";
      const moreHadFocus = document.activeElement === this.more;
      this.more.hidden = !this.nextToken;
      this.showCount();
      // "More sessions" read: the focus goes on to the first session it
      // added (the button may be gone), not to the page.
      if (!reset && moreHadFocus) (rows[0]?.querySelector("a") ?? this.search).focus();
    } catch (e) {
      this.status.textContent = `Could not list sessions: ${e.message}`;
    }
  }

  showCount() {
    this.status.textContent = sessionsShownText(this.list.children.length, this.query);
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
      const row = this.list.querySelector(`li[data-id="${CSS.escape(s.id)}"]`);
      // The focus goes to the next session's Delete (else the one before,
      // else the search box), where it was, not to the page.
      const next = row?.nextElementSibling ?? row?.previousElementSibling;
      row?.remove();
      this.showCount();
      (next?.querySelector("button") ?? this.search).focus();
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
    // Until the conversation shows, what is typed is kept for its message
    // box (app.js), and no shortcut runs.
    this.opening = true;
    this.submitButton.disabled = true;
    try {
      const r = await api.createSession({ agent: this.agentSelect.value, cwd: directory });
      location.hash = `#/s/${encodeURIComponent(r.session.id)}`;
    } catch (err) {
      this.opening = false;
      this.submitButton.disabled = false;
      takeTypedAhead();  // not for another session
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
