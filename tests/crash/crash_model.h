// The model of the crash harness: a fake provider's answers computed from
// each request alone, so that a daemon killed and restarted at any point can
// send any request, in any order, any number of times, and still get the
// answer that moves its turn on.
//
// A harness prompt reads "op N: K tool steps". Until the model context holds
// K tool-calling answers after that prompt, the model answers with two calls
// (a bash command that runs for a while, so a kill can land mid-tool, and a
// write_file); then with a streamed text of many deltas. A summary request
// (compaction) gets a short summary. Requests of the Responses, Anthropic
// and Google APIs (the harness's check turns) get the API's text fixture.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "tests/fakes/fake_provider_server.h"

namespace raw::crash {

enum class Api { kChat, kResponses, kAnthropic, kGoogle };

inline constexpr Api kAllApis[] = {Api::kChat, Api::kResponses, Api::kAnthropic, Api::kGoogle};

// "chat", "responses", "anthropic", "google": the names of the harness's
// model entries ("fake-chat", ...).
const char* ApiName(Api api);

// The API a request was sent to, from its path.
std::optional<Api> ApiOfPath(const std::string& path);

// The harness prompt of operation `op`.
std::string ToolPrompt(int op, int steps);

// The answer to `request` (nullopt for a request the harness never sends).
std::optional<testing::ScriptedResponse> Respond(const testing::RecordedRequest& request);

// The daemon config: one agent "coder" with the built-in tools, allowed to
// run them, on the model "fake-chat"; models "fake-<api>" for every API at
// `base_url`; compaction keeps one recent turn.
std::string HarnessConfig(const std::string& base_url);

}  // namespace raw::crash
