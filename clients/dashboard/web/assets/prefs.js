// Browser preferences: theme override, font size and collapsed panels. The
// page keeps them in this browser's localStorage (a reload applies them at
// once) and the gateway keeps a copy (GET/PUT /api/preferences), since each
// raw-dashboard run listens on a new port and so gives the page a new origin
// with empty storage. Never in Raw's config file; a bad stored value falls
// back to the default. No prompt text is ever stored: an origin on
// 127.0.0.1 can be served by another local program once the gateway is
// gone, and its page could read the storage. The compose history lives in
// memory (commands.js InputHistory).

const KEY = "raw-dashboard-prefs";
export const DEFAULTS = Object.freeze({ theme: "system", fontSize: 15, collapsed: {} });
const THEMES = ["system", "light", "dark"];

export function normalize(value) {
  const v = value && typeof value === "object" ? value : {};
  const fontSize = Number(v.fontSize);
  return {
    theme: THEMES.includes(v.theme) ? v.theme : DEFAULTS.theme,
    fontSize: Number.isFinite(fontSize) && fontSize >= FONT_SIZE_MIN && fontSize <= FONT_SIZE_MAX ? Math.round(fontSize) : DEFAULTS.fontSize,
    collapsed: typeof v.collapsed?.details === "boolean" ? { details: v.collapsed.details } : {},
  };
}

export const FONT_SIZE_MIN = 10;
export const FONT_SIZE_MAX = 28;

// The font size Settings applies for what was typed in its field, and the
// note that says why when it is not that: a size out of range is brought
// to the nearest one allowed, something not a number keeps `current`.
export function fontSizeChoice(typed, current) {
  const n = Number(String(typed).trim());
  const range = `${FONT_SIZE_MIN} to ${FONT_SIZE_MAX} px`;
  if (String(typed).trim() === "" || !Number.isFinite(n)) {
    return { fontSize: current, note: `The font size is a number from ${range}; kept ${current} px.` };
  }
  const fontSize = Math.min(FONT_SIZE_MAX, Math.max(FONT_SIZE_MIN, Math.round(n)));
  if (fontSize !== n) {
    return { fontSize, note: `The font size is a whole number from ${range}; ${String(typed).trim()} became ${fontSize} px.` };
  }
  return { fontSize, note: "" };
}

export function samePrefs(a, b) {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

// Whether this browser's storage holds preferences for this origin.
export function hasStoredPrefs(storage) {
  try {
    return storage.getItem(KEY) !== null;
  } catch {
    return false;
  }
}

// What the page does with the gateway's copy `remote` on start, given its
// own `local` preferences and whether its storage held any: "apply" the
// copy when it differs; "push" the local ones when the gateway keeps none
// yet (or an unreadable file, which it answers as {}) and the storage has
// some; otherwise "keep". `prefs` are the preferences to use.
export function reconcile(remote, local, storedLocally) {
  const none = !remote || typeof remote !== "object" || Array.isArray(remote) || Object.keys(remote).length === 0;
  if (none) return { action: storedLocally ? "push" : "keep", prefs: local };
  const theirs = normalize(remote);
  return samePrefs(theirs, local) ? { action: "keep", prefs: local } : { action: "apply", prefs: theirs };
}

// Earlier versions kept the sent prompts under `history`: a stored value
// that still holds them is written back without, so loading the page
// removes them.
export function loadPrefs(storage) {
  let stored;
  try {
    stored = JSON.parse(storage.getItem(KEY) ?? "{}");
  } catch {
    return normalize({});
  }
  const prefs = normalize(stored);
  if (stored && typeof stored === "object" && "history" in stored) savePrefs(storage, prefs);
  return prefs;
}

export function savePrefs(storage, prefs) {
  try {
    storage.setItem(KEY, JSON.stringify(normalize(prefs)));
  } catch {
    // Storage full or disabled: preferences last for this page only.
  }
}
