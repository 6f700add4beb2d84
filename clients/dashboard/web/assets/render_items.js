// DOM for each transcript item (transcript.js). Model, tool and file text is
// either set as text or rendered as Markdown (markdown_view.js: markdown.js
// in a worker with a time budget, then DOMPurify); never assigned as HTML
// otherwise.
import { h, append } from "./dom.js";
import { diffLines, formatArguments, isUnifiedDiff, visibleText } from "./transcript.js";
import { toolStatusWord, turnEndText } from "./format.js";
import { promptImageView } from "./images.js";
import { markdownInto } from "./markdown_view.js";
import { OpenSections } from "./sections.js";

// A <details> section of `item`, open as the reader left it (sections.js),
// else as `byDefault`; the reader's toggles are noted for the next render.
function collapsible(sections, itemKey, section, summary, body, byDefault = false) {
  const el = h("details", { open: sections.isOpen(itemKey, section, byDefault), dataset: { section } }, h("summary", {}, summary), body);
  el.addEventListener("toggle", () => {
    // A replaced element's own first toggle event may come after it left.
    if (el.isConnected) sections.note(itemKey, section, el.open, byDefault);
  });
  return el;
}

function toolCall(call, section) {
  const status = call.state === "done" ? toolStatusWord(call.status) : call.state;
  const card = h("article", { class: `tool-card status-${status}`, dataset: { callId: call.callId }, "aria-label": `Tool ${call.name}: ${status}` },
    h("header", {}, h("span", { class: "tool-name" }, visibleText(call.name || call.tool)),
      call.tool && call.tool !== call.name ? h("span", { class: "muted" }, ` (${call.tool})`) : null,
      h("span", { class: "tool-status" }, status),
      call.durationMs !== undefined ? h("span", { class: "muted" }, ` ${call.durationMs} ms`) : null));
  if (call.arguments) card.append(section(`arguments:${call.callId}`, "Arguments", h("pre", { class: "args" }, formatArguments(call.arguments)), call.state !== "done"));
  if (call.progress) {
    const p = call.progress;
    card.append(h("p", { class: "progress" }, p.total ? `${p.progress} of ${p.total}` : String(p.progress), p.message ? ` — ${p.message}` : ""));
  }
  if (call.state === "done") {
    const text = call.display || call.content;
    if (isUnifiedDiff(text)) {
      card.append(section(`changes:${call.callId}`, "Changes", h("pre", { class: "diff" },
        diffLines(text).map(({ role, line }) => h("span", { class: `diff-${role}` }, line, "\n"))), true));
    } else if (text) {
      card.append(section(`result:${call.callId}`, "Result", h("pre", { class: "result" }, text), call.status !== "TOOL_RESULT_STATUS_OK"));
    }
  }
  return card;
}

function approvalSummary(item) {
  const decisions = new Map((item.answers ?? []).map((a) => [a.callId, a]));
  return h("div", { class: "approval-record" },
    h("p", {}, item.pending ? "Waiting for approval" : `Approval ${item.resolution === "APPROVAL_RESOLUTION_TIMED_OUT" ? "timed out" : "answered"}`),
    h("ul", {}, item.calls.map((c) => {
      const a = decisions.get(c.callId);
      const decided = { APPROVAL_STATE_ALLOWED: "allowed without asking", APPROVAL_STATE_DENIED: "denied without asking",
                        APPROVAL_STATE_NOT_APPLICABLE: "not subject to approval" }[c.state] ?? "";
      const word = a ? {
        APPROVAL_DECISION_ALLOW_ONCE: 'allowed',
        APPROVAL_DECISION_ALLOW_SESSION: 'allowed for this session',
        APPROVAL_DECISION_DENY: a.unattended ? 'denied, no one to ask' : 'denied'
      }[a.decision] ??
              'answered' :
                       decided;
      return h("li", {}, h("code", {}, visibleText(c.name)), word ? ` — ${word}` : "", a?.message ? `: ${a.message}` : "");
    })));
}

// An image of a prompt (images.js decides whether it may show).
function promptImage(image) {
  const view = promptImageView(image);
  if (view.text) return h("p", { class: "muted prompt-image-absent" }, view.text);
  return h("img", { class: "prompt-image", src: view.src, alt: view.alt, title: view.alt });
}

// A fresh element for `item`; its sections open as `sections` (sections.js)
// says the reader left them.
export function renderItem(item, sections = new OpenSections()) {
  const el = h("li", { class: `item item-${item.kind}`, dataset: { key: item.key, seq: item.seq } });
  const section = (name, summary, body, byDefault) => collapsible(sections, item.key, name, summary, body, byDefault);
  switch (item.kind) {
    case "user":
      append(el, [h("h3", { class: "visually-hidden" }, "You"), item.text ? h("div", { class: "bubble user-text" }, item.text) : null]);
      for (const image of item.images ?? []) el.append(promptImage(image));
      break;
    case "assistant": {
      if (item.reasoning) el.append(section("reasoning", "Reasoning", h("div", { class: "reasoning" }, item.reasoning)));
      const body = markdownInto(h("div", { class: "markdown" }), item.text, item.key);
      if (item.streaming) {
        el.classList.add("streaming");
        el.setAttribute("aria-busy", "true");
      }
      el.append(body);
      if (item.interrupted) el.append(h("p", { class: "muted" }, "(interrupted)"));
      break;
    }
    case "tools":
      el.append(...item.calls.map((call) => toolCall(call, section)));
      break;
    case "approval":
      el.append(approvalSummary(item));
      break;
    case "notice":
      el.classList.add(`level-${String(item.level).replace("NOTICE_LEVEL_", "").toLowerCase()}`);
      el.append(h("p", {}, item.text));
      break;
    case "turn_end":
      el.append(h("p", { class: "turn-end" }, turnEndText(item.reason, item.message)));
      break;
    case "compaction":
      el.classList.add(`compaction-${item.phase}`);
      el.append(h("p", { role: "status" }, item.text));
      if (item.phase === "running" && item.chunks) {
        el.append(h("progress", { max: item.chunks, value: item.chunk, "aria-label": "Compaction progress" }));
      }
      break;
    case "cleared":
      el.append(h("p", {}, "Context cleared; the history above stays visible but the model no longer sees it."));
      break;
    default:
      break;
  }
  return el;
}
