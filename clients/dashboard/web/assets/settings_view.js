// Settings: this browser's preferences (theme, font size; kept in
// localStorage and by the gateway, never in Raw's config), the config check result, the
// installed packages (read-only: `raw package` changes them), and the
// Plugins section (plugins.js).
import { api } from "./api.js";
import { h } from "./dom.js";
import { prefs, updatePrefs } from "./app.js";
import { FONT_SIZE_MAX, FONT_SIZE_MIN, fontSizeChoice } from "./prefs.js";
import { PLUGIN_NAMESPACES, renderPluginCard } from "./plugins.js";
import "./raven_card.js";

export class SettingsView {
  constructor(root) {
    const p = prefs();
    const theme = h("select", { id: "pref-theme", onchange: (e) => updatePrefs({ theme: e.target.value }) },
      ["system", "light", "dark"].map((t) => h("option", { value: t, selected: p.theme === t }, t === "system" ? "Follow the system" : t)));
    // A size out of range is brought into it where the reader sees it, with
    // the note saying so, never dropped without a word.
    const fontNote = h("p", { id: "pref-font-note", class: "muted", role: "status" });
    const font = h("input", { id: "pref-font", type: "number", min: FONT_SIZE_MIN, max: FONT_SIZE_MAX, value: p.fontSize,
                              "aria-describedby": "pref-font-note",
                              onchange: (e) => {
                                const { fontSize, note } = fontSizeChoice(e.target.value, prefs().fontSize);
                                e.target.value = String(fontSize);
                                fontNote.textContent = note;
                                updatePrefs({ fontSize });
                              } });
    this.config = h("div", { id: "config-check" }, h("p", { class: "muted" }, "Checking…"));
    this.packages = h("div", { id: "package-list" }, h("p", { class: "muted" }, "Reading…"));
    root.append(h("section", { class: "settings", "aria-labelledby": "settings-title" },
      h("h1", { id: "settings-title" }, "Settings"),
      h("section", { class: "card", "aria-labelledby": "prefs-title" },
        h("h2", { id: "prefs-title" }, "This browser"),
        h("p", { class: "muted" }, "Kept in this browser and by raw-dashboard for its next runs, never in Raw's config file."),
        h("label", { for: "pref-theme" }, "Theme"), theme,
        h("label", { for: "pref-font" }, `Font size (${FONT_SIZE_MIN}–${FONT_SIZE_MAX} px)`), font, fontNote),
      h("section", { class: "card", "aria-labelledby": "config-title" }, h("h2", { id: "config-title" }, "Configuration"), this.config),
      h("section", { class: "card", "aria-labelledby": "packages-title" }, h("h2", { id: "packages-title" }, "Packages"), this.packages),
      h("section", { class: "plugins", id: "plugins", "aria-labelledby": "plugins-title" },
        h("h2", { id: "plugins-title" }, "Plugins"),
        PLUGIN_NAMESPACES.map(renderPluginCard))));
    this.checkConfig();
    this.listPackages();
  }

  async listPackages() {
    let r;
    try {
      r = await api.packages();
    } catch (e) {
      this.packages.replaceChildren(h("p", { class: "error" }, `Could not list the packages: ${e.message}`));
      return;
    }
    const list = r.packages ?? [];
    const note = h("p", { class: "muted" }, list.length === 0 ? `No packages installed (${r.indexPath}).`
      : `Installed for this config (${r.indexPath}); change them with raw package.`);
    if (list.length === 0) {
      this.packages.replaceChildren(note);
      return;
    }
    const row = (p) => h("tr", { "data-alias": p.alias },
      h("th", { scope: "row" }, p.alias),
      h("td", {}, `${p.name ?? ""} ${p.version ?? ""}`),
      h("td", { class: "mono", title: p.hash }, (p.hash ?? "").slice(0, 12)),
      h("td", {}, p.problem ? h("span", { class: "error" }, p.problem) : (p.exports ?? []).join(", ")));
    this.packages.replaceChildren(note, h("table", { class: "packages" },
      h("thead", {}, h("tr", {}, ["Alias", "Package", "SHA-256", "Exports"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, list.map(row))));
  }

  async checkConfig() {
    this.config.textContent = "";
    try {
      const r = await api.configCheck();
      const errors = r.errors ?? [];
      this.config.append(h("p", {}, `${r.path}: ${errors.length === 0 ? "valid" : `${errors.length} problems`}`));
      if (errors.length) this.config.append(h("ul", { class: "error" }, errors.map((e) => h("li", {}, e))));
    } catch (e) {
      this.config.append(h("p", { class: "error" }, `Could not check the config: ${e.message}`));
    }
  }
}
