// Keys typed while a session opens (after "Start session", before its
// conversation and message box are there): kept as text for the message
// box instead of being lost or taken as shortcuts. Pure: app.js hands it
// the keydown events and the conversation takes the text.
export class TypeAhead {
  constructor() {
    this.text = "";
  }

  // Takes a keydown event; true when the key was kept (or, for Enter, held
  // back: nothing is sent before the reader sees the box), so the page
  // stops its default action.
  key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return false;
    if (e.key === "Backspace") {
      this.text = [...this.text].slice(0, -1).join("");
      return true;
    }
    if (e.key === "Enter") {
      if (e.shiftKey) this.text += "\n";
      return true;
    }
    if ([...e.key].length !== 1) return false;  // Tab, Escape, arrows, F-keys
    this.text += e.key;
    return true;
  }

  // The text kept so far; starts afresh.
  take() {
    const text = this.text;
    this.text = "";
    return text;
  }
}
