#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/raven/citations.h"
#include "daemon/raven/engine.h"

namespace raw::raven {

using absl::StrCat;

std::string RenderCard(const ActionResult& r) {
  const TaskState& s = r.state;
  int verified = 0;
  for (const Source& src : s.sources) verified += src.check.status == CheckStatus::kReachable;
  std::string out = StrCat("Raven ", s.task_id, " · ", r.status, " · phase ", Name(s.phase),
                           " · revision ", s.revision, "\nSources ", s.sources.size(), " (",
                           verified, " verified) · Claims ", s.claims.size(), " · Limitations ",
                           s.limitations.size());
  if (!s.checkpoints.empty()) {
    const Checkpoint& c = s.checkpoints.back();
    absl::StrAppend(&out, "\nLatest ", c.checkpoint_id, " (", Name(c.stage), "): ", c.summary);
  }
  if (!r.issues.empty()) absl::StrAppend(&out, "\n", r.issues.size(), " issue(s): ", r.issues[0].field,
                                         ": ", r.issues[0].message);
  return out;
}

std::string RenderResult(const ActionResult& r) {
  const TaskState& s = r.state;
  int verified = 0;
  for (const Source& src : s.sources) verified += src.check.status == CheckStatus::kReachable;
  std::string out = StrCat("Raven Task ", s.task_id, " · ", Name(s.outcome), " · phase ",
                           Name(s.phase), " · revision ", s.revision, " · status ", r.status, "\n");
  absl::StrAppend(&out, "Checkpoints ", s.checkpoints.size(), " · Sources ", s.sources.size(), " (",
                  verified, " verified) · Claims ", s.claims.size(), " · Limitations ",
                  s.limitations.size(), " · Steering ", s.steering_revision, "\n");
  if (!s.checkpoints.empty()) {
    const Checkpoint& c = s.checkpoints.back();
    absl::StrAppend(&out, "Latest Checkpoint ", c.checkpoint_id, " (", Name(c.stage), "): ",
                    c.summary, "\n");
  }
  if (!r.message.empty()) absl::StrAppend(&out, "\n", r.message, "\n");
  if (!r.issues.empty()) {
    absl::StrAppend(&out, "\nIssues:\n");
    for (const Issue& i : r.issues) absl::StrAppend(&out, "- ", i.field, ": ", i.message, "\n");
  }
  if (!r.extra.empty()) absl::StrAppend(&out, "\n", r.extra, "\n");
  if (s.latest_artifact && r.pages.empty()) {
    absl::StrAppend(&out, "\n---\n", RenderArtifact(s, *s.latest_artifact), "\n");
  }
  return out;
}


}  // namespace raw::raven
