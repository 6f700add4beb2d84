#include "daemon/raven/web/http_source_verifier.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/time.h"
#include "daemon/raven/normalizer.h"
#include "daemon/raven/web/excerpt_match.h"
#include "daemon/raven/web/page_content.h"
#include "daemon/raven/web/page_fetch.h"

namespace raw::raven::web {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

SourceObservation Observed(const Source& s, CheckStatus status, CheckOutcome outcome,
                           std::string detail) {
  SourceObservation o;
  o.source_id = s.source_id;
  o.status = status;
  o.outcome = outcome;
  if (!detail.empty()) o.detail = std::move(detail);
  return o;
}

}  // namespace

SourceObservation HttpSourceVerifier::Judge(const Source& source, const FetchedPage& page,
                                            const ParseBudget& budget) {
  switch (page.result) {
    case FetchResult::kCancelled:
    case FetchResult::kRefused:
    case FetchResult::kTruncated:
      return Observed(source, CheckStatus::kUnavailable, CheckOutcome::kUnchecked, page.detail);
    case FetchResult::kUnreachable:
      return Observed(source, CheckStatus::kUnavailable, CheckOutcome::kUnreachable, page.detail);
    case FetchResult::kCrossHost: {
      SourceObservation o =
          Observed(source, CheckStatus::kFailed, CheckOutcome::kUnreachable, page.detail);
      o.status_code = page.status;
      o.resolved_url = page.url;
      return o;
    }
    case FetchResult::kOk:
      break;
  }
  SourceObservation o;
  absl::StatusOr<PageContent> content = DecodePage(page.content_type, page.body, budget);
  const std::string no_text;
  const std::string& text = content.ok() ? content->text.text : no_text;
  if (page.status >= 400) {
    std::optional<std::string> blocked = BlockReason(page.status, page.body, text);
    o = blocked ? Observed(source, CheckStatus::kUnavailable, CheckOutcome::kBlocked, *blocked)
                : Observed(source, CheckStatus::kFailed, CheckOutcome::kUnreachable,
                           absl::StrCat("the server answered HTTP ", page.status));
  } else if (page.status < 200) {
    o = Observed(source, CheckStatus::kUnavailable, CheckOutcome::kUnreachable,
                 absl::StrCat("unexpected HTTP status ", page.status));
  } else if (!content.ok()) {
    o = Observed(source, CheckStatus::kUnavailable, CheckOutcome::kUnchecked,
                 std::string(content.status().message()));
  } else {
    NormalizedText key = Normalize(text);
    ExcerptMatch match = MatchExcerpt(text, key, source.excerpt);
    if (match.kind == MatchKind::kFound) {
      o = Observed(source, CheckStatus::kReachable, CheckOutcome::kVerified, "");
    } else if (std::optional<std::string> blocked = BlockReason(page.status, page.body, text)) {
      o = Observed(source, CheckStatus::kUnavailable, CheckOutcome::kBlocked, *blocked);
    } else {
      o = Observed(source, CheckStatus::kFailed, CheckOutcome::kAbsent, DescribeMismatch(match));
    }
  }
  if (o.status != CheckStatus::kUnavailable) {
    o.status_code = page.status;
    o.resolved_url = page.url;
  }
  return o;
}

std::vector<SourceObservation> HttpSourceVerifier::Verify(const std::vector<Source>& sources,
                                                          const CancelToken& cancel) {
  const VerifierSettings settings = settings_.Current();
  auto now = [&] { return steady_ms_ ? steady_ms_() : SteadyMs(); };
  const int64_t end = now() + std::max<int64_t>(settings.total_timeout_ms, 1);
  std::vector<SourceObservation> out;
  for (const Source& s : sources) {
    int64_t left = end - now();
    if (cancel.cancelled()) {
      out.push_back(Observed(s, CheckStatus::kUnavailable, CheckOutcome::kUnchecked,
                             "the check was cancelled before this Source was reopened"));
      continue;
    }
    if (left <= 0) {
      out.push_back(Observed(s, CheckStatus::kUnavailable, CheckOutcome::kUnchecked,
                             absl::StrCat("the verification deadline of ",
                                          settings.total_timeout_ms,
                                          " ms ran out before this Source was reopened")));
      out.back().not_reached = true;
      continue;
    }
    const int64_t page_ms = std::min(left, std::max<int64_t>(settings.fetch_timeout_ms, 1));
    FetchedPage page = FetchPage(client_, s.url, settings, page_ms, cancel, refuse_);
    ParseBudget budget;
    budget.max_bytes = ParseMemoryFor(page.body.size());
    const int64_t parse_ms = std::min(std::max<int64_t>(settings.fetch_timeout_ms, 1),
                                      std::max<int64_t>(end - now(), 1));
    budget.deadline_ns = SteadyNowNs() + parse_ms * 1'000'000;
    budget.cancel = &cancel;
    out.push_back(Judge(s, page, budget));
  }
  return out;
}

}  // namespace raw::raven::web
