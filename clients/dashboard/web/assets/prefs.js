// Browser preferences: theme override, font size and collapsed panels. They
// live in this browser's localStorage only, never in Raw's config file, and a
// bad stored value falls back to the default. No prompt text is ever stored:
// the gateway's origin (a fixed port on 127.0.0.1) can be served by another
// local program while the gateway is down, and its page could read the
// storage. The compose history lives in memory (commands.js InputHistory).

const KEY = "raw-dashboard-prefs";
export const DEFAULTS = Object.freeze({ theme: "system", fontSize: 15, collapsed: {} });
const THEMES = ["system", "light", "dark"];

export function normalize(value) {
  const v = value && typeof value === "object" ? value : {};
  const fontSize = Number(v.fontSize);
  return {
    theme: THEMES.includes(v.theme) ? v.theme : DEFAULTS.theme,
    fontSize: Number.isFinite(fontSize) && fontSize >= 10 && fontSize <= 28 ? Math.round(fontSize) : DEFAULTS.fontSize,
    collapsed: v.collapsed && typeof v.collapsed === "object" ? { ...v.collapsed } : {},
  };
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
