#include "daemon/raven/codec.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace raw::raven {
namespace {

// Reads one JSON object strictly: only the named keys, each checked as read.
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}

  absl::Status Keys(std::initializer_list<std::string_view> allowed) const {
    if (!j_.is_object()) return Error("is not an object");
    for (const auto& [key, value] : j_.items()) {
      bool known = false;
      for (std::string_view a : allowed) known = known || a == key;
      if (!known) return Error(absl::StrCat("has unknown field \"", key, "\""));
    }
    return absl::OkStatus();
  }
  bool Has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  const Json& At(const char* key) const { return j_.at(key); }

  absl::StatusOr<std::string> Text(const char* key, size_t max) const {
    if (!Has(key) || !At(key).is_string()) return Error(absl::StrCat(key, " is not a string"));
    std::string s = At(key).get<std::string>();
    if (s.empty() || TrimText(s) != s) return Error(absl::StrCat(key, " is empty or untrimmed"));
    if (CodePoints(s) > max) return Error(absl::StrCat(key, " exceeds ", max, " characters"));
    return s;
  }
  absl::StatusOr<std::optional<std::string>> OptionalText(const char* key, size_t max) const {
    if (!Has(key)) return std::nullopt;
    ASSIGN_OR_RETURN(std::string s, Text(key, max));
    return s;
  }
  absl::StatusOr<std::string> Id(const char* key) const {
    if (!Has(key) || !At(key).is_string() || !ValidId(At(key).get<std::string>())) {
      return Error(absl::StrCat(key, " is not a valid id"));
    }
    return At(key).get<std::string>();
  }
  absl::StatusOr<int64_t> Int(const char* key, int64_t min) const {
    if (!Has(key) || !At(key).is_number_integer()) {
      return Error(absl::StrCat(key, " is not an integer"));
    }
    int64_t v = At(key).get<int64_t>();
    if (v < min) return Error(absl::StrCat(key, " is below ", min));
    return v;
  }
  template <typename E>
  absl::StatusOr<E> Enum(const char* key) const {
    if (!Has(key) || !At(key).is_string()) return Error(absl::StrCat(key, " is not a string"));
    std::optional<E> v = Parse<E>(At(key).get<std::string>());
    if (!v) return Error(absl::StrCat(key, " has an unknown value"));
    return *v;
  }
  absl::StatusOr<std::vector<std::string>> Ids(const char* key, size_t max) const {
    std::vector<std::string> out;
    if (!Has(key)) return out;
    if (!At(key).is_array() || At(key).size() > max) {
      return Error(absl::StrCat(key, " is not an array of at most ", max));
    }
    std::set<std::string> seen;
    for (const Json& e : At(key)) {
      if (!e.is_string() || !ValidId(e.get<std::string>()) || !seen.insert(e.get<std::string>()).second) {
        return Error(absl::StrCat(key, " holds an invalid or repeated id"));
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  absl::StatusOr<const Json*> Array(const char* key, size_t max) const {
    if (!Has(key) || !At(key).is_array() || At(key).size() > max) {
      return Error(absl::StrCat(key, " is not an array of at most ", max));
    }
    return &At(key);
  }
  absl::Status Error(const std::string& what) const {
    return absl::DataLossError(absl::StrCat(where_, " ", what));
  }

 private:
  const Json& j_;
  std::string where_;
};

absl::StatusOr<SourceCheck> DecodeCheck(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys(
      {"status", "checkedAt", "statusCode", "resolvedUrl", "detail", "outcome", "lastVerifiedAt"}));
  SourceCheck c;
  ASSIGN_OR_RETURN(c.status, r.Enum<CheckStatus>("status"));
  if (c.status == CheckStatus::kUnchecked) {
    if (r.Has("checkedAt") || r.Has("statusCode") || r.Has("resolvedUrl") || r.Has("detail") ||
        r.Has("outcome") || r.Has("lastVerifiedAt")) {
      return r.Error("is unchecked but carries check fields");
    }
    return c;
  }
  ASSIGN_OR_RETURN(c.checked_at, r.Int("checkedAt", 0));
  if (r.Has("statusCode")) {
    ASSIGN_OR_RETURN(int64_t code, r.Int("statusCode", 100));
    if (code > 599) return r.Error("statusCode is out of range");
    c.status_code = static_cast<int>(code);
  }
  if (r.Has("resolvedUrl")) {
    ASSIGN_OR_RETURN(std::string u, r.Text("resolvedUrl", Limits::kUrlChars));
    c.resolved_url = u;
  }
  ASSIGN_OR_RETURN(c.detail, r.OptionalText("detail", Limits::kLimitationDetailChars));
  if (c.status != CheckStatus::kReachable && !c.detail) return r.Error("lacks a detail");
  if (r.Has("outcome")) {
    ASSIGN_OR_RETURN(CheckOutcome outcome, r.Enum<CheckOutcome>("outcome"));
    if (!OutcomeFits(outcome, c.status)) return r.Error("outcome contradicts status");
    c.outcome = outcome;
  }
  if (r.Has("lastVerifiedAt")) {
    ASSIGN_OR_RETURN(int64_t at, r.Int("lastVerifiedAt", 0));
    // A reachable check is itself the last verification; another one
    // carries an earlier one over.
    if (c.status == CheckStatus::kReachable ? at != c.checked_at : at > c.checked_at) {
      return r.Error("lastVerifiedAt contradicts checkedAt");
    }
    c.last_verified_at = at;
  }
  return c;
}

absl::StatusOr<Source> DecodeSource(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"sourceId", "url", "title", "locator", "excerpt", "role",
                          "sourceFamily", "asOf", "inspectedAt", "check"}));
  Source s;
  ASSIGN_OR_RETURN(s.source_id, r.Id("sourceId"));
  ASSIGN_OR_RETURN(std::string url, r.Text("url", Limits::kUrlChars));
  if (!IsStoredCanonicalUrl(url)) return r.Error("url is not canonical");
  s.url = url;
  ASSIGN_OR_RETURN(s.title, r.Text("title", Limits::kSourceTitleChars));
  ASSIGN_OR_RETURN(s.locator, r.Text("locator", Limits::kSourceLocatorChars));
  ASSIGN_OR_RETURN(s.excerpt, r.Text("excerpt", Limits::kSourceExcerptChars));
  ASSIGN_OR_RETURN(s.role, r.Enum<SourceRole>("role"));
  ASSIGN_OR_RETURN(s.family, r.OptionalText("sourceFamily", Limits::kSourceFamilyChars));
  ASSIGN_OR_RETURN(s.as_of, r.OptionalText("asOf", Limits::kSourceAsOfChars));
  ASSIGN_OR_RETURN(s.inspected_at, r.Int("inspectedAt", 0));
  if (!r.Has("check")) return r.Error("lacks check");
  ASSIGN_OR_RETURN(s.check, DecodeCheck(r.At("check"), where + ".check"));
  return s;
}

absl::StatusOr<Claim> DecodeClaim(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"claimId", "text", "kind", "importance", "disposition", "sourceIds",
                          "contradicts"}));
  Claim c;
  ASSIGN_OR_RETURN(c.claim_id, r.Id("claimId"));
  ASSIGN_OR_RETURN(c.text, r.Text("text", Limits::kClaimTextChars));
  ASSIGN_OR_RETURN(c.kind, r.Enum<ClaimKind>("kind"));
  ASSIGN_OR_RETURN(c.importance, r.Enum<Importance>("importance"));
  ASSIGN_OR_RETURN(c.disposition, r.Enum<Disposition>("disposition"));
  if (!r.Has("sourceIds")) return r.Error("lacks sourceIds");
  ASSIGN_OR_RETURN(c.source_ids, r.Ids("sourceIds", Limits::kClaimSourceIds));
  ASSIGN_OR_RETURN(c.contradicts, r.Ids("contradicts", Limits::kContradicts));
  return c;
}

absl::StatusOr<Limitation> DecodeLimitation(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"limitationId", "kind", "detail", "sourceId", "checkedAt"}));
  Limitation l;
  ASSIGN_OR_RETURN(l.limitation_id, r.Id("limitationId"));
  ASSIGN_OR_RETURN(l.kind, r.Enum<LimitationKind>("kind"));
  ASSIGN_OR_RETURN(l.detail, r.Text("detail", Limits::kLimitationDetailChars));
  if (r.Has("sourceId")) {
    ASSIGN_OR_RETURN(std::string id, r.Id("sourceId"));
    l.source_id = id;
  }
  if (r.Has("checkedAt")) {
    if (l.kind != LimitationKind::kSource || !l.source_id) {
      return r.Error("checkedAt belongs to an automatic Source Limitation");
    }
    ASSIGN_OR_RETURN(int64_t at, r.Int("checkedAt", 0));
    l.checked_at = at;
  }
  return l;
}

absl::StatusOr<SteeringRevision> DecodeSteering(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"revision", "correction", "createdAt"}));
  SteeringRevision v;
  ASSIGN_OR_RETURN(int64_t rev, r.Int("revision", 1));
  v.revision = static_cast<int>(rev);
  ASSIGN_OR_RETURN(v.correction, r.Text("correction", Limits::kCorrectionChars));
  ASSIGN_OR_RETURN(v.created_at, r.Int("createdAt", 0));
  return v;
}

absl::StatusOr<Checkpoint> DecodeCheckpoint(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"checkpointId", "ordinal", "stage", "summary", "artifactSha256",
                          "artifactChars", "steeringRevision", "createdAt"}));
  Checkpoint c;
  ASSIGN_OR_RETURN(c.checkpoint_id, r.Text("checkpointId", 128));
  ASSIGN_OR_RETURN(int64_t ordinal, r.Int("ordinal", 1));
  c.ordinal = static_cast<int>(ordinal);
  ASSIGN_OR_RETURN(c.stage, r.Enum<Stage>("stage"));
  ASSIGN_OR_RETURN(c.summary, r.Text("summary", Limits::kSummaryChars));
  ASSIGN_OR_RETURN(c.artifact_sha256, r.Text("artifactSha256", 71));
  ASSIGN_OR_RETURN(int64_t chars, r.Int("artifactChars", 1));
  if (static_cast<size_t>(chars) > Limits::kArtifactChars) return r.Error("artifactChars too large");
  c.artifact_chars = static_cast<size_t>(chars);
  ASSIGN_OR_RETURN(int64_t steering, r.Int("steeringRevision", 0));
  c.steering_revision = static_cast<int>(steering);
  ASSIGN_OR_RETURN(c.created_at, r.Int("createdAt", 0));
  return c;
}

absl::StatusOr<VerificationReceipt> DecodeReceipt(const Json& j, const std::string& where) {
  ObjectReader r(j, where);
  RETURN_IF_ERROR(r.Keys({"verifiedAt", "mode", "checked", "reachable", "failed", "unavailable",
                          "notRechecked", "artifactSha256"}));
  VerificationReceipt v;
  ASSIGN_OR_RETURN(v.verified_at, r.Int("verifiedAt", 0));
  ASSIGN_OR_RETURN(v.mode, r.Text("mode", 32));
  if (v.mode != "remote" && v.mode != "structural-only") return r.Error("mode is unknown");
  ASSIGN_OR_RETURN(int64_t checked, r.Int("checked", 0));
  ASSIGN_OR_RETURN(int64_t reachable, r.Int("reachable", 0));
  ASSIGN_OR_RETURN(int64_t failed, r.Int("failed", 0));
  ASSIGN_OR_RETURN(int64_t unavailable, r.Int("unavailable", 0));
  if (checked != reachable + failed + unavailable) {
    return r.Error("checked is not reachable + failed + unavailable");
  }
  v.checked = static_cast<int>(checked);
  v.reachable = static_cast<int>(reachable);
  v.failed = static_cast<int>(failed);
  v.unavailable = static_cast<int>(unavailable);
  if (r.Has("notRechecked")) {
    ASSIGN_OR_RETURN(int64_t not_rechecked, r.Int("notRechecked", 1));
    v.not_rechecked = static_cast<int>(not_rechecked);
  }
  ASSIGN_OR_RETURN(v.artifact_sha256, r.Text("artifactSha256", 71));
  return v;
}

bool IsTaggedSha(const std::string& s) {
  if (s.size() != 71 || s.rfind("sha256:", 0) != 0) return false;
  for (size_t i = 7; i < s.size(); ++i) {
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  }
  return true;
}

// The cross-record invariants of a decoded state.
absl::Status CheckInvariants(const TaskState& s, const ObjectReader& r) {
  std::string prefix = s.task_id.substr(0, s.task_id.rfind('-') + 1);
  if (s.task_id.rfind("rvn-", 0) != 0 || s.task_id.size() < 18 ||
      s.task_id != absl::StrCat(prefix, s.ordinal)) {
    return r.Error("taskId does not match rvn-<12 hex>-<ordinal>");
  }
  if (s.steering_revision != static_cast<int>(s.steering.size())) {
    return r.Error("steeringRevision does not count the steering list");
  }
  for (size_t i = 0; i < s.steering.size(); ++i) {
    if (s.steering[i].revision != static_cast<int>(i) + 1) {
      return r.Error("steering revisions are not 1, 2, ...");
    }
  }
  for (size_t i = 0; i < s.checkpoints.size(); ++i) {
    const Checkpoint& c = s.checkpoints[i];
    if (c.ordinal != static_cast<int>(i) + 1 ||
        c.checkpoint_id != MakeCheckpointId(s.task_id, c.ordinal)) {
      return r.Error("checkpoint ids are not <taskId>-cp-1, -2, ...");
    }
    if (!IsTaggedSha(c.artifact_sha256)) return r.Error("checkpoint hash is malformed");
    if (c.steering_revision > s.steering_revision) return r.Error("checkpoint is ahead of steering");
  }
  if (s.latest_artifact.has_value() != !s.checkpoints.empty()) {
    return r.Error("latestArtifact and checkpoints disagree");
  }
  if (s.latest_artifact &&
      Sha256Tagged(*s.latest_artifact) != s.checkpoints.back().artifact_sha256) {
    return r.Error("latestArtifact does not hash to the latest checkpoint");
  }
  std::set<std::string> ids;
  std::map<std::string, const Source*> by_url;  // the latest Source of each URL
  for (const Source& src : s.sources) {
    if (!ids.insert(src.source_id).second) return r.Error("repeats a sourceId");
    // A URL registered again supersedes its earlier Source, which only a
    // failed one can be. (Compared whole: state written while a fragment
    // made another Source of one page still replays.)
    auto [it, added] = by_url.emplace(src.url, &src);
    if (!added) {
      if (it->second->check.status != CheckStatus::kFailed) {
        return r.Error("registers one URL twice");
      }
      it->second = &src;
    }
  }
  std::set<std::string> claim_ids;
  for (const Claim& c : s.claims) {
    if (!claim_ids.insert(c.claim_id).second) return r.Error("repeats a claimId");
    for (const std::string& id : c.source_ids) {
      if (!ids.count(id)) return r.Error(absl::StrCat("claim ", c.claim_id, " names unknown Source"));
    }
    if (c.NeedsSupport() && c.source_ids.empty()) {
      return r.Error(absl::StrCat("claim ", c.claim_id, " is supported without Sources"));
    }
  }
  for (const Claim& c : s.claims) {
    for (const std::string& id : c.contradicts) {
      if (id == c.claim_id || !claim_ids.count(id)) {
        return r.Error(absl::StrCat("claim ", c.claim_id, " has an invalid contradiction link"));
      }
    }
  }
  std::set<std::string> limitation_ids;
  for (const Limitation& l : s.limitations) {
    if (!limitation_ids.insert(l.limitation_id).second) return r.Error("repeats a limitationId");
    if (l.source_id && !ids.count(*l.source_id)) return r.Error("limitation names unknown Source");
  }
  bool completed = s.phase == Phase::kCompleted || s.phase == Phase::kCompletedWithLimits;
  if (completed) {
    if (!s.final_artifact_sha256 || !s.verification || s.checkpoints.empty() ||
        *s.final_artifact_sha256 != s.checkpoints.back().artifact_sha256 ||
        s.checkpoints.back().steering_revision != s.steering_revision) {
      return r.Error("is completed without a final hash, receipt and post-steer Checkpoint");
    }
  } else if (s.final_artifact_sha256) {
    return r.Error("has a final hash but is not completed");
  }
  if (s.verification && !IsTaggedSha(s.verification->artifact_sha256)) {
    return r.Error("receipt hash is malformed");
  }
  if (s.updated_at < s.started_at) return r.Error("updatedAt precedes startedAt");
  return absl::OkStatus();
}

template <typename T, typename F>
absl::Status DecodeList(const ObjectReader& r, const char* key, size_t max, F decode,
                        std::vector<T>& out) {
  ASSIGN_OR_RETURN(const Json* list, r.Array(key, max));
  for (size_t i = 0; i < list->size(); ++i) {
    ASSIGN_OR_RETURN(T v, decode((*list)[i], absl::StrCat(key, "[", i, "]")));
    out.push_back(std::move(v));
  }
  return absl::OkStatus();
}

OrderedJson EncodeCheck(const SourceCheck& c) {
  OrderedJson j;
  j["status"] = Name(c.status);
  if (c.status == CheckStatus::kUnchecked) return j;
  j["checkedAt"] = c.checked_at;
  if (c.status_code) j["statusCode"] = *c.status_code;
  if (c.resolved_url) j["resolvedUrl"] = *c.resolved_url;
  if (c.detail) j["detail"] = *c.detail;
  if (c.outcome) j["outcome"] = Name(*c.outcome);
  if (c.last_verified_at) j["lastVerifiedAt"] = *c.last_verified_at;
  return j;
}

}  // namespace

OrderedJson EncodeState(const TaskState& s) {
  OrderedJson j;
  j["schemaVersion"] = kStateSchemaVersion;
  j["taskId"] = s.task_id;
  j["ordinal"] = s.ordinal;
  j["outcome"] = Name(s.outcome);
  j["request"] = s.request;
  j["grounding"] = Name(s.grounding);
  j["phase"] = Name(s.phase);
  j["revision"] = s.revision;
  j["steeringRevision"] = s.steering_revision;
  j["steering"] = OrderedJson::array();
  for (const SteeringRevision& v : s.steering) {
    j["steering"].push_back(
        {{"revision", v.revision}, {"correction", v.correction}, {"createdAt", v.created_at}});
  }
  j["checkpoints"] = OrderedJson::array();
  for (const Checkpoint& c : s.checkpoints) {
    OrderedJson cj;
    cj["checkpointId"] = c.checkpoint_id;
    cj["ordinal"] = c.ordinal;
    cj["stage"] = Name(c.stage);
    cj["summary"] = c.summary;
    cj["artifactSha256"] = c.artifact_sha256;
    cj["artifactChars"] = c.artifact_chars;
    cj["steeringRevision"] = c.steering_revision;
    cj["createdAt"] = c.created_at;
    j["checkpoints"].push_back(std::move(cj));
  }
  j["sources"] = OrderedJson::array();
  for (const Source& src : s.sources) {
    OrderedJson sj;
    sj["sourceId"] = src.source_id;
    sj["url"] = src.url;
    sj["title"] = src.title;
    sj["locator"] = src.locator;
    sj["excerpt"] = src.excerpt;
    sj["role"] = Name(src.role);
    if (src.family) sj["sourceFamily"] = *src.family;
    if (src.as_of) sj["asOf"] = *src.as_of;
    sj["inspectedAt"] = src.inspected_at;
    sj["check"] = EncodeCheck(src.check);
    j["sources"].push_back(std::move(sj));
  }
  j["claims"] = OrderedJson::array();
  for (const Claim& c : s.claims) {
    OrderedJson cj;
    cj["claimId"] = c.claim_id;
    cj["text"] = c.text;
    cj["kind"] = Name(c.kind);
    cj["importance"] = Name(c.importance);
    cj["disposition"] = Name(c.disposition);
    cj["sourceIds"] = c.source_ids;
    if (!c.contradicts.empty()) cj["contradicts"] = c.contradicts;
    j["claims"].push_back(std::move(cj));
  }
  j["limitations"] = OrderedJson::array();
  for (const Limitation& l : s.limitations) {
    OrderedJson lj;
    lj["limitationId"] = l.limitation_id;
    lj["kind"] = Name(l.kind);
    lj["detail"] = l.detail;
    if (l.source_id) lj["sourceId"] = *l.source_id;
    if (l.checked_at) lj["checkedAt"] = *l.checked_at;
    j["limitations"].push_back(std::move(lj));
  }
  j["latestArtifact"] = s.latest_artifact ? OrderedJson(*s.latest_artifact) : OrderedJson();
  if (s.verification) {
    const VerificationReceipt& v = *s.verification;
    j["verification"] = {{"verifiedAt", v.verified_at}, {"mode", v.mode},
                         {"checked", v.checked},        {"reachable", v.reachable},
                         {"failed", v.failed},          {"unavailable", v.unavailable}};
    // Written only when some Source was not reached, so a receipt of a check
    // that reached them all reads as before the field existed.
    if (v.not_rechecked > 0) j["verification"]["notRechecked"] = v.not_rechecked;
    j["verification"]["artifactSha256"] = v.artifact_sha256;
  } else {
    j["verification"] = nullptr;
  }
  j["finalArtifactSha256"] =
      s.final_artifact_sha256 ? OrderedJson(*s.final_artifact_sha256) : OrderedJson();
  j["startedAt"] = s.started_at;
  j["updatedAt"] = s.updated_at;
  return j;
}

absl::StatusOr<TaskState> DecodeState(const Json& j) {
  ObjectReader r(j, "Raven state");
  RETURN_IF_ERROR(r.Keys({"schemaVersion", "taskId", "ordinal", "outcome", "request", "grounding",
                          "phase", "revision", "steeringRevision", "steering", "checkpoints",
                          "sources", "claims", "limitations", "latestArtifact", "verification",
                          "finalArtifactSha256", "startedAt", "updatedAt"}));
  ASSIGN_OR_RETURN(int64_t version, r.Int("schemaVersion", 0));
  if (version != kStateSchemaVersion) {
    return r.Error(absl::StrCat("has unknown schemaVersion ", version));
  }
  TaskState s;
  ASSIGN_OR_RETURN(s.task_id, r.Id("taskId"));
  ASSIGN_OR_RETURN(int64_t ordinal, r.Int("ordinal", 1));
  s.ordinal = static_cast<int>(ordinal);
  ASSIGN_OR_RETURN(s.outcome, r.Enum<Outcome>("outcome"));
  ASSIGN_OR_RETURN(s.request, r.Text("request", Limits::kRequestChars));
  ASSIGN_OR_RETURN(s.grounding, r.Enum<Grounding>("grounding"));
  if (s.grounding == Grounding::kNone &&
      (s.outcome == Outcome::kResearch || s.outcome == Outcome::kAcademicWriting)) {
    return r.Error("disables the evidence floor of its Outcome");
  }
  ASSIGN_OR_RETURN(s.phase, r.Enum<Phase>("phase"));
  ASSIGN_OR_RETURN(int64_t revision, r.Int("revision", 1));
  s.revision = static_cast<int>(revision);
  ASSIGN_OR_RETURN(int64_t steering, r.Int("steeringRevision", 0));
  s.steering_revision = static_cast<int>(steering);
  RETURN_IF_ERROR(
      DecodeList<SteeringRevision>(r, "steering", Limits::kSteeringRevisions, DecodeSteering, s.steering));
  RETURN_IF_ERROR(
      DecodeList<Checkpoint>(r, "checkpoints", Limits::kCheckpoints, DecodeCheckpoint, s.checkpoints));
  RETURN_IF_ERROR(DecodeList<Source>(r, "sources", Limits::kSources, DecodeSource, s.sources));
  RETURN_IF_ERROR(DecodeList<Claim>(r, "claims", Limits::kClaims, DecodeClaim, s.claims));
  RETURN_IF_ERROR(DecodeList<Limitation>(r, "limitations", Limits::kLimitations, DecodeLimitation,
                                         s.limitations));
  if (r.Has("latestArtifact")) {
    ASSIGN_OR_RETURN(std::string a, r.Text("latestArtifact", Limits::kArtifactChars));
    s.latest_artifact = a;
  }
  if (r.Has("verification")) {
    ASSIGN_OR_RETURN(s.verification, DecodeReceipt(r.At("verification"), "verification"));
  }
  if (r.Has("finalArtifactSha256")) {
    ASSIGN_OR_RETURN(std::string f, r.Text("finalArtifactSha256", 71));
    s.final_artifact_sha256 = f;
  }
  ASSIGN_OR_RETURN(s.started_at, r.Int("startedAt", 0));
  ASSIGN_OR_RETURN(s.updated_at, r.Int("updatedAt", 0));
  RETURN_IF_ERROR(CheckInvariants(s, r));
  return s;
}

const TaskState* TaskBook::Current() const {
  auto it = tasks.find(current_task_id);
  return it == tasks.end() ? nullptr : &it->second;
}

int TaskBook::MaxOrdinal() const {
  int max = 0;
  for (const auto& [id, state] : tasks) max = std::max(max, state.ordinal);
  return max;
}

namespace {

// The name of element `i` of a list: its record id when it has one.
std::string ElementName(const OrderedJson& element, size_t i) {
  if (element.is_object()) {
    for (const char* key : {"sourceId", "claimId", "limitationId", "checkpointId"}) {
      auto it = element.find(key);
      if (it != element.end() && it->is_string()) return it->get<std::string>();
    }
  }
  return absl::StrCat(i);
}

// The first path below `path` where `a` and `b` differ ("" = none).
std::string JsonDifference(const OrderedJson& a, const OrderedJson& b, const std::string& path) {
  if (a == b) return "";
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string at = path.empty() ? key : absl::StrCat(path, ".", key);
      auto other = b.find(key);
      if (other == b.end()) return at;
      std::string below = JsonDifference(value, *other, at);
      if (!below.empty()) return below;
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) return path.empty() ? key : absl::StrCat(path, ".", key);
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      std::string below =
          JsonDifference(a[i], b[i], absl::StrCat(path, "[", ElementName(a[i], i), "]"));
      if (!below.empty()) return below;
    }
  }
  return path.empty() ? "the state" : path;
}

}  // namespace

std::string StateDifference(const TaskState& a, const TaskState& b) {
  return JsonDifference(EncodeState(a), EncodeState(b), "");
}

std::string EncodeRecord(const TaskState& state, const std::string& current_task_id) {
  OrderedJson j;
  j["kind"] = kRecordKind;
  j["version"] = kRecordVersion;
  j["currentTaskId"] = current_task_id;
  j["state"] = EncodeState(state);
  return DumpJson(j);
}

absl::StatusOr<Record> DecodeRecord(std::string_view text) {
  ASSIGN_OR_RETURN(Json j, ParseJson(text));
  ObjectReader r(j, "Raven record");
  RETURN_IF_ERROR(r.Keys({"kind", "version", "currentTaskId", "state"}));
  if (!r.Has("kind") || !r.At("kind").is_string() ||
      r.At("kind").get<std::string>() != kRecordKind) {
    return r.Error("has another kind");
  }
  ASSIGN_OR_RETURN(int64_t version, r.Int("version", 0));
  if (version != kRecordVersion) return r.Error(absl::StrCat("has unknown version ", version));
  Record rec;
  ASSIGN_OR_RETURN(rec.current_task_id, r.Id("currentTaskId"));
  if (!r.Has("state")) return r.Error("lacks state");
  ASSIGN_OR_RETURN(rec.state, DecodeState(r.At("state")));
  return rec;
}

TaskBook ReplayBook(const std::vector<std::string>& records) {
  TaskBook book;
  std::string declared;
  for (const std::string& text : records) {
    absl::StatusOr<Record> rec = DecodeRecord(text);
    if (!rec.ok()) continue;
    auto [it, inserted] = book.tasks.try_emplace(rec->state.task_id, rec->state);
    if (!inserted && rec->state.revision >= it->second.revision) it->second = rec->state;
    declared = rec->current_task_id;
    if (book.tasks.count(declared)) book.current_task_id = declared;
  }
  return book;
}

}  // namespace raw::raven
