// HttpSourceVerifier: the production SourceVerifier. For each Source it
// reopens the URL (page_fetch.h), decodes the body to text (page_content.h)
// and looks for the recorded excerpt (excerpt_match.h), and reports one
// observation per Source with a typed outcome (domain.h CheckOutcome):
//   verified    reachable  the excerpt is on the live page;
//   absent      failed     the page was read and the excerpt is not on it
//                          (the detail says whether it diverges partway,
//                          with the longest matching prefix and the nearest
//                          passage, or is absent entirely);
//   blocked     unavailable a challenge, login, cookie or paywall page, or
//                          HTTP 401/402/403/407/429/451;
//   unreachable failed     HTTP 4xx/5xx, or a cross-host redirect;
//               unavailable no response (connection failure, deadline);
//   unchecked   unavailable a truncated body, an unsupported type (PDF), a
//                          refused (non-public) address, a redirect from
//                          https to http (not followed), a URL the agent's
//                          rules deny (never requested), a page whose parse
//                          ran past its budget (Judge), the total deadline
//                          spent before this Source (then not_reached: the
//                          engine keeps the Source's previous check), or a
//                          cancellation.
// The engine turns absent into drifted when the Source was verified before.
// Settings are read from the source at every Verify call.
//
// Each distinct URL is fetched once, and every Source citing it is judged
// against that page. Up to settings.max_parallel_fetches URLs are fetched at
// once, on threads Verify starts and joins before it returns (the calling
// thread is one of them), taken in the order of their first Source, under
// settings.total_timeout_ms for the whole check and fetch_timeout_ms for each
// fetch. A URL whose fetch has not started when the total time runs out
// leaves its Sources not_reached; once `cancel` is cancelled no fetch
// starts, and the ones under way end as cancelled. Observations come back in
// the order of `sources`. Pages are parsed one at a time, so the parse memory
// is one page's budget (ParseMemoryFor) however many are fetched at once; the
// bodies held are at most max_parallel_fetches x max_bytes.
//
// Thread-safety: Verify may run on several threads at once if the client
// may, and it calls the client, `refuse` and `steady_ms` from several
// threads at once, so they must be thread-safe (http::CurlHttpClient is: each
// Send has its own easy and multi handles, and the handles it shares are
// locked or taken one Send at a time; see curl_http_client.h).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "daemon/http/http_client.h"
#include "daemon/raven/normalizer.h"
#include "daemon/raven/seams.h"
#include "daemon/raven/web/html_document.h"
#include "daemon/raven/web/page_content.h"
#include "daemon/raven/web/page_fetch.h"
#include "daemon/raven/web/verifier_settings.h"

namespace raw::raven::web {

class HttpSourceVerifier : public SourceVerifier {
 public:
  // `refuse`: URLs the agent's rules deny, never requested (the Source is
  // unavailable, unchecked, with the rule in the detail); null = none.
  // `steady_ms`: the clock the total deadline is counted on, in
  // milliseconds (tests step it); null = the steady clock. Both are called
  // from the fetching threads.
  HttpSourceVerifier(http::HttpClient& client, const VerifierSettingsSource& settings,
                     UrlRefusal refuse = nullptr, std::function<int64_t()> steady_ms = nullptr)
      : client_(client),
        settings_(settings),
        refuse_(std::move(refuse)),
        steady_ms_(std::move(steady_ms)) {}

  std::vector<SourceObservation> Verify(const std::vector<Source>& sources,
                                        const CancelToken& cancel) override;

  // The observation for one Source, given its fetched page, whose parse
  // (when gumbo parses it) stays within `budget`: past it the Source is
  // unavailable (unchecked), never a failed match. Verify gives each page
  // ParseMemoryFor its size, and its time (fetch_timeout_ms) from the start
  // of the parse, within the check's total time.
  static SourceObservation Judge(const Source& source, const FetchedPage& page,
                                 const ParseBudget& budget = {});

 private:
  // A page's text, decoded once within its budget, and the text's
  // normalized form, for every Source that cites the page.
  struct PageReading {
    absl::StatusOr<PageContent> content = absl::FailedPreconditionError("not read");
    NormalizedText key;
  };
  static PageReading Read(const FetchedPage& page, const ParseBudget& budget);
  static SourceObservation Judge(const Source& source, const FetchedPage& page,
                                 const PageReading& reading);

  http::HttpClient& client_;
  const VerifierSettingsSource& settings_;
  UrlRefusal refuse_;
  std::function<int64_t()> steady_ms_;
};

}  // namespace raw::raven::web
