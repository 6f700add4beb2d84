// The approval prompt of a conversation: every call of the pending batch
// with its name, the rule's reason and its arguments in full (pretty JSON,
// never shortened), answered per call or for the whole batch: allow, allow
// for this session, or deny with an optional message to the model.
//
// A prompt arrives while the user may be typing: it never takes focus from
// a text field (the next keystroke would answer it), and when it does take
// focus it goes to the heading, never to a button that answers.
import { h, clear, announce, inField } from "./dom.js";
import { formatArguments, visibleText } from "./transcript.js";

// The "a" shortcut is ignored until the prompt has been shown this long,
// and as long after the last key typed into a text field: a key meant for
// the message box never approves anything.
export const SHORTCUT_ARMING_MS = 1000;

export class ApprovalView {
  // `send(decision, message, callIds)` answers through the live socket.
  constructor(send) {
    this.send = send;
    this.item = null;
    this.el = h("section", { class: "approval", id: "approval", hidden: true, "aria-labelledby": "approval-title", role: "region" });
  }

  // Shows `item` (a pending approval from the transcript) or hides the panel.
  show(item, canWrite) {
    if (!item || !item.pending) {
      this.item = null;
      this.el.hidden = true;
      clear(this.el);
      return;
    }
    if (this.item === item && this.canWrite === canWrite) return;
    const fresh = this.item !== item;
    if (fresh) this.shownAt = performance.now();
    this.item = item;
    this.canWrite = canWrite;
    clear(this.el);
    const message = h("textarea", { id: "deny-message", rows: 2, "aria-label": "Message to the model with a denial (optional)",
                                     placeholder: "Why (sent to the model with a denial)" });
    const disabled = !canWrite;
    const button = (label, name, decision, callIds, cls) =>
      h("button", { type: "button", class: cls, disabled, "aria-label": name,
                    onclick: () => this.answer(decision, decision === "deny" ? message.value : "", callIds) }, label);
    const title = h("h2", { id: "approval-title", tabindex: -1 }, `Approval needed for ${item.calls.length} ${item.calls.length === 1 ? "call" : "calls"}`);
    this.el.append(
      title,
      disabled ? h("p", { class: "muted" }, "Only the client that is writing can answer.") : null,
      h("ol", { class: "approval-calls" }, item.calls.map((c, i) => {
        // Calls of one batch may share a tool name; the number tells them apart.
        const name = item.calls.length > 1 ? `${c.name} (call ${i + 1} of ${item.calls.length})` : c.name;
        return h("li", { dataset: { callId: c.callId }, class: "approval-call" },
          h("h3", {}, h("code", {}, visibleText(c.name)), c.tool && c.tool !== c.name ? ` (${c.tool})` : ""),
          c.reason ? h("p", { class: "reason" }, visibleText(c.reason)) : null,
          h("pre", { class: "args", tabindex: 0, "aria-label": `Arguments of ${name}` }, formatArguments(c.arguments)),
          h("div", { class: "row" },
            button("Allow", `Allow ${name}`, "allow", [c.callId]),
            button("Allow for this session", `Allow ${name} for this session`, "allow_session", [c.callId]),
            button("Deny", `Deny ${name}`, "deny", [c.callId], "danger")));
      })),
      message,
      h("div", { class: "row batch" },
        button("Allow all", "Allow the whole batch", "allow", undefined, "primary"),
        button("Allow all for this session", "Allow the whole batch for this session", "allow_session", undefined),
        button("Deny all", "Deny the whole batch", "deny", undefined, "danger")),
      this.error = h("p", { class: "error", role: "alert" }));
    this.el.hidden = false;
    if (fresh && canWrite) {
      if (inField(document.activeElement)) {
        announce(`${title.textContent}: the prompt is below the conversation; your typing stays where it is`);
      } else {
        announce(title.textContent);
        title.focus();
      }
    }
  }

  async answer(decision, message, callIds) {
    const item = this.item;
    if (!item) return;
    try {
      await this.send(item.requestId, decision, message, callIds);
      for (const id of callIds ?? item.calls.map((c) => c.callId)) {
        for (const b of this.el.querySelectorAll(`li[data-call-id="${CSS.escape(id)}"] button`)) b.disabled = true;
      }
    } catch (e) {
      this.error.textContent = `Could not answer: ${e.message}`;
    }
  }

  // The "a" shortcut: allow the whole batch, unless the prompt appeared or
  // a text field was typed in less than SHORTCUT_ARMING_MS ago (then the
  // key is swallowed and the reason announced). `sinceTypingMs`: the time
  // since the last key typed into a text field.
  allowAll(sinceTypingMs) {
    if (!this.item || !this.canWrite) return false;
    if (performance.now() - this.shownAt < SHORTCUT_ARMING_MS || sinceTypingMs < SHORTCUT_ARMING_MS) {
      announce("Not allowed: the a shortcut waits a second after the prompt appears or after typing");
      return true;
    }
    this.answer("allow", "", undefined);
    return true;
  }
}
