// builtin/raven_task through a real rawd: the fake model starts a Task,
// registers a Source, checkpoints and completes; the Task's state rides the
// stored results' host-side metadata (never the model's context), the
// stored session replays to the same Task, and after a daemon restart the
// tool continues the same Task from the store. Discovery runs against a
// fake SearXNG on 127.0.0.1, and drafting against the fake provider plus a
// dead route.
#include <google/protobuf/util/json_util.h>

#include <sqlite3.h>

#include <vector>

#include "gmock/gmock.h"
#include "common/json.h"
#include "daemon/raven/codec.h"
#include "daemon/raven/domain.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kOk = raw::v1::TOOL_RESULT_STATUS_OK;

// The `meta` of every stored builtin/raven_task result of `session`, in
// seq order.
std::vector<std::string> StoredRecords(const std::string& db_path, const std::string& session) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT payload FROM events WHERE session_id = ?1 ORDER BY seq",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(stmt, 1, session.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const void* bytes = sqlite3_column_blob(stmt, 0);
    std::string payload(static_cast<const char*>(bytes), sqlite3_column_bytes(stmt, 0));
    Json j = Json::parse(payload, nullptr, false);
    if (j.is_object() && j.value("tool", "") == "builtin/raven_task" && j.contains("meta")) {
      out.push_back(j["meta"].get<std::string>());
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

class RavenTaskTest : public ContractTest {};

TEST_F(RavenTaskTest, ModelRunsATaskToCompletionAndTheSessionReplaysIt) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  Json checkpoint = {
      {"action", "checkpoint"},
      {"taskId", task},
      {"stage", "draft"},
      {"summary", "First outline."},
      {"artifact", "Tides follow the Moon. They rise twice a day."},
      {"sources",
       Json::array(
           {Json{{"sourceId", "noaa"},
                 {"url", "https://oceanservice.noaa.test/tides"},
                 {"title", "Tides and Water Levels"},
                 {"locator", "Introduction"},
                 {"excerpt", "Tides are very long-period waves that move through the oceans"}}})},
      {"claims", Json::array({Json{{"claimId", "c1"},
                                   {"text", "Tides rise twice a day."},
                                   {"kind", "analysis"},
                                   {"importance", "material"},
                                   {"disposition", "supported"},
                                   {"sourceIds", Json::array()}}})}};
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "raven_task", R"({"action":"start","outcome":"learning","request":"Explain tides"})"},
      {"c2", "raven_task", checkpoint.dump()},
      {"c3", "raven_task",
       Json({{"action", "complete"}, {"taskId", task},
             {"artifact", "Tides follow the Moon.\nThey rise twice a day."}}).dump()},
  }));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "explain tides");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) EXPECT_EQ(r.status(), kOk) << r.content();
  EXPECT_THAT(results[0].content(), HasSubstr("Started Raven Task " + task));
  EXPECT_THAT(results[1].content(), HasSubstr("Published Checkpoint " + task + "-cp-1"));
  EXPECT_THAT(results[1].content(), HasSubstr("Tides follow the Moon.\nThey rise twice a day."));
  EXPECT_THAT(results[2].content(), HasSubstr("status completed"));
  // Clients get the compact card.
  EXPECT_EQ(results[2].display().substr(0, results[2].display().find('\n')),
            "Raven " + task + " · completed · phase completed · revision 3");
  EXPECT_THAT(results[2].display(), HasSubstr("Sources 1 (0 verified) · Claims 1 · Limitations 0"));
  EXPECT_THAT(results[2].display(), HasSubstr("Latest " + task + "-cp-2 (verify): Verified final Artifact."));

  // The stored session replays to the Task the last result reported.
  std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  std::vector<std::string> records = StoredRecords(db, session);
  ASSERT_EQ(records.size(), 3u);
  raven::TaskBook book = raven::ReplayBook(records);
  ASSERT_EQ(book.current_task_id, task);
  const raven::TaskState& state = book.tasks.at(task);
  EXPECT_EQ(state.phase, raven::Phase::kCompleted);
  EXPECT_EQ(state.revision, 3);
  ASSERT_EQ(state.checkpoints.size(), 2u);
  EXPECT_EQ(state.sources.at(0).source_id, "noaa");
  EXPECT_EQ(state.final_artifact_sha256, state.checkpoints[0].artifact_sha256);
  absl::StatusOr<raven::Record> last = raven::DecodeRecord(records.back());
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->state, state);
  EXPECT_EQ(last->current_task_id, task);

  // The metadata never reached the model.
  for (const auto& request : fake_.requests()) {
    EXPECT_THAT(request.body, Not(HasSubstr("raw.raven/task-state")));
  }

  // After a restart the tool rebuilds the Task from the store.
  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start().ok());
  fake_.Enqueue(chat::ToolCallsAnswer({{"s1", "raven_task", R"({"action":"status"})"},
                                       {"s2", "raven_task",
                                        R"({"action":"start","outcome":"research","request":"Next","grounding":"none"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream again(stub(), session);
  std::string turn2 = StartTurn(stub(), session, "status?");
  ASSERT_TRUE(again.WaitForTurnEnd(turn2).has_value());
  auto after = Results(again.TurnEvents(turn2));
  ASSERT_EQ(after.size(), 2u);
  EXPECT_THAT(after[0].content(), HasSubstr("Raven Task " + task + " · learning · phase completed · revision 3"));
  EXPECT_EQ(after[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(after[1].content(), HasSubstr("cannot disable its evidence floor"));
  EXPECT_THAT(after[1].content(), HasSubstr("<raven_task_recovery>"));
}

// The system message of a Chat Completions request body, and whether its
// last user message carries the Task summary.
std::string SystemPrompt(const testing::RecordedRequest& request) {
  absl::StatusOr<Json> body = request.BodyJson();
  EXPECT_TRUE(body.ok());
  return body.ok() ? (*body)["messages"][0].value("content", "") : "";
}
std::string LastUserText(const testing::RecordedRequest& request) {
  absl::StatusOr<Json> body = request.BodyJson();
  EXPECT_TRUE(body.ok());
  std::string text;
  if (!body.ok()) return text;
  for (const Json& m : (*body)["messages"]) {
    if (m.value("role", "") == "user") text = m.value("content", "");
  }
  return text;
}

// /clear under the session's lease.
grpc::Status ClearContext(raw::v1::Raw::Stub& stub, const std::string& session) {
  raw::v1::ClearContextRequest req;
  req.set_session_id(session);
  req.set_lease_id(LeaseFor(stub, session));
  raw::v1::ClearContextResponse resp;
  grpc::ClientContext ctx;
  return stub.ClearContext(&ctx, req, &resp);
}

// The Task book comes from the stored results, not from the model context:
// after /clear empties the context (and after a compaction that summarized
// the turn that started the Task), status still finds the active Task, and
// a second start is refused while it is active. Those turns start with a
// <raven_task_context> summary of the Task, which a turn whose context
// still shows the Task's results goes without; the system prompt carries
// the same Raven section in every request.
TEST_F(RavenTaskTest, AfterClearAndCompactionTheTurnStartsWithTheTaskSummary) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  const std::string task = raven::MakeTaskId(session, 1);
  auto turn = [&](const std::string& text, const std::vector<chat::ToolCall>& calls) {
    if (!calls.empty()) fake_.Enqueue(chat::ToolCallsAnswer(calls));
    fake_.Enqueue(chat::TextAnswer("ok"));
    EventStream stream(stub(), session);
    std::string id = StartTurn(stub(), session, text);
    EXPECT_TRUE(stream.WaitForTurnEnd(id).has_value());
    return Results(stream.TurnEvents(id));
  };
  turn("research reefs",
       {{"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Reef health"})"}});
  // Two more turns, so that a compaction has the first one to summarize.
  turn("more", {});
  turn("and more", {});
  // The context still shows the Task's result: no summary.
  ASSERT_EQ(fake_.requests().size(), 4u);
  EXPECT_THAT(LastUserText(fake_.requests()[2]), Not(HasSubstr("<raven_task_context>")));
  fake_.Enqueue(chat::TextAnswer("SUMMARY: a research Task about reefs was started."));
  {
    raw::v1::CompactRequest req;
    req.set_session_id(session);
    req.set_lease_id(LeaseFor(stub(), session));
    raw::v1::CompactResponse resp;
    grpc::ClientContext ctx;
    EventStream stream(stub(), session);
    ASSERT_TRUE(stub().Compact(&ctx, req, &resp).ok());
    auto ended = stream.WaitFor([&](const raw::v1::Event& e) {
      return e.has_compaction_ended() && e.turn_id() == resp.operation_id();
    });
    ASSERT_TRUE(ended.has_value());
    EXPECT_EQ(ended->compaction_ended().outcome(), raw::v1::COMPACTION_OUTCOME_ACCEPTED);
  }
  const size_t compacted_at = fake_.requests().size();
  auto after_compaction = turn("status?", {{"s1", "raven_task", R"({"action":"status"})"}});
  ASSERT_EQ(after_compaction.size(), 1u);
  EXPECT_THAT(after_compaction[0].content(), HasSubstr("Raven Task " + task));
  const std::string summary = LastUserText(fake_.requests()[compacted_at]);
  EXPECT_THAT(summary, HasSubstr("status?\n\n<raven_task_context>\n"));
  EXPECT_THAT(summary, HasSubstr("Task " + task + " · research · grounding required · phase "
                                 "active · revision 1\nRequest: Reef health\n"));
  EXPECT_THAT(summary, HasSubstr("No Checkpoint yet"));
  // Within the turn the model sees the status result, and the summary once.
  const std::string next = fake_.requests()[compacted_at + 1].body;
  size_t summaries = 0;
  for (size_t at = next.find("<raven_task_context>"); at != std::string::npos;
       at = next.find("<raven_task_context>", at + 1)) {
    ++summaries;
  }
  EXPECT_EQ(summaries, 1u) << "the summary is in the context once";
  ASSERT_TRUE(ClearContext(stub(), session).ok());
  const size_t before = fake_.requests().size();
  auto after_clear = turn("status again", {{"s2", "raven_task", R"({"action":"status"})"},
                                           {"s3", "raven_task",
                                            R"({"action":"start","outcome":"research","request":"Another"})"}});
  ASSERT_EQ(after_clear.size(), 2u);
  // After /clear the context holds nothing of the Task but its summary.
  absl::StatusOr<Json> cleared = fake_.requests()[before].BodyJson();
  ASSERT_TRUE(cleared.ok());
  ASSERT_EQ((*cleared)["messages"].size(), 2u);
  EXPECT_THAT(LastUserText(fake_.requests()[before]),
              HasSubstr("status again\n\n<raven_task_context>\nThis session has a Raven Task"));
  EXPECT_THAT(after_clear[0].content(), HasSubstr("Raven Task " + task));
  EXPECT_EQ(after_clear[1].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(after_clear[1].content(), HasSubstr(task));

  // One Raven section, the same in every request: the cached prefix holds.
  const std::string system = SystemPrompt(fake_.requests()[0]);
  EXPECT_THAT(system, HasSubstr("## Research Tasks (raven_task)"));
  for (const auto& request : fake_.requests()) {
    if (request.BodyJson().ok() && (*request.BodyJson()).contains("tools")) {
      EXPECT_EQ(SystemPrompt(request), system);
    }
  }
}

// An agent that no longer selects raven_task gets neither the section nor
// a summary, even in a session whose Task is active (the config is read
// again for every turn).
TEST_F(RavenTaskTest, WithoutTheToolNeitherThePromptSectionNorTheSummary) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Reefs"})"}}));
  fake_.Enqueue(chat::TextAnswer("ok"));
  {
    EventStream stream(stub(), session);
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, "go")).has_value());
  }
  EXPECT_THAT(SystemPrompt(fake_.requests()[0]), HasSubstr("## Research Tasks (raven_task)"));
  ASSERT_TRUE(ClearContext(stub(), session).ok());
  WriteFile(daemon_->config_path(),
            Config(R"("approval_mode": "allow_all")", "", R"(["builtin/read_file"])", ""));
  fake_.Enqueue(chat::TextAnswer("ok"));
  const size_t before = fake_.requests().size();
  {
    EventStream stream(stub(), session);
    ASSERT_TRUE(stream.WaitForTurnEnd(StartTurn(stub(), session, "hello")).has_value());
  }
  ASSERT_EQ(fake_.requests().size(), before + 1);
  EXPECT_EQ(SystemPrompt(fake_.requests()[before]), "You are a test agent.");
  EXPECT_EQ(LastUserText(fake_.requests()[before]), "hello");
}

// The HTTP Source verifier in rawd, against pages served on 127.0.0.1 (the
// agent allows private addresses; by default they are refused): a doctored
// excerpt is refused at the Checkpoint with the passage to repair it from,
// an honest one is verified, and a page that changed before Completion is
// recorded as drifted and refuses Completion.
TEST_F(RavenTaskTest, SourcesAreReopenedAtCheckpointAndCompletionAndDriftIsRecorded) {
  StartDaemon(R"("approval_mode": "allow_all", "allow_private_addresses": true)");
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  const std::string page =
      "<html><body><p>The <em>reef</em> lost 14&nbsp;% of its coral cover in 2024.</p></body></html>";
  for (const std::string& body :
       {page, page, std::string("<html><body><p>This report has been withdrawn.</p></body></html>")}) {
    testing::ScriptedResponse r;
    r.headers = {{"Content-Type", "text/html; charset=utf-8"}};
    r.chunks = {body};
    site.Enqueue(r);
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(site.port()) + "/reef";
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  auto checkpoint = [&](const std::string& excerpt) {
    return Json({{"action", "checkpoint"}, {"taskId", task}, {"stage", "draft"},
                 {"summary", "Finding."}, {"artifact", "The reef lost coral [@reef]."},
                 {"sources", Json::array({Json{{"sourceId", "reef"}, {"url", url},
                                               {"title", "Reef report"}, {"locator", "Summary"},
                                               {"excerpt", excerpt}}})},
                 {"claims", Json::array({Json{{"claimId", "c1"}, {"text", "The reef lost coral."},
                                              {"kind", "external"}, {"importance", "material"},
                                              {"disposition", "supported"},
                                              {"sourceIds", Json::array({"reef"})}}})}})
        .dump();
  };
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Reef health"})"},
      {"c2", "raven_task", checkpoint("The reef lost 41 % of its coral cover in 2024.")},
      {"c3", "raven_task", checkpoint("The reef lost 14 % of its coral cover in 2024.")},
      {"c4", "raven_task",
       Json({{"action", "complete"}, {"taskId", task}, {"artifact", "The reef lost coral [@reef]."}})
           .dump()},
  }));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "reef");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_THAT(results[1].content(), HasSubstr("status needs-revision"));
  EXPECT_THAT(results[1].content(), HasSubstr("partial divergence"));
  EXPECT_THAT(results[1].content(), HasSubstr("lost 14"));
  EXPECT_THAT(results[2].content(), HasSubstr("Published Checkpoint " + task + "-cp-1"));
  EXPECT_THAT(results[2].display(), HasSubstr("Sources 1 (1 verified)"));
  EXPECT_THAT(results[3].content(), HasSubstr("status needs-revision"));
  EXPECT_THAT(results[3].content(), HasSubstr("failed remote verification: drifted: the excerpt was on the page"));
  EXPECT_EQ(site.requests().size(), 3u);

  std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  raven::TaskBook book = raven::ReplayBook(StoredRecords(db, session));
  const raven::TaskState& state = book.tasks.at(task);
  EXPECT_EQ(state.phase, raven::Phase::kActive);
  ASSERT_EQ(state.sources.size(), 1u);
  EXPECT_EQ(state.sources[0].check.outcome, raven::CheckOutcome::kDrifted);
  EXPECT_EQ(state.claims.at(0).disposition, raven::Disposition::kDeferred);
}

testing::ScriptedResponse Json200(const std::string& body) {
  testing::ScriptedResponse r;
  r.headers = {{"Content-Type", "application/json"}};
  r.chunks = {body};
  return r;
}

// `discover` in rawd against a fake SearXNG: the queries run as one batch,
// their results merge round-robin into Leads with a shared URL folded into
// one Lead naming both queries, and the query the backend fails (HTTP 500)
// becomes a `tool` Limitation while the others' Leads survive. Leads never
// enter Task state.
TEST_F(RavenTaskTest, DiscoverMergesLeadsFromSearxngAndAFailedQueryBecomesALimitation) {
  testing::FakeProviderServer searx;
  ASSERT_TRUE(searx.status().ok()) << searx.status();
  searx.EnqueueFor("q=tides%20moon&", Json200(R"({"results": [
      {"title": "Moon and tides", "url": "https://ocean.test/moon", "content": "The Moon pulls.",
       "publishedDate": "2024-03-01"},
      {"title": "Tide tables", "url": "https://tables.test/", "content": "Tables."}]})"));
  searx.EnqueueFor("q=tidal%20range&", Json200(R"({"results": [
      {"title": "Tidal range", "url": "https://range.test/", "content": "Range."},
      {"title": "Moon again", "url": "https://ocean.test/moon", "content": "Same page."}]})"));
  searx.EnqueueFor("q=broken&", [] {
    testing::ScriptedResponse r = Json200(R"({"error": "engine google crashed"})");
    r.status = 500;
    return r;
  }());
  StartDaemon(R"("approval_mode": "allow_all")",
              absl::StrCat(R"("raven": {"search": {"backend": "searxng", "url": "http://127.0.0.1:)",
                           searx.port(), R"("}, "network": {"allow_private_addresses": true}})"));
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Tides"})"},
      {"c2", "raven_task",
       Json({{"action", "discover"}, {"taskId", task},
             {"queries", {"tides moon", "tidal range", "broken"}}}).dump()},
  }));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "research tides");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  const std::string& found = results[1].content();
  EXPECT_EQ(results[1].status(), kOk) << found;
  EXPECT_THAT(found, HasSubstr("3 Lead(s)"));
  EXPECT_THAT(found, HasSubstr("Leads (uninspected candidates, not Sources)"));
  // Round-robin by rank: the first result of each query, then the second.
  size_t moon = found.find("Moon and tides"), range = found.find("Tidal range"),
         tables = found.find("Tide tables");
  ASSERT_NE(moon, std::string::npos) << found;
  ASSERT_NE(range, std::string::npos) << found;
  ASSERT_NE(tables, std::string::npos) << found;
  EXPECT_LT(moon, range);
  EXPECT_LT(range, tables);
  EXPECT_THAT(found, HasSubstr("queries: tides moon \\| tidal range"));
  EXPECT_THAT(found, HasSubstr("published: 2024\\-03\\-01"));
  EXPECT_EQ(found.find("Moon again"), std::string::npos);
  EXPECT_EQ(searx.requests().size(), 3u);
  for (const auto& r : searx.requests()) EXPECT_THAT(r.path, HasSubstr("&format=json"));

  std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  raven::TaskBook book = raven::ReplayBook(StoredRecords(db, session));
  const raven::TaskState& state = book.tasks.at(task);
  ASSERT_EQ(state.limitations.size(), 1u);
  EXPECT_EQ(state.limitations[0].kind, raven::LimitationKind::kTool);
  EXPECT_THAT(state.limitations[0].detail,
              HasSubstr("discovery query \"broken\" failed: the searxng search backend answered "
                        "HTTP 500: engine google crashed"));
  EXPECT_TRUE(state.sources.empty()) << "Leads never become Sources";
  EXPECT_EQ(StoredRecords(db, session).back().find("ocean.test"), std::string::npos)
      << "Leads never enter Task state";
}

// Without raven.search, discover is unavailable with the reason rather than
// an empty result, and web_search is not offered to the model.
TEST_F(RavenTaskTest, WithoutABackendDiscoveryIsUnavailableAndWebSearchIsNotOffered) {
  StartDaemon(R"("approval_mode": "allow_all")");
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Tides"})"},
      {"c2", "raven_task",
       Json({{"action", "discover"}, {"taskId", task}, {"queries", {"tides"}}}).dump()},
  }));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "research tides");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[1].content(), HasSubstr("status unavailable"));
  EXPECT_THAT(results[1].content(), HasSubstr("no search backend is configured"));
  absl::StatusOr<Json> body = fake_.requests().at(0).BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_THAT(body->dump(), HasSubstr("\"raven_task\""));
  EXPECT_THAT(body->dump(), Not(HasSubstr("\"web_search\"")));
}

// `draft` in rawd: every configured route gets the instruction through the
// provider adapters; the fake provider's route drafts, and the route whose
// server is down comes back as one labelled failed variant, not a gap.
TEST_F(RavenTaskTest, DraftAsksEveryRouteAndADeadRouteIsALabelledFailedVariant) {
  std::string config = Config(R"("approval_mode": "allow_all")",
                              R"("raven": {"draft": {"routes": ["openai/gpt-test", "dead/gpt-dead"],
                                                     "max_output_tokens": 777}})",
                              R"(["builtin/*"])", "");
  const std::string models = R"("models": { "fake": {)";
  ASSERT_NE(config.find(models), std::string::npos);
  config.replace(config.find(models), models.size(),
                 R"("models": { "dead": { "provider": "dead", "method": "openai-chat-completions",
                    "model_id": "gpt-dead", "base_url": "http://127.0.0.1:1/v1",
                    "api_key_env": "RAW_TEST_KEY" }, "fake": {)");
  daemon_ = std::make_unique<TestDaemon>(config);
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  fake_.Enqueue(chat::ToolCallsAnswer({
      {"c1", "raven_task", R"({"action":"start","outcome":"learning","request":"Explain tides"})"},
      {"c2", "raven_task",
       Json({{"action", "draft"}, {"taskId", task}, {"instruction", "Write a two-line intro."}})
           .dump()},
  }));
  fake_.Enqueue(chat::TextAnswer("Tides rise and fall twice a day. The Moon drives them."));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "explain tides");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  const std::string& drafts = results[1].content();
  EXPECT_EQ(results[1].status(), kOk) << drafts;
  EXPECT_THAT(drafts, HasSubstr("2 Draft Variant(s)"));
  EXPECT_THAT(drafts, HasSubstr("Draft Variants (candidate wording, not evidence)"));
  EXPECT_THAT(drafts, HasSubstr("### openai/gpt-test\n\nTides rise and fall twice a day.\nThe Moon drives them."));
  EXPECT_THAT(drafts, HasSubstr("- failed route dead/gpt-dead: the route failed:"));
  EXPECT_THAT(drafts, HasSubstr("some routes failed; compare the ones that did"));

  // The draft request: no tools, the Task context and the instruction, the
  // draft output cap.
  ASSERT_EQ(fake_.requests().size(), 3u);
  absl::StatusOr<Json> draft = fake_.requests()[1].BodyJson();
  ASSERT_TRUE(draft.ok()) << draft.status();
  EXPECT_FALSE(draft->contains("tools"));
  EXPECT_EQ(draft->value("max_completion_tokens", 0), 777);
  EXPECT_THAT(draft->dump(), HasSubstr("Request: Explain tides"));
  EXPECT_THAT(draft->dump(), HasSubstr("Write this now:\\nWrite a two-line intro."));

  // Variants are candidates: they never enter the Task as evidence.
  std::string db = daemon_->state_dir() + "/sessions-v1.sqlite3";
  raven::TaskBook book = raven::ReplayBook(StoredRecords(db, session));
  const raven::TaskState& state = book.tasks.at(task);
  EXPECT_TRUE(state.sources.empty());
  EXPECT_TRUE(state.claims.empty());
  EXPECT_FALSE(state.latest_artifact.has_value());
}

// A page on 127.0.0.1 holding the reef sentence, served once.
class ReefSite {
 public:
  ReefSite() {
    testing::ScriptedResponse page;
    page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
    page.chunks = {"<html><body><p>The reef lost 14 % of its coral cover in 2024.</p></body></html>"};
    site_.Enqueue(page);
  }
  absl::Status status() const { return site_.status(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(site_.port()) + "/reef"; }
  size_t requests() const { return site_.requests().size(); }

 private:
  testing::FakeProviderServer site_;
};

// One turn in a new session: the model starts a Task and checkpoints an
// Artifact citing the reef page at `url` (CheckpointReef: the two results).
class RavenSettingsTest : public RavenTaskTest {
 protected:
  std::vector<raw::v1::ToolResult> CheckpointReef(const std::string& url) {
    std::string session = daemon_->CreateSession();
    std::string task = raven::MakeTaskId(session, 1);
    Json checkpoint = {
        {"action", "checkpoint"}, {"taskId", task}, {"stage", "draft"}, {"summary", "Finding."},
        {"artifact", "The reef lost coral [@reef]."},
        {"sources", Json::array({Json{{"sourceId", "reef"}, {"url", url}, {"title", "Reef report"},
                                      {"locator", "Summary"},
                                      {"excerpt", "The reef lost 14 % of its coral cover in 2024."}}})}};
    fake_.Enqueue(chat::ToolCallsAnswer({
        {"c1", "raven_task", R"({"action":"start","outcome":"research","request":"Reef health"})"},
        {"c2", "raven_task", checkpoint.dump()},
    }));
    fake_.Enqueue(chat::TextAnswer("done"));
    EventStream stream(stub(), session);
    std::string turn = StartTurn(stub(), session, "reef");
    EXPECT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    return Results(stream.TurnEvents(turn));
  }
};

// The verifier takes its settings from the config's raven section: with
// raven.network.allow_private_addresses (the agent allows nothing) it
// reaches the page on 127.0.0.1, and raven.verify.max_bytes cuts the body,
// so the Source is unchecked rather than verified and the Checkpoint is not
// published.
TEST_F(RavenSettingsTest, TheVerifierReadsTheRavenSettingsOfTheConfig) {
  ReefSite site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  StartDaemon(R"("approval_mode": "allow_all")",
              R"("raven": {"verify": {"max_bytes": 16}, "network": {"allow_private_addresses": true}})");
  auto results = CheckpointReef(site.url());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[1].content(), HasSubstr("status needs-revision"));
  EXPECT_THAT(results[1].content(), HasSubstr("longer than 16 bytes"));
  EXPECT_EQ(site.requests(), 1u) << "the private address was reached";
}

// The dashboard card's overrides (plugin settings "raven-research") are
// read at the Source check itself: saved through the API after the daemon
// started, with nothing in the config file, they cut the page as the
// config's own raven.verify.max_bytes would.
TEST_F(RavenSettingsTest, TheCardsOverridesTakeEffectAtTheNextSourceCheck) {
  ReefSite site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  StartDaemon(R"("approval_mode": "allow_all")",
              R"("raven": {"network": {"allow_private_addresses": true}})");
  raw::v1::SetPluginSettingsRequest set;
  set.set_namespace_("raven-research");
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(R"({"verify":{"max_bytes":16}})",
                                                          set.mutable_settings())
                  .ok());
  grpc::ClientContext ctx;
  raw::v1::PluginSettings stored;
  grpc::Status saved = stub().SetPluginSettings(&ctx, set, &stored);
  ASSERT_TRUE(saved.ok()) << saved.error_message();
  auto results = CheckpointReef(site.url());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[1].content(), HasSubstr("longer than 16 bytes"));
}

}  // namespace
}  // namespace raw::e2e
