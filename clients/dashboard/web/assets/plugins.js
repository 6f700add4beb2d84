// Settings › Plugins: one card per plugin namespace. A namespace with a
// registered card (registerPluginCard) gets that card; every other one gets
// the generic card, a JSON editor of its settings object. Settings live in
// rawd's store (GET/PUT /api/plugins/{namespace}), never in the config file;
// a save carries the revision it read and a stale one is refused (409).
import { api } from "./api.js";
import { h, clear } from "./dom.js";

// The namespaces the page shows; the Raven card's is "raven-research".
export const PLUGIN_NAMESPACES = ["raven-research"];

const cards = new Map();

// Hook for a plugin's own card: `render(container, {settings, revision,
// configValues, schema, inactiveSections, save})` where save(settings)
// resolves to the stored record or throws ApiError; configValues, schema and
// inactiveSections (section -> why its overrides are not in effect) are
// rawd's for a namespace it knows (empty otherwise).
// The Raven card registers itself here for "raven-research".
export function registerPluginCard(namespace, render) {
  cards.set(namespace, render);
}

export function renderPluginCard(namespace) {
  const body = h("div", { class: "card-body" }, h("p", { class: "muted" }, "Loading…"));
  const card = h("section", { class: "card plugin-card", dataset: { namespace }, "aria-labelledby": `plugin-${namespace}` },
    h("h3", { id: `plugin-${namespace}` }, namespace), body);
  load(namespace, body);
  return card;
}

async function load(namespace, body) {
  let record;
  try {
    record = await api.plugin(namespace);
  } catch (e) {
    clear(body).append(h("p", { class: "error" }, `Could not read the settings: ${e.message}`));
    return;
  }
  const state = { settings: record.settings ?? {}, revision: record.revision ?? "0" };
  const save = async (settings) => {
    const saved = await api.setPlugin(namespace, settings, state.revision);
    state.settings = saved.settings ?? {};
    state.revision = saved.revision ?? state.revision;
    return saved;
  };
  clear(body);
  const custom = cards.get(namespace);
  if (custom) {
    custom(body, { settings: state.settings, revision: state.revision, save,
                   configValues: record.configValues ?? {}, schema: record.schema ?? {},
                   inactiveSections: record.inactiveSections ?? {} });
  }
  else genericCard(body, namespace, state, save);
}

function genericCard(body, namespace, state, save) {
  const id = `plugin-json-${namespace}`;
  const editor = h("textarea", { id, rows: 8, spellcheck: "false", class: "json", value: JSON.stringify(state.settings, null, 2) });
  const message = h("p", { role: "status" });
  body.append(
    h("label", { for: id }, "Settings (JSON object)"), editor,
    h("div", { class: "row" },
      h("button", { type: "button", "aria-label": `Save the ${namespace} settings`, onclick: async () => {
        let parsed;
        try {
          parsed = JSON.parse(editor.value);
        } catch (e) {
          message.textContent = `Not valid JSON: ${e.message}`;
          return;
        }
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
          message.textContent = "The settings must be a JSON object.";
          return;
        }
        try {
          await save(parsed);
          message.textContent = `Saved (revision ${state.revision}).`;
        } catch (e) {
          message.textContent = e.status === 409
            ? "Changed elsewhere since this page read it; reload the page to see the current settings."
            : `Could not save: ${e.message}`;
        }
      } }, "Save")),
    message);
}
