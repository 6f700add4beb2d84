// The compose box's slash commands and its input history. Pure.

export const SLASH_COMMANDS = [
  { name: "compact", usage: "/compact", help: "Summarize older turns to free context" },
  { name: "clear", usage: "/clear", help: "Start the model context afresh (history is kept)" },
  { name: "agent", usage: "/agent NAME", help: "Switch this session to another agent" },
  { name: "model", usage: "/model NAME", help: "Switch this session to another model entry" },
  { name: "help", usage: "/help", help: "List commands and keyboard shortcuts" },
];

// What the compose box's text asks for:
//   {kind:"prompt", text}            plain text (a leading "//" sends "/...")
//   {kind:"command", name, arg}      a known slash command
//   {kind:"error", message}          an unknown command or a missing argument
//   {kind:"empty"}
export function parseInput(raw) {
  const text = String(raw ?? "");
  if (text.trim() === "") return { kind: "empty" };
  if (text.startsWith("//")) return { kind: "prompt", text: text.slice(1) };
  if (!text.startsWith("/")) return { kind: "prompt", text };
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  const name = m[1];
  const arg = m[2].trim();
  const command = SLASH_COMMANDS.find((c) => c.name === name);
  if (!command) return { kind: "error", message: `Unknown command /${name}; /help lists them (start with // to send a slash)` };
  if ((name === "agent" || name === "model") && arg === "") {
    return { kind: "error", message: `${command.usage}: name the ${name}` };
  }
  if ((name === "compact" || name === "clear" || name === "help") && arg !== "") {
    return { kind: "error", message: `/${name} takes no argument` };
  }
  return { kind: "command", name, arg };
}

// The commands whose name starts with what follows "/" (for completion).
export function completions(raw) {
  const text = String(raw ?? "");
  if (!text.startsWith("/") || /\s/.test(text)) return [];
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(text.slice(1)));
}

// The compose box's text that sends `items`' user messages again (transcript
// items, oldest first): a text starting with "/" gets the "//" that sends it
// as a prompt; image-only messages (no text) are left out.
export function recalledPrompts(items) {
  return items
    .filter((item) => item.kind === "user" && String(item.text ?? "").trim() !== "")
    .map((item) => (item.text.startsWith("/") ? `/${item.text}` : item.text));
}

// The compose box's Up/Down history, newest last, held in memory only (a
// page served later at the same origin could read browser storage): the
// open session's own prompts, from the transcript's pages as they load, and
// what this page sent. Up/Down walk it while the draft is kept.
export class InputHistory {
  constructor(limit = 100) {
    this.limit = limit;
    this.entries = [];
    this.index = 0;  // == entries.length: the draft
    this.draft = "";
  }

  // What this page just sent: the newest entry, and browsing starts over
  // from the draft.
  push(text) {
    if (text && this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    if (this.entries.length > this.limit) this.entries.shift();
    this.index = this.entries.length;
    this.draft = "";
  }

  // Older prompts (oldest first), from a page of the transcript, go before
  // every entry held; browsing stays on the entry it shows. Past `limit`
  // the oldest are left out.
  prepend(texts) {
    const older = [];
    for (const text of texts) if (text && older[older.length - 1] !== text) older.push(text);
    if (older.length > 0 && older[older.length - 1] === this.entries[0]) older.pop();
    const room = this.limit - this.entries.length;
    if (room <= 0 || older.length === 0) return;
    const kept = older.slice(Math.max(0, older.length - room));
    this.entries.unshift(...kept);
    this.index += kept.length;
  }

  // The text to show after Up; `current` is what the box holds now.
  previous(current) {
    if (this.index === this.entries.length) this.draft = current;
    if (this.index > 0) this.index -= 1;
    return this.entries[this.index] ?? current;
  }

  next(current) {
    if (this.index >= this.entries.length) return current;
    this.index += 1;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }
}
