// Markdown into the page without ever blocking it. markdown-it and
// highlight.js run in a worker (markdown_worker.js), which renders the texts
// it is sent in order; each render has its budget (budgetFor), counted from
// the answer to the one before. When the budget is spent the worker is
// terminated, the item shows as plain text with a note saying why, and a
// fresh worker takes the renders still waiting. The worker's HTML is
// untrusted: it goes through DOMPurify here, on the page, before it reaches
// the DOM.
//
// Streamed answers are re-rendered at every frame that brings a delta; each
// item has at most one render queued or running, and the latest text wins.
// Until an item's first render arrives it shows its text plainly; after
// that, a new frame shows the item's latest sanitized HTML until the render
// of the newer text replaces it. A text longer than MAX_MARKDOWN_CHARS, or
// one whose render once ran out of budget (the rest of its stream too), is
// plain text.
import { h, clear } from "./dom.js";
import { MAX_MARKDOWN_CHARS, secureLink } from "./markdown.js";

export const RENDER_BUDGET_MS = 250;
// A text of at most SHORT_TEXT_CHARS has SHORT_BUDGET_MS: no input that
// short keeps markdown-it or highlight.js busy for long (the slow cases are
// quadratic in the length), so running out of 250 ms means a starved
// machine, not a slow text, and it still renders.
export const SHORT_TEXT_CHARS = 4096;
export const SHORT_BUDGET_MS = 2000;
export function budgetFor(text) {
  return text.length <= SHORT_TEXT_CHARS ? SHORT_BUDGET_MS : RENDER_BUDGET_MS;
}
// DOMPurify parses what the worker sends on the main thread: bound it too.
const MAX_HTML_CHARS = 4_000_000;
const CACHE_CHARS = 8_000_000;  // sanitized HTML kept per text
const MAX_SLOTS = 64;           // items whose last render is kept
const MAX_IN_FLIGHT = 16;       // renders sent to the worker at a time

let linkHookAdded = false;

function sanitize(html) {
  // DOMPurify strips anything but plain formatting; markdown-it already
  // escaped raw HTML, so this is a second line of defence. Its hook
  // (secureLink, added once: hooks are global to DOMPurify and would
  // pile up) makes every http(s) link open in a new tab, since DOMPurify
  // drops the `target` markdown-it set.
  const purify = window.DOMPurify;
  if (!purify) return null;
  if (!linkHookAdded) {
    purify.addHook("afterSanitizeAttributes", secureLink);
    linkHookAdded = true;
  }
  return purify.sanitize(html, { FORBID_TAGS: ["style", "img", "form", "input"], FORBID_ATTR: ["style"] });
}

const TOO_LONG = `Shown as plain text: longer than ${MAX_MARKDOWN_CHARS / 1000} KB.`;
const tooSlow = (text) => `Shown as plain text: formatting took longer than ${budgetFor(text)} ms.`;
const FAILED = "Shown as plain text: it could not be formatted.";

// Plain text, with a note when it is not waiting for a render.
function showPlain(el, text, note) {
  clear(el).classList.toggle("markdown-plain", !!note);
  if (note) el.append(h("p", { class: "markdown-note muted" }, note));
  el.append(h("div", { class: "plain-text" }, text));
}

function showHtml(el, html) {
  el.classList.remove("markdown-plain");
  el.innerHTML = html;
}

// Runs `apply` for each element at the next frame, all together, so that
// a page of renders costs one layout; the conversation stays at its bottom
// if it was there.
const updates = new Map();  // element -> function
function later(el, apply) {
  if (updates.size === 0) requestAnimationFrame(applyUpdates);
  updates.set(el, apply);
}

function applyUpdates() {
  const scroller = document.getElementById("scroller");
  const atBottom = scroller && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
  for (const [el, apply] of updates) apply(el);
  updates.clear();
  if (atBottom) scroller.scrollTop = scroller.scrollHeight;
}

class MarkdownRenderer {
  constructor() {
    this.cache = new Map();  // text -> {html} or {note}
    this.cacheChars = 0;
    this.slots = new Map();  // item key -> {el, text, html, note}
    this.queue = new Set();  // item keys waiting for a render
    this.inFlight = [];      // [{id, key, text}], in the order sent
    this.timer = 0;          // the budget of inFlight[0]
    this.nextId = 1;
    this.worker = null;
    this.ready = false;
  }

  // Fills `el` for `text` now and again when its render arrives. `key`
  // names the item, so that its renders coalesce.
  render(el, text, key) {
    text = String(text ?? "");
    // Most recently used last.
    const slot = this.slots.get(key) ?? {};
    this.slots.delete(key);
    this.slots.set(key, slot);
    if (this.slots.size > MAX_SLOTS) this.forgetOne(key);
    Object.assign(slot, { el, text, shown: undefined });
    const cached = text.length > MAX_MARKDOWN_CHARS ? { note: TOO_LONG } : slot.note ? { note: slot.note } : this.cache.get(text);
    if (cached) {
      this.queue.delete(key);
      if (cached.note) return showPlain(el, text, cached.note);
      slot.shown = text;
      return showHtml(el, cached.html);
    }
    // Until the render of this text arrives: the item's last render, or the
    // text itself.
    if (slot.html !== undefined) showHtml(el, slot.html);
    else showPlain(el, text);
    this.queue.add(key);
    this.pump();
  }

  // Forgets the least recently used item that waits for no render.
  forgetOne(keep) {
    for (const key of this.slots.keys()) {
      if (key === keep || this.queue.has(key) || this.inFlight.some((j) => j.key === key)) continue;
      this.slots.delete(key);
      return;
    }
  }

  remember(text, entry) {
    this.cache.set(text, entry);
    this.cacheChars += text.length + (entry.html?.length ?? 0);
    for (const [old, e] of this.cache) {
      if (this.cacheChars <= CACHE_CHARS) break;
      this.cache.delete(old);
      this.cacheChars -= old.length + (e.html?.length ?? 0);
    }
  }

  startWorker() {
    this.ready = false;
    try {
      this.worker = new Worker(new URL("./markdown_worker.js", import.meta.url), { type: "module" });
    } catch {
      return this.broke();
    }
    this.worker.onmessage = (e) => this.onMessage(e.data ?? {});
    this.worker.onerror = () => this.broke();
  }

  // Sends queued renders, up to MAX_IN_FLIGHT and at most one per item. The
  // worker renders them in order and answers each at once, so the budget of
  // each render counts from the answer to the one before (or from sending,
  // when it is the first).
  pump() {
    if (this.queue.size === 0) return;
    if (this.broken) return this.broke();
    if (!this.worker) this.startWorker();
    if (!this.ready) return;  // the worker's "ready" pumps again
    const busy = new Set(this.inFlight.map((job) => job.key));
    for (const key of this.queue) {
      if (this.inFlight.length >= MAX_IN_FLIGHT) break;
      if (busy.has(key)) continue;
      this.queue.delete(key);
      const job = { id: this.nextId++, key, text: this.slots.get(key).text };
      this.inFlight.push(job);
      this.worker.postMessage({ id: job.id, text: job.text });
      if (this.inFlight.length === 1) this.startClock();
    }
  }

  startClock() {
    const job = this.inFlight[0];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.overBudget(job), budgetFor(job.text));
  }

  onMessage(msg) {
    if (msg.ready) {
      this.ready = true;
      return this.pump();
    }
    const job = this.inFlight[0];
    if (!job || msg.id !== job.id) return;
    this.inFlight.shift();
    clearTimeout(this.timer);
    if (this.inFlight.length > 0) this.startClock();
    const html = typeof msg.html === "string" && msg.html.length <= MAX_HTML_CHARS ? sanitize(msg.html) : null;
    this.finish(job, html === null ? { note: FAILED } : { html });
    this.pump();
  }

  // The render at the head ran out of budget: a fresh worker takes the ones
  // sent after it.
  overBudget(job) {
    if (this.inFlight[0] !== job) return;
    this.worker.terminate();
    this.worker = null;
    const rest = this.inFlight.slice(1).map((j) => j.key);
    this.inFlight = [];
    this.queue = new Set([...rest, ...this.queue]);
    this.finish(job, { note: tooSlow(job.text) });
    this.pump();
  }

  // Records what a render gave and shows it in the item's latest element,
  // unless that already shows the render of a newer text.
  finish(job, entry) {
    this.remember(job.text, entry);
    const slot = this.slots.get(job.key);
    if (!slot) return;
    if (entry.note) {
      // A text that ran out of budget: the rest of this item's stream is
      // plain too (it only grows).
      slot.note = entry.note;
      this.queue.delete(job.key);
      const text = slot.text;
      return later(slot.el, (el) => showPlain(el, text, entry.note));
    }
    if (slot.shown === slot.text) return;
    slot.html = entry.html;
    if (job.text === slot.text) slot.shown = job.text;
    later(slot.el, (el) => showHtml(el, entry.html));
  }

  // The worker could not start or failed outside a render: everything
  // waiting, and all that follows, is plain text.
  broke() {
    this.broken = true;
    this.worker?.terminate();
    this.worker = null;
    clearTimeout(this.timer);
    for (const job of this.inFlight) this.queue.add(job.key);
    this.inFlight = [];
    for (const key of this.queue) {
      const slot = this.slots.get(key);
      slot.note = FAILED;
      showPlain(slot.el, slot.text, FAILED);
    }
    this.queue.clear();
  }
}

let renderer = null;

// Shows `text` (model text) in `el` as Markdown; `key` names the item.
export function markdownInto(el, text, key = "") {
  renderer ??= new MarkdownRenderer();
  renderer.render(el, text, key);
  return el;
}
