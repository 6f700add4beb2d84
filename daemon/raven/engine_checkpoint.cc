// checkpoint: merging Sources, Claims and Limitations into a proposed state,
// verifying the relevant Sources, and publishing the Checkpoint.

#include "daemon/raven/engine_internal.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "daemon/raven/normalizer.h"
#include "daemon/raven/prose.h"

namespace raw::raven {

using absl::StrCat;

absl::Status Engine::MergeSources(const Fields& f, std::vector<Source>& merged,
                          std::vector<Issue>& issues) {
  ASSIGN_OR_RETURN(const Json* list, f.Objects("sources", Limits::kSources));
  if (list == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < list->size(); ++i) {
    std::string where = StrCat("sources[", i, "]");
    Fields sf((*list)[i], where);
    RETURN_IF_ERROR(sf.Only({"sourceId", "url", "title", "locator", "excerpt", "role",
                             "sourceFamily", "asOf"}));
    Source s;
    ASSIGN_OR_RETURN(s.source_id, sf.Id("sourceId"));
    ASSIGN_OR_RETURN(std::string url, sf.Text("url", Limits::kUrlChars));
    ASSIGN_OR_RETURN(s.title, sf.Text("title", Limits::kSourceTitleChars));
    ASSIGN_OR_RETURN(s.locator, sf.Text("locator", Limits::kSourceLocatorChars));
    ASSIGN_OR_RETURN(s.excerpt, sf.Text("excerpt", Limits::kSourceExcerptChars));
    ASSIGN_OR_RETURN(std::optional<SourceRole> role, sf.OptionalEnum<SourceRole>("role"));
    s.role = role.value_or(SourceRole::kSecondary);
    ASSIGN_OR_RETURN(s.family, sf.OptionalText("sourceFamily", Limits::kSourceFamilyChars));
    ASSIGN_OR_RETURN(s.as_of, sf.OptionalText("asOf", Limits::kSourceAsOfChars));
    if (absl::Status u = CanonicalUrl(url, s.url); !u.ok()) {
      issues.push_back({where + ".url", std::string(u.message())});
      continue;
    }
    // Counted on the key the verifier matches, so presentation (white
    // space, soft hyphens) cannot pad a trivial excerpt.
    if (size_t chars = CodePoints(Normalize(s.excerpt).key);
        chars < Limits::kSourceExcerptMinChars) {
      issues.push_back(
          {where + ".excerpt",
           StrCat("Source ", s.source_id, ": the excerpt is ", chars,
                  " characters long once normalized; at least ", Limits::kSourceExcerptMinChars,
                  " are needed, since a shorter one is found on almost any page: copy a longer "
                  "verbatim passage")});
      continue;
    }
    s.inspected_at = ctx_.now_ms;
    auto same_id = std::find_if(merged.begin(), merged.end(),
                                [&](const Source& o) { return o.source_id == s.source_id; });
    if (same_id != merged.end()) {
      if (!same_id->SameEvidence(s)) {
        issues.push_back({where, StrCat("Source ", s.source_id,
                                        " cannot be rewritten; register changed evidence under "
                                        "a new Source ID")});
      }
      continue;  // exact resubmission keeps the recorded check
    }
    // One Source per page (a fragment does not make another page). A page
    // whose Sources all failed takes changed evidence under this new id.
    auto same_page = std::find_if(merged.begin(), merged.end(), [&](const Source& o) {
      return PageUrl(o.url) == PageUrl(s.url) && o.check.status != CheckStatus::kFailed;
    });
    if (same_page != merged.end()) {
      issues.push_back({where + ".url", StrCat("is already registered as Source ",
                                               same_page->source_id, "; cite that id")});
      continue;
    }
    if (merged.size() >= Limits::kSources) {
      issues.push_back({where, StrCat("the Task already has ", Limits::kSources, " Sources")});
      continue;
    }
    merged.push_back(std::move(s));
  }
  return absl::OkStatus();
}

absl::Status Engine::MergeClaims(const Fields& f, const std::vector<Source>& sources,
                         std::vector<Claim>& merged, std::vector<Issue>& issues) {
  ASSIGN_OR_RETURN(const Json* list, f.Objects("claims", Limits::kClaims));
  if (list == nullptr) return absl::OkStatus();
  std::vector<Claim> parsed;
  parsed.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    Fields cf((*list)[i], StrCat("claims[", i, "]"));
    RETURN_IF_ERROR(cf.Only({"claimId", "text", "kind", "importance", "disposition", "sourceIds",
                             "contradicts"}));
    Claim c;
    ASSIGN_OR_RETURN(c.claim_id, cf.Id("claimId"));
    ASSIGN_OR_RETURN(c.text, cf.Text("text", Limits::kClaimTextChars));
    ASSIGN_OR_RETURN(c.kind, cf.Enum<ClaimKind>("kind"));
    ASSIGN_OR_RETURN(c.importance, cf.Enum<Importance>("importance"));
    ASSIGN_OR_RETURN(c.disposition, cf.Enum<Disposition>("disposition"));
    ASSIGN_OR_RETURN(c.source_ids, cf.IdList("sourceIds", Limits::kClaimSourceIds, true));
    ASSIGN_OR_RETURN(c.contradicts, cf.IdList("contradicts", Limits::kContradicts, false));
    parsed.push_back(std::move(c));
  }
  const auto find_claim = [&merged](const std::string& id) {
    return std::find_if(merged.begin(), merged.end(),
                        [&](const Claim& o) { return o.claim_id == id; });
  };
  const auto find_source = [&sources](const std::string& id) -> const Source* {
    auto it = std::find_if(sources.begin(), sources.end(),
                           [&](const Source& s) { return s.source_id == id; });
    return it == sources.end() ? nullptr : &*it;
  };
  // The ceiling holds for the whole batch before any of it is merged: a
  // batch that would take the Task past it is refused as a whole.
  std::set<std::string> added;
  for (const Claim& c : parsed) {
    if (find_claim(c.claim_id) == merged.end()) added.insert(c.claim_id);
  }
  if (merged.size() + added.size() > Limits::kClaims) {
    issues.push_back(
        {"claims", StrCat("this Checkpoint adds ", added.size(),
                          added.size() == 1 ? " new Claim" : " new Claims", " to the Task's ",
                          merged.size(), "; a Task holds at most ", Limits::kClaims,
                          " Claims, so none of the batch was recorded (update existing Claims "
                          "instead, or record the gap as a Limitation)")});
    return absl::OkStatus();
  }
  std::vector<std::pair<std::string, size_t>> batch;  // id, index in the batch
  for (size_t i = 0; i < parsed.size(); ++i) {
    Claim& c = parsed[i];
    std::string where = StrCat("claims[", i, "]");
    bool ok = true;
    for (const std::string& id : c.source_ids) {
      const Source* src = find_source(id);
      if (src == nullptr) {
        issues.push_back({where + ".sourceIds", StrCat("names unregistered Source ", id)});
        ok = false;
      } else if (const Source* successor = Successor(sources, *src)) {
        issues.push_back({where + ".sourceIds",
                          StrCat("names Source ", id, ", superseded by Source ",
                                 successor->source_id, " for the same page; cite that id")});
        ok = false;
      }
    }
    if (c.NeedsSupport() && c.source_ids.empty()) {
      issues.push_back({where + ".sourceIds",
                        StrCat("a ", Name(c.disposition),
                               " external Claim needs at least one Source; defer it or cite one")});
      ok = false;
    }
    // Only a failed Source is refused here. One that could not be checked
    // (unavailable: a timeout, a block, a verifier fault) is reopened by
    // this Checkpoint, which is published only if it is reachable now.
    if (ok && c.NeedsSupport() &&
        std::all_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
          const Source* src = find_source(id);
          return src != nullptr && src->check.status == CheckStatus::kFailed;
        })) {
      issues.push_back({where + ".sourceIds",
                        "every Source of this Claim failed verification; defer the Claim or "
                        "support it with a verified Source"});
      ok = false;
    }
    auto existing = find_claim(c.claim_id);
    if (existing != merged.end() && existing->text != c.text) {
      issues.push_back({where + ".text", StrCat("Claim ", c.claim_id,
                                                " already has different text; use a new Claim ID")});
      ok = false;
    }
    if (!ok) continue;
    batch.push_back({c.claim_id, i});
    if (existing != merged.end()) {
      *existing = std::move(c);
    } else {
      merged.push_back(std::move(c));
    }
  }
  // Contradiction links, after the whole batch.
  for (const auto& entry : batch) {
    // A named reference: Clang 14 cannot capture a structured binding.
    const std::string& id = entry.first;
    const auto& index = entry.second;
    auto claim = find_claim(id);
    if (claim == merged.end()) continue;  // every Claim of `batch` was merged above
    const Claim& c = *claim;
    for (const std::string& other : c.contradicts) {
      std::string where = StrCat("claims[", index, "].contradicts");
      if (other == c.claim_id) {
        issues.push_back({where, "a Claim cannot contradict itself"});
      } else if (find_claim(other) == merged.end()) {
        issues.push_back({where, StrCat("names unknown Claim ", other)});
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Engine::AddFailures(const Fields& f, TaskState& s, std::vector<Issue>& issues) {
  ASSIGN_OR_RETURN(const Json* list, f.Objects("failures", Limits::kLimitations));
  if (list == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < list->size(); ++i) {
    std::string where = StrCat("failures[", i, "]");
    Fields ff((*list)[i], where);
    RETURN_IF_ERROR(ff.Only({"kind", "detail", "sourceId"}));
    ASSIGN_OR_RETURN(LimitationKind kind, ff.Enum<LimitationKind>("kind"));
    ASSIGN_OR_RETURN(std::string detail, ff.Text("detail", Limits::kLimitationDetailChars));
    std::optional<std::string> source_id;
    if (ff.Has("sourceId")) {
      ASSIGN_OR_RETURN(std::string id, ff.Id("sourceId"));
      if (s.FindSource(id) == nullptr) {
        issues.push_back({where + ".sourceId", StrCat("names unregistered Source ", id)});
        continue;
      }
      source_id = id;
    }
    if (s.limitations.size() >= Limits::kLimitations) {
      issues.push_back({where, StrCat("the Task already has ", Limits::kLimitations,
                                      " Limitations")});
      continue;
    }
    AddLimitation(s, kind, detail, source_id);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Engine::LaidOut(const Fields& f) {
  ASSIGN_OR_RETURN(std::string artifact, f.Text("artifact", Limits::kArtifactChars));
  std::string laid = LayoutProse(artifact);
  if (laid.empty()) return FieldError("artifact", "must not be empty");
  if (CodePoints(laid) > Limits::kArtifactChars) {
    return FieldError("artifact", StrCat("is longer than ", Limits::kArtifactChars,
                                         " characters after Prose Layout"));
  }
  return laid;
}

absl::StatusOr<ActionResult> Engine::CheckpointAction(const Fields& f) {
  ASSIGN_OR_RETURN(Stage stage, f.Enum<Stage>("stage"));
  ASSIGN_OR_RETURN(std::string summary, f.Text("summary", Limits::kSummaryChars));
  ASSIGN_OR_RETURN(std::string artifact, LaidOut(f));
  const TaskState& before = result_.state;
  if (before.checkpoints.size() + 1 >= Limits::kCheckpoints) {
    return absl::FailedPreconditionError(
        StrCat("the Task has ", before.checkpoints.size(),
               " Checkpoints; the last slot is kept for Completion — complete the latest one"));
  }
  TaskState next = before;
  std::vector<Issue> issues;
  RETURN_IF_ERROR(MergeSources(f, next.sources, issues));
  RETURN_IF_ERROR(MergeClaims(f, next.sources, next.claims, issues));
  RETURN_IF_ERROR(AddFailures(f, next, issues));
  if (issues.empty()) {
    std::vector<Issue> cites = ValidateCitations(artifact, next.sources, next.claims, "artifact");
    issues.insert(issues.end(), cites.begin(), cites.end());
    for (const std::string& id : CitedIds(artifact)) {
      const Source* src = next.FindSource(id);
      const Source* successor = src == nullptr ? nullptr : Successor(next.sources, *src);
      if (successor != nullptr) {
        issues.push_back(
            {"artifact", StrCat("cites Source ", id, ", superseded by Source ",
                                successor->source_id, " for the same page; cite that id")});
      }
    }
  }
  if (!issues.empty()) {
    return NeedsRevision(std::move(issues), "Nothing was recorded; correct the fields named and "
                                            "send the Checkpoint again.");
  }
  std::vector<std::string> relevant = RelevantSources(next, artifact);
  std::vector<std::string> not_rechecked;
  std::vector<std::pair<std::string, std::string>> bad =
      Verify(next, relevant, ctx_, nullptr, &not_rechecked);
  if (!bad.empty()) {
    for (const auto& [id, detail] : bad) {
      issues.push_back({StrCat("sources[", id, "]"),
                        next.FindSource(id)->check.status == CheckStatus::kFailed
                            ? StrCat("source ", id, " failed evidence verification: ", detail)
                            : StrCat("source ", id,
                                     " could not be checked (unavailable; it is reopened when a "
                                     "Checkpoint cites it again): ",
                                     detail)});
    }
    // The contribution is discarded, but what is now known about Sources
    // the Task already had is kept.
    TaskState kept = before;
    bool known_changed = false;
    for (Source& src : kept.sources) {
      const Source* seen = next.FindSource(src.source_id);
      if (std::find(relevant.begin(), relevant.end(), src.source_id) != relevant.end() &&
          seen->check.status != CheckStatus::kReachable && seen->check != src.check) {
        src.check = seen->check;
        known_changed = true;
      }
    }
    result_.issues = std::move(issues);
    std::string message =
        "The Checkpoint was not published: repair or remove the failed Sources (fix the excerpt "
        "to an exact passage, or cite another Source); a Source that could not be checked may "
        "be cited again in the next Checkpoint, which reopens it.";
    if (known_changed) {
      Propagate(kept);
      return Commit(std::move(kept), "needs-revision", message);
    }
    return Finish("needs-revision", message);
  }
  Propagate(next);  // every relevant Source is reachable: clears their automatic Limitations
  Checkpoint c;
  c.ordinal = static_cast<int>(next.checkpoints.size()) + 1;
  c.checkpoint_id = MakeCheckpointId(next.task_id, c.ordinal);
  c.stage = stage;
  c.summary = summary;
  c.artifact_sha256 = Sha256Tagged(artifact);
  c.artifact_chars = CodePoints(artifact);
  c.steering_revision = next.steering_revision;
  c.created_at = ctx_.now_ms;
  next.checkpoints.push_back(c);
  next.latest_artifact = artifact;
  next.verification.reset();
  next.final_artifact_sha256.reset();
  return Commit(
      std::move(next), "active",
      StrCat("Published Checkpoint ", c.checkpoint_id, ".", NotRecheckedNote(not_rechecked)));
}

}  // namespace raw::raven
