// RawService and its handlers against a real SessionManager (SQLite store
// in a temp dir, scripted HTTP), over real gRPC on a Unix socket.
#include "daemon/api/raw_service.h"

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/api/raw_service_fixture.h"

namespace raw::api {
namespace {

using ::testing::HasSubstr;

TEST_F(RawServiceTest, GetDaemonInfoReportsTheDaemon) {
  grpc::ClientContext ctx;
  raw::v1::GetDaemonInfoResponse r;
  ASSERT_TRUE(stub_->GetDaemonInfo(&ctx, {}, &r).ok());
  EXPECT_EQ(r.version(), "9.9.9");
  EXPECT_EQ(r.protocol_version(), 7);
  EXPECT_EQ(r.pid(), 31337);
  EXPECT_EQ(r.config_path(), info_.config_path);
  EXPECT_EQ(r.state_dir(), info_.state_dir);
  EXPECT_EQ(r.socket_path(), info_.socket_path);
  EXPECT_EQ(r.database_path(), info_.database_path);
  EXPECT_EQ(r.log_path(), info_.log_path);
  EXPECT_EQ(r.started_at_unix_ms(), 1234);
}

// The cwd must be absolute. A NUL would cut it short for chdir and not for
// the stored path and the rules, so control characters are refused too, as
// are paths longer than PATH_MAX; nothing is created.
TEST_F(RawServiceTest, CreateSessionNeedsAnAbsoluteCwdWithoutControlCharacters) {
  const std::string dir = dir_.path();
  for (const std::string& cwd :
       {std::string(), std::string("relative/dir"), dir + std::string("\0/../etc", 9), dir + "\n/x",
        dir + "/\x1b[2J", "/" + std::string(4096, 'a')}) {
    grpc::ClientContext ctx;
    raw::v1::CreateSessionRequest request;
    request.set_cwd(cwd);
    raw::v1::CreateSessionResponse response;
    grpc::Status s = stub_->CreateSession(&ctx, request, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << cwd;
    EXPECT_THAT(s.error_message(), HasSubstr("cwd")) << cwd;
  }
  grpc::ClientContext ctx;
  raw::v1::ListSessionsResponse listed;
  ASSERT_TRUE(stub_->ListSessions(&ctx, raw::v1::ListSessionsRequest(), &listed).ok());
  EXPECT_EQ(listed.sessions_size(), 0);
}

TEST_F(RawServiceTest, CreatedSessionsCanBeFetchedAndListed) {
  raw::v1::Session created = CreateSession();
  EXPECT_FALSE(created.id().empty());
  EXPECT_EQ(created.agent(), "coder");
  EXPECT_EQ(created.cwd(), dir_.path());
  EXPECT_EQ(created.model(), "fake");
  EXPECT_EQ(created.model_id(), "gpt-test");
  EXPECT_EQ(created.turn_state(), raw::v1::TURN_STATE_IDLE);

  grpc::ClientContext get_ctx;
  raw::v1::GetSessionRequest get;
  get.set_session_id(created.id());
  raw::v1::GetSessionResponse got;
  ASSERT_TRUE(stub_->GetSession(&get_ctx, get, &got).ok());
  EXPECT_EQ(got.session().id(), created.id());

  CreateSession();
  grpc::ClientContext list_ctx;
  raw::v1::ListSessionsRequest list;
  list.set_page_size(1);
  raw::v1::ListSessionsResponse page;
  ASSERT_TRUE(stub_->ListSessions(&list_ctx, list, &page).ok());
  EXPECT_EQ(page.sessions_size(), 1);
  EXPECT_FALSE(page.next_page_token().empty());
}

TEST_F(RawServiceTest, NegativePageSizesAreRefused) {
  grpc::ClientContext ctx;
  raw::v1::ListSessionsRequest list;
  list.set_page_size(-1);
  raw::v1::ListSessionsResponse page;
  grpc::Status s = stub_->ListSessions(&ctx, list, &page);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("page_size"));

  grpc::ClientContext hctx;
  raw::v1::GetHistoryRequest history;
  history.set_session_id(CreateSession().id());
  history.set_limit(-5);
  raw::v1::GetHistoryResponse hr;
  s = stub_->GetHistory(&hctx, history, &hr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("limit"));
}

// GetHistory's page: 100 events for limit 0, at most 500 for a larger one,
// and a cursor that goes on from there.
TEST_F(RawServiceTest, HistoryPagesAreCappedAt500Events) {
  const std::string id = CreateSession().id();
  const uint64_t first = store_->GetSession(id)->last_seq + 1;
  store::CommitBatch batch;
  for (uint64_t seq = first; seq < first + 600; ++seq) {
    events::SessionEvent event;
    event.seq = seq;
    event.turn_id = "t1";
    event.time_unix_ms = 1;
    event.payload = events::AssistantMessage{"message " + std::to_string(seq), "", 1};
    batch.events.push_back(std::move(event));
  }
  ASSERT_TRUE(store_->Commit(id, batch).ok());

  for (auto [limit, expected] : {std::pair{0, 100}, std::pair{1000, 500}, std::pair{200, 200}}) {
    grpc::ClientContext ctx;
    raw::v1::GetHistoryRequest history;
    history.set_session_id(id);
    history.set_limit(limit);
    raw::v1::GetHistoryResponse page;
    grpc::Status s = stub_->GetHistory(&ctx, history, &page);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(page.events_size(), expected) << "limit " << limit;
    EXPECT_FALSE(page.next_cursor().empty()) << "limit " << limit;
  }
}

TEST_F(RawServiceTest, EveryRpcOnASessionNeedsItsId) {
  std::vector<grpc::Status> results;
  {
    grpc::ClientContext ctx;
    raw::v1::GetSessionResponse r;
    results.push_back(stub_->GetSession(&ctx, {}, &r));
  }
  {
    grpc::ClientContext ctx;
    raw::v1::StartTurnRequest req;
    req.set_text("hi");
    raw::v1::StartTurnResponse r;
    results.push_back(stub_->StartTurn(&ctx, req, &r));
  }
  {
    grpc::ClientContext ctx;
    raw::v1::InterruptTurnResponse r;
    results.push_back(stub_->InterruptTurn(&ctx, {}, &r));
  }
  {
    grpc::ClientContext ctx;
    raw::v1::GetHistoryResponse r;
    results.push_back(stub_->GetHistory(&ctx, {}, &r));
  }
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(RawServiceTestDeadline());
    auto reader = stub_->Subscribe(&ctx, {});
    raw::v1::Event e;
    EXPECT_FALSE(reader->Read(&e));
    results.push_back(reader->Finish());
  }
  for (const grpc::Status& s : results) {
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(s.error_message(), HasSubstr("session_id is required"));
  }
}

TEST_F(RawServiceTest, UnknownSessionIsNotFound) {
  grpc::ClientContext ctx;
  raw::v1::GetSessionRequest get;
  get.set_session_id("no-such-session");
  raw::v1::GetSessionResponse got;
  EXPECT_EQ(stub_->GetSession(&ctx, get, &got).error_code(), grpc::StatusCode::NOT_FOUND);

  grpc::ClientContext sctx;
  sctx.set_deadline(RawServiceTestDeadline());
  raw::v1::SubscribeRequest sub;
  sub.set_session_id("no-such-session");
  auto reader = stub_->Subscribe(&sctx, sub);
  raw::v1::Event e;
  EXPECT_FALSE(reader->Read(&e));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(RawServiceTest, StartTurnNeedsText) {
  grpc::ClientContext ctx;
  raw::v1::StartTurnRequest req;
  req.set_session_id(CreateSession().id());
  req.set_text("  \n");
  raw::v1::StartTurnResponse r;
  grpc::Status s = stub_->StartTurn(&ctx, req, &r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("text"));
}

TEST_F(RawServiceTest, InterruptingAnIdleSessionSaysSo) {
  grpc::ClientContext ctx;
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(CreateSession().id());
  req.set_lease_id(HoldLease(req.session_id()));
  raw::v1::InterruptTurnResponse r;
  ASSERT_TRUE(stub_->InterruptTurn(&ctx, req, &r).ok());
  EXPECT_FALSE(r.interrupted());
}

TEST_F(RawServiceTest, WritesNeedTheCallersLeaseAndNameTheHolder) {
  std::string session_id = CreateSession().id();
  {
    grpc::ClientContext ctx;
    raw::v1::StartTurnRequest req;
    req.set_session_id(session_id);
    req.set_text("hi");
    raw::v1::StartTurnResponse r;
    grpc::Status s = stub_->StartTurn(&ctx, req, &r);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(s.error_message(), HasSubstr("needs the session's write lease"));
  }
  ASSERT_FALSE(HoldLease(session_id).empty());
  grpc::ClientContext ctx;
  raw::v1::InterruptTurnRequest req;
  req.set_session_id(session_id);
  req.set_lease_id("lease_not_mine");
  raw::v1::InterruptTurnResponse r;
  grpc::Status s = stub_->InterruptTurn(&ctx, req, &r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), HasSubstr("is open for writing in \"test\""));
}

// Two clients racing for a free lease, one of them asking for a handover:
// whoever is granted hears of the other's request only after its grant,
// however the two calls interleave (the reactor is the lease's target
// before the grant exists).
TEST_F(RawServiceTest, AHandoverRequestRacingTheGrantArrivesAfterIt) {
  for (int round = 0; round < 30; ++round) {
    std::string session_id = CreateSession().id();
    auto open = [&](bool request_handover, grpc::ClientContext* ctx) {
      raw::v1::AcquireLeaseRequest request;
      request.set_session_id(session_id);
      request.set_client_name(request_handover ? "asker" : "first");
      request.set_request_handover(request_handover);
      return stub_->AcquireLease(ctx, request);
    };
    grpc::ClientContext ctx_a, ctx_b;
    auto a = std::async(std::launch::async, [&] { return open(true, &ctx_a); });
    auto b = std::async(std::launch::async, [&] { return open(true, &ctx_b); });
    auto reader_a = a.get();
    auto reader_b = b.get();
    raw::v1::LeaseEvent first_a, first_b;
    ASSERT_TRUE(reader_a->Read(&first_a));
    ASSERT_TRUE(reader_b->Read(&first_b));
    // One is granted, the other waits; neither starts with a request.
    EXPECT_NE(first_a.has_granted(), first_b.has_granted());
    EXPECT_NE(first_a.has_waiting(), first_b.has_waiting());
    auto& holder = first_a.has_granted() ? reader_a : reader_b;
    raw::v1::LeaseEvent asked;
    ASSERT_TRUE(holder->Read(&asked));
    EXPECT_TRUE(asked.has_handover_requested());
    ctx_a.TryCancel();
    ctx_b.TryCancel();
    raw::v1::LeaseEvent ignored;
    while (reader_a->Read(&ignored)) {
    }
    while (reader_b->Read(&ignored)) {
    }
    reader_a->Finish().IgnoreError();
    reader_b->Finish().IgnoreError();
  }
}

TEST_F(RawServiceTest, ATurnStreamsToASubscriberAndLandsInHistory) {
  namespace chat = raw::testing::chat;
  raw::testing::FakeHttpResponse answer;
  answer.chunks = {chat::RoleChunk(), chat::TextChunk("Hello"), chat::FinishChunk("stop"),
                   chat::UsageChunk(12, 4), chat::Done()};
  http_.Enqueue(answer);
  std::string session_id = CreateSession().id();

  grpc::ClientContext sctx;
  sctx.set_deadline(RawServiceTestDeadline());
  raw::v1::SubscribeRequest sub;
  sub.set_session_id(session_id);
  auto reader = stub_->Subscribe(&sctx, sub);

  grpc::ClientContext tctx;
  raw::v1::StartTurnRequest start;
  start.set_session_id(session_id);
  start.set_text("say hello");
  start.set_lease_id(HoldLease(session_id));
  raw::v1::StartTurnResponse started;
  grpc::Status s = stub_->StartTurn(&tctx, start, &started);
  ASSERT_TRUE(s.ok()) << s.error_message();

  std::vector<raw::v1::Event> events;
  raw::v1::Event e;
  while (reader->Read(&e)) {
    events.push_back(e);
    if (e.has_turn_ended()) break;
  }
  ASSERT_FALSE(events.empty());
  EXPECT_TRUE(events.front().has_turn_started());
  EXPECT_EQ(events.front().turn_started().user_text(), "say hello");
  ASSERT_TRUE(events.back().has_turn_ended());
  EXPECT_EQ(events.back().turn_id(), started.turn_id());
  EXPECT_EQ(events.back().turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
  bool saw_answer = false;
  for (const auto& ev : events) {
    EXPECT_EQ(ev.session_id(), session_id);
    if (ev.has_assistant_message()) saw_answer = ev.assistant_message().text() == "Hello";
  }
  EXPECT_TRUE(saw_answer);

  // The daemon ends the stream on shutdown with UNAVAILABLE.
  service_->DrainStreams();
  while (reader->Read(&e)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);

  // History holds the durable events, oldest first or newest first.
  for (auto direction : {raw::v1::HISTORY_DIRECTION_FORWARD, raw::v1::HISTORY_DIRECTION_BACKWARD}) {
    grpc::ClientContext hctx;
    raw::v1::GetHistoryRequest history;
    history.set_session_id(session_id);
    history.set_direction(direction);
    raw::v1::GetHistoryResponse page;
    ASSERT_TRUE(stub_->GetHistory(&hctx, history, &page).ok());
    ASSERT_GE(page.events_size(), 2);
    const auto& first = page.events(0);
    const auto& last = page.events(page.events_size() - 1);
    if (direction == raw::v1::HISTORY_DIRECTION_FORWARD) {
      EXPECT_TRUE(first.has_turn_started());
      EXPECT_TRUE(last.has_turn_ended());
    } else {
      EXPECT_TRUE(first.has_turn_ended());
      EXPECT_TRUE(last.has_turn_started());
    }
    for (const auto& ev : page.events()) EXPECT_FALSE(ev.has_text_delta()) << "deltas are live only";
  }
}

TEST_F(RawServiceTest, UnknownHistoryDirectionIsRefused) {
  grpc::ClientContext ctx;
  raw::v1::GetHistoryRequest history;
  history.set_session_id(CreateSession().id());
  history.set_direction(static_cast<raw::v1::HistoryDirection>(9));
  raw::v1::GetHistoryResponse page;
  grpc::Status s = stub_->GetHistory(&ctx, history, &page);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("direction 9"));
}

TEST_F(RawServiceTest, CheckConfigDefaultsToTheDaemonsFile) {
  grpc::ClientContext ctx;
  raw::v1::CheckConfigResponse r;
  ASSERT_TRUE(stub_->CheckConfig(&ctx, {}, &r).ok());
  EXPECT_EQ(r.path(), info_.config_path);
  EXPECT_TRUE(r.exists());
  EXPECT_THAT(r.errors(), ::testing::IsEmpty());
}

TEST_F(RawServiceTest, CheckConfigReportsProblemsOfAnotherFile) {
  std::ofstream(dir_.File("bad.json")) << R"({"agents": {"x": {"model": "nope"}}})";
  grpc::ClientContext ctx;
  raw::v1::CheckConfigRequest req;
  req.set_path(dir_.File("bad.json"));
  raw::v1::CheckConfigResponse r;
  ASSERT_TRUE(stub_->CheckConfig(&ctx, req, &r).ok());
  EXPECT_EQ(r.path(), dir_.File("bad.json"));
  EXPECT_TRUE(r.exists());
  EXPECT_THAT(r.errors(), ::testing::Contains(HasSubstr("agents.x.model")));
}

TEST_F(RawServiceTest, CheckConfigNeedsAnAbsolutePath) {
  grpc::ClientContext ctx;
  raw::v1::CheckConfigRequest req;
  req.set_path("config.json");
  raw::v1::CheckConfigResponse r;
  grpc::Status s = stub_->CheckConfig(&ctx, req, &r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("absolute"));
}

TEST_F(RawServiceTest, ConfigTemplateComesWithTheDaemonsConfigPath) {
  grpc::ClientContext ctx;
  raw::v1::GetConfigTemplateResponse r;
  ASSERT_TRUE(stub_->GetConfigTemplate(&ctx, {}, &r).ok());
  EXPECT_EQ(r.text(), config::ConfigTemplate());
  EXPECT_TRUE(config::ParseConfig(r.text()).ok());
  EXPECT_EQ(r.default_path(), info_.config_path);
}

TEST_F(RawServiceTest, ShutdownAnswersThenAsksTheDaemonToStop) {
  grpc::ClientContext ctx;
  raw::v1::ShutdownResponse r;
  ASSERT_TRUE(stub_->Shutdown(&ctx, {}, &r).ok());
  absl::MutexLock lock(&mu_);
  auto requested = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return shutdown_requests_ > 0; };
  EXPECT_TRUE(mu_.AwaitWithTimeout(absl::Condition(&requested), absl::Seconds(10)));
  EXPECT_EQ(shutdown_requests_, 1);
}

TEST_F(RawServiceTest, ListSessionsFiltersByQuery) {
  const std::string id = CreateSession().id();
  grpc::ClientContext ctx;
  raw::v1::ListSessionsRequest list;
  // The directory is the test's temporary one: its upper-cased tail matches.
  list.set_query(absl::AsciiStrToUpper(dir_.path().substr(dir_.path().rfind('/') + 1)));
  raw::v1::ListSessionsResponse page;
  ASSERT_TRUE(stub_->ListSessions(&ctx, list, &page).ok());
  ASSERT_EQ(page.sessions_size(), 1);
  EXPECT_EQ(page.sessions(0).id(), id);

  grpc::ClientContext none_ctx;
  list.set_query("no session has this");
  ASSERT_TRUE(stub_->ListSessions(&none_ctx, list, &page).ok());
  EXPECT_EQ(page.sessions_size(), 0);

  grpc::ClientContext long_ctx;
  list.set_query(std::string(2000, 'q'));
  grpc::Status s = stub_->ListSessions(&long_ctx, list, &page);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("query"));
}

TEST_F(RawServiceTest, DeleteSessionNeedsTheLeaseThenRemovesTheSession) {
  const std::string id = CreateSession().id();
  raw::v1::DeleteSessionRequest request;
  request.set_session_id(id);
  raw::v1::DeleteSessionResponse response;
  {
    grpc::ClientContext ctx;
    grpc::Status s = stub_->DeleteSession(&ctx, request, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  }
  const std::string lease = HoldLease(id);
  ASSERT_FALSE(lease.empty());
  {
    // Another client's (made up) lease id is refused, naming the holder.
    grpc::ClientContext ctx;
    request.set_lease_id("lease_not_mine");
    grpc::Status s = stub_->DeleteSession(&ctx, request, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(s.error_message(), HasSubstr("test"));
  }
  {
    grpc::ClientContext ctx;
    request.set_lease_id(lease);
    grpc::Status s = stub_->DeleteSession(&ctx, request, &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  EXPECT_EQ(store_->GetSession(id).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(sessions_->loaded_sessions(), 0u);
  grpc::ClientContext get_ctx;
  raw::v1::GetSessionRequest get;
  get.set_session_id(id);
  raw::v1::GetSessionResponse got;
  EXPECT_EQ(stub_->GetSession(&get_ctx, get, &got).error_code(), grpc::StatusCode::NOT_FOUND);
  grpc::ClientContext again_ctx;
  EXPECT_EQ(stub_->DeleteSession(&again_ctx, request, &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(RawServiceTest, DeletingASessionEndsItsLeaseAndTheHandoverWaitingForIt) {
  const std::string id = CreateSession().id();
  // A deadline only so that a stream left open fails the test instead of
  // hanging it.
  auto open = [&](grpc::ClientContext* ctx, const std::string& name, bool request_handover) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    raw::v1::AcquireLeaseRequest request;
    request.set_session_id(id);
    request.set_client_name(name);
    request.set_request_handover(request_handover);
    return stub_->AcquireLease(ctx, request);
  };
  grpc::ClientContext holder_ctx, waiter_ctx;
  auto holder = open(&holder_ctx, "holder", false);
  raw::v1::LeaseEvent event;
  ASSERT_TRUE(holder->Read(&event));
  ASSERT_TRUE(event.has_granted());
  const std::string lease = event.granted().lease_id();
  auto waiter = open(&waiter_ctx, "waiter", true);
  ASSERT_TRUE(waiter->Read(&event));
  ASSERT_TRUE(event.has_waiting());
  ASSERT_TRUE(holder->Read(&event));
  ASSERT_TRUE(event.has_handover_requested());
  // A follower's event stream, caught up with the (empty) history.
  grpc::ClientContext follower_ctx;
  follower_ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  raw::v1::SubscribeRequest subscribe;
  subscribe.set_session_id(id);
  auto follower = stub_->Subscribe(&follower_ctx, subscribe);
  {
    // An event it reads shows its subscription is in place.
    grpc::ClientContext clear_ctx;
    raw::v1::ClearContextRequest clear;
    clear.set_session_id(id);
    clear.set_lease_id(lease);
    raw::v1::ClearContextResponse cleared;
    grpc::Status s = stub_->ClearContext(&clear_ctx, clear, &cleared);
    ASSERT_TRUE(s.ok()) << s.error_message();
    raw::v1::Event first;
    ASSERT_TRUE(follower->Read(&first));
  }

  raw::v1::DeleteSessionRequest request;
  request.set_session_id(id);
  request.set_lease_id(lease);
  raw::v1::DeleteSessionResponse response;
  grpc::ClientContext ctx;
  grpc::Status deleted = stub_->DeleteSession(&ctx, request, &response);
  ASSERT_TRUE(deleted.ok()) << deleted.error_message();

  // Both streams end, saying why; nothing of the lease is left.
  for (auto* reader : {waiter.get(), holder.get()}) {
    EXPECT_FALSE(reader->Read(&event));
    grpc::Status ended = reader->Finish();
    EXPECT_EQ(ended.error_code(), grpc::StatusCode::NOT_FOUND) << ended.error_message();
    EXPECT_THAT(ended.error_message(), HasSubstr("session " + id + " was deleted"));
  }
  // So does the follower's event stream, rather than waiting for events
  // that will never come.
  raw::v1::Event followed;
  while (follower->Read(&followed)) {
  }
  grpc::Status unfollowed = follower->Finish();
  EXPECT_EQ(unfollowed.error_code(), grpc::StatusCode::NOT_FOUND) << unfollowed.error_message();
  EXPECT_THAT(unfollowed.error_message(), HasSubstr("session " + id + " was deleted"));
  raw::v1::GetSessionRequest get;
  get.set_session_id(id);
  raw::v1::GetSessionResponse got;
  grpc::ClientContext get_ctx;
  EXPECT_EQ(stub_->GetSession(&get_ctx, get, &got).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace raw::api
