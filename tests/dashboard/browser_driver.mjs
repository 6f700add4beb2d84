// Drives the dashboard in Debian's chromium (headless, through
// playwright-core) for one scenario of tests/e2e/dashboard. Environment:
// DASHBOARD_URL (the URL raw-dashboard printed, with its token), WORKDIR,
// SCREENSHOT_DIR, and per scenario SESSION, FIRST_SEQ, LONG_ARG, PNG_FILE.
//
// Output, one JSON object per line: {"step": NAME} when the test must act
// (the driver then waits for a line on stdin), and finally {"done": true,
// ...what it saw}. Any failure exits 1 with the reason on stderr. Nothing
// waits on time: every wait is for a DOM state.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";
import { layoutScenarios } from "./browser_layout_scenarios.mjs";

const env = process.env;
const TIMEOUT = 60000;  // bounds a failing wait only
const stdin = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function fail(message) {
  process.stderr.write(`driver: ${message}\n`);
  process.exit(1);
}

async function step(name) {
  process.stdout.write(`${JSON.stringify({ step: name })}\n`);
  const { done } = await stdin.next();
  if (done) fail(`stdin closed at step ${name}`);
}

// `options`: the browser context's, over the defaults (a 1280x860 window).
async function open(options = {}) {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: "light", ...options });
  const errors = [];
  const foreign = [];
  // Loopback only: anything else is refused and reported.
  await context.route("**/*", (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === "127.0.0.1" || host === "localhost") return route.continue();
    foreign.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(env.DASHBOARD_URL);
  await page.waitForFunction(() => {
    const s = document.getElementById("sessions-status");
    return s && s.textContent !== "" && s.textContent !== "Loading…";
  });
  const finish = async (result) => {
    await browser.close();
    if (errors.length) fail(`page errors: ${errors.join("; ")}`);
    if (foreign.length) fail(`requests off the loopback: ${foreign.join(", ")}`);
    process.stdout.write(`${JSON.stringify({ done: true, ...result })}\n`);
    process.exit(0);
  };
  return { page, finish };
}

async function shot(page, name) {
  if (env.SCREENSHOT_DIR) await page.screenshot({ path: `${env.SCREENSHOT_DIR}/dashboard-${name}.png` });
}

// From now on, every frame the page sends on its sockets goes to
// window.__sent as well.
async function recordSentFrames(page) {
  await page.evaluate(() => {
    window.__sent = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      window.__sent.push(String(data));
      return send.call(this, data);
    };
  });
}

async function createSession(page, agent) {
  await page.selectOption("#new-agent", agent);
  await page.fill("#new-directory", env.WORKDIR);
  await page.click("#new-session-submit");
  await page.waitForSelector('#lease-state[data-state="holding"]');
}

async function openSession(page, id) {
  await page.evaluate((sid) => { location.hash = `#/s/${encodeURIComponent(sid)}`; }, id);
}

async function send(page, text) {
  await page.fill("#compose", text);
  await page.press("#compose", "Enter");
}

async function turnEnds(page, n) {
  await page.waitForFunction((count) => document.querySelectorAll("#transcript .item-turn_end").length >= count, n);
}

const text = (page, selector) => page.$eval(selector, (el) => el.textContent);

const scenarios = {
  async stream() {
    const { page, finish } = await open();
    const hashAfterLogin = await page.evaluate(() => location.hash);
    const listed = await text(page, "#session-list .session .title");
    await shot(page, "sessions");
    await createSession(page, "coder");
    await send(page, "show me a table");
    await page.waitForSelector("#transcript .item-assistant table");
    await turnEnds(page, 1);
    await page.waitForSelector("#context-estimate");
    const tableCells = (await text(page, "#transcript .item-assistant table")).replace(/\s+/g, "");
    const code = await text(page, "#transcript .item-assistant pre code");
    const highlighted = (await page.$$("#transcript .item-assistant pre code span[class^=hljs-]")).length > 0;
    const footer = await text(page, "#status-footer");
    await shot(page, "conversation");
    // Up recalls the prompt just sent, which no browser storage holds.
    const storage = () => page.evaluate(() => Object.keys(localStorage).map((k) => `${k}=${localStorage.getItem(k)}`).join("\n"));
    const recall = async () => {
      await page.focus("#compose");
      await page.press("#compose", "ArrowUp");
      const value = await page.$eval("#compose", (el) => el.value);
      await page.fill("#compose", "");
      return value;
    };
    const recalledAfterSend = await recall();
    const storageAfterSend = await storage();
    // Prefs an earlier version left with prompts in them: loading the page
    // removes the prompts, and Up recalls the session's own from its transcript.
    await page.evaluate(() => localStorage.setItem("raw-dashboard-prefs", JSON.stringify({ theme: "light", history: ["legacy stored prompt"] })));
    await page.reload();
    await page.waitForSelector("#transcript .item-user");
    await page.waitForSelector('#lease-state[data-state="holding"]');
    const recalledAfterReload = await recall();
    const storageAfterReload = await storage();
    await finish({ hashAfterLogin, listed, tableCells, code, highlighted, footer, recalledAfterSend, storageAfterSend,
                   recalledAfterReload, storageAfterReload });
  },

  async approve() {
    const { page, finish } = await open();
    await createSession(page, "asker");
    await send(page, "run two commands");
    await page.waitForSelector("#approval:not([hidden]) .approval-call");
    const approvalCalls = (await page.$$("#approval .approval-call")).length;
    const args = await page.$$eval("#approval .approval-call pre.args", (els) => els.map((e) => e.textContent));
    const fullArgumentShown = args.some((a) => a.includes(env.LONG_ARG));
    await shot(page, "approval");
    await page.click('#approval button[aria-label="Allow the whole batch"]');
    await page.waitForFunction(() => document.getElementById("transcript").textContent.includes("Both ran."));
    await turnEnds(page, 1);
    const okCards = (await page.$$("#transcript .tool-card.status-ok")).length;
    await send(page, "run a third");
    await page.waitForSelector("#approval:not([hidden]) .approval-call");
    await page.fill("#deny-message", "not now, thanks");
    await page.click('#approval button[aria-label="Deny bash"]');
    await page.waitForFunction(() => document.getElementById("transcript").textContent.includes("Understood, not running it."));
    await turnEnds(page, 2);
    await finish({ approvalCalls, fullArgumentShown, okCards });
  },

  // A batch where a rule already allowed one call: only the other waits,
  // with the rules "allow for this session" would add; the program option
  // then lets the next such command run without asking.
  async approval_states() {
    const { page, finish } = await open();
    await recordSentFrames(page);
    await createSession(page, "asker");
    await send(page, "read and touch");
    await page.waitForSelector("#approval:not([hidden]) .approval-call");
    const calls = await page.$$eval("#approval .approval-call", (els) => els.map((e) => ({
      state: e.dataset.state,
      text: e.textContent,
      enabledButtons: e.querySelectorAll("button:not([disabled])").length,
    })));
    const title = await text(page, "#approval-title");
    const panelStart = (await text(page, "#approval")).slice(0, 60);
    const batchButtons = await page.$$eval("#approval .row.batch button", (els) => els.map((e) => e.textContent));
    await page.click('#approval .approval-call[data-state="pending"] button:has-text("Allow program for this session")');
    await turnEnds(page, 1);
    await send(page, "touch another");
    await turnEnds(page, 2);
    const approves = await page.evaluate(() => window.__sent.map((f) => JSON.parse(f)).filter((f) => f.op === "approve")
      .map(({ call_ids, decision, session_rule }) => ({ call_ids, decision, session_rule })));
    await finish({ calls, title, panelStart, batchButtons, approves,
                   approvalRecords: (await page.$$("#transcript .item-approval")).length });
  },

  // The user keeps typing in the message box while an approval arrives:
  // the prompt must not take the keys (a space on a focused "Allow all",
  // or the "a" shortcut, would approve the batch).
  async typing() {
    const { page, finish } = await open();
    await recordSentFrames(page);
    await createSession(page, "asker");
    await send(page, "run it");
    await page.focus("#compose");
    const chunk = "a xa ";
    let typed = "";
    const started = Date.now();
    // Types until the prompt is shown, then five chunks more.
    const typing = (async () => {
      let after = -1;
      while (after < 5) {
        if (Date.now() - started > TIMEOUT) throw new Error("no approval prompt appeared");
        await page.keyboard.type(chunk);
        typed += chunk;
        if (after >= 0) after += 1;
        else if (await page.$("#approval:not([hidden]) .approval-call")) after = 0;
      }
    })();
    await step("typing");  // the test lets the model's tool call through
    await typing;
    const seen = await page.evaluate(() => ({
      approvesSent: window.__sent.filter((f) => JSON.parse(f).op === "approve").length,
      stillPending: !!document.querySelector("#approval:not([hidden]) .approval-call button:not([disabled])"),
      focused: document.activeElement?.id ?? "",
      compose: document.getElementById("compose").value,
    }));
    await page.click('#approval button[aria-label="Deny the whole batch"]');
    await turnEnds(page, 1);
    await finish({
      approvesSent: seen.approvesSent,
      stillPending: seen.stillPending,
      focused: seen.focused,
      composeKeptEveryKey: seen.compose === typed,
    });
  },

  // After login, a page of another server on 127.0.0.1 (another port):
  // what the browser sends it.
  async cookie() {
    const { page, finish } = await open();
    const received = [];
    const server = createServer((req, res) => {
      received.push(req.headers.cookie ?? "");
      res.end("another local server");
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const cookies = await page.context().cookies();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.body?.textContent.includes("another local server"));
    server.close();
    await finish({
      received: received.join("\n"),
      cookies: cookies.map((c) => ({ name: c.name, value: c.value, httpOnly: c.httpOnly, sameSite: c.sameSite })),
    });
  },

  // A bad #token= in the address of a browser signed in already (an
  // earlier run's address, a mistyped one): the page goes on with its
  // cookie and lists the sessions.
  async relogin() {
    const { page, finish } = await open();
    await page.evaluate(() => { location.hash = "#token=bogus"; });
    await page.reload();
    await page.waitForFunction(() => {
      if (document.querySelector(".fatal")) return true;
      const s = document.getElementById("sessions-status");
      return s && s.textContent !== "" && s.textContent !== "Loading…";
    });
    const fatal = await page.$(".fatal");
    await finish({
      fatal: fatal ? await fatal.textContent() : "",
      listed: (await page.$$("#session-list .session")).length,
      hash: await page.evaluate(() => location.hash),
    });
  },

  // A link in an answer (to a site the route serves, not the network):
  // after DOMPurify it still opens in a new tab, without an opener or a
  // referrer, and the dashboard stays where it is, still holding its lease.
  async links() {
    const { page, finish } = await open();
    const context = page.context();
    await context.route("https://evil.example/**", (route) => route.fulfill({
      status: 200, contentType: "text/html", body: "<!doctype html><title>elsewhere</title><p>elsewhere</p>",
    }));
    await createSession(page, "coder");
    await send(page, "give me a link");
    await turnEnds(page, 1);
    const selector = "#transcript .item-assistant .markdown a";
    await page.waitForSelector(selector);
    const link = await page.$eval(selector, (a) => ({
      href: a.getAttribute("href") ?? "", target: a.getAttribute("target") ?? "", rel: a.getAttribute("rel") ?? "",
      text: a.textContent,
    }));
    const dashboardUrl = page.url();
    // Clicked only when it would open a tab: otherwise the click would
    // replace this page, which is what the test is there to catch.
    let popup = null;
    if (link.target === "_blank") {
      [popup] = await Promise.all([context.waitForEvent("page"), page.click(selector)]);
      await popup.waitForLoadState();
    }
    await finish({
      link,
      dashboardUrl,
      urlAfterClick: page.url(),
      leaseAfterClick: await page.$eval("#lease-state", (el) => el.dataset.state),
      popupUrl: popup ? popup.url() : "",
      popupOpener: popup ? await popup.evaluate(() => window.opener === null ? "none" : "set") : "",
      popupReferrer: popup ? await popup.evaluate(() => document.referrer) : "",
    });
  },

  async interrupt() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await send(page, "tell me a story");
    await page.waitForFunction(() => [...document.querySelectorAll("#transcript .item-assistant .markdown")]
      .some((el) => el.textContent.includes("partial words")));
    await page.waitForSelector("#interrupt:not([disabled])");
    await page.click("#interrupt");
    await turnEnds(page, 1);
    await finish({
      turnEnd: await text(page, "#transcript .item-turn_end"),
      text: await text(page, "#transcript"),
    });
  },

  async compact() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await send(page, "first question");
    await turnEnds(page, 1);
    await send(page, "second question");
    await turnEnds(page, 2);
    await send(page, "third question");
    await turnEnds(page, 3);
    // Every text a compaction item shows, as it shows it.
    await page.evaluate(() => {
      window.__compaction = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll("#transcript .item-compaction")) {
          if (!window.__compaction.includes(el.textContent)) window.__compaction.push(el.textContent);
        }
      }).observe(document.getElementById("transcript"), { childList: true, subtree: true, characterData: true });
    });
    await send(page, "/compact");
    // The item appears when compaction starts; its progress line follows with
    // the summary request, which the test holds open until "compacting".
    await page.waitForFunction(
      (sel) => /summary \d+ of \d+/.test(document.querySelector(sel)?.textContent ?? ""),
      "#transcript .item-compaction.compaction-running",
    );
    const running = await text(page, "#transcript .item-compaction.compaction-running");
    // No turn runs, but the compaction does: it can be interrupted.
    const interruptEnabled = await page.$eval("#interrupt", (el) => !el.disabled);
    const footerState = await text(page, "#turn-state");
    await shot(page, "compaction");
    await step("compacting");
    await page.waitForSelector("#transcript .item-compaction.compaction-ended");
    await finish({
      running,
      interruptEnabled,
      footerState,
      progress: (await page.evaluate(() => window.__compaction)).join(" | "),
      ended: await text(page, "#transcript .item-compaction.compaction-ended"),
    });
  },

  async details() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await send(page, "one");
    await turnEnds(page, 1);
    await send(page, "two");
    await turnEnds(page, 2);
    await page.click("#details-toggle");
    const cell = '#usage-table tr[data-field="cacheReadTokens"] .coverage';
    await page.waitForFunction((sel) => /of 2 requests/.test(document.querySelector(sel)?.textContent ?? ""), cell);
    await shot(page, "details");
    await finish({
      cacheReads: await text(page, cell),
      inputTokens: await text(page, '#usage-table tr[data-field="inputTokens"] .coverage'),
      ratio: await text(page, "#cache-ratio"),
      overhead: await text(page, "#overhead"),
    });
  },

  async history() {
    const { page, finish } = await open();
    const started = Date.now();
    await openSession(page, env.SESSION);
    await page.waitForSelector("#transcript li.item");
    const firstScreenMs = Date.now() - started;
    const pageMs = [];
    // The session's first item (FIRST_SEQ: its event's seq) ends the scroll.
    const first = `#transcript li.item[data-seq="${env.FIRST_SEQ}"]`;
    while (!(await page.$(first))) {
      const pages = Number(await page.$eval("#transcript", (el) => el.dataset.pages ?? "1"));
      const t0 = Date.now();
      await page.$eval("#scroller", (el) => { el.scrollTop = 0; });
      await page.waitForFunction(([n, sel]) => Number(document.getElementById("transcript").dataset.pages ?? "1") > n
        || document.querySelector(sel), [pages, first]);
      pageMs.push(Date.now() - t0);
    }
    await page.$eval("#scroller", (el) => { el.scrollTop = 0; });
    await shot(page, "history");
    await finish({
      firstText: await text(page, first),
      items: (await page.$$("#transcript li.item")).length,
      cards: await page.$$eval("#transcript .tool-card", (els) => els.map((e) => ({
        callId: e.dataset.callId, status: e.querySelector(".tool-status")?.textContent ?? "", text: e.textContent,
      }))),
      approvals: await page.$$eval("#transcript .approval-record", (els) => els.map((e) => e.textContent)),
      pages: Number(await page.$eval("#transcript", (el) => el.dataset.pages ?? "1")),
      firstScreenMs,
      pageMs,
    });
  },

  async follow() {
    const { page, finish } = await open();
    await openSession(page, env.SESSION);
    await page.waitForSelector('#lease-state[data-state="follower"]');
    await page.waitForFunction(() => document.getElementById("transcript").textContent.includes("run from the terminal"));
    const followerBadge = await text(page, "#lease-state");
    const composeDisabledWhileFollowing = await page.$eval("#compose", (el) => el.disabled);
    await shot(page, "follower");
    await page.click("#request-write");
    await step("requested");
    await page.waitForFunction(() => [...document.querySelectorAll("#transcript .item-assistant .markdown")]
      .some((el) => el.textContent.includes("Run answer.")));
    await page.waitForSelector('#lease-state[data-state="holding"]');
    await finish({
      followerBadge,
      composeDisabledWhileFollowing,
      liveAnswer: (await text(page, "#transcript .item-assistant .markdown")).trim(),
      finalLease: await page.$eval("#lease-state", (el) => el.dataset.state),
    });
  },

  // Settings: the packages of the config, read-only.
  async settings() {
    const { page, finish } = await open();
    await page.evaluate(() => { location.hash = "#/settings"; });
    await page.waitForSelector("#package-list table tbody tr");
    await shot(page, "settings");
    await finish({
      aliases: await page.$$eval("#package-list tbody tr", (rows) => rows.map((r) => r.dataset.alias)),
      row: await text(page, "#package-list tbody tr"),
      note: await text(page, "#package-list p"),
    });
  },

  // Settings › This browser: the dark theme and a larger font, applied at
  // once and saved by the gateway (prefs_follow opens the next run).
  async prefs_set() {
    const { page, finish } = await open();
    await page.evaluate(() => { location.hash = "#/settings"; });
    await page.waitForSelector("#pref-theme");
    await page.selectOption("#pref-theme", "dark");
    await page.fill("#pref-font", "19");
    await page.press("#pref-font", "Tab");  // the change lands on leaving the field
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark" &&
      document.documentElement.style.getPropertyValue("--font-size") === "19px");
    // Done once the gateway holds both changes.
    await page.waitForFunction(async () => {
      const r = await fetch("/api/preferences", { credentials: "same-origin" });
      const p = await r.json();
      return p.theme === "dark" && p.fontSize === 19;
    }, null, { polling: 100 });
    await finish({ origin: await page.evaluate(() => location.origin) });
  },

  // A new run of the gateway (a new port, so a new origin with empty
  // storage) in a new browser profile: the page shows the preferences
  // prefs_set chose, and Settings shows them as chosen.
  async prefs_follow() {
    const { page, finish } = await open();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    const fontSize = await page.evaluate(() => document.documentElement.style.getPropertyValue("--font-size"));
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const storage = await page.evaluate(() => Object.keys(localStorage).map((k) => `${k}=${localStorage.getItem(k)}`).join("\n"));
    await page.evaluate(() => { location.hash = "#/settings"; });
    await page.waitForSelector("#pref-theme");
    await finish({
      origin: await page.evaluate(() => location.origin),
      theme: await page.evaluate(() => document.documentElement.dataset.theme),
      fontSize,
      background,
      storage,
      settingsTheme: await page.$eval("#pref-theme", (el) => el.value),
      settingsFont: await page.$eval("#pref-font", (el) => el.value),
    });
  },

  // Settings › Plugins › Raven research: override a field, see it marked,
  // have a bad value refused with its path, reload, and reset it.
  async raven() {
    const { page, finish } = await open();
    const card = '.plugin-card[data-namespace="raven-research"]';
    const row = (path) => `${card} .raven-row[data-path="${path}"]`;
    const timeout = `${row("verify.fetch_timeout_seconds")} input`;
    const toSettings = async () => {
      await page.evaluate(() => { location.hash = "#/settings"; });
      await page.waitForSelector(timeout);
    };
    await toSettings();
    const title = await text(page, `${card} h3`);
    const configValue = await page.$eval(timeout, (el) => el.value);
    const overriddenBefore = (await page.$$(`${row("verify.fetch_timeout_seconds")} .badge.overridden`)).length;
    const groups = await page.$$eval(`${card} fieldset legend`, (ls) => ls.map((l) => l.textContent));
    await page.fill(timeout, "5");
    await page.waitForSelector(`${row("verify.fetch_timeout_seconds")} .badge.unsaved`);
    await page.click("#raven-save");
    await page.waitForSelector(`${row("verify.fetch_timeout_seconds")} .badge.overridden`);
    await shot(page, "raven-card");
    await step("saved");
    await page.fill(`${row("verify.max_bytes")} input`, "0");
    await page.click("#raven-save");
    await page.waitForSelector(`${card} .banner:not([hidden])`);
    const refusal = await text(page, `${card} .banner`);
    await page.click("#raven-discard");
    await page.reload();
    await page.waitForFunction(() => document.getElementById("sessions-status")?.textContent !== "Loading…");
    await toSettings();
    const afterReload = await page.$eval(timeout, (el) => el.value);
    await page.click(`${row("verify.fetch_timeout_seconds")} button.reset`);
    await page.click("#raven-save");
    await page.waitForFunction((sel) => !document.querySelector(`${sel} .badge.overridden`) &&
      document.querySelector(`${sel} input`).value !== "5", row("verify.fetch_timeout_seconds"));
    await finish({
      title, configValue, overriddenBefore, groups, refusal, afterReload,
      afterReset: await page.$eval(timeout, (el) => el.value),
    });
  },

  // Settings › Plugins › Raven research with a Search override saved while
  // a backend was configured, and none configured now: shown as not in
  // effect with rawd's reason, read-only, and reset.
  async raven_inactive() {
    const { page, finish } = await open();
    const group = '.plugin-card[data-namespace="raven-research"] fieldset[data-section="search"]';
    const row = `${group} .raven-row[data-path="search.max_results"]`;
    await page.evaluate(() => { location.hash = "#/settings"; });
    await page.waitForSelector(`${group} .inactive-note`);
    const note = await text(page, `${group} .inactive-note`);
    const rows = await page.$$eval(`${group} .raven-row`, (rs) => rs.map((r) => r.dataset.path));
    const badge = await text(page, `${row} .badge.inactive`);
    const disabled = await page.$eval(`${row} input`, (el) => el.disabled);
    await page.click(`${row} button.reset`);
    await page.click("#raven-save");
    await page.waitForSelector(group, { state: "detached" });
    await finish({ note, rows, badge, disabled });
  },

  // Images: refused in the page when too large or not an image, attached
  // with the keyboard (the file picker), removed, pasted, and sent with and
  // without text.
  async images() {
    const { page, finish } = await open();
    await recordSentFrames(page);
    await createSession(page, "coder");
    // Listened for from the start: playwright turns the interception of the
    // picker on asynchronously, after the listener is added.
    const picker = page.waitForEvent("filechooser");
    const hint = () => text(page, "#compose-hint");
    const thumbnails = () => page.$$eval("#attachments img", (els) => els.map((e) => e.alt));
    const prompts = () => page.evaluate(() => window.__sent.map((f) => JSON.parse(f)).filter((f) => f.op === "prompt")
      .map((f) => ({ text: f.text, images: (f.images ?? []).map((i) => ({ mimeType: i.mimeType, data: i.data })) })));

    await page.setInputFiles("#attach-input", { name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(5 * 1024 * 1024 + 1) });
    await page.waitForFunction(() => document.getElementById("compose-hint").textContent.includes("big.png"));
    const tooLarge = await hint();
    await page.setInputFiles("#attach-input", { name: "notes.png", mimeType: "image/png", buffer: Buffer.from("just some text") });
    await page.waitForFunction(() => document.getElementById("compose-hint").textContent.includes("notes.png"));
    const notAnImage = await hint();
    const thumbnailsAfterRefusals = (await thumbnails()).length;
    await page.press("#compose", "Enter");  // nothing to send
    const promptsAfterRefusals = (await prompts()).length;

    // The keyboard: Tab reaches "Attach image", Enter opens the picker.
    await page.focus("#compose");
    await page.keyboard.press("Tab");
    const tabbedTo = await page.evaluate(() => document.activeElement?.id ?? "");
    await page.keyboard.press("Enter");
    await (await picker).setFiles(env.PNG_FILE);
    await page.waitForSelector("#attachments img");
    const attachedAlt = (await thumbnails())[0];
    const removeLabel = await page.$eval("#attachments button.remove", (b) => b.getAttribute("aria-label"));
    await page.focus("#attachments button.remove");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#attachments img").length === 0);
    const focusAfterRemove = await page.evaluate(() => document.activeElement?.id ?? "");
    const listHiddenAfterRemove = await page.$eval("#attachments", (el) => el.hidden);

    await page.setInputFiles("#attach-input", env.PNG_FILE);
    await page.waitForSelector("#attachments img");
    await send(page, "what is in this picture?");
    await page.waitForSelector("#transcript .item-user img.prompt-image");
    await turnEnds(page, 1);
    const sentAlt = await page.$eval("#transcript .item-user img.prompt-image", (el) => el.alt);
    const userText = await text(page, "#transcript .item-user .user-text");
    const thumbnailsAfterSend = (await thumbnails()).length;

    // A pasted image, sent alone.
    await page.$eval("#compose", (el, data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const clipboard = new DataTransfer();
      clipboard.items.add(new File([bytes], "image.png", { type: "image/png" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: clipboard, bubbles: true, cancelable: true }));
    }, readFileSync(env.PNG_FILE).toString("base64"));
    await page.waitForSelector("#attachments img");
    const pastedAlt = (await thumbnails())[0];
    await page.press("#compose", "Enter");
    await page.waitForFunction(() => document.querySelectorAll("#transcript .item-user img.prompt-image").length === 2);
    await turnEnds(page, 2);
    await finish({
      tooLarge, notAnImage, thumbnailsAfterRefusals, promptsAfterRefusals,
      tabbedTo, attachedAlt, removeLabel, focusAfterRemove, listHiddenAfterRemove,
      sentAlt, userText, thumbnailsAfterSend, pastedAlt,
      userItems: (await page.$$("#transcript .item-user")).length,
      prompts: await prompts(),
    });
  },

  // A prompt whose turn rawd is still preparing (a variable's command
  // blocks): the page says so, Interrupt stops it, and no second prompt is
  // sent meanwhile.
  async preparing() {
    const { page, finish } = await open();
    await recordSentFrames(page);
    await createSession(page, "coder");
    await send(page, "go");
    await step("sent");  // the test waits for the variable's command
    await page.waitForSelector("#interrupt:not([disabled])");
    const footerState = await text(page, "#turn-state");
    const sendDisabled = await page.$eval("#send", (el) => el.disabled);
    await send(page, "again");
    const hintOnResend = await text(page, "#compose-hint");
    await page.click("#interrupt");
    await page.waitForFunction(() => /interrupted/.test(document.getElementById("compose-hint").textContent));
    await page.waitForFunction(() => document.getElementById("turn-state").textContent === "idle");
    await finish({
      footerState, sendDisabled, hintOnResend,
      hintAfterInterrupt: await text(page, "#compose-hint"),
      compose: await page.$eval("#compose", (el) => el.value),
      interruptDisabledAfter: await page.$eval("#interrupt", (el) => el.disabled),
      prompts: await page.evaluate(() => window.__sent.map((f) => JSON.parse(f)).filter((f) => f.op === "prompt").length),
    });
  },

  // A second tab asks to write while the writing tab's user types: the
  // typing stays in the message box, nothing is handed over.
  async handover() {
    const { page, finish } = await open();
    await recordSentFrames(page);
    await createSession(page, "coder");
    const session = await page.evaluate(() => decodeURIComponent(location.hash.replace("#/s/", "")));
    await page.focus("#compose");
    await page.keyboard.type("fix the tests");
    const other = await page.context().newPage();
    await other.goto(env.DASHBOARD_URL);
    await openSession(other, session);
    await other.waitForSelector('#lease-state[data-state="follower"]');
    await other.click("#request-write");
    await page.waitForSelector("#banner:not([hidden]) #hand-over");
    const focusedOnRequest = await page.evaluate(() => document.activeElement?.id ?? "");
    await page.keyboard.type(" more");
    const seen = await page.evaluate(() => ({
      focused: document.activeElement?.id ?? "",
      compose: document.getElementById("compose").value,
      lease: document.getElementById("lease-state").dataset.state,
      releases: window.__sent.filter((f) => JSON.parse(f).op === "release_lease").length,
    }));
    // Then a deliberate click on Keep writing answers it.
    await page.click("#decline-handover");
    await other.waitForSelector('#lease-state[data-state="follower"]');
    const otherAfterDecline = await other.$eval("#lease-state", (el) => el.dataset.state);
    // The writer's tab closes: the follower writes, without a reload or a click.
    await page.close();
    await other.waitForSelector('#lease-state[data-state="holding"]');
    await other.waitForSelector("#compose:not([disabled])");
    await finish({ focusedOnRequest, ...seen, otherAfterDecline, otherAfterWriterLeft: "holding" });
  },

  async xss() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await send(page, "show some html");
    await turnEnds(page, 1);
    await finish({
      text: await text(page, "#transcript .item-assistant .markdown"),
      images: (await page.$$("#transcript img")).length,
      scripts: (await page.$$("#transcript script")).length,
      javascriptLinks: (await page.$$('#transcript a[href^="javascript:" i]')).length,
      pwned: await page.evaluate(() => window.__pwned ?? "unset"),
    });
  },
  // A model answer that takes markdown-it seconds to parse: the page keeps
  // answering (a timer probe every 20 ms records the longest gap), the
  // answer shows as plain text with a note, and the next answer renders as
  // Markdown again.
  async slow() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await page.evaluate(() => {
      const probe = { last: performance.now(), maxGapMs: 0 };
      const tick = () => {
        const now = performance.now();
        probe.maxGapMs = Math.max(probe.maxGapMs, now - probe.last);
        probe.last = now;
        probe.timer = setTimeout(tick, 20);
      };
      window.__probe = probe;
      tick();
    });
    await send(page, "answer with something slow");
    await page.waitForSelector("#transcript .item-assistant .markdown-note");
    await turnEnds(page, 1);
    // The details button answers a click at once.
    const clickMs = await page.evaluate(() => new Promise((resolve) => {
      const button = document.getElementById("details-toggle");
      const t0 = performance.now();
      button.click();
      requestAnimationFrame(() => resolve(performance.now() - t0));
    }));
    const maxGapMs = await page.evaluate(() => { clearTimeout(window.__probe.timer); return window.__probe.maxGapMs; });
    const slowItem = await page.$("#transcript .item-assistant");
    const note = await slowItem.$eval(".markdown-note", (el) => el.textContent);
    const plain = await slowItem.$eval(".plain-text", (el) => el.textContent);
    const emphasis = (await slowItem.$$("em, strong")).length;
    await send(page, "now a table");
    await page.waitForSelector("#transcript .item-assistant table");
    await turnEnds(page, 2);
    await page.waitForSelector("#transcript .item-assistant pre code span[class^=hljs-]");
    const last = (await page.$$("#transcript .item-assistant")).at(-1);
    const tableCells = (await last.$eval("table", (el) => el.textContent)).replace(/\s+/g, "");
    const code = await last.$eval("pre code", (el) => el.textContent);
    const highlighted = (await last.$$("pre code span[class^=hljs-]")).length > 0;
    const lastNotes = (await last.$$(".markdown-note")).length;
    // Over the length limit: plain text at once, without a render.
    await send(page, "now a long one");
    await turnEnds(page, 3);
    await page.waitForFunction(() => document.querySelectorAll("#transcript .item-assistant .markdown-note").length >= 2);
    const longNote = await page.$$eval("#transcript .item-assistant .markdown-note", (els) => els.at(-1).textContent);
    await finish({
      maxGapMs, clickMs, note, plainStart: plain.slice(0, 40), plainLength: plain.length, emphasis,
      tableCells, code, highlighted, lastNotes, longNote,
    });
  },
};

Object.assign(scenarios, layoutScenarios({ env, step, open, createSession, openSession, send, turnEnds, text }));

const scenario = scenarios[process.argv[2]];
if (!scenario) fail(`unknown scenario ${process.argv[2]} (one of ${Object.keys(scenarios).join(", ")})`);
scenario().catch((e) => fail(e.stack ?? String(e)));
