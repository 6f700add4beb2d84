// The keyboard shortcuts, listed in the help dialog. Keys are
// KeyboardEvent.key values; none fires while typing in a text field except
// those marked inField.
export const SHORTCUTS = [
  { keys: "?", action: "help", text: "Show this help" },
  { keys: "g s", action: "sessions", text: "Go to the session list" },
  { keys: "g ,", action: "settings", text: "Go to Settings" },
  { keys: "/", action: "search", text: "Search sessions (session list)" },
  { keys: "n", action: "new", text: "New session (session list)" },
  { keys: "i", action: "compose", text: "Focus the message box (conversation)" },
  { keys: "d", action: "details", text: "Show or hide Details (conversation)" },
  { keys: "Escape", action: "interrupt", text: "Interrupt the running turn or compaction (conversation)", inField: true },
  { keys: "Enter", action: "send", text: "Send (Shift+Enter: new line)", inField: true },
  { keys: "ArrowUp / ArrowDown", action: "history", text: "Earlier and later inputs (at the start or end of the box)", inField: true },
  { keys: "a", action: "approve", text: "Allow the whole pending batch (approval shown for a second, not right after typing)" },
];
