// Settings › Plugins › Raven research: the card of the "raven-research"
// namespace. Its rows come from the schema rawd sends with the settings
// (config/raven_overrides.h): one group per section, one row per field,
// showing the value in force — the override when there is one (marked
// "Overridden", with Reset to inherit the config file's value again), else
// the config file's. Edits are staged ("Unsaved") until Save writes them
// all, or none when rawd refuses them (the refusal names each field);
// Discard drops them. A section rawd names as not in effect (Search while
// the config file configures no backend) shows only its stored overrides,
// marked "Not in effect" with rawd's reason, read-only but with Reset; with
// none stored it is not shown. The card states no bounds of its own: rawd
// checks every value as the config file's reader would. Its one rule is the
// shape of a draft route.
import { h, clear } from "./dom.js";
import { registerPluginCard } from "./plugins.js";

const ROUTE = /^[^/\s]+\/\S+$/;

// The state of the form, apart from the DOM: the stored overrides, the
// config's values, and the staged changes (path -> value, or RESET).
const RESET = Symbol("reset");

// Entries in the schema's "x-order".
function ordered(object) {
  return Object.entries(object).sort(([, a], [, b]) => (a["x-order"] ?? 0) - (b["x-order"] ?? 0));
}

function get(object, [section, field]) {
  return object?.[section]?.[field];
}

function overridesAfter(stored, staged) {
  const next = structuredClone(stored ?? {});
  for (const [path, value] of staged) {
    const [section, field] = path.split(".");
    if (value === RESET) {
      if (next[section]) delete next[section][field];
    } else {
      next[section] = next[section] ?? {};
      next[section][field] = value;
    }
    if (next[section] && Object.keys(next[section]).length === 0) delete next[section];
  }
  return next;
}

function control(id, rule, value, onChange, disabled) {
  if (rule.type === "boolean") {
    return h("input", { id, type: "checkbox", disabled, checked: value === true, onchange: (e) => onChange(e.target.checked) });
  }
  if (rule.type === "array") {
    return h("textarea", { id, rows: 3, disabled, spellcheck: "false", value: (value ?? []).join("\n"),
      oninput: (e) => onChange(e.target.value.split("\n").map((s) => s.trim()).filter(Boolean)) });
  }
  return h("input", { id, type: "number", disabled, step: rule.type === "integer" ? 1 : "any", value: value ?? "",
    oninput: (e) => onChange(e.target.value === "" ? undefined : Number(e.target.value)) });
}

function renderRavenCard(body, { settings, configValues, schema, inactiveSections, save }) {
  const sections = schema?.properties ?? {};
  let stored = settings ?? {};
  const staged = new Map();
  const banner = h("p", { class: "banner", role: "alert", hidden: true });
  const status = h("p", { role: "status", class: "muted" });
  const form = h("div", { class: "raven-form" });
  body.closest(".plugin-card")?.querySelector("h3")?.replaceChildren("Raven research");

  const render = () => {
    clear(form);
    for (const [section, sectionRule] of ordered(sections)) {
      // Not in effect (rawd's reason): only what is stored there, to reset.
      const inactive = inactiveSections?.[section];
      if (inactive === undefined && !configValues?.[section]) continue;
      const fields = ordered(sectionRule.properties ?? {})
        .filter(([field]) => inactive === undefined || get(stored, [section, field]) !== undefined);
      if (fields.length === 0) continue;
      const rows = fields.map(([field, rule]) => {
        const path = `${section}.${field}`;
        const id = `raven-${section}-${field}`;
        // A saved value rawd cannot apply now (a route whose model left the config).
        const broken = inactiveSections?.[path];
        const off = inactive !== undefined || broken !== undefined;
        const overridden = staged.has(path) ? staged.get(path) !== RESET : get(stored, [section, field]) !== undefined;
        const value = staged.has(path) && staged.get(path) !== RESET ? staged.get(path)
          : overridden ? get(stored, [section, field]) : get(configValues, [section, field]);
        const onChange = (v) => {
          if (v === undefined) staged.set(path, RESET);
          else staged.set(path, v);
          update();
        };
        return h("div", { class: "raven-row", dataset: { path } },
          h("label", { for: id }, rule.title ?? field),
          control(id, rule, value, onChange, inactive !== undefined),
          overridden ? h("span", { class: `badge ${off ? "inactive" : "overridden"}` },
            off ? "Not in effect" : "Overridden") : null,
          overridden ? h("button", { type: "button", class: "reset", "aria-label": `Reset ${rule.title ?? field} to the config file's value`,
            onclick: () => { staged.set(path, RESET); render(); update(); } }, "Reset") : null,
          staged.has(path) ? h("span", { class: "badge unsaved" }, "Unsaved") : null,
          h("p", { class: "muted hint" }, rule.description ?? ""),
          overridden && broken !== undefined ? h("p", { class: "inactive-note" }, `Not in effect: ${broken}`) : null);
      });
      form.append(h("fieldset", { class: "raven-group", dataset: { section } },
        h("legend", {}, sectionRule.title ?? section),
        inactive === undefined ? null
          : h("p", { class: "inactive-note" }, `Not in effect: ${inactive}. Reset removes a saved value; ` +
            "the others apply."),
        rows));
    }
  };
  const update = () => {
    saveButton.disabled = staged.size === 0;
    discardButton.disabled = staged.size === 0;
    status.textContent = staged.size === 0 ? "" : `${staged.size} unsaved change${staged.size === 1 ? "" : "s"}`;
    for (const row of form.querySelectorAll(".raven-row")) {
      const dirty = staged.has(row.dataset.path);
      const marker = row.querySelector(".badge.unsaved");
      if (dirty && !marker) row.insertBefore(h("span", { class: "badge unsaved" }, "Unsaved"), row.querySelector(".hint"));
      if (!dirty && marker) marker.remove();
    }
  };
  const saveButton = h("button", { type: "button", id: "raven-save", onclick: async () => {
    banner.hidden = true;
    const routes = staged.get("draft.routes");
    if (Array.isArray(routes) && routes.some((r) => !ROUTE.test(r))) {
      banner.textContent = "Write one provider/model route per line, such as openai/gpt-4.1.";
      banner.hidden = false;
      return;
    }
    try {
      const saved = await save(overridesAfter(stored, staged));
      stored = saved.settings ?? {};
      staged.clear();
      render();
      update();
      status.textContent = "Saved; the next Source check uses these settings.";
    } catch (e) {
      banner.textContent = e.status === 409
        ? "Changed elsewhere since this page read it; reload the page to see the current settings."
        : `Not saved: ${e.message}`;
      banner.hidden = false;
    }
  } }, "Save");
  const discardButton = h("button", { type: "button", id: "raven-discard", onclick: () => {
    staged.clear();
    banner.hidden = true;
    render();
    update();
  } }, "Discard");
  body.append(
    h("p", { class: "muted" }, "Progressive, source-grounded research, writing, and learning. " +
      "Values here override the config file's raven section; where rawd connects stays in the file."),
    form, banner, h("div", { class: "row" }, saveButton, discardButton), status);
  render();
  update();
}

registerPluginCard("raven-research", renderRavenCard);
