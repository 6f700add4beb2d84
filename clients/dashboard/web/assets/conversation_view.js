// One session: the transcript (newest page first, older pages loaded as the
// reader scrolls up), live events over the session's WebSocket, the
// approval prompt, the compose box, the footer and the Details panel.
// Writing needs the session's writer lease: while another client holds it
// the view is a follower (read-only) with a "Request to write" action.
import {api} from './api.js';
import {prefs, showHelp, sinceTypingMs, takeTypedAhead, updatePrefs} from './app.js';
import {ApprovalView} from './approval_view.js';
import {completions, InputHistory, parseInput, recalledPrompts} from './commands.js';
import {DetailsView} from './details_view.js';
import {announce, clear, h, inField} from './dom.js';
import {formatContext, formatCount, int64, turnEndText} from './format.js';
import {formatBytes, IMAGE_TYPES, imageName, refusal, sniffImageType, toBase64} from './images.js';
import {LiveSession} from './live.js';
import {renderItem} from './render_items.js';
import {OpenSections} from './sections.js';
import {batchCallIds, LaterEvents, pageItems, Transcript} from './transcript.js';

const PAGE = 200;

const bySeq = (a, b) => (int64(a.seq) ?? 0) - (int64(b.seq) ?? 0);

export class ConversationView {
  constructor(root, sessionId) {
    this.sessionId = sessionId;
    this.transcript = new Transcript();
    this.elements = new Map();  // item key -> element
    this.sections = new OpenSections();  // the <details> the reader opened or closed
    this.dirty = new Set();
    this.lease = { state: "none", holder: "" };
    this.history = new InputHistory();
    this.olderCursor = "";
    this.oldestSeq = 0;
    this.hasOlder = false;
    this.loadingOlder = false;
    // Prompts and compactions sent whose reply has not come: rawd answers
    // once it has prepared the turn (secret variables may take minutes).
    // Interrupt stops them, and no second one is sent meanwhile.
    this.preparing = 0;
    // What the events read so far say to the older pages still to load.
    this.later = new LaterEvents();
    // Call id -> the element key of a card made from a result alone (its
    // call is in an older page); the card goes once that page shows the call.
    this.orphans = new Map();

    this.title = h("h1", { id: "conversation-title" }, "Session");
    this.leaseBadge = h("span", { class: "lease", id: "lease-state", role: "status" });
    this.requestButton = h("button", { type: "button", id: "request-write", hidden: true, onclick: () => this.requestWrite() }, "Request to write");
    this.interruptButton = h("button", { type: "button", id: "interrupt", disabled: true, "aria-keyshortcuts": "Escape",
                                         onclick: () => this.interrupt() }, "Interrupt");
    this.detailsButton = h("button", { type: "button", id: "details-toggle", "aria-controls": "details", "aria-expanded": "false",
                                       "aria-keyshortcuts": "d", onclick: () => this.toggleDetails() }, "Details");
    this.banner = h("p", { class: "banner", id: "banner", role: "status", hidden: true });
    this.sentinel = h("li", { class: "sentinel", id: "history-top", "aria-hidden": "true" });
    // Not a live region: a streamed answer is drawn again at each frame and
    // would be read out again each time. Turn ends and approvals are
    // announced instead (#announcer).
    this.list = h("ol", { class: "transcript", id: "transcript", "aria-label": "Conversation" }, this.sentinel);
    this.scroller = h("div", { class: "scroller", id: "scroller", tabindex: 0, "aria-label": "Conversation history" }, this.list);
    this.approval = new ApprovalView((requestId, decision, message, callIds, sessionRule) => this.live.send("approve", {
      approval_id: requestId, decision, ...(message ? { message } : {}), ...(callIds ? { call_ids: callIds } : {}),
      ...(sessionRule ? { session_rule: sessionRule } : {}),
    }));
    // An answered prompt goes away: the focus goes back to the message box.
    this.approval.onFocusLost = () => this.input.focus();
    this.input = h("textarea", { id: "compose", rows: 3, "aria-label": "Message (Enter sends, Shift+Enter adds a line, / for commands)",
                                 placeholder: "Message, or / for commands", "aria-describedby": "compose-hint",
                                 onkeydown: (e) => this.onComposeKey(e), oninput: () => this.showCompletions(),
                                 onpaste: (e) => this.onPaste(e) });
    this.hint = h("p", { id: "compose-hint", class: "hint", "aria-live": "polite" });
    this.sendButton = h("button", { type: "submit", id: "send" }, "Send");
    // Images to send with the next prompt ({name, size, mimeType, data}),
    // shown as thumbnails above the message box.
    this.attached = [];
    this.attachmentList = h("ul", { class: "attachments", id: "attachments", "aria-label": "Attached images", hidden: true });
    this.fileInput = h("input", { type: "file", id: "attach-input", accept: IMAGE_TYPES.join(","), multiple: true, hidden: true,
                                  tabindex: -1, "aria-label": "Image files to attach",
                                  onchange: () => { this.attachFiles([...this.fileInput.files]); this.fileInput.value = ""; } });
    this.attachButton = h("button", { type: "button", id: "attach-image", "aria-controls": "attachments",
                                      title: "PNG, JPEG, GIF or WebP; at most 10 images, 5 MB each, 10 MB together (or paste one into the message box)",
                                      onclick: () => this.fileInput.click() }, "Attach image");
    this.compose = h("form", { class: "compose", "aria-label": "Compose", onsubmit: (e) => { e.preventDefault(); this.submit(); } },
      this.attachmentList, this.input, h("div", { class: "row" }, this.hint, this.fileInput, this.attachButton, this.sendButton));
    this.footer = h("footer", { class: "status-footer", id: "status-footer", "aria-label": "Session status" });
    this.details = new DetailsView(sessionId, { context: () => this.transcript.context, onClose: () => this.toggleDetails() });
    if (prefs().collapsed.details === false) this.details.el.hidden = false;

    const conversation = h("section", { class: "conversation", "aria-labelledby": "conversation-title" },
      h("div", { class: "conversation-head" }, this.title, this.leaseBadge, this.requestButton, this.interruptButton, this.detailsButton),
      this.banner, this.scroller, this.approval.el, this.compose, this.footer);
    root.append(h("div", { class: "conversation-layout" }, conversation, this.details.el));
    this.syncDetailsButton();
    // The message box takes keys at once, with what was typed while the
    // session was being created; it is disabled only once another client
    // turns out to write (onLease), and sending waits for the lease.
    this.input.value = takeTypedAhead();
    this.input.focus();
    this.start();
  }

  async start() {
    try {
      // The session and its newest page at once, and the first screen does
      // not wait for a long session's model context to load: the estimate
      // follows (refreshContext).
      const [{ session }, page] = await Promise.all([
        api.session(this.sessionId, { without_context: "true" }),
        api.history(this.sessionId, { limit: PAGE }),
      ]);
      this.session = session;
      this.title.textContent = session.title || "New session";
      const events = (page.events ?? []).sort(bySeq);
      for (const e of events) {
        this.transcript.apply(e);
        this.later.note(e);
      }
      // A compaction the history shows started but rawd no longer runs (it
      // stopped mid-way) keeps nothing busy.
      const t = this.transcript;
      if (t.compacting && session.turnState !== "TURN_STATE_COMPACTING" && (t.compaction?.seq ?? 0) <= (int64(session.lastSeq) ?? 0)) {
        t.compacting = false;
      }
      for (const item of this.transcript.items) this.place(item);
      this.history.prepend(recalledPrompts(this.transcript.items));
      this.noteOlder(page, events);
      this.scrollToBottom();
      // From the page's newest event: the session was read beside the page,
      // so its lastSeq may already be past events the page does not hold.
      this.connect(this.transcript.lastSeq);
      this.observeTop();
      this.renderFooter();
      this.details.refresh();
      this.refreshContext();
    } catch (e) {
      this.showBanner(`Could not open the session: ${e.message}`);
    }
  }

  // The context estimate, once rawd has the model context loaded; a live
  // estimate that came first is newer and stays.
  async refreshContext() {
    try {
      const { session } = await api.session(this.sessionId);
      if (this.destroyed || this.transcript.context || !session.context) return;
      this.transcript.context = session.context;
      this.renderFooter();
    } catch {
      // The footer shows no estimate; the next turn's estimate event brings one.
    }
  }

  connect(afterSeq) {
    this.live = new LiveSession(this.sessionId, afterSeq, {
      event: (f) => this.onEvent(f.event),
      lease: (f) => this.onLease(f),
      handover_requested: (f) => this.onHandoverRequested(f),
      handover_withdrawn: () => this.onHandoverWithdrawn(),
      disconnected: (f) => this.showBanner(`The daemon went away (${f.why}); reconnecting…`),
      reconnected: () => this.showBanner(''),
      closed: () => this.showBanner(
          'The live connection to the dashboard server closed; reload the page to reconnect.'),
    });
    // The lease frame sent on open says whether anyone writes; onLease takes
    // the lease when nobody does.
  }

  destroy() {
    this.destroyed = true;
    this.observer?.disconnect();
    this.live?.close();
  }

  // ---- transcript ----------------------------------------------------------

  onEvent(event) {
    if (!event) return;
    const atBottom = this.atBottom();
    for (const key of this.transcript.apply(event)) this.dirty.add(key);
    this.later.note(event);
    if (event.assistantMessage || event.userMessage) {
      if (!this.title.textContent || this.title.textContent === "New session") this.refreshTitle();
    }
    if (event.turnEnded) announce(turnEndText(event.turnEnded.reason, event.turnEnded.message));
    if (event.turnEnded || event.compactionEnded || event.contextCleared) {
      this.refreshTitle().then(() => this.renderFooter());
    }
    this.details.onEvent(event);
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.flush(atBottom));
  }

  // Renders what changed since the last frame (streamed deltas coalesce).
  flush(stickToBottom) {
    for (const key of this.dirty) {
      const item = this.transcript.byKey.get(key);
      if (item) this.place(item);
    }
    this.dirty.clear();
    this.approval.show(this.transcript.pendingApproval(), this.lease.state === "holding");
    this.renderFooter();
    if (stickToBottom) this.scrollToBottom();
  }

  place(item) {
    if (item.merged) return;
    this.noteOrphans(item, item.key);
    const el = renderItem(item, this.sections);
    const old = this.elements.get(item.key);
    if (old) old.replaceWith(el);
    else this.list.append(el);
    this.elements.set(item.key, el);
  }

  async refreshTitle() {
    try {
      const { session } = await api.session(this.sessionId);
      this.session = session;
      this.title.textContent = session.title || "New session";
    } catch {
      // The title is cosmetic; the next event tries again.
    }
  }

  atBottom() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 40;
  }

  scrollToBottom() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  // ---- older pages ---------------------------------------------------------

  noteOlder(page, events) {
    if (events.length > 0) this.oldestSeq = int64(events[0].seq) ?? 0;
    this.olderCursor = page.nextCursor ?? "";
    this.hasOlder = events.length > 0 && ("nextCursor" in page ? !!page.nextCursor : this.oldestSeq > 1);
    this.sentinel.dataset.more = this.hasOlder ? "yes" : "no";
  }

  observeTop() {
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.loadOlder();
    }, { root: this.scroller, rootMargin: "400px 0px 0px 0px" });
    this.observer.observe(this.sentinel);
  }

  async loadOlder() {
    if (!this.hasOlder || this.loadingOlder || this.destroyed) return;
    this.loadingOlder = true;
    try {
      const page = await api.history(this.sessionId, { limit: PAGE, cursor: this.olderCursor });
      const events = (page.events ?? []).filter((e) => (int64(e.seq) ?? 0) < this.oldestSeq).sort(bySeq);
      const before = this.scroller.scrollHeight;
      const fragment = document.createDocumentFragment();
      const items = pageItems(events, this.later);
      for (const e of events) this.later.note(e);
      this.dropOrphans(batchCallIds(items));
      this.history.prepend(recalledPrompts(items));
      for (const item of items) {
        this.noteOrphans(item, `older-${item.key}`);
        const el = renderItem(item, this.sections);
        this.elements.set(`older-${item.key}`, el);
        fragment.append(el);
      }
      this.sentinel.after(fragment);
      this.scroller.scrollTop += this.scroller.scrollHeight - before;
      this.noteOlder(page, events);
      this.list.dataset.pages = String((int64(this.list.dataset.pages) ?? 1) + 1);
    } catch (e) {
      this.showBanner(`Could not load older history: ${e.message}`);
    } finally {
      this.loadingOlder = false;
    }
    // Still in view (a short page): keep going.
    const top = this.sentinel.getBoundingClientRect().bottom - this.scroller.getBoundingClientRect().top;
    if (this.hasOlder && top > -400) this.loadOlder();
  }

  // Remembers the cards of `item` made from a result alone.
  noteOrphans(item, key) {
    if (item.kind !== "tools") return;
    for (const c of item.calls) if (c.orphan) this.orphans.set(c.callId, { item, key });
  }

  // Removes the result-only cards of calls an older page now shows with
  // their batch (and their result, from LaterEvents): one card per call.
  dropOrphans(callIds) {
    for (const id of callIds) {
      const orphan = this.orphans.get(id);
      if (!orphan) continue;
      this.orphans.delete(id);
      orphan.item.merged = true;
      this.elements.get(orphan.key)?.remove();
      this.elements.delete(orphan.key);
    }
  }

  // ---- lease ---------------------------------------------------------------

  onLease(frame) {
    this.lease = { state: frame.state, holder: frame.holder ?? "" };
    const writing = frame.state === "holding";
    this.leaseBadge.textContent = {
      holding: "Writing",
      waiting: `Waiting for ${frame.holder || "the writer"} to hand over`,
      follower: `Following: ${frame.holder || "another client"} is writing`,
      none: "Nobody is writing",
      unknown: "Not writing: waiting for the daemon",
    }[frame.state] ?? frame.state;
    this.leaseBadge.dataset.state = frame.state;
    this.requestButton.hidden = writing || frame.state === "waiting" || frame.state === "unknown";
    // While nobody writes the tab is about to take the lease: the box keeps
    // taking keys (and its focus) meanwhile.
    this.input.disabled = !writing && frame.state !== "none";
    this.sendButton.disabled = !writing;
    this.attachButton.disabled = !writing;
    this.input.placeholder = writing ? "Message, or / for commands"
      : frame.state === "unknown" ? "Read-only until the daemon answers again"
      : "Read-only while another client writes; Request to write first";
    // Nobody writes: take the lease (one request at a time).
    if (frame.state === "none" && !this.acquiring) {
      this.acquiring = true;
      // Refused when another client got there first; its lease frame follows.
      this.live.send("acquire_lease").catch(() => {}).finally(() => { this.acquiring = false; });
    }
    this.approval.show(this.transcript.pendingApproval(), writing);
    this.renderFooter();
  }

  async requestWrite() {
    try {
      await this.live.send("acquire_lease", { request_handover: true });
    } catch (e) {
      this.showBanner(`Could not request to write: ${e.message}`);
    }
  }

  onHandoverRequested(frame) {
    this.showBanner("");
    const keep = h("button", { type: "button", id: "decline-handover", onclick: () => { this.live.send("decline_handover"); this.showBanner(""); } }, "Keep writing");
    const give = h("button", { type: "button", id: "hand-over", onclick: () => { this.live.send("release_lease"); this.showBanner(""); } }, "Hand over");
    const asks = `${frame.by || "Another client"} asks to write.`;
    const words = h("span", { id: "handover-text", tabindex: -1 }, asks);
    this.banner.append(words, " ", give, " ", keep);
    this.banner.hidden = false;
    // Like an approval prompt: typing stays where it is, and the focus never
    // lands on a button that answers (the next Space would hand over).
    if (inField(document.activeElement)) {
      announce(`${asks} Hand over or Keep writing are above the conversation; your typing stays where it is`);
    } else {
      announce(asks);
      words.focus();
    }
  }

  // Nobody asks any more: the question goes (a Hand over now would give
  // the session to a tab that only waits, or to nobody).
  onHandoverWithdrawn() {
    if (!this.banner.querySelector('#hand-over')) return;
    this.showBanner('');
    announce('The request to write was withdrawn; this tab keeps writing.');
  }

  showBanner(text) {
    clear(this.banner);
    this.banner.textContent = text;
    this.banner.hidden = !text;
  }

  // ---- commands ------------------------------------------------------------

  async submit() {
    const raw = this.input.value;
    const parsed = parseInput(raw);
    // Images alone make a prompt too.
    const images = this.attached;
    const prompt = parsed.kind === "prompt" || (parsed.kind === "empty" && images.length > 0);
    if (parsed.kind === "empty" && !prompt) return;
    if (parsed.kind === "error") {
      this.hint.textContent = parsed.message;
      return;
    }
    if (parsed.name !== "help" && (this.lease.state !== "holding" || !this.live)) {
      this.hint.textContent = "Not sent yet: this tab is not writing (the session is still opening, or another client writes).";
      return;
    }
    if ((prompt || parsed.name === "compact") && this.preparing > 0) {
      this.hint.textContent = "The last prompt is still being prepared; wait for it to start, or Interrupt it.";
      return;
    }
    if (raw.trim() !== "") this.history.push(raw);
    this.input.value = "";
    this.hint.textContent = "";
    if (prompt) this.setAttached([]);
    try {
      if (prompt) {
        const fields = { text: parsed.kind === "prompt" ? parsed.text : "" };
        if (images.length > 0)
          fields.images =
              images.map((i) => ({mimeType: i.mimeType, data: i.data, name: imageName(i.name)}));
        await this.whilePreparing(this.live.send("prompt", fields));
      } else if (parsed.name === "help") {
        showHelp();
      } else if (parsed.name === "compact") {
        await this.whilePreparing(this.live.send("compact"));
      } else if (parsed.name === "clear") {
        await this.live.send("clear");
      } else if (parsed.name === "agent") {
        await this.live.send("set_agent", { agent: parsed.arg });
        announce(`Agent set to ${parsed.arg}`);
        this.refreshTitle().then(() => this.renderFooter());
      } else if (parsed.name === "model") {
        await this.live.send("set_model", { model: parsed.arg });
        announce(`Model set to ${parsed.arg}`);
        this.refreshTitle().then(() => this.renderFooter());
      }
    } catch (e) {
      this.hint.textContent = e.message ?? String(e);
      // What failed is back in the box, a command (/agent nosuch) as a prompt.
      if (!this.input.value) this.input.value = raw;
      if (prompt && this.attached.length === 0) this.setAttached(images);
    }
  }

  // Counts `reply` (of a prompt or a compact) as being prepared until it
  // comes.
  async whilePreparing(reply) {
    this.preparing += 1;
    this.renderFooter();
    try {
      return await reply;
    } finally {
      this.preparing -= 1;
      this.renderFooter();
    }
  }

  // A turn or compaction runs or is being prepared: Interrupt stops it.
  get busy() {
    return this.transcript.busy || this.preparing > 0;
  }

  // ---- attached images -----------------------------------------------------

  // Attaches what of `files` rawd would take; says in the hint why any
  // other was refused (nothing is sent).
  async attachFiles(files) {
    const refused = [];
    for (const file of files) {
      const name = file.name || "The pasted image";
      let why = refusal(this.attached, name, file.size);
      if (!why) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        const mimeType = sniffImageType(bytes);
        why = mimeType ? refusal(this.attached, name, bytes.length)  // checked again: others may have come meanwhile
          : `${name} is not a PNG, JPEG, GIF or WebP image`;
        if (!why) {
          this.setAttached([...this.attached, { name, size: bytes.length, mimeType, data: toBase64(bytes) }]);
          announce(`Attached ${name}`);
          continue;
        }
      }
      refused.push(why);
    }
    this.hint.textContent = refused.length ? `Not attached: ${refused.join("; ")}.` : "";
  }

  // Images pasted into the message box are attached; pasted text still
  // lands in the box.
  onPaste(e) {
    const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith("image/"));
    if (files.length === 0) return;
    if (!e.clipboardData.types.includes("text/plain")) e.preventDefault();
    this.attachFiles(files);
  }

  setAttached(list) {
    this.attached = list;
    clear(this.attachmentList);
    list.forEach((a, i) => {
      const label = `Image ${i + 1}: ${a.name} (${formatBytes(a.size)})`;
      this.attachmentList.append(h("li", { class: "attachment" },
        h("img", { src: `data:${a.mimeType};base64,${a.data}`, alt: label, title: label }),
        h("button", { type: "button", class: "remove", "aria-label": `Remove image ${i + 1}: ${a.name}`,
                      onclick: () => this.removeAttached(i) }, "×")));
    });
    this.attachmentList.hidden = list.length === 0;
  }

  removeAttached(index) {
    const name = this.attached[index]?.name ?? "the image";
    this.setAttached(this.attached.filter((_, i) => i !== index));
    announce(`Removed ${name}`);
    // Focus stays in the list, or goes back to the message box.
    const buttons = this.attachmentList.querySelectorAll("button.remove");
    (buttons[Math.min(index, buttons.length - 1)] ?? this.input).focus();
  }

  async interrupt() {
    try {
      await this.live.send("interrupt");
    } catch (e) {
      this.showBanner(`Could not interrupt: ${e.message}`);
    }
  }

  onComposeKey(e) {
    const box = this.input;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    } else if (e.key === "Escape" && this.busy) {
      e.preventDefault();
      this.interrupt();
    } else if (e.key === "ArrowUp" && box.selectionStart === 0 && box.selectionEnd === 0) {
      e.preventDefault();
      box.value = this.history.previous(box.value);
    } else if (e.key === "ArrowDown" && box.selectionStart === box.value.length) {
      e.preventDefault();
      box.value = this.history.next(box.value);
    } else if (e.key === "Tab" && completions(box.value).length === 1) {
      e.preventDefault();
      const [c] = completions(box.value);
      box.value = `/${c.name}${c.usage.includes(" ") ? " " : ""}`;
      this.showCompletions();
    }
  }

  showCompletions() {
    const matches = completions(this.input.value);
    this.hint.textContent = matches.map((c) => `${c.usage} — ${c.help}`).join("   ");
  }

  // ---- footer and details --------------------------------------------------

  renderFooter() {
    const s = this.session ?? {};
    const t = this.transcript;
    const parts = [
      h("span", { class: "agent" }, s.agent || "raw"),
      s.model ? h("span", {}, s.model) : null,
      h("span", { id: "turn-state" }, t.turnRunning ? "running" : t.compacting ? "compacting" : this.preparing ? "starting…" : "idle"),
    ];
    if (t.context) parts.push(h("span", { id: "context-estimate", title: "An estimate, not a tokenizer count" }, `context ${formatContext(t.context)}`));
    if (s.usage && int64(s.requests)) {
      parts.push(h("span", {}, `in ${formatCount(s.usage.inputTokens)} out ${formatCount(s.usage.outputTokens)}`));
    }
    clear(this.footer).append(...parts.filter(Boolean).flatMap((p, i) => (i ? [" · ", p] : [p])));
    this.interruptButton.disabled = !this.busy || this.lease.state !== "holding";
    this.sendButton.disabled = this.lease.state !== "holding" || this.preparing > 0;
  }

  toggleDetails() {
    const closing = !this.details.el.hidden;
    const hadFocus = this.details.el.contains(document.activeElement);
    this.details.el.hidden = closing;
    updatePrefs({ collapsed: { ...prefs().collapsed, details: this.details.el.hidden } });
    this.syncDetailsButton();
    this.details.refresh();
    if (!this.details.el.hidden) this.details.el.querySelector("h2")?.setAttribute("tabindex", "-1");
    // Hidden from inside (its Hide button): the focus goes back to Details.
    if (closing && hadFocus) this.detailsButton.focus();
  }

  syncDetailsButton() {
    this.detailsButton.setAttribute("aria-expanded", String(!this.details.el.hidden));
  }

  onKey(e) {
    if (e.key === "i") {
      this.input.focus();
      return true;
    }
    if (e.key === "d") {
      this.toggleDetails();
      return true;
    }
    if (e.key === "a") return this.approval.allowAll(sinceTypingMs());
    if (e.key === "Escape" && this.busy) {
      this.interrupt();
      return true;
    }
    return false;
  }
}
