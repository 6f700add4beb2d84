// Evidence bookkeeping shared by the engine's actions: asking the
// SourceVerifier and validating what it reports, propagating failed Sources
// into deferred Claims and Source Limitations, choosing the Sources a
// Checkpoint or Completion must reopen, and the evidence floor. Internal to
// the engine.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/raven/domain.h"
#include "daemon/raven/engine.h"

namespace raw::raven {

bool Completed(Phase p);

// Appends a Limitation numbered within its kind (one past the highest
// number of that kind); an identical one is not repeated, and nothing is
// added past Limits::kLimitations. `checked_at` marks an automatic Source
// Limitation (domain.h).
void AddLimitation(TaskState& s, LimitationKind kind, std::string detail,
                   std::optional<std::string> source_id,
                   std::optional<int64_t> checked_at = std::nullopt);

// Asks the verifier about `ids` of `s` and writes the checks into `s`.
// Returns the ids that are not reachable, with their details (prefixed
// "<outcome>: " when the check has an outcome). An observation that breaks
// the protocol (no status, an error status or another host or port for a
// reachable Source, ...) makes its own Source unavailable; a reply that
// cannot be matched to the request (an unrequested, repeated or missing id)
// makes every requested Source unavailable. `receipt`, when given, receives
// the counts.
//
// A Source the check did not reach (SourceObservation::not_reached: the
// time for the whole check ran out before its fetch began) keeps its
// previous check, since nothing was observed of it: a verified one is
// neither downgraded nor are its Claims deferred. It is listed in
// `*not_rechecked`, and also returned as not reachable when its previous
// check is not `reachable` (a new Source is still unverified).
std::vector<std::pair<std::string, std::string>> Verify(
    TaskState& s, const std::vector<std::string>& ids, const EngineContext& ctx,
    VerificationReceipt* receipt, std::vector<std::string>* not_rechecked = nullptr);

// The sentence that tells a result's reader which Sources were not
// re-checked ("" when none).
std::string NotRecheckedNote(const std::vector<std::string>& ids);

// Defers every supported/qualified external Claim left without a reachable
// Source, and keeps one automatic Source Limitation for each failed or
// unavailable Source, describing its current check: added, rewritten when
// the check changed, removed once the Source is reachable. A Limitation the
// agent wrote for a Source neither stands in for the automatic one nor is
// touched.
void Propagate(TaskState& s);

// The Sources a Checkpoint or Completion must reopen: the cited ones, the
// ones whose URL the Artifact links (LinkedSourceIds; for a superseded one,
// its successor) and those of supported/qualified external Claims.
std::vector<std::string> RelevantSources(const TaskState& s, std::string_view artifact);

// A material supported/qualified external Claim has a reachable Source.
bool GroundingMet(const TaskState& s);

}  // namespace raw::raven
