#include "daemon/raven/web/http_source_verifier.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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

HttpSourceVerifier::PageReading HttpSourceVerifier::Read(const FetchedPage& page,
                                                         const ParseBudget& budget) {
  PageReading reading;
  // Only a complete response of 200 and up has text to judge by (a block
  // page's text is read too, to tell a challenge from a missing excerpt).
  if (page.result != FetchResult::kOk || page.status < 200) return reading;
  reading.content = DecodePage(page.content_type, page.body, budget);
  if (reading.content.ok() && page.status < 400)
    reading.key = Normalize(reading.content->text.text);
  return reading;
}

SourceObservation HttpSourceVerifier::Judge(const Source& source, const FetchedPage& page,
                                            const ParseBudget& budget) {
  return Judge(source, page, Read(page, budget));
}

SourceObservation HttpSourceVerifier::Judge(const Source& source, const FetchedPage& page,
                                            const PageReading& reading) {
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
  const absl::StatusOr<PageContent>& content = reading.content;
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
    ExcerptMatch match = MatchExcerpt(text, reading.key, source.excerpt);
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
  auto now = [this] { return steady_ms_ ? steady_ms_() : SteadyMs(); };
  const int64_t end = now() + std::max<int64_t>(settings.total_timeout_ms, 1);

  // Each distinct page is fetched once, in the order of its first Source,
  // and read once; every Source citing it is judged against that reading.
  // Source URLs are canonical (CanonicalUrl), so they name the same page
  // when they are the same up to a fragment, which is never requested.
  std::vector<std::vector<size_t>> pages;  // Source indexes, per page
  std::map<std::string_view, size_t> page_of;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string_view url = sources[i].url;
    auto [it, added] = page_of.try_emplace(url.substr(0, url.find('#')), pages.size());
    if (added) pages.emplace_back();
    pages[it->second].push_back(i);
  }

  // Shared by the fetching threads: `next` hands out the pages in order;
  // each slot of `out` is written by the one thread that took its page and
  // read after every thread is joined; `parse_mu` lets one page be parsed
  // at a time, so the parse memory stays one page's budget (ParseMemoryFor)
  // however many pages are fetched at once.
  std::vector<SourceObservation> out(sources.size());
  std::atomic<size_t> next{0};
  absl::Mutex parse_mu;

  auto reopen = [&](const std::vector<size_t>& cited_by) {
    const std::string& url = sources[cited_by.front()].url;
    if (cancel.cancelled()) {
      for (size_t i : cited_by) {
        out[i] = Observed(sources[i], CheckStatus::kUnavailable, CheckOutcome::kUnchecked,
                          "the check was cancelled before this Source was reopened");
      }
      return;
    }
    const int64_t left = end - now();
    if (left <= 0) {
      for (size_t i : cited_by) {
        out[i] = Observed(sources[i], CheckStatus::kUnavailable, CheckOutcome::kUnchecked,
                          absl::StrCat("the verification deadline of ", settings.total_timeout_ms,
                                       " ms ran out before this Source was reopened"));
        out[i].not_reached = true;
      }
      return;
    }
    const int64_t page_ms = std::min(left, std::max<int64_t>(settings.fetch_timeout_ms, 1));
    const FetchedPage page = FetchPage(client_, url, settings, page_ms, cancel, refuse_);
    PageReading reading;
    {
      absl::MutexLock lock(&parse_mu);
      ParseBudget budget;
      budget.max_bytes = ParseMemoryFor(page.body.size());
      const int64_t parse_ms = std::min(std::max<int64_t>(settings.fetch_timeout_ms, 1),
                                        std::max<int64_t>(end - now(), 1));
      budget.deadline_ns = SteadyNowNs() + parse_ms * 1'000'000;
      budget.cancel = &cancel;
      reading = Read(page, budget);
    }
    for (size_t i : cited_by) out[i] = Judge(sources[i], page, reading);
  };
  auto work = [&] {
    for (size_t p = next.fetch_add(1); p < pages.size(); p = next.fetch_add(1)) reopen(pages[p]);
  };

  const size_t fetchers = std::min<size_t>(
      pages.size(),
      static_cast<size_t>(std::clamp(settings.max_parallel_fetches, 1, kMaxParallelFetches)));
  {
    // The calling thread is one of the fetchers. When no more threads can
    // be started (a process or thread limit), fewer pages are fetched at
    // once; the check still runs on the calling thread.
    std::vector<std::jthread> helpers;
    for (size_t t = 1; t < fetchers; ++t) {
      try {
        helpers.emplace_back([&work] {
          pthread_setname_np(pthread_self(), "raven-fetch");
          work();
        });
      } catch (const std::system_error&) {
        break;
      }
    }
    work();
  }  // joins every helper
  return out;
}

}  // namespace raw::raven::web
