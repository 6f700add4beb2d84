// The dashboard's layout, focus and live-update scenarios for
// browser_driver.mjs: the page never scrolls, a phone-sized window keeps
// every part usable, opened sections stay open while an answer streams,
// keys typed while a session opens are kept, the session list keeps its
// count and focus, a long approval keeps its buttons in view, and Details
// keep up with the footer. Same output rules as the driver: every wait is
// for a DOM state.

// Whether each element `selector` matches is in the window and the one a
// click at its centre reaches (not covered, not scrolled out of its box).
async function reachable(page, selector) {
  return page.$$eval(selector, (els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const inWindow = r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
    return inWindow && el.contains(document.elementFromPoint(x, y));
  }));
}

// The page's own scrolling: the document never scrolls (only the
// transcript, the session list or Settings inside it do).
const pageScroll = (page) => page.evaluate(() => ({
  scrollHeight: document.scrollingElement.scrollHeight, scrollWidth: document.scrollingElement.scrollWidth,
  innerHeight, innerWidth,
  topbarTop: document.querySelector(".topbar").getBoundingClientRect().top,
}));

// The scenarios, over the driver's own helpers.
export function layoutScenarios({ env, step, open, createSession, openSession, send, turnEnds, text }) {
  return {
  // A long conversation: the page stays one window high, whatever the
  // transcript holds and wherever it scrolls.
  async long_page() {
    const { page, finish } = await open();
    await openSession(page, env.SESSION);
    await page.waitForSelector("#transcript .item-user");
    await page.waitForSelector('#lease-state[data-state="holding"]');
    const opened = await pageScroll(page);
    // The first question of the page, brought into view in the transcript:
    // the transcript scrolls, the page (and its top bar) does not.
    await page.$eval("#transcript .item-user", (el) => el.scrollIntoView());
    const afterScrollIntoView = await pageScroll(page);
    await finish({
      opened, afterScrollIntoView,
      userItems: (await page.$$("#transcript .item-user")).length,
      transcriptScrolls: await page.$eval("#scroller", (el) => el.scrollHeight > el.clientHeight),
    });
  },

  // A phone-sized window: the session list above the New-session form, the
  // conversation as wide as the window with Details open, Details that can
  // be hidden, and a wide table that scrolls inside its answer.
  async narrow() {
    const { page, finish } = await open({ viewport: { width: 375, height: 800 } });
    const box = (selector) => page.$eval(selector, (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
    });
    const sessionsBox = await box(".sessions");
    const formBox = await box(".new-session");
    await createSession(page, "coder");
    await page.click("#details-toggle");
    await page.waitForSelector("#details:not([hidden]) #details-requests");
    const withDetails = {
      conversation: await box(".conversation"),
      details: await box("#details"),
      toggleReachable: (await reachable(page, "#details-toggle"))[0],
      closeReachable: (await reachable(page, "#details-close"))[0],
      page: await pageScroll(page),
    };
    await page.click("#details-toggle");
    await page.waitForSelector("#details", { state: "hidden" });
    const hiddenByToggle = await page.$eval("#details-toggle", (el) => el.getAttribute("aria-expanded"));
    await page.click("#details-toggle");
    await page.waitForSelector("#details:not([hidden])");
    await page.focus("#details-close");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#details", { state: "hidden" });
    const focusAfterHide = await page.evaluate(() => document.activeElement?.id ?? "");
    // A table wider than the window.
    await send(page, "a wide table");
    await page.waitForSelector("#transcript .item-assistant table");
    await turnEnds(page, 1);
    const table = await page.$eval("#transcript .item-assistant table", (t) => {
      const cell = (text) => [...t.querySelectorAll("td")].find((c) => c.textContent.trim() === text).getBoundingClientRect();
      const answer = t.closest(".item").getBoundingClientRect();
      return {
        display: getComputedStyle(t).display,
        scrollsSideways: t.scrollWidth > t.clientWidth,
        withinAnswer: t.getBoundingClientRect().right <= answer.right + 1,
        longWordHeight: cell("internationalization").height,
        shortWordHeight: cell("a").height,
      };
    });
    await finish({ sessionsBox, formBox, withDetails, hiddenByToggle, focusAfterHide, table, pageAfterTable: await pageScroll(page) });
  },

  // Reasoning opened while the answer streams stays open as the stream goes
  // on; the transcript is no live region, the turn's end is announced.
  async open_sections() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await send(page, "think first");
    const reasoning = '#transcript .item-assistant details[data-section="reasoning"]';
    await page.waitForFunction((sel) => document.querySelector(sel)
      && document.querySelector("#transcript .item-assistant .markdown")?.textContent.includes("part one"), reasoning);
    await page.click(`${reasoning} > summary`);
    await page.waitForFunction((sel) => document.querySelector(sel).open, reasoning);
    await step("opened");  // the test lets the rest of the stream through
    await page.waitForFunction(() => document.querySelector("#transcript .item-assistant .markdown")?.textContent.includes("part two"));
    const openAfterDelta = await page.$eval(reasoning, (el) => el.open);
    await turnEnds(page, 1);
    await page.waitForFunction(() => document.getElementById("announcer").textContent !== "");
    await finish({
      openAfterDelta,
      openAtEnd: await page.$eval(reasoning, (el) => el.open),
      transcriptLive: await page.$eval("#transcript", (el) => el.getAttribute("aria-live") ?? ""),
      announced: await text(page, "#announcer"),
    });
  },

  // Keys typed right after "Start session" land in the message box, none
  // taken as a shortcut; a command that fails comes back to the box; a font
  // size out of range is brought into it where the reader sees it.
  async type_ahead() {
    const { page, finish } = await open();
    await page.selectOption("#new-agent", "coder");
    await page.fill("#new-directory", env.WORKDIR);
    await page.click("#new-session-submit");
    await page.keyboard.type("dogs and ideas?");
    await page.waitForSelector('#lease-state[data-state="holding"]');
    await page.waitForFunction(() => document.getElementById("compose").value.length >= "dogs and ideas?".length);
    const seen = await page.evaluate(() => ({
      compose: document.getElementById("compose").value,
      focused: document.activeElement?.id ?? "",
      hash: location.hash,
      detailsHidden: document.getElementById("details").hidden,
      dialogs: document.querySelectorAll("dialog[open]").length,
    }));
    await send(page, "/agent nosuch");
    await page.waitForFunction(() => document.getElementById("compose-hint").textContent !== "");
    const failedCommand = { compose: await page.$eval("#compose", (el) => el.value), hint: await text(page, "#compose-hint") };
    await page.evaluate(() => { location.hash = "#/settings"; });
    await page.waitForSelector("#pref-font");
    await page.fill("#pref-font", "40");
    await page.press("#pref-font", "Tab");
    await page.waitForFunction(() => document.getElementById("pref-font-note").textContent !== "");
    await finish({
      ...seen, failedCommand,
      fontField: await page.$eval("#pref-font", (el) => el.value),
      fontNote: await text(page, "#pref-font-note"),
      fontApplied: await page.evaluate(() => document.documentElement.style.getPropertyValue("--font-size")),
    });
  },

  // The session list: times in the browser's zone, the focus after "More
  // sessions" and after a delete, and the count after a delete.
  async session_list() {
    const { page, finish } = await open({ timezoneId: "Asia/Kolkata" });
    const meta = await text(page, "#session-list .session .meta");
    const statusBefore = await text(page, "#sessions-status");
    await page.focus("#sessions-more");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#session-list .session").length > 50);
    const focusAfterMore = await page.evaluate(() => {
      const el = document.activeElement;
      const row = el?.closest(".session");
      return { tag: el?.tagName ?? "", row: row ? [...row.parentElement.children].indexOf(row) : -1 };
    });
    const rows = (await page.$$("#session-list .session")).length;
    await page.focus("#session-list .session:first-child button");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#confirm-dialog[open]");
    await page.click("#confirm-ok");
    await page.waitForFunction((n) => document.querySelectorAll("#session-list .session").length === n - 1, rows);
    await finish({
      meta, statusBefore, focusAfterMore, rows,
      statusAfterDelete: await text(page, "#sessions-status"),
      focusAfterDelete: await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.tagName),
      firstTitleAfterDelete: await text(page, "#session-list .session .title"),
    });
  },

  // An approval whose argument is 3,000 characters: the batch's buttons in
  // view, the reason line short; allowing the first call leaves the title
  // counting the other, the first marked allowed.
  async approval_long() {
    const { page, finish } = await open();
    await createSession(page, "asker");
    await send(page, "run the long one");
    await page.waitForSelector("#approval:not([hidden]) .approval-call");
    const batchReachable = await reachable(page, "#approval .row.batch button");
    const reasons = await page.$$eval("#approval .reason", (els) => els.map((e) => e.textContent));
    const argsShown = await page.$$eval("#approval pre.args", (els) => els.map((e) => e.textContent));
    await page.click('#approval button[aria-label="Allow bash (call 1 of 2)"]');
    await page.waitForFunction(() => document.querySelector('#approval li[data-state="answered"]'));
    const afterFirst = await page.evaluate(() => ({
      title: document.getElementById("approval-title").textContent,
      first: document.querySelector("#approval .approval-call").textContent,
      firstButtons: document.querySelectorAll("#approval .approval-call:first-child button").length,
      focused: document.activeElement?.id ?? "",
    }));
    await page.click('#approval button[aria-label="Deny bash (call 2 of 2)"]');
    await turnEnds(page, 1);
    await finish({ batchReachable, reasons, longestArgs: Math.max(...argsShown.map((a) => a.length)), afterFirst });
  },

  // Details keeps up with the footer while a turn runs: after the turn's
  // first model request, before it ends.
  async details_live() {
    const { page, finish } = await open();
    await createSession(page, "coder");
    await page.click("#details-toggle");
    await page.waitForSelector("#details-requests");
    const before = await text(page, "#details-requests");
    await send(page, "use a tool");
    await page.waitForFunction(() => document.querySelector("#transcript .markdown")?.textContent.includes("halfway"));
    await page.waitForFunction(() => document.getElementById("details-requests")?.textContent === "1 model request");
    await page.waitForFunction(() => {
      const footer = document.getElementById("context-estimate")?.textContent ?? "";
      const details = document.getElementById("details-context")?.textContent ?? "";
      return footer !== "" && footer.replace("context ", "") === details.replace("Context ", "");
    });
    const mid = {
      requests: await text(page, "#details-requests"),
      footer: await text(page, "#context-estimate"),
      details: await text(page, "#details-context"),
      turnState: await text(page, "#turn-state"),
    };
    await step("mid");
    await turnEnds(page, 1);
    await page.waitForFunction(() => document.getElementById("details-requests")?.textContent === "2 model requests");
    await finish({ before, mid });
  },
  };
}
