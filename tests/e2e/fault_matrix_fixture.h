// Shared fixture of the provider fault matrix (fault_matrix_*_test.cc):
// each test is parameterized over the four model APIs, starts its own rawd
// (the model's retry and timeout settings differ per fault) against the
// fake provider or against an address that fails, runs one turn and checks
// how it ended: COMPLETED after visible retries, or ERROR with the
// provider's words, and nothing of a broken attempt committed or sent to
// the model afterwards.
#pragma once

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"
#include "tests/fakes/sse_fixture.h"

namespace raw::e2e {

// One API and its own bodies for each fault.
struct ApiCase {
  std::string method;
  std::string provider;         // the config's provider label
  std::string fixture_dir;      // under tests/fixtures/sse
  std::string rate_limit_body;  // a 429
  std::string rate_limit_message;
  std::string server_error_body;  // a 500, 502, 503 or 529
  std::string server_error_message;
  std::string invalid_body;  // an invalid-request error document
  std::string invalid_message;
  std::string json_answer;  // a whole non-streamed answer saying "Plain JSON."
};
// Test names and failure messages show the method, not the struct's bytes.
inline void PrintTo(const ApiCase& c, std::ostream* os) { *os << c.method; }

// The four APIs, for INSTANTIATE_TEST_SUITE_P.
const std::vector<ApiCase>& AllApiCases();
std::string ApiCaseName(const ::testing::TestParamInfo<ApiCase>& info);

// The text of the fixture the fake answers with when an attempt succeeds.
inline constexpr char kGoodText[] = "Hello, world.";
// What a broken attempt streams instead of "Hello" (BrokenReplay): it must
// never be committed nor reach the model.
inline constexpr char kBrokenText[] = "Partial";

// How a turn went, from its live events.
struct TurnOutcome {
  bool ended = false;
  raw::v1::TurnEnded end;
  std::vector<std::string> notices;
  int stream_resets = 0;
  std::string committed;  // assistant_message texts
  int tool_call_batches = 0;
  int tools_started = 0;
};

class FaultMatrixTest : public ::testing::TestWithParam<ApiCase> {
 protected:
  // Starts rawd with the model of this API at `base_url` (the fake's when
  // empty); `model_extra` holds JSON members added to the model.
  void StartDaemon(const std::string& model_extra, const std::string& base_url = "");
  raw::v1::Raw::Stub& stub() { return daemon_->stub(); }

  // Runs one turn in session_ and waits for its end (never longer than
  // `limit`: a hang fails the test instead of blocking it).
  TurnOutcome RunTurn(std::chrono::seconds limit = std::chrono::seconds(30));

  // The fixture `name` of this API, one event per chunk.
  testing::ScriptedResponse Replay(const std::string& name) const;
  // 01-text with "Hello" said as kBrokenText, ended by `end` after the
  // event that carries it.
  testing::ScriptedResponse BrokenReplay(testing::ScriptedResponse::End end) const;
  static testing::ScriptedResponse ErrorResponse(int status, std::string body,
                                                 std::string content_type = "application/json");

  // Nothing of a broken attempt stayed: no assistant message in the
  // history holds any of `broken` (text or tool-call ids it streamed), and
  // the next turn (answered by the fake) completes with a request that
  // carries none of them.
  void ExpectTheNextTurnCarriesNothingBroken(
      const std::vector<std::string>& broken = {kBrokenText});

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
  std::unique_ptr<EventStream> stream_;
  std::string session_;
};

}  // namespace raw::e2e
