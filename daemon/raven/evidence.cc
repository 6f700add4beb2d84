#include "daemon/raven/evidence.h"

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/utf8.h"
#include "daemon/raven/citations.h"

namespace raw::raven {

using absl::StrCat;

bool Completed(Phase p) { return p == Phase::kCompleted || p == Phase::kCompletedWithLimits; }

namespace {

std::string BoundedDetail(std::string detail) {
  detail = TrimText(detail);
  if (CodePoints(detail) > Limits::kLimitationDetailChars) {
    detail = TrimText(PrefixCodePoints(detail, Limits::kLimitationDetailChars));
  }
  return detail;
}

bool Failing(CheckStatus status) {
  return status == CheckStatus::kFailed || status == CheckStatus::kUnavailable;
}

// The automatic Limitation's text for a failed or unavailable Source.
std::string SourceLimitationDetail(const Source& src) {
  // "failed" accuses the evidence; "could not be checked" does not.
  std::string outcome = src.check.outcome ? std::string(Name(*src.check.outcome)) : "";
  std::string what =
      src.check.status == CheckStatus::kFailed
          ? StrCat(" failed verification", outcome.empty() ? "" : StrCat(" (", outcome, ")"))
          : StrCat(" could not be checked (unavailable",
                   outcome.empty() ? "" : StrCat(", ", outcome), ")");
  return StrCat("Source ", src.source_id, what, ": ",
                src.check.detail.value_or(std::string(Name(src.check.status))));
}

// A Source Limitation of a record written before automatic ones carried
// their check, told by the text Propagate wrote.
bool LegacyAutomatic(const Limitation& l) {
  if (l.checked_at || !l.source_id || l.kind != LimitationKind::kSource) return false;
  const std::string head = StrCat("Source ", *l.source_id);
  return l.detail.starts_with(StrCat(head, " failed verification")) ||
         l.detail.starts_with(StrCat(head, " could not be checked (unavailable"));
}

}  // namespace

void AddLimitation(TaskState& s, LimitationKind kind, std::string detail,
                   std::optional<std::string> source_id, std::optional<int64_t> checked_at) {
  detail = BoundedDetail(std::move(detail));
  int highest = 0;
  const std::string prefix = StrCat(Name(kind), "-");
  for (const Limitation& l : s.limitations) {
    if (l.kind == kind && l.detail == detail && l.source_id == source_id &&
        l.checked_at.has_value() == checked_at.has_value()) {
      return;
    }
    int n = 0;
    if (l.limitation_id.starts_with(prefix) &&
        absl::SimpleAtoi(absl::string_view(l.limitation_id).substr(prefix.size()), &n)) {
      highest = std::max(highest, n);
    }
  }
  if (s.limitations.size() >= Limits::kLimitations) return;
  s.limitations.push_back(
      {StrCat(prefix, highest + 1), kind, std::move(detail), std::move(source_id), checked_at});
}

namespace {

// Why one observation of `source` cannot be believed; "" when it can.
std::string ObservationFault(const SourceObservation& o, const Source& source) {
  const std::string& id = o.source_id;
  std::string canonical;
  if (o.status == CheckStatus::kUnchecked) return StrCat("no status for ", id);
  if (o.not_reached && o.status != CheckStatus::kUnavailable) {
    return StrCat("not reached but ", Name(o.status), " for ", id);
  }
  if (o.status_code && (*o.status_code < 100 || *o.status_code > 599)) {
    return StrCat("HTTP status out of range for ", id);
  }
  if (o.status != CheckStatus::kUnavailable && (!o.status_code || !o.resolved_url)) {
    return StrCat("no HTTP status or resolved URL for ", id);
  }
  if (o.resolved_url && !CanonicalUrl(*o.resolved_url, canonical).ok()) {
    return StrCat("resolved URL of ", id, " is not an http(s) URL of at most ", Limits::kUrlChars,
                  " characters");
  }
  if (o.status != CheckStatus::kReachable && (!o.detail || TrimText(*o.detail).empty())) {
    return StrCat("no detail for ", id);
  }
  if (o.outcome && (!OutcomeFits(*o.outcome, o.status) || *o.outcome == CheckOutcome::kDrifted)) {
    return StrCat("outcome ", Name(*o.outcome), " with status ", Name(o.status), " for ", id);
  }
  if (o.status == CheckStatus::kReachable && *o.status_code >= 400) {
    return StrCat("reachable ", id, " with HTTP status ", *o.status_code);
  }
  if (o.status == CheckStatus::kReachable &&
      UrlIdentity(*o.resolved_url) != UrlIdentity(source.url)) {
    return StrCat("reachable ", id, " resolved on another host or port (",
                  UrlIdentity(*o.resolved_url), ", not ", UrlIdentity(source.url), ")");
  }
  return "";
}

// A check's detail, from text a verifier returns: servers' bytes reach it
// (a Content-Type, a Location, a page's words), so it is made valid UTF-8
// and cut on a character boundary; otherwise the state would encode to
// JSON that decodes to something else, and could not be recorded.
std::optional<std::string> CheckDetail(std::string_view detail) {
  std::string text = TrimText(SanitizeUtf8(detail));
  text = TrimText(PrefixCodePoints(text, Limits::kLimitationDetailChars));
  if (text.empty()) return std::nullopt;
  return text;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Verify(TaskState& s,
                                                        const std::vector<std::string>& ids,
                                                        const EngineContext& ctx,
                                                        VerificationReceipt* receipt,
                                                        std::vector<std::string>* not_rechecked) {
  std::vector<Source> asked;
  for (const std::string& id : ids) {
    if (const Source* src = s.FindSource(id)) asked.push_back(*src);
  }
  std::vector<SourceObservation> reply;
  if (!asked.empty()) reply = ctx.verifier.Verify(asked, ctx.cancel);
  // A resolved URL is the server's too (a same-host redirect's Location):
  // made valid UTF-8 before it is judged and stored. A detail is made valid
  // where it is stored (CheckDetail).
  for (SourceObservation& o : reply) {
    if (o.resolved_url) o.resolved_url = SanitizeUtf8(*o.resolved_url);
  }
  // Validate the protocol before believing anything. A reply that cannot be
  // matched to the request (an unrequested, repeated or missing id), or with
  // any malformed observation (ObservationFault), is not believed at all:
  // every requested Source is unavailable, since a verifier that breaks the
  // protocol for one Source may be wrong about the others too.
  std::string violation;
  std::map<std::string, const SourceObservation*> by_id;
  for (const SourceObservation& o : reply) {
    if (s.FindSource(o.source_id) == nullptr ||
        std::find(ids.begin(), ids.end(), o.source_id) == ids.end()) {
      violation = StrCat("unrequested Source ", o.source_id);
    } else if (!by_id.emplace(o.source_id, &o).second) {
      violation = StrCat("two observations of ", o.source_id);
    }
  }
  if (violation.empty() && by_id.size() != asked.size()) violation = "a requested Source is missing";
  for (auto it = by_id.begin(); violation.empty() && it != by_id.end(); ++it) {
    violation = ObservationFault(*it->second, *s.FindSource(it->first));
  }
  std::vector<std::pair<std::string, std::string>> bad;
  int reachable = 0, failed = 0, unavailable = 0, unreached = 0;
  for (Source& src : s.sources) {
    if (std::find(ids.begin(), ids.end(), src.source_id) == ids.end()) continue;
    if (violation.empty() && by_id.at(src.source_id)->not_reached) {
      // Nothing was observed: the previous check stands.
      ++unreached;
      if (not_rechecked != nullptr) not_rechecked->push_back(src.source_id);
      if (src.check.status != CheckStatus::kReachable) {
        bad.push_back(
            {src.source_id, StrCat("not re-checked: ",
                                   CheckDetail(by_id.at(src.source_id)->detail.value_or(""))
                                       .value_or("the check did not reach it"),
                                   "; its last check stands (", Name(src.check.status), ")")});
      }
      continue;
    }
    SourceCheck c;
    // The last time the excerpt was found; a check before the field existed
    // tells it by its own reachable status.
    std::optional<int64_t> found_at = src.check.last_verified_at;
    if (!found_at && src.check.status == CheckStatus::kReachable) found_at = src.check.checked_at;
    // A wall clock stepped back since then: the check is dated no earlier
    // than the verification it carries over (the codec refuses a
    // lastVerifiedAt after checkedAt).
    c.checked_at = found_at ? std::max(ctx.now_ms, *found_at) : ctx.now_ms;
    if (!violation.empty()) {
      c.status = CheckStatus::kUnavailable;
      c.detail = StrCat("source verifier protocol error: ", violation);
    } else {
      const SourceObservation& o = *by_id.at(src.source_id);
      c.status = o.status;
      c.status_code = o.status_code;
      if (o.resolved_url) {  // valid (ObservationFault), stored canonical
        std::string canonical;
        CanonicalUrl(*o.resolved_url, canonical).IgnoreError();
        c.resolved_url = std::move(canonical);
      }
      c.detail = o.detail;
      c.outcome = o.outcome;
      // Found before (at any earlier check), gone now: the page changed
      // under the citation.
      if (o.outcome == CheckOutcome::kAbsent && found_at) {
        c.outcome = CheckOutcome::kDrifted;
        c.detail = StrCat("the excerpt was on the page when checked at ", IsoTime(*found_at),
                          " and is not any more: ", c.detail.value_or(""));
      }
    }
    if (c.detail) c.detail = CheckDetail(*c.detail);
    c.last_verified_at =
        c.status == CheckStatus::kReachable ? std::optional(c.checked_at) : found_at;
    src.check = c;
    if (c.status == CheckStatus::kReachable) {
      ++reachable;
    } else {
      (c.status == CheckStatus::kFailed ? failed : unavailable)++;
      bad.push_back({src.source_id, c.outcome ? StrCat(Name(*c.outcome), ": ", c.detail.value_or(""))
                                            : c.detail.value_or("")});
    }
  }
  if (receipt != nullptr) {
    receipt->verified_at = ctx.now_ms;
    receipt->checked = reachable + failed + unavailable;
    receipt->reachable = reachable;
    receipt->failed = failed;
    receipt->unavailable = unavailable;
    receipt->not_rechecked = unreached;
    receipt->mode = receipt->checked > 0 && (reachable + failed) > 0 ? "remote" : "structural-only";
  }
  return bad;
}

std::string NotRecheckedNote(const std::vector<std::string>& ids) {
  if (ids.empty()) return "";
  return StrCat(" Not re-checked this time (the time for the check ran out before ",
                ids.size() == 1 ? "it was" : "they were",
                " reopened; the last check of each stands): ", absl::StrJoin(ids, ", "), ".");
}

void Propagate(TaskState& s) {
  for (Claim& c : s.claims) {
    if (!c.NeedsSupport()) continue;
    bool usable = std::any_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
      const Source* src = s.FindSource(id);
      return src && src->check.status == CheckStatus::kReachable;
    });
    if (!usable) c.disposition = Disposition::kDeferred;
  }
  // A Task no automatic Limitation of which carries its check was recorded
  // before they did: its automatic ones are adopted (else they would stay
  // stale, and be repeated beside the new ones).
  if (std::none_of(s.limitations.begin(), s.limitations.end(),
                   [](const Limitation& l) { return l.checked_at.has_value(); })) {
    for (Limitation& l : s.limitations) {
      if (!LegacyAutomatic(l)) continue;
      const Source* src = s.FindSource(*l.source_id);
      l.checked_at = src != nullptr ? src->check.checked_at : 0;
    }
  }
  // An automatic Source Limitation reports its Source's current check: one
  // whose Source is reachable again (or no longer failing) goes.
  std::erase_if(s.limitations, [&](const Limitation& l) {
    if (!l.checked_at || !l.source_id) return false;
    const Source* src = s.FindSource(*l.source_id);
    return src == nullptr || !Failing(src->check.status);
  });
  for (const Source& src : s.sources) {
    if (!Failing(src.check.status)) continue;
    auto automatic = std::find_if(
        s.limitations.begin(), s.limitations.end(),
        [&](const Limitation& l) { return l.checked_at && l.source_id == src.source_id; });
    if (automatic == s.limitations.end()) {
      AddLimitation(s, LimitationKind::kSource, SourceLimitationDetail(src), src.source_id,
                    src.check.checked_at);
    } else if (*automatic->checked_at != src.check.checked_at) {
      automatic->detail = BoundedDetail(SourceLimitationDetail(src));
      automatic->checked_at = src.check.checked_at;
    }
  }
}

std::vector<std::string> RelevantSources(const TaskState& s, std::string_view artifact) {
  std::vector<std::string> ids = CitedIds(artifact);
  // A Source the Artifact links by its URL is shown as support as much as a
  // cited one. A link to the URL of a superseded Source opens the page its
  // successor now stands for: that one is reopened.
  for (std::string id : LinkedSourceIds(artifact, s.sources)) {
    for (size_t hops = 0; hops < s.sources.size(); ++hops) {
      const Source* successor = Successor(s.sources, *s.FindSource(id));
      if (successor == nullptr) break;
      id = successor->source_id;
    }
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  for (const Claim& c : s.claims) {
    if (!c.NeedsSupport()) continue;
    for (const std::string& id : c.source_ids) {
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  }
  // A superseded Source stays failed: reopening it could not support
  // anything its successor does not.
  std::erase_if(ids, [&](const std::string& id) {
    const Source* src = s.FindSource(id);
    return src == nullptr || Successor(s.sources, *src) != nullptr;
  });
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

}  // namespace raw::raven
