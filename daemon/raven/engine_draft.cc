// draft: candidate wording from the configured routes (never evidence).

#include "daemon/raven/engine_internal.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/raven/prose.h"

namespace raw::raven {

using absl::StrCat;

absl::StatusOr<ActionResult> Engine::Draft(const Fields& f) {
  ASSIGN_OR_RETURN(std::string instruction,
                   f.Text("instruction", Limits::kDraftInstructionChars));
  ASSIGN_OR_RETURN(std::vector<std::string> wanted,
                   f.TextList("routes", Limits::kDraftRoutes, 256));
  std::vector<std::string> configured = ctx_.drafter.Routes();
  if (configured.empty()) {
    return Finish("unavailable", "No Draft Variant route is configured for this deployment; "
                                 "write the wording yourself.");
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (std::find(configured.begin(), configured.end(), wanted[i]) == configured.end()) {
      return FieldError(StrCat("routes[", i, "]"),
                        StrCat(wanted[i], " is not configured for this deployment. Configured "
                                          "route(s): ", absl::StrJoin(configured, ", ")));
    }
  }
  if (wanted.empty()) wanted = configured;
  const TaskState& s = result_.state;
  std::string context = StrCat("Outcome: ", Name(s.outcome), "\nRequest: ", s.request);
  size_t first = s.steering.size() > 4 ? s.steering.size() - 4 : 0;
  for (size_t i = first; i < s.steering.size(); ++i) {
    absl::StrAppend(&context, "\nCorrection: ", s.steering[i].correction);
  }
  if (s.latest_artifact) absl::StrAppend(&context, "\nCurrent Artifact:\n", *s.latest_artifact);
  std::vector<DraftVariant> variants =
      ctx_.drafter.Generate(wanted, context, instruction, ctx_.cancel);
  std::string text = "## Draft Variants (candidate wording, not evidence)\n";
  bool failed = false;
  for (const DraftVariant& v : variants) {
    if (!v.drafted) {
      failed = true;
      continue;
    }
    // Cut at kDraftVariantChars characters, on a character boundary.
    std::string body(PrefixCodePoints(v.text, Limits::kDraftVariantChars));
    absl::StrAppend(&text, "\n### ", v.route, v.detail.empty() ? "" : StrCat(" (", v.detail, ")"),
                    "\n\n", LayoutProse(body), "\n");
  }
  for (const DraftVariant& v : variants) {
    if (!v.drafted) absl::StrAppend(&text, "\n- failed route ", v.route, ": ", v.detail);
  }
  result_.extra = std::move(text);
  result_.issues.push_back({"draft", "these are candidates, not Checkpoints"});
  if (failed) result_.issues.push_back({"routes", "some routes failed; compare the ones that did"});
  return Finish("active", StrCat(variants.size(), " Draft Variant(s)."));
}

}  // namespace raw::raven
