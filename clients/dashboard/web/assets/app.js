// The dashboard's entry point: logs in with the token from the address,
// applies the preferences (this browser's, then the gateway's copy), routes
// between the session list, a conversation and Settings (#/, #/s/<id>,
// #/settings), and owns the global shortcuts.
import { api } from "./api.js";
import { h, clear, inField } from "./dom.js";
import { hasStoredPrefs, loadPrefs, normalize, reconcile, savePrefs } from "./prefs.js";
import { SHORTCUTS } from "./shortcuts.js";
import { SLASH_COMMANDS } from "./commands.js";
import { SessionsView } from "./sessions_view.js";
import { ConversationView } from "./conversation_view.js";
import { SettingsView } from "./settings_view.js";
import { TypeAhead } from "./typeahead.js";

const state = { prefs: loadPrefs(localStorage), view: null, pendingKey: "", lastFieldKeyAt: -Infinity };
// What is typed while a view is opening a session (view.opening), for the
// conversation's message box.
const typeAhead = new TypeAhead();

export function takeTypedAhead() {
  return typeAhead.take();
}

export function prefs() {
  return state.prefs;
}

export function updatePrefs(change) {
  state.prefs = normalize({ ...state.prefs, ...change });
  savePrefs(localStorage, state.prefs);
  applyPrefs();
  pushPrefs();
}

// Sends the preferences to the gateway, one PUT at a time: a change made
// while one is under way is sent after it, so the last change is the one
// kept. A failure leaves them in this browser only.
const push = { running: false, again: false };
async function pushPrefs() {
  if (push.running) {
    push.again = true;
    return;
  }
  push.running = true;
  do {
    push.again = false;
    try {
      await api.setPreferences(state.prefs);
    } catch (e) {
      console.warn(`The preferences were not saved by raw-dashboard: ${e.message}`);
    }
  } while (push.again);
  push.running = false;
}

// On start: the gateway's copy of the preferences, which brings them to
// this run's new origin (prefs.js reconcile).
async function syncPrefs() {
  let remote;
  try {
    remote = await api.preferences();
  } catch {
    return;  // this browser's own, then
  }
  const { action, prefs: next } = reconcile(remote, state.prefs, hasStoredPrefs(localStorage));
  if (action === "push") pushPrefs();
  if (action !== "apply") return;
  state.prefs = next;
  savePrefs(localStorage, next);
  applyPrefs();
}

function applyPrefs() {
  const root = document.documentElement;
  if (state.prefs.theme === "system") delete root.dataset.theme;
  else root.dataset.theme = state.prefs.theme;
  root.style.setProperty("--font-size", `${state.prefs.fontSize}px`);
}

// The token arrives once in the fragment (#token=...); it is traded for the
// HttpOnly cookie and removed from the address and the history.
async function login() {
  const m = /^#token=([^&]+)/.exec(location.hash);
  if (!m) return;
  history.replaceState(null, "", `${location.pathname}#/`);
  await api.login(decodeURIComponent(m[1]));
}

function showFatal(title, text) {
  const main = clear(document.getElementById("main"));
  main.append(h("section", { class: "fatal", role: "alert" }, h("h1", {}, title), h("p", {}, text)));
}

function route() {
  state.view?.destroy?.();
  const main = clear(document.getElementById("main"));
  const hash = location.hash || "#/";
  let m;
  if ((m = /^#\/s\/(.+)$/.exec(hash))) state.view = new ConversationView(main, decodeURIComponent(m[1]));
  else if (hash === "#/settings") state.view = new SettingsView(main);
  else state.view = new SessionsView(main);
  for (const link of document.querySelectorAll("nav a")) {
    const current = link.getAttribute("href") === hash || (link.id === "nav-sessions" && hash.startsWith("#/s/"));
    if (current) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

export function showHelp() {
  const body = clear(document.getElementById("help-body"));
  body.append(
    h("table", { class: "shortcuts" },
      h("caption", {}, "Shortcuts"),
      h("tbody", {}, SHORTCUTS.map((s) => h("tr", {}, h("th", { scope: "row" }, h("kbd", {}, s.keys)), h("td", {}, s.text))))),
    h("table", { class: "shortcuts" },
      h("caption", {}, "Commands in the message box"),
      h("tbody", {}, SLASH_COMMANDS.map((c) => h("tr", {}, h("th", { scope: "row" }, h("code", {}, c.usage)), h("td", {}, c.help))))));
  document.getElementById("help-dialog").showModal();
}

// A modal yes/no question; resolves true when confirmed.
export function confirmDialog(title, text, okLabel) {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  const ok = document.getElementById("confirm-ok");
  const cancel = document.getElementById("confirm-cancel");
  ok.textContent = okLabel;
  return new Promise((resolve) => {
    const finish = (value) => {
      ok.removeEventListener("click", onOk);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("close", onCancel);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const onOk = () => finish(true);
    const onCancel = () => finish(false);
    ok.addEventListener("click", onOk);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("close", onCancel);
    dialog.showModal();
    cancel.focus();
  });
}

// Milliseconds since the last key pressed in a text field (shortcuts that
// act ask for it: approval_view.js).
export function sinceTypingMs() {
  return performance.now() - state.lastFieldKeyAt;
}

function onKey(e) {
  // A session is opening: the keys are text for its message box, never
  // shortcuts, wherever the focus is meanwhile.
  if (state.view?.opening) {
    if (typeAhead.key(e)) e.preventDefault();
    return;
  }
  if (inField(e.target)) {
    state.lastFieldKeyAt = performance.now();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector("dialog[open]")) return;
  if (state.pendingKey === "g") {
    state.pendingKey = "";
    if (e.key === "s") location.hash = "#/";
    else if (e.key === ",") location.hash = "#/settings";
    return;
  }
  if (e.key === "g") state.pendingKey = "g";
  else if (e.key === "?") showHelp();
  else if (state.view?.onKey?.(e)) e.preventDefault();
}

async function start() {
  applyPrefs();
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyPrefs);
  document.getElementById("help-button").addEventListener("click", showHelp);
  document.addEventListener("keydown", onKey);
  // A token in the address that is refused (an old run's, a mistyped one)
  // does not sign out a browser whose cookie is still good: the page goes
  // on when the API takes the cookie, and says so only when it does not.
  let refused = null;
  try {
    await login();
  } catch (e) {
    refused = e;
  }
  try {
    await api.info();
    await syncPrefs();
  } catch (e) {
    showFatal("Not signed in", e.status === 401
      ? `${refused ? `${refused.message}. ` : ""}Open the address that raw-dashboard printed (it carries this run's token).`
      : e.message);
    return;
  }
  window.addEventListener("hashchange", route);
  route();
}

start();
