// Browser preferences: theme override, font size, collapsed panels and the
// compose history. They live in this browser's localStorage only, never in
// Raw's config file, and a bad stored value falls back to the default.

const KEY = "raw-dashboard-prefs";
export const DEFAULTS = Object.freeze({ theme: "system", fontSize: 15, collapsed: {}, history: [] });
const THEMES = ["system", "light", "dark"];

export function normalize(value) {
  const v = value && typeof value === "object" ? value : {};
  const fontSize = Number(v.fontSize);
  return {
    theme: THEMES.includes(v.theme) ? v.theme : DEFAULTS.theme,
    fontSize: Number.isFinite(fontSize) && fontSize >= 10 && fontSize <= 28 ? Math.round(fontSize) : DEFAULTS.fontSize,
    collapsed: v.collapsed && typeof v.collapsed === "object" ? { ...v.collapsed } : {},
    history: Array.isArray(v.history) ? v.history.filter((s) => typeof s === "string").slice(-100) : [],
  };
}

export function loadPrefs(storage) {
  try {
    return normalize(JSON.parse(storage.getItem(KEY) ?? "{}"));
  } catch {
    return normalize({});
  }
}

export function savePrefs(storage, prefs) {
  try {
    storage.setItem(KEY, JSON.stringify(normalize(prefs)));
  } catch {
    // Storage full or disabled: preferences last for this page only.
  }
}
