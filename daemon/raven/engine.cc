#include "daemon/raven/engine.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "daemon/raven/prose.h"

namespace raw::raven {
namespace {

using absl::StrCat;

absl::Status FieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(StrCat(field, ": ", what));
}

// Reads the fields of one action or nested object, refusing unknown keys.
class Fields {
 public:
  Fields(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}

  absl::Status Only(const std::vector<std::string>& allowed) const {
    if (!j_.is_object()) return FieldError(where_.empty() ? "arguments" : where_, "must be an object");
    std::vector<std::string> unknown;
    for (const auto& [key, value] : j_.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) unknown.push_back(key);
    }
    if (unknown.empty()) return absl::OkStatus();
    return FieldError(where_.empty() ? "arguments" : where_,
                      StrCat("contains unknown field(s): ", absl::StrJoin(unknown, ", "),
                             ". Accepted field(s): ", absl::StrJoin(allowed, ", ")));
  }
  bool Has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string Path(const char* key) const { return where_.empty() ? key : StrCat(where_, ".", key); }

  absl::StatusOr<std::string> Text(const char* key, size_t max) const {
    if (!Has(key)) return FieldError(Path(key), "is required");
    ASSIGN_OR_RETURN(std::optional<std::string> v, OptionalText(key, max));
    return *v;
  }
  absl::StatusOr<std::optional<std::string>> OptionalText(const char* key, size_t max) const {
    if (!Has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) return FieldError(Path(key), "must be a string");
    std::string s = TrimText(j_.at(key).get<std::string>());
    if (s.empty()) return FieldError(Path(key), "must not be empty");
    if (CodePoints(s) > max) {
      return FieldError(Path(key), StrCat("is longer than ", max, " characters"));
    }
    return s;
  }
  absl::StatusOr<std::string> Id(const char* key) const {
    ASSIGN_OR_RETURN(std::string s, Text(key, 64));
    if (!ValidId(s)) {
      return FieldError(Path(key), "must be a letter or digit followed by up to 63 letters, "
                                   "digits, '.', '_' or '-'");
    }
    return s;
  }
  template <typename E>
  absl::StatusOr<std::optional<E>> OptionalEnum(const char* key) const {
    if (!Has(key)) return std::nullopt;
    if (!j_.at(key).is_string()) return FieldError(Path(key), "must be a string");
    std::optional<E> v = Parse<E>(j_.at(key).get<std::string>());
    if (!v) {
      return FieldError(Path(key), StrCat("must be one of: ", absl::StrJoin(Names<E>(), ", ")));
    }
    return v;
  }
  template <typename E>
  absl::StatusOr<E> Enum(const char* key) const {
    if (!Has(key)) return FieldError(Path(key), "is required");
    ASSIGN_OR_RETURN(std::optional<E> v, OptionalEnum<E>(key));
    return *v;
  }
  absl::StatusOr<std::vector<std::string>> IdList(const char* key, size_t max, bool required) const {
    std::vector<std::string> out;
    if (!Has(key)) {
      if (required) return FieldError(Path(key), "is required");
      return out;
    }
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max) return FieldError(Path(key), StrCat("has more than ", max, " entries"));
    for (const Json& e : a) {
      if (!e.is_string() || !ValidId(e.get<std::string>())) {
        return FieldError(Path(key), "holds an invalid id");
      }
      if (std::find(out.begin(), out.end(), e.get<std::string>()) != out.end()) {
        return FieldError(Path(key), StrCat("repeats ", e.get<std::string>()));
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  absl::StatusOr<std::vector<std::string>> TextList(const char* key, size_t max_items,
                                                    size_t max_chars) const {
    std::vector<std::string> out;
    if (!Has(key)) return out;
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max_items) {
      return FieldError(Path(key), StrCat("has more than ", max_items, " entries"));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = StrCat(Path(key), "[", i, "]");
      if (!a[i].is_string()) return FieldError(p, "must be a string");
      std::string s = TrimText(a[i].get<std::string>());
      if (s.empty()) return FieldError(p, "must not be empty");
      if (CodePoints(s) > max_chars) return FieldError(p, StrCat("is longer than ", max_chars));
      out.push_back(s);
    }
    return out;
  }
  absl::StatusOr<const Json*> Objects(const char* key, size_t max) const {
    if (!Has(key)) return static_cast<const Json*>(nullptr);
    const Json& a = j_.at(key);
    if (!a.is_array()) return FieldError(Path(key), "must be an array");
    if (a.size() > max) return FieldError(Path(key), StrCat("has more than ", max, " entries"));
    return &a;
  }
  absl::StatusOr<bool> Bool(const char* key) const {
    if (!Has(key)) return false;
    if (!j_.at(key).is_boolean()) return FieldError(Path(key), "must be a boolean");
    return j_.at(key).get<bool>();
  }

 private:
  const Json& j_;
  std::string where_;
};

bool Completed(Phase p) { return p == Phase::kCompleted || p == Phase::kCompletedWithLimits; }

std::string HostOf(const std::string& url) {
  size_t start = url.find("://");
  if (start == std::string::npos) return "";
  start += 3;
  return url.substr(start, url.find_first_of("/?#", start) - start);
}

void AddLimitation(TaskState& s, LimitationKind kind, std::string detail,
                   std::optional<std::string> source_id) {
  detail = TrimText(detail);
  if (CodePoints(detail) > Limits::kLimitationDetailChars) {
    detail = detail.substr(0, Limits::kLimitationDetailChars);
    detail = TrimText(detail.substr(0, detail.size()));
  }
  int same_kind = 0;
  for (const Limitation& l : s.limitations) {
    if (l.kind == kind && l.detail == detail && l.source_id == source_id) return;
    if (l.kind == kind) ++same_kind;
  }
  if (s.limitations.size() >= Limits::kLimitations) return;
  s.limitations.push_back(
      {StrCat(Name(kind), "-", same_kind + 1), kind, std::move(detail), std::move(source_id)});
}

// Asks the verifier about `ids` of `s` and writes the checks into `s`.
// Returns the ids that are not reachable, with their details.
std::vector<std::pair<std::string, std::string>> Verify(TaskState& s,
                                                        const std::vector<std::string>& ids,
                                                        const EngineContext& ctx,
                                                        VerificationReceipt* receipt) {
  std::vector<Source> asked;
  for (const std::string& id : ids) {
    if (const Source* src = s.FindSource(id)) asked.push_back(*src);
  }
  std::vector<SourceObservation> reply;
  if (!asked.empty()) reply = ctx.verifier.Verify(asked, ctx.cancel);
  // Validate the protocol before believing anything.
  std::string violation;
  std::map<std::string, const SourceObservation*> by_id;
  for (const SourceObservation& o : reply) {
    if (s.FindSource(o.source_id) == nullptr ||
        std::find(ids.begin(), ids.end(), o.source_id) == ids.end()) {
      violation = StrCat("unrequested Source ", o.source_id);
    } else if (!by_id.emplace(o.source_id, &o).second) {
      violation = StrCat("two observations of ", o.source_id);
    } else if (o.status == CheckStatus::kUnchecked) {
      violation = StrCat("no status for ", o.source_id);
    } else if (o.status_code && (*o.status_code < 100 || *o.status_code > 599)) {
      violation = StrCat("HTTP status out of range for ", o.source_id);
    } else if (o.status != CheckStatus::kUnavailable && (!o.status_code || !o.resolved_url)) {
      violation = StrCat("no HTTP status or resolved URL for ", o.source_id);
    } else if (o.status != CheckStatus::kReachable && (!o.detail || TrimText(*o.detail).empty())) {
      violation = StrCat("no detail for ", o.source_id);
    } else if (o.status == CheckStatus::kReachable &&
               (*o.status_code >= 400 ||
                HostOf(*o.resolved_url) != HostOf(s.FindSource(o.source_id)->url))) {
      violation = StrCat("reachable ", o.source_id, " with an error status or on another host");
    }
  }
  if (violation.empty() && by_id.size() != asked.size()) violation = "a requested Source is missing";
  std::vector<std::pair<std::string, std::string>> bad;
  int reachable = 0, failed = 0, unavailable = 0;
  for (Source& src : s.sources) {
    if (std::find(ids.begin(), ids.end(), src.source_id) == ids.end()) continue;
    SourceCheck c;
    c.checked_at = ctx.now_ms;
    if (!violation.empty()) {
      c.status = CheckStatus::kUnavailable;
      c.detail = StrCat("source verifier protocol error: ", violation);
    } else {
      const SourceObservation& o = *by_id.at(src.source_id);
      c.status = o.status;
      c.status_code = o.status_code;
      c.resolved_url = o.resolved_url;
      if (o.detail) c.detail = TrimText(o.detail->substr(0, Limits::kLimitationDetailChars));
      if (c.detail && c.detail->empty()) c.detail.reset();
    }
    src.check = c;
    if (c.status == CheckStatus::kReachable) {
      ++reachable;
    } else {
      (c.status == CheckStatus::kFailed ? failed : unavailable)++;
      bad.push_back({src.source_id, c.detail.value_or("")});
    }
  }
  if (receipt != nullptr) {
    receipt->verified_at = ctx.now_ms;
    receipt->checked = reachable + failed + unavailable;
    receipt->reachable = reachable;
    receipt->failed = failed;
    receipt->unavailable = unavailable;
    receipt->mode = receipt->checked > 0 && (reachable + failed) > 0 ? "remote" : "structural-only";
  }
  return bad;
}

// Defers every supported/qualified external Claim left without a reachable
// Source and records a Limitation for each failed or unavailable Source.
void Propagate(TaskState& s) {
  for (Claim& c : s.claims) {
    if (!c.NeedsSupport()) continue;
    bool usable = std::any_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
      const Source* src = s.FindSource(id);
      return src && src->check.status == CheckStatus::kReachable;
    });
    if (!usable) c.disposition = Disposition::kDeferred;
  }
  for (const Source& src : s.sources) {
    if (src.check.status != CheckStatus::kFailed && src.check.status != CheckStatus::kUnavailable) {
      continue;
    }
    bool recorded = std::any_of(s.limitations.begin(), s.limitations.end(), [&](const Limitation& l) {
      return l.kind == LimitationKind::kSource && l.source_id == src.source_id;
    });
    if (!recorded) {
      AddLimitation(s, LimitationKind::kSource,
                    StrCat("Source ", src.source_id, " failed verification: ",
                           src.check.detail.value_or(std::string(Name(src.check.status)))),
                    src.source_id);
    }
  }
}

// The Sources a Checkpoint or Completion must reopen: the cited ones and
// those of supported/qualified external Claims.
std::vector<std::string> RelevantSources(const TaskState& s, std::string_view artifact) {
  std::vector<std::string> ids = CitedIds(artifact);
  for (const Claim& c : s.claims) {
    if (!c.NeedsSupport()) continue;
    for (const std::string& id : c.source_ids) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  }
  std::erase_if(ids, [&](const std::string& id) { return s.FindSource(id) == nullptr; });
  return ids;
}

bool GroundingMet(const TaskState& s) {
  return std::any_of(s.claims.begin(), s.claims.end(), [&](const Claim& c) {
    return c.NeedsSupport() && c.importance == Importance::kMaterial &&
           std::any_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
             const Source* src = s.FindSource(id);
             return src && src->check.status == CheckStatus::kReachable;
           });
  });
}

class Engine {
 public:
  Engine(const TaskBook& book, const EngineContext& ctx) : book_(book), ctx_(ctx) {}

  absl::StatusOr<ActionResult> Run(const Json& args) {
    if (!args.is_object()) return FieldError("arguments", "must be an object");
    if (!args.contains("action") || !args["action"].is_string()) {
      return FieldError("action", StrCat("is required; one of: ", absl::StrJoin(ActionNames(), ", ")));
    }
    std::string action = args["action"].get<std::string>();
    auto fields = ActionFields().find(action);
    if (fields == ActionFields().end()) {
      return FieldError("action", StrCat("must be one of: ", absl::StrJoin(ActionNames(), ", ")));
    }
    std::vector<std::string> allowed = fields->second;
    allowed.insert(allowed.begin(), "action");
    Fields f(args, "");
    RETURN_IF_ERROR(f.Only(allowed));
    result_.current_task_id = book_.current_task_id;
    if (action == "start") return Start(f);
    ASSIGN_OR_RETURN(TaskState * task, Address(f, action == "status"));
    result_.state = *task;
    if (action == "status") return Finish(StatusOf(result_.state), "");
    if (action == "stop") return Stop(f);
    if (action == "resume") return Resume();
    if (action == "export") return Export(f);
    if (result_.state.phase != Phase::kActive) {
      return absl::FailedPreconditionError(
          StrCat("Task ", result_.state.task_id, " is ", Name(result_.state.phase),
                 Completed(result_.state.phase) ? "; start a new Task for new work"
                                                : "; call resume first if the user wants to continue"));
    }
    if (action == "checkpoint") return CheckpointAction(f);
    if (action == "steer") return Steer(f);
    if (action == "complete") return Complete(f);
    if (action == "discover") return Discover(f);
    return Draft(f);
  }

 private:
  static std::string StatusOf(const TaskState& s) { return std::string(Name(s.phase)); }

  absl::StatusOr<TaskState*> Address(const Fields& f, bool optional) {
    std::string id;
    if (f.Has("taskId") || !optional) {
      ASSIGN_OR_RETURN(id, f.Id("taskId"));
    } else {
      id = book_.current_task_id;
      if (id.empty()) return FieldError("taskId", "no Raven Task exists in this session; start one");
    }
    auto it = book_.tasks.find(id);
    if (it == book_.tasks.end()) {
      return FieldError("taskId", StrCat("unknown Task ", id,
                                         book_.current_task_id.empty()
                                             ? ""
                                             : StrCat("; the current Task is ", book_.current_task_id)));
    }
    holder_ = it->second;
    return &holder_;
  }

  ActionResult Finish(std::string status, std::string message) {
    result_.status = std::move(status);
    result_.message = std::move(message);
    return std::move(result_);
  }

  // Moves the revision of the addressed Task.
  ActionResult Commit(TaskState next, std::string status, std::string message) {
    next.revision = result_.state.revision + 1;
    next.updated_at = std::max(ctx_.now_ms, next.started_at);
    result_.state = std::move(next);
    result_.mutated = true;
    return Finish(std::move(status), std::move(message));
  }

  ActionResult NeedsRevision(std::vector<Issue> issues, std::string message) {
    result_.issues = std::move(issues);
    return Finish("needs-revision", std::move(message));
  }

  absl::StatusOr<ActionResult> Start(const Fields& f) {
    ASSIGN_OR_RETURN(Outcome outcome, f.Enum<Outcome>("outcome"));
    ASSIGN_OR_RETURN(std::string request, f.Text("request", Limits::kRequestChars));
    ASSIGN_OR_RETURN(std::optional<Grounding> grounding, f.OptionalEnum<Grounding>("grounding"));
    bool floor = outcome == Outcome::kResearch || outcome == Outcome::kAcademicWriting;
    if (floor && grounding == Grounding::kNone) {
      return FieldError("grounding", StrCat("a ", Name(outcome),
                                            " Task cannot disable its evidence floor; use "
                                            "\"required\" (the default) or \"optional\""));
    }
    if (const TaskState* current = book_.Current(); current && current->phase == Phase::kActive) {
      return absl::FailedPreconditionError(
          StrCat("Task ", current->task_id, " is still active; continue it, or stop it before "
                 "starting a new Task"));
    }
    TaskState s;
    s.ordinal = book_.MaxOrdinal() + 1;
    s.task_id = MakeTaskId(ctx_.session_id, s.ordinal);
    s.outcome = outcome;
    s.request = request;
    s.grounding = grounding.value_or(floor ? Grounding::kRequired : Grounding::kOptional);
    s.started_at = s.updated_at = ctx_.now_ms;
    result_.state = s;
    result_.current_task_id = s.task_id;
    result_.mutated = true;
    return Finish("active", StrCat("Started Raven Task ", s.task_id, "."));
  }

  absl::StatusOr<ActionResult> Stop(const Fields& f) {
    ASSIGN_OR_RETURN(std::optional<std::string> reason,
                     f.OptionalText("reason", Limits::kLimitationDetailChars));
    (void)reason;  // validated, deliberately not stored
    TaskState s = result_.state;
    if (Completed(s.phase)) {
      return absl::FailedPreconditionError(StrCat("Task ", s.task_id, " is already ", Name(s.phase)));
    }
    if (s.phase == Phase::kStopped) return Finish("stopped", "The Task was already stopped.");
    s.phase = Phase::kStopped;
    return Commit(std::move(s), "stopped", "Stopped; resume continues the same Task.");
  }

  absl::StatusOr<ActionResult> Resume() {
    TaskState s = result_.state;
    if (Completed(s.phase)) {
      return absl::FailedPreconditionError(StrCat("Task ", s.task_id, " is already ", Name(s.phase),
                                                  "; start a new Task for new work"));
    }
    if (s.phase == Phase::kActive) return Finish("active", "The Task is already active.");
    if (const TaskState* current = book_.Current();
        current && current->task_id != s.task_id && current->phase == Phase::kActive) {
      return absl::FailedPreconditionError(StrCat("Task ", current->task_id,
                                                  " is active; stop it before resuming ", s.task_id));
    }
    s.phase = Phase::kActive;
    result_.current_task_id = s.task_id;
    return Commit(std::move(s), "active", "Resumed.");
  }

  absl::StatusOr<ActionResult> Steer(const Fields& f) {
    ASSIGN_OR_RETURN(std::string correction, f.Text("correction", Limits::kCorrectionChars));
    TaskState s = result_.state;
    if (s.steering.size() >= Limits::kSteeringRevisions) {
      return FieldError("correction", StrCat("the Task already has ", Limits::kSteeringRevisions,
                                             " Steering Revisions"));
    }
    s.steering_revision += 1;
    s.steering.push_back({s.steering_revision, correction, ctx_.now_ms});
    s.verification.reset();
    s.final_artifact_sha256.reset();
    return Commit(std::move(s), "active",
                  StrCat("Steering Revision ", s.steering_revision,
                         " recorded; publish a Checkpoint that applies it before completing."));
  }

  // Parses `sources` into `merged` (the Task's Sources plus new ones).
  absl::Status MergeSources(const Fields& f, std::vector<Source>& merged,
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
      auto same_url = std::find_if(merged.begin(), merged.end(),
                                   [&](const Source& o) { return o.url == s.url; });
      if (same_url != merged.end()) {
        issues.push_back({where + ".url", StrCat("is already registered as Source ",
                                                 same_url->source_id, "; cite that id")});
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

  absl::Status MergeClaims(const Fields& f, const std::vector<Source>& sources,
                           std::vector<Claim>& merged, std::vector<Issue>& issues) {
    ASSIGN_OR_RETURN(const Json* list, f.Objects("claims", Limits::kClaims));
    if (list == nullptr) return absl::OkStatus();
    std::vector<std::pair<std::string, size_t>> batch;  // id, index in the batch
    for (size_t i = 0; i < list->size(); ++i) {
      std::string where = StrCat("claims[", i, "]");
      Fields cf((*list)[i], where);
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
      bool ok = true;
      for (const std::string& id : c.source_ids) {
        auto src = std::find_if(sources.begin(), sources.end(),
                                [&](const Source& s) { return s.source_id == id; });
        if (src == sources.end()) {
          issues.push_back({where + ".sourceIds", StrCat("names unregistered Source ", id)});
          ok = false;
        }
      }
      if (c.NeedsSupport() && c.source_ids.empty()) {
        issues.push_back({where + ".sourceIds",
                          StrCat("a ", Name(c.disposition),
                                 " external Claim needs at least one Source; defer it or cite one")});
        ok = false;
      }
      if (ok && c.NeedsSupport() &&
          std::all_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
            auto src = std::find_if(sources.begin(), sources.end(),
                                    [&](const Source& s) { return s.source_id == id; });
            return src->check.status == CheckStatus::kFailed ||
                   src->check.status == CheckStatus::kUnavailable;
          })) {
        issues.push_back({where + ".sourceIds",
                          "every Source of this Claim failed verification; defer the Claim or "
                          "support it with a verified Source"});
        ok = false;
      }
      auto existing = std::find_if(merged.begin(), merged.end(),
                                   [&](const Claim& o) { return o.claim_id == c.claim_id; });
      if (existing != merged.end() && existing->text != c.text) {
        issues.push_back({where + ".text", StrCat("Claim ", c.claim_id,
                                                  " already has different text; use a new Claim ID")});
        ok = false;
      }
      if (!ok) continue;
      batch.push_back({c.claim_id, i});
      if (existing != merged.end()) {
        *existing = std::move(c);
      } else if (merged.size() >= Limits::kClaims) {
        issues.push_back({where, StrCat("the Task already has ", Limits::kClaims, " Claims")});
      } else {
        merged.push_back(std::move(c));
      }
    }
    // Contradiction links, after the whole batch.
    for (const auto& entry : batch) {
      // A named reference: Clang 14 cannot capture a structured binding.
      const std::string& id = entry.first;
      const auto& index = entry.second;
      const Claim& c = *std::find_if(merged.begin(), merged.end(),
                                     [&](const Claim& o) { return o.claim_id == id; });
      for (const std::string& other : c.contradicts) {
        std::string where = StrCat("claims[", index, "].contradicts");
        if (other == c.claim_id) {
          issues.push_back({where, "a Claim cannot contradict itself"});
        } else if (std::none_of(merged.begin(), merged.end(),
                                [&](const Claim& o) { return o.claim_id == other; })) {
          issues.push_back({where, StrCat("names unknown Claim ", other)});
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status AddFailures(const Fields& f, TaskState& s, std::vector<Issue>& issues) {
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

  // The artifact laid out, or an error naming the field.
  static absl::StatusOr<std::string> LaidOut(const Fields& f) {
    ASSIGN_OR_RETURN(std::string artifact, f.Text("artifact", Limits::kArtifactChars));
    std::string laid = LayoutProse(artifact);
    if (laid.empty()) return FieldError("artifact", "must not be empty");
    if (CodePoints(laid) > Limits::kArtifactChars) {
      return FieldError("artifact", StrCat("is longer than ", Limits::kArtifactChars,
                                           " characters after Prose Layout"));
    }
    return laid;
  }

  absl::StatusOr<ActionResult> CheckpointAction(const Fields& f) {
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
    }
    if (!issues.empty()) {
      return NeedsRevision(std::move(issues), "Nothing was recorded; correct the fields named and "
                                              "send the Checkpoint again.");
    }
    std::vector<std::string> relevant = RelevantSources(next, artifact);
    std::vector<std::pair<std::string, std::string>> bad = Verify(next, relevant, ctx_, nullptr);
    if (!bad.empty()) {
      for (const auto& [id, detail] : bad) {
        issues.push_back({StrCat("sources[", id, "]"),
                          StrCat("source ", id, " failed evidence verification: ", detail)});
      }
      // The contribution is discarded, but what is now known about Sources
      // the Task already had is kept.
      TaskState kept = before;
      bool known_changed = false;
      for (Source& src : kept.sources) {
        const Source* seen = next.FindSource(src.source_id);
        if (std::find(relevant.begin(), relevant.end(), src.source_id) != relevant.end() &&
            seen->check.status != CheckStatus::kReachable) {
          src.check = seen->check;
          known_changed = true;
        }
      }
      result_.issues = std::move(issues);
      std::string message = "The Checkpoint was not published: repair or remove the failing "
                             "Sources (fix the excerpt to an exact passage, or cite another Source).";
      if (known_changed) {
        Propagate(kept);
        return Commit(std::move(kept), "needs-revision", message);
      }
      return Finish("needs-revision", message);
    }
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
    return Commit(std::move(next), "active", StrCat("Published Checkpoint ", c.checkpoint_id, "."));
  }

  absl::StatusOr<ActionResult> Complete(const Fields& f) {
    ASSIGN_OR_RETURN(std::string artifact, LaidOut(f));
    const TaskState& s = result_.state;
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
    std::vector<std::pair<std::string, std::string>> bad =
        Verify(next, RelevantSources(next, artifact), ctx_, &receipt);
    next.verification = receipt;
    if (!bad.empty()) {
      Propagate(next);
      for (const auto& [id, detail] : bad) {
        issues.push_back({StrCat("sources[", id, "]"),
                          StrCat("source ", id, " failed remote verification: ", detail)});
      }
      result_.issues = std::move(issues);
      return Commit(std::move(next), "needs-revision",
                    "Completion refused: Claims that lost their support were deferred and the "
                    "failures recorded as Limitations; remove the broken citations in a new "
                    "Checkpoint, then complete it.");
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
    return Commit(std::move(next), status,
                  limited ? "Completed with the Limitations listed." : "Completed and verified.");
  }

  absl::StatusOr<ActionResult> Discover(const Fields& f) {
    if (!f.Has("queries")) return FieldError("queries", "is required");
    ASSIGN_OR_RETURN(std::vector<std::string> raw,
                     f.TextList("queries", Limits::kSearchQueries, Limits::kSearchQueryChars));
    if (raw.empty()) return FieldError("queries", "must hold at least one query");
    std::vector<std::string> queries;
    for (const std::string& q : raw) {
      if (std::find(queries.begin(), queries.end(), q) == queries.end()) queries.push_back(q);
    }
    TaskState next = result_.state;
    if (std::optional<std::string> why = ctx_.searcher.Unavailable()) {
      AddLimitation(next, LimitationKind::kTool, StrCat("source discovery unavailable: ", *why),
                    std::nullopt);
      if (next.limitations == result_.state.limitations) {
        return Finish("unavailable", StrCat("Source discovery is unavailable: ", *why));
      }
      return Commit(std::move(next), "unavailable", StrCat("Source discovery is unavailable: ", *why));
    }
    std::vector<SearchAnswer> answers =
        ctx_.searcher.Search(queries, Limits::kSearchResults, ctx_.cancel);
    std::vector<Lead> leads;
    size_t cap = std::min(queries.size() * Limits::kSearchResults, Limits::kLeads);
    bool truncated = false;
    for (size_t rank = 0; rank < Limits::kSearchResults; ++rank) {
      for (const SearchAnswer& a : answers) {
        if (a.error || rank >= a.leads.size()) continue;
        Lead lead = a.leads[rank];
        std::string canonical;
        if (!CanonicalUrl(lead.url, canonical).ok()) continue;
        lead.url = canonical;
        auto same = std::find_if(leads.begin(), leads.end(),
                                 [&](const Lead& l) { return l.url == canonical; });
        if (same != leads.end()) {
          if (std::find(same->queries.begin(), same->queries.end(), a.query) == same->queries.end()) {
            same->queries.push_back(a.query);
          }
          continue;
        }
        if (leads.size() >= cap) {
          truncated = true;
          continue;
        }
        lead.queries = {a.query};
        leads.push_back(std::move(lead));
      }
    }
    for (const SearchAnswer& a : answers) {
      if (a.error) {
        AddLimitation(next, LimitationKind::kTool,
                      StrCat("discovery query \"", a.query, "\" failed: ", *a.error), std::nullopt);
      }
    }
    std::string text = "## Leads (uninspected candidates, not Sources)\n";
    for (const Lead& l : leads) {
      absl::StrAppend(&text, "\n- ", EscapeInline(l.title.empty() ? l.url : l.title), " — ", l.url);
      if (!l.snippet.empty()) absl::StrAppend(&text, "\n  ", EscapeInline(l.snippet));
      absl::StrAppend(&text, "\n  queries: ", EscapeInline(absl::StrJoin(l.queries, " | ")));
    }
    if (leads.empty()) absl::StrAppend(&text, "\n(none)");
    if (truncated) absl::StrAppend(&text, "\n\n(more candidates were cut off)");
    result_.extra = std::move(text);
    std::string message = StrCat(leads.size(), " Lead(s). Inspect a Lead before registering it "
                                               "as a Source with a locator and a verbatim excerpt.");
    if (next.limitations != result_.state.limitations) {
      return Commit(std::move(next), "active", message);
    }
    return Finish("active", message);
  }

  absl::StatusOr<ActionResult> Draft(const Fields& f) {
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
      std::string body = v.text;
      if (CodePoints(body) > Limits::kDraftVariantChars) body = body.substr(0, Limits::kDraftVariantChars);
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

  absl::StatusOr<ActionResult> Export(const Fields& f) {
    ExportRequest req;
    ASSIGN_OR_RETURN(req.title, f.OptionalText("title", Limits::kSummaryChars));
    ASSIGN_OR_RETURN(req.tags, f.TextList("tags", Limits::kExportTags, 64));
    for (size_t i = 0; i < req.tags.size(); ++i) {
      const std::string& t = req.tags[i];
      bool ok = !t.empty() && (std::islower(static_cast<unsigned char>(t[0])) ||
                               std::isdigit(static_cast<unsigned char>(t[0])));
      for (char c : t) ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                                   std::isdigit(static_cast<unsigned char>(c)) || c == '-');
      if (!ok) {
        return FieldError(StrCat("tags[", i, "]"),
                          "must be a lower-case letter or digit followed by up to 63 lower-case "
                          "letters, digits or '-'");
      }
    }
    ASSIGN_OR_RETURN(req.init, f.Bool("init"));
    req.now_ms = ctx_.now_ms;
    if (!result_.state.latest_artifact) {
      return NeedsRevision({{"taskId", "publish a Checkpoint before exporting"}},
                           "Nothing to export yet.");
    }
    result_.pages = ExportWiki(result_.state, req);
    std::string text = "## Wiki pages (write these with your file tools)\n";
    for (const WikiPage& p : result_.pages) {
      absl::StrAppend(&text, "\n", p.append ? "Append to `" : "Write `", p.path, "`:\n\n````markdown\n",
                      p.content, "````\n");
    }
    result_.extra = std::move(text);
    return Finish(StatusOf(result_.state),
                  StrCat(result_.pages.size(), " page(s); Raven wrote nothing itself."));
  }

  const TaskBook& book_;
  const EngineContext& ctx_;
  ActionResult result_;
  TaskState holder_;
};

}  // namespace

const std::vector<std::string>& ActionNames() {
  static const std::vector<std::string> kNames = {"start", "discover", "checkpoint", "draft",
                                                  "steer", "complete", "status",     "stop",
                                                  "resume", "export"};
  return kNames;
}

const std::map<std::string, std::vector<std::string>>& ActionFields() {
  static const std::map<std::string, std::vector<std::string>> kFields = {
      {"start", {"outcome", "request", "grounding"}},
      {"discover", {"taskId", "queries"}},
      {"checkpoint", {"taskId", "stage", "summary", "artifact", "sources", "claims", "failures"}},
      {"draft", {"taskId", "instruction", "routes"}},
      {"steer", {"taskId", "correction"}},
      {"complete", {"taskId", "artifact"}},
      {"status", {"taskId"}},
      {"stop", {"taskId", "reason"}},
      {"resume", {"taskId"}},
      {"export", {"taskId", "title", "tags", "init"}},
  };
  return kFields;
}

absl::StatusOr<ActionResult> RunAction(const TaskBook& book, const Json& args,
                                       const EngineContext& ctx) {
  return Engine(book, ctx).Run(args);
}

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
