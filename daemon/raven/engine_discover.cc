// discover: one batch of search queries merged into Leads (never Task state).

#include "daemon/raven/engine_internal.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/raven/citations.h"

namespace raw::raven {

using absl::StrCat;

namespace {

// `text` cut to at most `limit` code points, marked with "…" when cut: a
// backend's title or snippet is context, never worth unbounded output.
std::string Bounded(const std::string& text, size_t limit) {
  if (CodePoints(text) <= limit) return text;
  size_t end = 0;
  for (size_t seen = 0; end < text.size() && seen < limit; ++seen) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  }
  return StrCat(text.substr(0, end), "…");
}

}  // namespace

absl::StatusOr<ActionResult> Engine::Discover(const Fields& f) {
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
      lead.title = Bounded(lead.title, Limits::kLeadTitleChars);
      lead.snippet = Bounded(lead.snippet, Limits::kLeadSnippetChars);
      lead.published = Bounded(lead.published, Limits::kSourceAsOfChars);
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
    if (!l.published.empty()) absl::StrAppend(&text, "\n  published: ", EscapeInline(l.published));
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

}  // namespace raw::raven
