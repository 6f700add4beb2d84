// complete: the deterministic checks against the latest Checkpoint, remote
// verification of the relevant Sources, and the terminal disposition.

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/raven/citations.h"
#include "daemon/raven/engine_internal.h"
#include "daemon/raven/prose.h"

namespace raw::raven {

using absl::StrCat;

absl::StatusOr<ActionResult> Engine::Complete(const Fields& f) {
  ASSIGN_OR_RETURN(std::string artifact, LaidOut(f));
  const TaskState& s = result_.state;
  // The bytes Raven returned for the latest Checkpoint (RenderArtifact: each
  // citation a link, then the Sources and the Claim trace) stand for its
  // packed text: a caller that kept only what Raven showed it (after a
  // /clear or a compaction, from `status`) completes the same Artifact.
  if (s.latest_artifact && artifact != *s.latest_artifact &&
      artifact == LayoutProse(RenderArtifact(s, *s.latest_artifact))) {
    artifact = *s.latest_artifact;
  }
  std::vector<Issue> issues;
  if (s.checkpoints.empty()) {
    issues.push_back({"artifact", "no Checkpoint exists; publish the Artifact as a Checkpoint "
                                  "before completing"});
  } else {
    const Checkpoint& latest = s.checkpoints.back();
    if (latest.steering_revision != s.steering_revision) {
      issues.push_back({"artifact", StrCat("Steering Revision ", s.steering_revision,
                                           " has no later Checkpoint; publish a Checkpoint that "
                                           "applies it before Completion")});
    }
    if (Sha256Tagged(artifact) != latest.artifact_sha256) {
      issues.push_back({"artifact", StrCat("differs from Checkpoint ", latest.checkpoint_id,
                                           "; the exact latest Checkpoint Artifact must be "
                                           "completed (publish a Checkpoint for any final edit)")});
    }
  }
  if (s.checkpoints.size() >= Limits::kCheckpoints) {
    issues.push_back({"artifact", "no Checkpoint slot is left for the final Checkpoint"});
  }
  std::vector<Issue> cites = ValidateCitations(artifact, s.sources, s.claims, "artifact");
  issues.insert(issues.end(), cites.begin(), cites.end());
  if (s.grounding == Grounding::kRequired && !GroundingMet(s)) {
    issues.push_back({"claims", "grounding-required Completion needs at least one verified "
                                "material external supported or qualified Claim"});
  }
  if (!issues.empty()) {
    return NeedsRevision(std::move(issues), "The Task stays active and unchanged.");
  }
  TaskState next = s;
  VerificationReceipt receipt;
  receipt.artifact_sha256 = Sha256Tagged(artifact);
  std::vector<std::string> not_rechecked;
  std::vector<std::pair<std::string, std::string>> bad =
      Verify(next, RelevantSources(next, artifact), ctx_, &receipt, &not_rechecked);
  next.verification = receipt;
  // Also on success: a Source reachable again clears its automatic
  // Limitation, so a stale one does not mark the Completion limited.
  Propagate(next);
  if (!bad.empty()) {
    for (const auto& [id, detail] : bad) {
      issues.push_back(
          {StrCat("sources[", id, "]"),
           next.FindSource(id)->check.status == CheckStatus::kFailed
               ? StrCat("source ", id, " failed remote verification: ", detail)
               : StrCat("source ", id,
                        " could not be checked at Completion (unavailable): ", detail)});
    }
    result_.issues = std::move(issues);
    return Commit(std::move(next), "needs-revision",
                  "Completion refused: Claims that lost their support were deferred and the "
                  "Sources recorded as Limitations; remove the failed citations in a new "
                  "Checkpoint (a Source that could not be checked may be cited again there, "
                  "which reopens it, and its Claims resubmitted), then complete it.");
  }
  if (next.grounding == Grounding::kRequired && !GroundingMet(next)) {
    return NeedsRevision({{"claims", "grounding-required Completion needs at least one verified "
                                     "material external supported or qualified Claim"}},
                         "The Task stays active.");
  }
  bool deferred = std::any_of(next.claims.begin(), next.claims.end(), [](const Claim& c) {
    return c.disposition == Disposition::kDeferred;
  });
  bool limited = !next.limitations.empty() || deferred || receipt.unavailable > 0;
  next.phase = limited ? Phase::kCompletedWithLimits : Phase::kCompleted;
  Checkpoint c;
  c.ordinal = static_cast<int>(next.checkpoints.size()) + 1;
  c.checkpoint_id = MakeCheckpointId(next.task_id, c.ordinal);
  c.stage = Stage::kVerify;
  c.summary = limited ? "Final Artifact with verification limits." : "Verified final Artifact.";
  c.artifact_sha256 = receipt.artifact_sha256;
  c.artifact_chars = CodePoints(artifact);
  c.steering_revision = next.steering_revision;
  c.created_at = ctx_.now_ms;
  next.checkpoints.push_back(c);
  next.final_artifact_sha256 = receipt.artifact_sha256;
  if (limited) {
    for (const Limitation& l : next.limitations) result_.issues.push_back({"limitations", l.detail});
    if (deferred) result_.issues.push_back({"claims", "one or more Claims remain deferred"});
  }
  std::string status(Name(next.phase));
  return Commit(
      std::move(next), status,
      StrCat(limited ? "Completed with the Limitations listed." : "Completed and verified.",
             NotRecheckedNote(not_rechecked)));
}

}  // namespace raw::raven
