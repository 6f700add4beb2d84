#include "daemon/raven/seams.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace raw::raven {

void DeterministicSourceVerifier::Reachable(const std::string& id) {
  Set(id, {id, CheckStatus::kReachable, 0, 200, std::nullopt, std::nullopt,
           CheckOutcome::kVerified});
}
void DeterministicSourceVerifier::Failed(const std::string& id, const std::string& detail) {
  Set(id, {id, CheckStatus::kFailed, 0, 404, std::nullopt, detail, std::nullopt});
}
void DeterministicSourceVerifier::Unavailable(const std::string& id, const std::string& detail) {
  Set(id, {id, CheckStatus::kUnavailable, 0, std::nullopt, std::nullopt, detail, std::nullopt});
}

std::vector<SourceObservation> DeterministicSourceVerifier::Verify(
    const std::vector<Source>& sources, const CancelToken&) {
  ++calls_;
  checked_ += static_cast<int>(sources.size());
  if (verbatim_) return *verbatim_;
  std::vector<SourceObservation> out;
  for (const Source& s : sources) {
    auto it = table_.find(s.source_id);
    SourceObservation o = it != table_.end()
                              ? it->second
                              : SourceObservation{s.source_id, CheckStatus::kUnavailable, 0,
                                                  std::nullopt, std::nullopt,
                                                  "no scripted observation", std::nullopt};
    o.source_id = s.source_id;
    if (o.status != CheckStatus::kUnavailable && !o.resolved_url) o.resolved_url = s.url;
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<SourceObservation> UnavailableSourceVerifier::Verify(
    const std::vector<Source>& sources, const CancelToken&) {
  std::vector<SourceObservation> out;
  for (const Source& s : sources) {
    out.push_back({s.source_id, CheckStatus::kUnavailable, 0, std::nullopt, std::nullopt, reason_,
                   std::nullopt});
  }
  return out;
}

std::vector<SearchAnswer> DeterministicSourceSearcher::Search(
    const std::vector<std::string>& queries, size_t max_results, const CancelToken&) {
  std::vector<SearchAnswer> out;
  for (const std::string& q : queries) {
    SearchAnswer a{q, {}, std::nullopt};
    auto it = table_.find(q);
    if (it == table_.end()) {
      a.error = "no scripted answer";
    } else {
      a.leads.assign(it->second.begin(),
                     it->second.begin() + std::min(max_results, it->second.size()));
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<DraftVariant> DeterministicDraftGenerator::Generate(
    const std::vector<std::string>& routes, const std::string&, const std::string& instruction,
    const CancelToken&) {
  std::vector<DraftVariant> out;
  for (const std::string& r : routes) {
    bool fails = std::find(failing_.begin(), failing_.end(), r) != failing_.end();
    out.push_back(fails ? DraftVariant{r, false, "", "the route returned no prose"}
                        : DraftVariant{r, true, absl::StrCat(r, ": ", instruction), ""});
  }
  return out;
}

}  // namespace raw::raven
