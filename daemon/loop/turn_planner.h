// BuildTurnPlan: resolves everything a turn needs from the config as it is
// now (the agent, its model and provider, the selected tools, rules, hooks
// and skills), so that a config problem is reported when the turn is
// requested, before anything is recorded. The system prompt is the agent's
// plus the selected skills' listing; the prompt-cache key derives from the
// result (see daemon/context/cache_key.h). Pure apart from reading skill
// files; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "daemon/config/config.h"
#include "daemon/config/config_loader.h"
#include "daemon/http/http_client.h"
#include "daemon/loop/turn.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"

namespace raw::loop {

struct TurnPlanInputs {
  const config::Config& config;
  const store::SessionRecord& session;
  std::string user_text;
  const tools::ToolRegistry& tools;
  http::HttpClient& http;
  const EnvLookup& env;
  const config::ServerProbe& probe;
};

absl::StatusOr<TurnPlan> BuildTurnPlan(const TurnPlanInputs& in);

}  // namespace raw::loop
