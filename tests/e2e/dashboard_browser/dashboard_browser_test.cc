// The dashboard in a real browser: Debian's chromium (headless, driven by
// playwright-core from tests/dashboard/browser_driver.mjs) against a real
// raw-dashboard and a real rawd with the fake provider. Each test runs one
// driver scenario and checks what the browser saw and what reached the
// model. Screenshots go to docs/images/dashboard-*.png.
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "daemon/events/session_event.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"
#include "tests/e2e/dashboard_browser/seeded_turns.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

// Turns of the seeded long history: three display items each (question,
// answer, turn end), 10,002 in all.
constexpr int kSeededTurns = 3334;
constexpr int kItemsPerTurn = 3;

// Writes a session of `turns` turns into rawd's database before it starts,
// as the daemon records them: turn k is events 4k-3 to 4k (turn start,
// "question number k", "answer number k", turn end). The store the daemon
// reads, filled in one transaction instead of thousands of model turns;
// with the turn boundaries a real history has, so that opening it reads
// only its newest turn back (the recovery of a turn a crash left open).
std::string SeedHistory(const TestDaemon& daemon, int turns) {
  const std::string id = "sess_seededhistory0001";
  std::filesystem::create_directories(daemon.state_dir());
  auto opened = store::SessionStore::Open(absl::StrCat(daemon.state_dir(), "/", store::DatabaseFileName()));
  EXPECT_TRUE(opened.ok()) << opened.status();
  if (!opened.ok()) return "";
  // Recent, so that session expiry leaves it alone.
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  store::SessionRecord record;
  record.id = id;
  record.agent = "coder";
  record.cwd = daemon.workdir();
  record.created_at_unix_ms = now_ms;
  record.last_activity_unix_ms = now_ms;
  EXPECT_TRUE((*opened)->CreateSession(record).ok());
  store::CommitBatch batch;
  batch.title = "Seeded history";
  AppendSeededTurns(
      id, turns, now_ms, [](int k) { return absl::StrCat("answer number ", k); }, batch);
  absl::Status s = (*opened)->Commit(id, batch);
  EXPECT_TRUE(s.ok()) << s;
  return id;
}

TEST_F(DashboardBrowserTest, OpensWithTheTokenListsStartsAndStreamsMarkdown) {
  SeedHistory(*daemon_, 20);
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("Here is a table:\n\n| name | size |\n"),
                              chat::TextChunk("|---|---|\n| a.txt | 3 |\n\nAnd code:\n\n```cpp\n"),
                              chat::TextChunk("int main() { return 0; }\n```\n"), chat::FinishChunk("stop"),
                              chat::UsageChunk(120, 30), chat::Done()}));
  Json r = Drive("stream");
  EXPECT_EQ(r.value("listed", ""), "Seeded history");
  EXPECT_EQ(r.value("hashAfterLogin", ""), "#/");
  EXPECT_EQ(r.value("tableCells", ""), "namesizea.txt3");
  EXPECT_THAT(r.value("code", ""), HasSubstr("int main()"));
  EXPECT_TRUE(r.value("highlighted", false));
  EXPECT_THAT(r.value("footer", ""), HasSubstr("context ~"));
  EXPECT_THAT(r.value("footer", ""), HasSubstr("%)"));
  ASSERT_EQ(fake_.requests().size(), 1u);
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr("show me a table"));
  // Up recalls the sent prompt, from memory and after a reload from the
  // session's transcript; the browser's storage holds preferences only, and
  // the prompts an earlier version stored there are gone once the page loads.
  EXPECT_EQ(r.value("recalledAfterSend", ""), "show me a table");
  EXPECT_EQ(r.value("recalledAfterReload", ""), "show me a table");
  EXPECT_THAT(r.value("storageAfterSend", ""), Not(HasSubstr("show me a table")));
  EXPECT_THAT(r.value("storageAfterReload", ""), Not(HasSubstr("show me a table")));
  EXPECT_THAT(r.value("storageAfterReload", ""), Not(HasSubstr("legacy stored prompt")));
  EXPECT_THAT(r.value("storageAfterReload", ""), HasSubstr("\"theme\":\"light\""));
}

TEST_F(DashboardBrowserTest, ApprovesABatchAndDeniesWithAMessage) {
  StartAll();
  if (IsSkipped()) return;
  std::string long_arg(400, 'q');
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_a", "bash", R"({"command":"echo one"})"},
                                        {"call_b", "bash", absl::StrCat(R"({"command":"echo )", long_arg, R"("})")}}));
  fake_.Enqueue(chat::TextAnswer("Both ran."));
  fake_.Enqueue(chat::ToolCallsAnswer({{"call_c", "bash", R"({"command":"echo three"})"}}));
  fake_.Enqueue(chat::TextAnswer("Understood, not running it."));
  Json r = Drive("approve", {{"LONG_ARG", long_arg}});
  EXPECT_EQ(r.value("approvalCalls", 0), 2);
  EXPECT_TRUE(r.value("fullArgumentShown", false));
  EXPECT_EQ(r.value("okCards", 0), 2);
  ASSERT_EQ(fake_.requests().size(), 4u);
  // The allowed commands ran; the denied one did not, and the model got the message.
  EXPECT_THAT(fake_.requests()[1].body, HasSubstr("one\\n"));
  EXPECT_THAT(fake_.requests()[3].body, HasSubstr("not now, thanks"));
  EXPECT_THAT(fake_.requests()[3].body, Not(HasSubstr("three\\n")));
}

// Keys typed into the message box while an approval arrives stay in the
// message box: nothing is approved, the command does not run.
TEST_F(DashboardBrowserTest, TypingWhileAnApprovalArrivesApprovesNothing) {
  StartAll();
  if (IsSkipped()) return;
  testing::ScriptedResponse call =
      chat::ToolCallsAnswer({{"call_t", "bash", R"({"command":"printf '%s-%s' typed approved"})"}});
  call.gate_before_chunk = 1;
  fake_.Enqueue(call);
  fake_.Enqueue(chat::TextAnswer("Not running it."));
  Json r = Drive("typing", {}, [&](const std::string& step) {
    if (step != "typing") return;
    EXPECT_TRUE(fake_.WaitForGate());
    fake_.ReleaseGate();
  });
  EXPECT_EQ(r.value("approvesSent", -1), 0);
  EXPECT_TRUE(r.value("stillPending", false));
  EXPECT_EQ(r.value("focused", ""), "compose");
  EXPECT_TRUE(r.value("composeKeptEveryKey", false));
  ASSERT_EQ(fake_.requests().size(), 2u);
  EXPECT_THAT(fake_.requests()[1].body, Not(HasSubstr("typed-approved")));
}

// The session cookie is not the token, and is named for this gateway's
// port: the browser sends it to every server on 127.0.0.1, whatever the
// port, so another local server must not receive the token.
TEST_F(DashboardBrowserTest, AnotherLocalServerNeverReceivesTheToken) {
  StartAll();
  if (IsSkipped()) return;
  const std::string token = url_.substr(url_.find("#token=") + 7);
  const std::string port =
      url_.substr(url_.rfind(':') + 1, url_.find('/', url_.rfind(':')) - url_.rfind(':') - 1);
  Json r = Drive("cookie");
  EXPECT_THAT(r.value("received", ""), Not(HasSubstr(token)));
  ASSERT_EQ(r.value("cookies", Json::array()).size(), 1u) << r.dump();
  const Json& cookie = r["cookies"][0];
  EXPECT_EQ(cookie.value("name", ""), absl::StrCat("raw_dashboard_", port));
  EXPECT_NE(cookie.value("value", ""), token);
  EXPECT_GE(cookie.value("value", "").size(), 32u);
  EXPECT_TRUE(cookie.value("httpOnly", false));
  EXPECT_EQ(cookie.value("sameSite", ""), "Strict");
}

TEST_F(DashboardBrowserTest, InterruptsAStreamingAnswer) {
  StartAll();
  if (IsSkipped()) return;
  testing::ScriptedResponse parked = chat::Stream({chat::RoleChunk(), chat::TextChunk("partial words "),
                                                   chat::TextChunk("never sent"), chat::FinishChunk("stop"), chat::Done()});
  parked.gate_before_chunk = 2;
  fake_.Enqueue(parked);
  Json r = Drive("interrupt");
  EXPECT_THAT(r.value("turnEnd", ""), HasSubstr("interrupted"));
  EXPECT_THAT(r.value("text", ""), HasSubstr("partial words"));
  EXPECT_THAT(r.value("text", ""), Not(HasSubstr("never sent")));
}

// Three turns: the oldest is older than the two kept as they are.
TEST_F(DashboardBrowserTest, CompactsAndShowsProgress) {
  StartAll();
  if (IsSkipped()) return;
  std::string long_answer;
  for (int i = 0; i < 80; ++i) absl::StrAppend(&long_answer, " detail-", i);
  fake_.Enqueue(chat::TextAnswer(absl::StrCat("First answer:", long_answer)));
  fake_.Enqueue(chat::TextAnswer(absl::StrCat("Second answer:", long_answer)));
  fake_.Enqueue(chat::TextAnswer(absl::StrCat("Third answer:", long_answer)));
  // The summary waits until the page has shown the running compaction.
  testing::ScriptedResponse summary = chat::TextAnswer("SUMMARY: two questions were answered.");
  summary.gate_before_chunk = 1;
  fake_.Enqueue(summary);
  Json r = Drive("compact", {}, [&](const std::string& step) {
    if (step == "compacting") fake_.ReleaseGate();
  });
  // The running item: started, then the progress of its summary requests.
  EXPECT_THAT(r.value("running", ""), HasSubstr("compacting"));
  EXPECT_THAT(r.value("running", ""), HasSubstr("summary 1 of 1"));
  // A running compaction is busy: it can be interrupted, the footer says so.
  EXPECT_TRUE(r.value("interruptEnabled", false));
  EXPECT_EQ(r.value("footerState", ""), "compacting");
  EXPECT_THAT(r.value("ended", ""), HasSubstr("context compacted"));
  ASSERT_EQ(fake_.requests().size(), 4u);
  EXPECT_THAT(fake_.requests()[3].body, HasSubstr("detail-1"));
}

TEST_F(DashboardBrowserTest, DetailsShowUsagePerFieldWithCoverage) {
  StartAll();
  if (IsSkipped()) return;
  chat::Usage cached;
  cached.prompt_tokens = 1000;
  cached.completion_tokens = 10;
  cached.cached_tokens = 400;
  chat::Usage uncached;
  uncached.prompt_tokens = 1100;
  uncached.completion_tokens = 12;
  fake_.Enqueue(chat::TextAnswer("One.", cached));
  fake_.Enqueue(chat::TextAnswer("Two.", uncached));
  Json r = Drive("details");
  EXPECT_EQ(r.value("cacheReads", ""), "1 of 2 requests reported cache reads");
  EXPECT_EQ(r.value("inputTokens", ""), "2 of 2 requests reported input tokens");
  EXPECT_THAT(r.value("ratio", ""), HasSubstr("(over 1 request)"));
  // The two answers are the two steps rawd timed.
  EXPECT_THAT(r.value("overhead", ""), HasSubstr("Raw's own overhead per step: p50 "));
  EXPECT_THAT(r.value("overhead", ""), HasSubstr("(over 2 steps;"));
}

TEST_F(DashboardBrowserTest, ScrollsBackThroughTenThousandItems) {
  std::string session = SeedHistory(*daemon_, kSeededTurns);
  StartAll();
  if (IsSkipped()) return;
  // Event 1 is the first turn's start, event 2 its question: the first item.
  Json r = Drive("history", {{"SESSION", session}, {"FIRST_SEQ", "2"}});
  EXPECT_THAT(r.value("firstText", ""), HasSubstr("question number 1"));
  EXPECT_EQ(r.value("items", 0), kSeededTurns * kItemsPerTurn);
  EXPECT_GT(r.value("pages", 0), 1);
  // Timings for bench/dashboard_history_bench.sh (not asserted).
  std::vector<int64_t> page_ms;
  for (const Json& ms : r.value("pageMs", Json::array())) page_ms.push_back(ms.get<int64_t>());
  std::sort(page_ms.begin(), page_ms.end());
  if (!page_ms.empty()) {
    std::printf(
        "dashboard history of %d items: first screen %lld ms; scroll-back page median %lld ms, max "
        "%lld ms (%zu pages)\n",
        kSeededTurns * kItemsPerTurn, static_cast<long long>(r.value("firstScreenMs", int64_t{0})),
        static_cast<long long>(page_ms[page_ms.size() / 2]), static_cast<long long>(page_ms.back()),
        page_ms.size());
  }
}

TEST_F(DashboardBrowserTest, FollowsARawRunThenRequestsToWrite) {
  StartAll();
  if (IsSkipped()) return;
  std::string session = daemon_->CreateSession();
  testing::ScriptedResponse parked = chat::Stream({chat::RoleChunk(), chat::TextChunk("Run "),
                                                   chat::TextChunk("answer."), chat::FinishChunk("stop"), chat::Done()});
  parked.gate_before_chunk = 2;
  fake_.Enqueue(parked);
  CommandResult run;
  std::thread runner([&] { run = daemon_->RunRaw({"run", "--session", session, "run from the terminal"}); });
  ASSERT_TRUE(fake_.WaitForGate());
  Json r = Drive("follow", {{"SESSION", session}}, [&](const std::string& step) {
    if (step == "requested") fake_.ReleaseGate();
  });
  runner.join();
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(r.value("followerBadge", ""), HasSubstr("raw run"));
  EXPECT_TRUE(r.value("composeDisabledWhileFollowing", false));
  EXPECT_EQ(r.value("liveAnswer", ""), "Run answer.");
  EXPECT_EQ(r.value("finalLease", ""), "holding");
}

TEST_F(DashboardBrowserTest, SettingsListThePackagesOfTheConfig) {
  StartAll();
  if (IsSkipped()) return;
  CommandResult installed =
      daemon_->RunRaw({"package", "install", absl::StrCat(RAW_SOURCE_DIR, "/docs/examples/review-kit"),
                       "--as", "rk", "--config", daemon_->config_path()});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  Json r = Drive("settings");
  EXPECT_EQ(r.value("aliases", Json::array()), Json::array({"rk"}));
  EXPECT_THAT(r.value("row", ""), HasSubstr("review-kit 1.0.0"));
  EXPECT_THAT(r.value("row", ""), HasSubstr("agent/reviewer"));
  EXPECT_THAT(r.value("note", ""), HasSubstr("packages.json"));
}

// Preferences chosen in Settings follow to the next run of the gateway,
// which listens on a new port: a new origin, whose local storage is empty,
// opened here in a new browser profile. The gateway's copy brings them
// back; its file holds the preferences and nothing else.
TEST_F(DashboardBrowserTest, PreferencesFollowToTheNextRunOnANewPort) {
  StartAll();
  if (IsSkipped()) return;
  const std::string first_url = url_;
  Json set = Drive("prefs_set");
  ASSERT_FALSE(set.value("origin", "").empty());

  StartGateway();
  Json r = Drive("prefs_follow");
  EXPECT_NE(r.value("origin", ""), set.value("origin", ""));
  EXPECT_EQ(r.value("theme", ""), "dark");
  EXPECT_EQ(r.value("fontSize", ""), "19px");
  EXPECT_EQ(r.value("background", ""), "rgb(15, 18, 22)");  // the dark theme's --bg
  EXPECT_EQ(r.value("settingsTheme", ""), "dark");
  EXPECT_EQ(r.value("settingsFont", ""), "19");
  // The new origin's storage now holds them too, and no token.
  EXPECT_THAT(r.value("storage", ""), HasSubstr(R"("theme":"dark")"));
  for (const std::string& url : {first_url, url_}) {
    const std::string token = url.substr(url.find("#token=") + 7);
    EXPECT_THAT(r.value("storage", ""), Not(HasSubstr(token)));
  }
  absl::StatusOr<Json> file =
      ParseJson(ReadText(daemon_->root() + "/state/raw/dashboard-preferences.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(*file, *ParseJson(R"({"theme":"dark","fontSize":19,"collapsed":{}})"));
}

// The Raven card: rows from rawd's schema with the config file's values,
// an override saved to rawd (not the config file) and marked, a value the
// config would refuse refused with its path, and Reset inheriting again.
TEST_F(DashboardBrowserTest, RavenCardOverridesAndResetsASetting) {
  StartAll();
  if (IsSkipped()) return;
  auto stored = [&] {
    grpc::ClientContext ctx;
    raw::v1::GetPluginSettingsRequest get;
    get.set_namespace_("raven-research");
    raw::v1::PluginSettings settings;
    EXPECT_TRUE(daemon_->stub().GetPluginSettings(&ctx, get, &settings).ok());
    return settings;
  };
  raw::v1::PluginSettings saved;
  Json r = Drive("raven", {}, [&](const std::string& step) {
    if (step == "saved") saved = stored();
  });
  EXPECT_EQ(r.value("title", ""), "Raven research");
  EXPECT_EQ(r.value("configValue", ""), "15");
  EXPECT_EQ(r.value("overriddenBefore", -1), 0);
  EXPECT_THAT(r.value("groups", Json::array()).dump(), HasSubstr("Source checks"));
  ASSERT_TRUE(saved.settings().fields().contains("verify")) << saved.DebugString();
  EXPECT_EQ(saved.settings().fields().at("verify").struct_value().fields().at("fetch_timeout_seconds").number_value(), 5);
  EXPECT_THAT(r.value("refusal", ""), HasSubstr("raven.verify.max_bytes"));
  EXPECT_EQ(r.value("afterReload", ""), "5");
  EXPECT_EQ(r.value("afterReset", ""), "15");
  EXPECT_EQ(stored().settings().fields_size(), 0);
  EXPECT_THAT(ReadText(daemon_->config_path()), Not(HasSubstr("fetch_timeout")));
}

// A Search override saved while the config file configured a backend, once
// the file configures none: the card shows it as not in effect with rawd's
// reason, read-only, and its Reset removes it while the other override
// stays.
TEST_F(DashboardBrowserTest, RavenCardShowsASearchOverrideWithoutABackendAsNotInEffect) {
  StartAll();
  if (IsSkipped()) return;
  const std::string config = ReadText(daemon_->config_path());
  const std::string with_backend = absl::StrCat(
      config.substr(0, config.rfind('}')),
      R"(, "raven": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}}})");
  std::ofstream(daemon_->config_path(), std::ios::trunc) << with_backend;
  raw::v1::SetPluginSettingsRequest set;
  set.set_namespace_("raven-research");
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(
          R"({"search":{"max_results":3},"verify":{"max_bytes":4096}})", set.mutable_settings())
          .ok());
  raw::v1::PluginSettings saved;
  {
    grpc::ClientContext ctx;
    grpc::Status s = daemon_->stub().SetPluginSettings(&ctx, set, &saved);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  std::ofstream(daemon_->config_path(), std::ios::trunc) << config;

  Json r = Drive("raven_inactive");
  EXPECT_EQ(r.value("note", ""),
            "Not in effect: no search backend is configured (raven.search.backend in the config "
            "file). Reset removes a saved value; the others apply.");
  EXPECT_EQ(r.value("rows", Json()), Json::parse(R"(["search.max_results"])"));
  EXPECT_EQ(r.value("badge", ""), "Not in effect");
  EXPECT_TRUE(r.value("disabled", false));
  grpc::ClientContext ctx;
  raw::v1::GetPluginSettingsRequest get;
  get.set_namespace_("raven-research");
  raw::v1::PluginSettings after;
  ASSERT_TRUE(daemon_->stub().GetPluginSettings(&ctx, get, &after).ok());
  EXPECT_FALSE(after.settings().fields().contains("search")) << after.DebugString();
  EXPECT_EQ(
      after.settings().fields().at("verify").struct_value().fields().at("max_bytes").number_value(),
      4096);
}

TEST_F(DashboardBrowserTest, ModelHtmlShowsAsTextAndRunsNothing) {
  StartAll();
  if (IsSkipped()) return;
  fake_.Enqueue(chat::TextAnswer(
      "Look: <img src=x onerror=\"window.__pwned='img'\"> and <script>window.__pwned='script'</script> "
      "[click](javascript:window.__pwned='link')"));
  Json r = Drive("xss");
  EXPECT_THAT(r.value("text", ""), HasSubstr("<img src=x onerror="));
  EXPECT_THAT(r.value("text", ""), HasSubstr("<script>window.__pwned='script'</script>"));
  EXPECT_EQ(r.value("images", -1), 0);
  EXPECT_EQ(r.value("scripts", -1), 0);
  EXPECT_EQ(r.value("javascriptLinks", -1), 0);
  EXPECT_EQ(r.value("pwned", "unset"), "unset");
}

// An answer that takes Debian's markdown-it 8.4.2 seconds to parse (`*_`
// repeated: quadratic; 80 KB of it took 9.2 s in Node before the worker, and
// froze the tab as long). The render runs in the page's Markdown worker and
// is cut off at its budget: the page keeps answering, the answer shows as
// plain text with a note, and the next answer renders as Markdown. One
// longer than the page renders at all (100 KB) is plain text too.
TEST_F(DashboardBrowserTest, ASlowAnswerLeavesThePageResponsive) {
  StartAll();
  if (IsSkipped()) return;
  std::string slow = "Slow to format: ";
  for (int i = 0; i < 40000; ++i) slow += "*_";
  fake_.Enqueue(chat::TextAnswer(slow));
  fake_.Enqueue(chat::TextAnswer(
      "| name | size |\n|---|---|\n| a.txt | 3 |\n\n```cpp\nint main() { return 0; }\n```\n"));
  fake_.Enqueue(chat::TextAnswer(std::string(120000, 'x')));
  Json r = Drive("slow");
  // The page's timers and a click are served while the worker renders:
  // reported below, not asserted (timings are the benchmarks' business).
  EXPECT_TRUE(r.contains("maxGapMs") && r.contains("clickMs")) << r.dump();
  EXPECT_EQ(r.value("note", ""), "Shown as plain text: formatting took longer than 250 ms.");
  EXPECT_EQ(r.value("plainStart", ""), slow.substr(0, 40));
  EXPECT_EQ(r.value("plainLength", 0), static_cast<int>(slow.size()));
  EXPECT_EQ(r.value("emphasis", -1), 0);
  EXPECT_EQ(r.value("tableCells", ""), "namesizea.txt3");
  EXPECT_THAT(r.value("code", ""), HasSubstr("int main()"));
  EXPECT_TRUE(r.value("highlighted", false));
  EXPECT_EQ(r.value("lastNotes", -1), 0);
  EXPECT_EQ(r.value("longNote", ""), "Shown as plain text: longer than 100 KB.");
  std::printf("slow answer: longest timer gap %.0f ms, a click answered in %.0f ms\n",
              r.value("maxGapMs", 0.0), r.value("clickMs", 0.0));
}

// A valid 1x1 PNG (signature, IHDR, IDAT, IEND, with their CRCs).
constexpr char kPngBase64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg"
    "==";

// Images attached in the page (the file picker, a paste) reach the model as
// image parts and show in the conversation; a file too large or not an
// image is refused in the page, and nothing is sent.
TEST_F(DashboardBrowserTest, AttachedImagesReachTheModelAndShow) {
  daemon_ = std::make_unique<TestDaemon>(absl::StrReplaceAll(
      kBrowserTestConfig,
      {{"${BASE_URL}", fake_.base_url()},
       {R"("model_id": "gpt-test",)", R"("model_id": "gpt-test", "images": true,)"}}));
  StartAll();
  if (IsSkipped()) return;
  std::string png;
  ASSERT_TRUE(absl::Base64Unescape(kPngBase64, &png));
  const std::string png_file = absl::StrCat(daemon_->root(), "/pixel.png");
  std::ofstream(png_file, std::ios::binary) << png;
  fake_.Enqueue(chat::TextAnswer("A single pixel."));
  fake_.Enqueue(chat::TextAnswer("The same pixel."));
  Json r = Drive("images", {{"PNG_FILE", png_file}});

  // Refused in the page, with the reason; nothing attached, nothing sent.
  EXPECT_EQ(r.value("tooLarge", ""),
            "Not attached: big.png is 5.0 MB; an image may have at most 5.0 MB.");
  EXPECT_EQ(r.value("notAnImage", ""),
            "Not attached: notes.png is not a PNG, JPEG, GIF or WebP image.");
  EXPECT_EQ(r.value("thumbnailsAfterRefusals", -1), 0);
  EXPECT_EQ(r.value("promptsAfterRefusals", -1), 0);
  // Attached with the keyboard, named, removable.
  EXPECT_EQ(r.value("tabbedTo", ""), "attach-image");
  EXPECT_EQ(r.value("attachedAlt", ""), "Image 1: pixel.png (70 bytes)");
  EXPECT_EQ(r.value("removeLabel", ""), "Remove image 1: pixel.png");
  EXPECT_EQ(r.value("focusAfterRemove", ""), "compose");
  EXPECT_TRUE(r.value("listHiddenAfterRemove", false));
  // Sent with the text, shown in the conversation, gone from the box.
  EXPECT_EQ(r.value("sentAlt", ""), "Image (PNG, 1×1)");
  EXPECT_EQ(r.value("userText", ""), "what is in this picture?");
  EXPECT_EQ(r.value("thumbnailsAfterSend", -1), 0);
  EXPECT_EQ(r.value("pastedAlt", ""), "Image 1: image.png (70 bytes)");
  EXPECT_EQ(r.value("userItems", 0), 2);
  const Json image = {{"mimeType", "image/png"}, {"data", kPngBase64}};
  EXPECT_EQ(r["prompts"], Json::array({{{"text", "what is in this picture?"}, {"images", {image}}},
                                       {{"text", ""}, {"images", {image}}}}))
      << r["prompts"].dump();

  // What the model got: the text and the image as parts of the user message.
  ASSERT_EQ(fake_.requests().size(), 2u);
  const std::string part = absl::StrCat(
      R"({"type":"image_url","image_url":{"url":"data:image/png;base64,)", kPngBase64, R"("}})");
  EXPECT_THAT(fake_.requests()[0].body,
              HasSubstr(R"({"type":"text","text":"what is in this picture?"})"));
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr(part));
  // The second prompt is the image alone.
  EXPECT_THAT(fake_.requests()[1].body,
              HasSubstr(absl::StrCat(R"({"role":"user","content":[)", part, "]}")));
}

}  // namespace
}  // namespace raw::e2e
