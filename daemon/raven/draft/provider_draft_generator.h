// ProviderDraftGenerator: the production DraftGenerator. It asks every
// selected route (a "provider/model_id" the deployment configured under
// raven.draft.routes) for the same instruction through the daemon's own
// provider adapters, one direct request per route (no tools, no retries: a
// Raven draft is one attempt), all routes at once, each under its own
// deadline (raven.draft.timeout_ms) and output cap
// (raven.draft.max_output_tokens).
//
// Each route yields exactly one variant, never a silent gap. The finish is
// inspected, not just the absence of an error: a stream that ends at the
// output cap (kLength) is a truncated, failed variant; one that ends for any
// reason other than a normal stop, or with no prose, fails too; a route
// whose provider cannot be made (a missing key, a bad model entry), that
// errors, or that misses its deadline fails with that reason. Variants are
// candidates, never evidence: what the engine does with them is its own
// policy (engine_draft.cc).
//
// Settings are read from the source at every call. Only the caller's
// `cancel` aborts every route. Thread-safe if the provider factory is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/config/raven_settings.h"
#include "daemon/providers/provider.h"
#include "daemon/raven/seams.h"

namespace raw::raven::draft {

// Makes the provider for one draft request on `route`, its output capped at
// `max_output_tokens`. An error makes that route one failed variant.
using RouteProviderFactory = std::function<absl::StatusOr<std::unique_ptr<providers::Provider>>(
    const std::string& route, int64_t max_output_tokens)>;

// The system prompt of every draft request.
extern const char kDraftSystemPrompt[];

// The request one route gets: kDraftSystemPrompt, no tools, and one user
// message: the Task context, then "Write this now:" and the instruction.
providers::ModelRequest DraftRequest(const std::string& context, const std::string& instruction);

// How one finished stream becomes a variant (pure): `text` the streamed
// prose, `finish` set when a FinishEvent arrived, `error` the failure
// otherwise.
DraftVariant JudgeDraft(const std::string& route, const std::string& text,
                        const std::optional<providers::FinishEvent>& finish,
                        const std::optional<std::string>& error);

class ProviderDraftGenerator : public DraftGenerator {
 public:
  ProviderDraftGenerator(const config::RavenSettingsSource& settings, RouteProviderFactory factory)
      : settings_(settings), factory_(std::move(factory)) {}

  std::vector<std::string> Routes() const override;
  std::vector<DraftVariant> Generate(const std::vector<std::string>& routes,
                                     const std::string& context, const std::string& instruction,
                                     const CancelToken& cancel) override;

 private:
  DraftVariant RunRoute(const std::string& route, const providers::ModelRequest& request,
                        int64_t timeout_ms, int64_t max_output_tokens, const CancelToken& cancel);

  const config::RavenSettingsSource& settings_;
  RouteProviderFactory factory_;
};

}  // namespace raw::raven::draft
