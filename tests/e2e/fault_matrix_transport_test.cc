// The provider fault matrix, part two: the connection, through a real rawd
// and real libcurl, for each of the four APIs. Connection refused, a name
// that does not resolve (RFC 6761 .invalid) and a TLS server whose
// certificate is self-signed (reported, never sent in plaintext instead);
// a reset before the first byte and after it; a stream cut short, by a
// closed connection or by a clean end without the API's terminator; a
// trickle slower than the idle timeout. HTTP answers are in
// fault_matrix_test.cc.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/e2e/fault_matrix_fixture.h"
#include "tests/support/line_process.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;
using End = testing::ScriptedResponse::End;

class TransportFaultTest : public FaultMatrixTest {};

// A port on 127.0.0.1 that nothing listens on: bound, noted, closed.
std::optional<int> ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
            getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) return std::nullopt;
  return ntohs(address.sin_port);
}

TEST_P(TransportFaultTest, ConnectionRefusedIsRetriedThenReported) {
  std::optional<int> port = ClosedPort();
  ASSERT_TRUE(port.has_value());
  StartDaemon(R"("max_retries": 1)", absl::StrCat("http://127.0.0.1:", *port, "/v1"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr(absl::StrCat("127.0.0.1:", *port)));
  EXPECT_THAT(turn.end.message(), HasSubstr("Connection refused"));
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("Connection refused"));
  EXPECT_EQ(turn.committed, "");
}

TEST_P(TransportFaultTest, ANameThatDoesNotResolveIsRetriedThenReported) {
  // RFC 6761: .invalid never resolves; the connect timeout bounds a slow
  // resolver.
  StartDaemon(R"("max_retries": 1, "connect_timeout_seconds": 5)", "http://raw-test.invalid/v1");

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("Could not resolve host: raw-test.invalid"));
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_EQ(turn.committed, "");
}

// The server speaks only TLS, with a certificate no one trusts: the
// request fails at the handshake, says why, and is not retried (the
// certificate will not change). There is no plaintext fallback to try.
TEST_P(TransportFaultTest, ASelfSignedCertificateIsRefusedWithTheTlsError) {
  char dir_template[] = "/tmp/raw-tls-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  CommandResult made = RunCommand(
      {"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
       "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
       "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"},
      {{"PATH", "/usr/bin:/bin"}});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  LineProcess server({"/usr/bin/python3",
                      absl::StrCat(RAW_SOURCE_DIR, "/tests/fixtures/https/serve_files.py"), dir,
                      cert, key},
                     {{"PATH", "/usr/bin:/bin"}}, dir + "/server.err");
  std::optional<std::string> port = server.ReadLine(std::chrono::seconds(30));
  ASSERT_TRUE(port.has_value() && port->rfind("PORT ", 0) == 0) << port.value_or("(no line)");
  StartDaemon(R"("max_retries": 2)", absl::StrCat("https://127.0.0.1:", port->substr(5), "/v1"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("TLS"));
  EXPECT_THAT(turn.end.message(), HasSubstr("self-signed certificate"));
  EXPECT_THAT(turn.notices, SizeIs(0));
  EXPECT_EQ(fake_.requests().size(), 0u);
  server.Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

TEST_P(TransportFaultTest, AResetBeforeTheFirstByteIsRetried) {
  StartDaemon(R"("max_retries": 2)");
  testing::ScriptedResponse reset;
  reset.framing = testing::ScriptedResponse::Framing::kRaw;
  reset.end = End::kReset;
  fake_.Enqueue(reset);
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("reset"));
  EXPECT_EQ(turn.stream_resets, 0) << "nothing was shown";
  EXPECT_EQ(turn.committed, kGoodText);
  std::vector<testing::RecordedRequest> requests = fake_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body, requests[1].body);
}

TEST_P(TransportFaultTest, AResetAfterTheFirstTextIsRetriedAndTheTextDiscarded) {
  StartDaemon(R"("max_retries": 2)");
  // The reset is sent once rawd has shown the text. Sent right behind the
  // text, it may make the kernel drop those bytes unread, which is the fault
  // of the test above (a reset before any text).
  testing::ScriptedResponse broken = BrokenReplay(End::kReset);
  broken.gate_before_chunk = broken.chunks.size();
  fake_.Enqueue(broken);
  fake_.Enqueue(Replay("01-text"));
  EventStream shown(stub(), session_);
  std::thread releaser([&] {
    if (fake_.WaitForGate(absl::Seconds(30))) {
      EXPECT_TRUE(shown.WaitFor([](const raw::v1::Event& e) { return e.has_text_delta(); }));
    }
    fake_.ReleaseGate();
  });

  TurnOutcome turn = RunTurn();
  releaser.join();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("reset"));
  EXPECT_EQ(turn.stream_resets, 1) << "clients drop the text of the broken attempt";
  EXPECT_EQ(turn.committed, kGoodText);
  ExpectTheNextTurnCarriesNothingBroken();
}

// 06-cutoff stops mid tool call: once with the connection closed inside
// the chunked body, once with a clean HTTP end but no terminator of the
// API. Neither attempt's calls run; the third answer is the turn's.
TEST_P(TransportFaultTest, ATruncatedStreamIsRetriedAndItsToolCallsNeverRun) {
  StartDaemon(R"("max_retries": 2)");
  testing::ScriptedResponse cut = Replay("06-cutoff");
  cut.end = End::kCut;
  fake_.Enqueue(cut);
  fake_.Enqueue(Replay("06-cutoff"));
  fake_.Enqueue(Replay("01-text"));

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_COMPLETED) << turn.end.message();
  ASSERT_THAT(turn.notices, SizeIs(2));
  EXPECT_THAT(turn.notices[0], HasSubstr("cut off"));
  EXPECT_THAT(turn.notices[1], HasSubstr("the stream ended before"));
  EXPECT_EQ(turn.tool_call_batches, 0);
  EXPECT_EQ(turn.tools_started, 0);
  EXPECT_EQ(turn.committed, kGoodText);
  EXPECT_FALSE(std::filesystem::exists(daemon_->workdir() + "/x"));
  ExpectTheNextTurnCarriesNothingBroken({"Let me", "call_Z", "call_Q", "toolu_01X"});
}

// The first event (with the broken attempt's text) at once, the next one
// 5 s later: past models.<name>.idle_timeout_seconds, twice.
TEST_P(TransportFaultTest, ATrickleSlowerThanTheIdleTimeoutIsRetriedThenReported) {
  StartDaemon(R"("max_retries": 1, "idle_timeout_seconds": 0.3)");
  testing::ScriptedResponse trickle = BrokenReplay(End::kComplete);
  const size_t shown = trickle.chunks.size();
  trickle.chunks = {absl::StrJoin(trickle.chunks, "")};
  std::vector<std::string> rest = Replay("01-text").chunks;
  trickle.chunks.insert(trickle.chunks.end(), rest.begin() + static_cast<long>(shown), rest.end());
  trickle.chunk_interval = std::chrono::seconds(5);
  fake_.Enqueue(trickle);
  fake_.Enqueue(trickle);

  TurnOutcome turn = RunTurn();
  ASSERT_TRUE(turn.ended);
  EXPECT_EQ(turn.end.reason(), raw::v1::TURN_END_REASON_ERROR);
  EXPECT_THAT(turn.end.message(), HasSubstr("models.fake.idle_timeout_seconds"));
  ASSERT_THAT(turn.notices, SizeIs(1));
  EXPECT_THAT(turn.notices[0], HasSubstr("no data"));
  EXPECT_EQ(turn.stream_resets, 2) << "clients drop the text of both attempts";
  EXPECT_EQ(turn.committed, "") << "an answer that never finished is not committed";
  EXPECT_EQ(fake_.requests().size(), 2u);
  ExpectTheNextTurnCarriesNothingBroken();
}

INSTANTIATE_TEST_SUITE_P(FaultMatrix, TransportFaultTest, ::testing::ValuesIn(AllApiCases()),
                         ApiCaseName);

}  // namespace
}  // namespace raw::e2e
