// The approval prompt of a conversation: every call of the pending batch
// with its name, its state (the calls rules or hooks already decided are
// listed too, for context, without buttons), the reason and its arguments
// in full (never shortened, shown as they will run: transcript.js
// formatArguments). Each call that waits for an answer is answered on its
// own or with the whole batch: allow, allow for this session (showing the
// rules each choice adds, as rawd offers them), or deny with an optional
// message to the model.
//
// A prompt arrives while the user may be typing: it never takes focus from
// a text field (the next keystroke would answer it), and when it does take
// focus it goes to the heading, never to a button that answers.
import { h, append, clear, announce, inField } from "./dom.js";
import { formatArguments, visibleText } from "./transcript.js";

// The "a" shortcut is ignored until the prompt has been shown this long,
// and as long after the last key typed into a text field: a key meant for
// the message box never approves anything.
export const SHORTCUT_ARMING_MS = 1000;

// How rules, hooks and the mode decided each call (ApprovalState).
const STATE_WORDS = {
  APPROVAL_STATE_PENDING: "needs your approval",
  APPROVAL_STATE_ALLOWED: "allowed without asking: runs whatever you answer",
  APPROVAL_STATE_DENIED: "denied without asking: will not run",
  APPROVAL_STATE_NOT_APPLICABLE: "not subject to approval: gets an error result",
};

// Whether `call` waits for an answer (an event without a state is one
// from before states were recorded, when every listed call waited).
export function isPending(call) {
  return call.state === undefined || call.state === "APPROVAL_STATE_PENDING";
}

export function stateWords(call) {
  return STATE_WORDS[call.state ?? "APPROVAL_STATE_PENDING"] ?? "decided without asking";
}

// The heading: how many of the batch's calls still wait for an answer;
// `answered` (call id -> decision) holds the calls this page answered one
// by one while the rest of the batch waits.
export function approvalTitle(calls, answered = new Map()) {
  const pending = calls.filter((c) => isPending(c) && !answered.has(c.callId)).length;
  if (pending === calls.length) return `Approval needed for ${pending} ${pending === 1 ? "call" : "calls"}`;
  return `${pending} of ${calls.length} calls ${pending === 1 ? "needs" : "need"} approval`;
}

// What a call answered from this page shows instead of its buttons.
export const ANSWER_WORDS = {
  allow: "allowed",
  allow_session: "allowed for this session",
  deny: "denied",
};

// The reason line shows at most this much of rawd's reason: a reason may
// quote the whole command, which the arguments below show in full anyway.
export const REASON_CHARS = 160;

// The reason as the prompt shows it (characters that hide or reorder text
// made visible), shortened past REASON_CHARS with "…".
export function reasonText(reason) {
  const text = visibleText(reason ?? "");
  const chars = [...text];
  return chars.length <= REASON_CHARS ? text : `${chars.slice(0, REASON_CHARS - 1).join("").trimEnd()}…`;
}

// The rule lists "allow for this session" offers for `call`: option 0
// (the exact rules), then option 1 (commands widened to their program)
// when rawd offers it. Empty: the call cannot be allowed for the session.
export function sessionOptions(call) {
  return (call.sessionRules ?? []).map((o) => (o.rules ?? []).map(visibleText)).filter((rules) => rules.length > 0);
}

export class ApprovalView {
  // `send(decision, message, callIds)` answers through the live socket.
  constructor(send) {
    this.send = send;
    this.item = null;
    this.answered = new Map();  // call id -> decision, for the item shown
    this.el = h("section", { class: "approval", id: "approval", hidden: true, "aria-labelledby": "approval-title", role: "region" });
  }

  // Shows `item` (a pending approval from the transcript) or hides the panel.
  show(item, canWrite) {
    if (!item || !item.pending) {
      const hadFocus = this.el.contains(document.activeElement);
      this.item = null;
      this.el.hidden = true;
      clear(this.el);
      if (hadFocus) this.onFocusLost?.();
      return;
    }
    if (this.item === item && this.canWrite === canWrite) return;
    const fresh = this.item !== item;
    if (fresh) {
      this.shownAt = performance.now();
      this.answered = new Map();
    }
    this.item = item;
    this.canWrite = canWrite;
    const title = this.render();
    if (fresh && canWrite) {
      if (inField(document.activeElement)) {
        announce(`${title.textContent}: the prompt is below the conversation; your typing stays where it is`);
      } else {
        announce(title.textContent);
        title.focus();
      }
    }
  }

  // Draws the prompt of this.item; returns its heading.
  render() {
    const item = this.item;
    const canWrite = this.canWrite;
    clear(this.el);
    const message = h("textarea", { id: "deny-message", rows: 2, "aria-label": "Message to the model with a denial (optional)",
                                     placeholder: "Why (sent to the model with a denial)" });
    const disabled = !canWrite;
    const button = (label, name, decision, callIds, cls, sessionRule) =>
      h("button", { type: "button", class: cls, disabled, "aria-label": name,
                    onclick: () => this.answer(decision, decision === "deny" ? message.value : "", callIds, sessionRule) }, label);
    const pending = item.calls.filter((c) => isPending(c) && !this.answered.has(c.callId));
    const title = h("h2", { id: "approval-title", tabindex: -1 }, approvalTitle(item.calls, this.answered));
    const rulesList = (rules) => h("ul", { class: "session-rules" }, rules.map((r) => h("li", {}, h("code", {}, r))));
    append(this.el, [
      title,
      disabled ? h("p", { class: "muted" }, "Only the client that is writing can answer.") : null,
      h("ol", { class: "approval-calls" }, item.calls.map((c, i) => {
        // Calls of one batch may share a tool name; the number tells them apart.
        const shownName = visibleText(c.name);
        const name = item.calls.length > 1 ? `${shownName} (call ${i + 1} of ${item.calls.length})` : shownName;
        const answer = this.answered.get(c.callId);
        const waits = isPending(c) && !answer;
        const options = waits ? sessionOptions(c) : [];
        const state = answer ? "answered" : waits ? "pending" : "decided";
        const reason = c.reason ? reasonText(c.reason) : "";
        return h("li", { dataset: { callId: c.callId, state }, class: `approval-call${waits ? "" : " decided"}` },
          h("h3", {}, h("code", {}, shownName), c.tool && c.tool !== c.name ? ` (${visibleText(c.tool)})` : ""),
          h("p", { class: "state" },
            answer ? h("strong", { class: `answered ${answer}` }, `${ANSWER_WORDS[answer] ?? "answered"}: waiting for the rest of the batch`)
              : h("strong", {}, stateWords(c)),
            reason ? h("span", { class: "reason", title: reason === visibleText(c.reason) ? null : visibleText(c.reason) }, ` — ${reason}`) : null),
          h("pre", { class: "args", tabindex: 0, "aria-label": `Arguments of ${name}` }, formatArguments(c.arguments)),
          waits && options.length > 0 ? h("div", { class: "session-choice" }, "Allow for this session adds:", rulesList(options[0])) : null,
          waits && options.length > 1 ? h("div", { class: "session-choice" }, "Allow program for this session adds:", rulesList(options[1])) : null,
          waits && options.length === 0 ? h("p", { class: "muted" }, "No session rule fits this call: it can only be allowed once.") : null,
          waits ? h("div", { class: "row" },
            button("Allow", `Allow ${name}`, "allow", [c.callId]),
            options.length > 0 ? button("Allow for this session", `Allow ${name} for this session`, "allow_session", [c.callId], undefined, 0) : null,
            options.length > 1 ? button("Allow program for this session", `Allow ${name}'s programs for this session`, "allow_session", [c.callId], undefined, 1) : null,
            button("Deny", `Deny ${name}`, "deny", [c.callId], "danger")) : null);
      })),
      message,
      h("div", { class: "row batch" },
        button(pending.length === item.calls.length ? "Allow all" : `Allow the ${pending.length} waiting`, "Allow the whole batch", "allow", undefined, "primary"),
        pending.some((c) => sessionOptions(c).length > 0)
          ? button("Allow all for this session", "Allow the whole batch for this session", "allow_session", undefined, undefined, 0) : null,
        pending.some((c) => sessionOptions(c).length > 1)
          ? button("Allow all programs for this session", "Allow the whole batch's programs for this session", "allow_session", undefined, undefined, 1) : null,
        button(pending.length === item.calls.length ? "Deny all" : `Deny the ${pending.length} waiting`, "Deny the whole batch", "deny", undefined, "danger")),
      this.error = h("p", { class: "error", role: "alert" })]);
    this.el.hidden = false;
    return title;
  }

  async answer(decision, message, callIds, sessionRule) {
    const item = this.item;
    if (!item) return;
    try {
      await this.send(item.requestId, decision, message, callIds, sessionRule);
      if (this.item !== item) return;  // the batch was settled meanwhile
      for (const id of callIds ?? item.calls.filter(isPending).map((c) => c.callId)) this.answered.set(id, decision);
      // The calls answered say so, the heading counts the rest, and the
      // focus, whose button is gone, goes to the heading (never to a
      // button: the next key would answer another call).
      const title = this.render();
      announce(`${title.textContent}`);
      title.focus();
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
