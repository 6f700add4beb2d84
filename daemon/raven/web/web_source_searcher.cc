#include "daemon/raven/web/web_source_searcher.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/thread_start.h"
#include "daemon/search/web_search_client.h"

namespace raw::raven::web {

std::optional<std::string> SearchUnavailable(const config::RavenSettings& settings,
                                             const http::HttpClient* http) {
  if (settings.search.backend == config::SearchBackendKind::kNone) {
    return "no search backend is configured (set raven.search in the config file)";
  }
  if (http == nullptr) return "no HTTP client is available to this call";
  return std::nullopt;
}

absl::StatusOr<std::string> SearchApiKey(const config::RavenSearchSettings& search,
                                         const VariableResolver& resolve) {
  if (search.backend != config::SearchBackendKind::kBrave) return std::string();
  if (!resolve) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the brave search backend's key variable ", search.api_key_variable,
        " cannot be read here"));
  }
  absl::StatusOr<std::string> key = resolve(search.api_key_variable);
  if (!key.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the brave search backend's key variable ", search.api_key_variable,
                     " could not be read: ", key.status().message()));
  }
  if (key->empty() || key->find_first_of("\r\n") != std::string::npos) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the brave search backend's key variable ", search.api_key_variable,
        " is empty or holds a line break"));
  }
  return key;
}

std::optional<std::string> WebSourceSearcher::Unavailable() const {
  const config::RavenSettings settings = settings_.Current();
  if (!settings.discovery_enabled) {
    return "source discovery is withheld by this deployment (raven.discovery.enabled is false)";
  }
  return SearchUnavailable(settings, http_);
}

std::vector<SearchAnswer> WebSourceSearcher::Search(const std::vector<std::string>& queries,
                                                    size_t max_results,
                                                    const CancelToken& cancel) {
  const config::RavenSettings settings = settings_.Current();
  std::vector<SearchAnswer> answers;
  for (const std::string& q : queries) answers.push_back({q, {}, std::nullopt});
  std::optional<std::string> unavailable = SearchUnavailable(settings, http_);
  if (!settings.discovery_enabled) unavailable = "source discovery is withheld by this deployment";
  absl::StatusOr<std::string> key = SearchApiKey(settings.search, resolve_);
  if (!unavailable && !key.ok()) unavailable = std::string(key.status().message());
  if (unavailable) {
    for (SearchAnswer& a : answers) a.error = *unavailable;
    return answers;
  }
  const search::WebSearchClient client(
      *http_, settings.search, *key, settings.allow_private_addresses || extra_allow_private_);
  const size_t per_query =
      std::min(max_results, static_cast<size_t>(std::max<int64_t>(settings.search.max_results, 1)));
  std::vector<std::thread> threads;
  threads.reserve(answers.size());
  for (SearchAnswer& answer : answers) {
    auto search = [&client, &answer, per_query, &cancel] {
      absl::StatusOr<std::vector<search::SearchResult>> results =
          client.Search(answer.query, per_query, cancel);
      if (!results.ok()) {
        answer.error = std::string(results.status().message());
        return;
      }
      for (search::SearchResult& r : *results) {
        Lead lead;
        lead.url = std::move(r.url);
        lead.title = std::move(r.title);
        lead.snippet = std::move(r.snippet);
        lead.published = std::move(r.date);
        answer.leads.push_back(std::move(lead));
      }
    };
    absl::StatusOr<std::thread> thread =
        StartThread(absl::StrCat("the web search for \"", answer.query, "\""), search);
    if (thread.ok()) {
      threads.push_back(*std::move(thread));
    } else {
      // No thread to be had: this query fails; the others are searched.
      answer.error = std::string(thread.status().message());
    }
  }
  for (std::thread& t : threads) t.join();
  return answers;
}

}  // namespace raw::raven::web
