// builtin/web_search: one query against the deployment's web search backend
// (raven.search: SearXNG's JSON API or the Brave Search API, through
// daemon/search — the same client Raven's discover action uses), returning
// title, URL, snippet and date of each result.
//
// Bounded: at most max_results results (1..20, default raven.search.
// max_results), the query at most 1000 bytes, each title and snippet shown
// up to 1000 bytes, the request ended by
// raven.search.timeout_seconds. Like web_fetch, it connects only to public
// addresses unless raven.network.allow_private_addresses (or the agent's
// allow_private_addresses) is true. Errors quote the backend's own words
// and never the API key.
//
// Without a configured backend the turn planner does not offer the tool
// (daemon/loop/turn_planner.cc); a call that reaches it anyway answers "no
// search backend is configured".
#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/utf8.h"
#include "daemon/config/raven_settings.h"
#include "daemon/raven/web/web_source_searcher.h"
#include "daemon/search/web_search_client.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/builtin/tool_args.h"

namespace raw::tools::builtin {
namespace {

constexpr int64_t kMaxResults = 20;
constexpr size_t kMaxQueryBytes = 1000;
// Longest title or snippet shown (a backend's answer is context, and one
// verbose result must not crowd out the others).
constexpr size_t kMaxFieldBytes = 1000;

std::string Bounded(const std::string& text) {
  if (text.size() <= kMaxFieldBytes) return text;
  return absl::StrCat(text.substr(0, Utf8Floor(text, kMaxFieldBytes)), "…");
}

ToolOutput WebSearch(const Json& args, const ToolContext& ctx) {
  if (absl::Status s = CheckArgumentObject(args, {"query", "max_results"}); !s.ok()) {
    return ToolOutput::Error(std::string(s.message()));
  }
  absl::StatusOr<std::string> query = RequiredString(args, "query");
  if (!query.ok()) return ToolOutput::Error(std::string(query.status().message()));
  if (query->find_first_not_of(" \t\r\n") == std::string::npos) {
    return ToolOutput::Error("query must not be empty");
  }
  if (query->size() > kMaxQueryBytes) {
    return ToolOutput::Error(
        absl::StrCat("query is longer than ", kMaxQueryBytes, " bytes; search with fewer words"));
  }
  absl::StatusOr<std::optional<int64_t>> max_arg = OptionalInteger(args, "max_results", 1);
  if (!max_arg.ok()) return ToolOutput::Error(std::string(max_arg.status().message()));
  if (max_arg->value_or(1) > kMaxResults) {
    return ToolOutput::Error(absl::StrCat("max_results must be at most ", kMaxResults));
  }

  const config::RavenSettings settings =
      ctx.raven_settings != nullptr ? ctx.raven_settings->Current() : config::RavenSettings();
  if (std::optional<std::string> why = raven::web::SearchUnavailable(settings, ctx.http)) {
    return ToolOutput::Error(absl::StrCat("web_search is not available: ", *why));
  }
  absl::StatusOr<std::string> key = raven::web::SearchApiKey(settings.search, ctx.resolve_variable);
  if (!key.ok()) return ToolOutput::Error(std::string(key.status().message()));
  const search::WebSearchClient client(
      *ctx.http, settings.search, *key,
      settings.allow_private_addresses || ctx.settings.web_fetch.allow_private_addresses);
  const size_t max_results =
      static_cast<size_t>(max_arg->value_or(std::clamp<int64_t>(settings.search.max_results, 1,
                                                                 kMaxResults)));
  absl::StatusOr<std::vector<search::SearchResult>> results =
      client.Search(*query, max_results, ctx.cancel);
  if (absl::IsCancelled(results.status())) return ToolOutput::Cancelled("web_search was cancelled");
  if (!results.ok()) return ToolOutput::Error(std::string(results.status().message()));

  std::string out = absl::StrCat(results->size(), " result(s) for \"", *query, "\" (",
                                 search::BackendName(settings.search.backend), ")");
  if (results->empty()) absl::StrAppend(&out, "\n\n(no results)");
  for (size_t i = 0; i < results->size(); ++i) {
    const search::SearchResult& r = (*results)[i];
    absl::StrAppend(&out, "\n\n", i + 1, ". ", Bounded(r.title.empty() ? r.url : r.title),
                    "\n   ", r.url);
    if (!r.date.empty()) absl::StrAppend(&out, "\n   date: ", Bounded(r.date));
    if (!r.snippet.empty()) absl::StrAppend(&out, "\n   ", Bounded(r.snippet));
  }
  return ToolOutput::Ok(std::move(out));
}

}  // namespace

ToolSpec MakeWebSearchTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/web_search";
  spec.model_name = "web_search";
  spec.description =
      "Search the web with the configured search engine and return the results, each with its "
      "title, URL, date (when the engine gives one) and a snippet. Results are leads to read "
      "with web_fetch, not evidence: a snippet may be stale or out of context.";
  spec.input_schema = OrderedJson{
      {"type", "object"},
      {"properties",
       {{"query",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", kMaxQueryBytes},
          {"description", "What to search for, as you would type it into a search engine."}}},
        {"max_results",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", kMaxResults},
          {"description", "Most results to return (1-20). Default: the configured number."}}}}},
      {"required", {"query"}},
      {"additionalProperties", false}};
  // The query leaves the machine, as a fetched URL does: it asks unless the
  // rules allow it.
  spec.read_only = false;
  spec.handler = WebSearch;
  return spec;
}

}  // namespace raw::tools::builtin
