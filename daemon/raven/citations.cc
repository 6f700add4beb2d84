#include "daemon/raven/citations.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "daemon/raven/artifact_scan.h"

namespace raw::raven {
namespace {

bool Contested(const TaskState& s, const Claim& c, std::vector<std::string>& with) {
  for (const std::string& id : c.contradicts) with.push_back(id);
  for (const Claim& o : s.claims) {
    if (std::find(o.contradicts.begin(), o.contradicts.end(), c.claim_id) != o.contradicts.end() &&
        std::find(with.begin(), with.end(), o.claim_id) == with.end()) {
      with.push_back(o.claim_id);
    }
  }
  return !with.empty();
}

std::string SourceLink(const Source& s) {
  if (s.check.status == CheckStatus::kReachable) {
    return absl::StrCat("[", EscapeInline(s.title), "](", EscapeUrl(s.url), ")");
  }
  return absl::StrCat("[", EscapeInline(s.title), " — ", Name(s.check.status), "]");
}

// A Source's URL as a link to it canonicalizes: a record written before
// dot segments were resolved keeps them (domain.h IsStoredCanonicalUrl).
std::string StoredUrlForm(const Source& s) {
  std::string canonical;
  return CanonicalUrl(s.url, canonical).ok() ? canonical : s.url;
}

// The canonical forms of a linked URL (`other` is set for a scheme-relative
// or a "www." URL, which a GFM renderer links as "http://www.…": it is
// registered when it is in either scheme). False when it is not a valid URL.
bool ResolveLinkedUrl(const std::string& url, std::string& canonical, std::string& other) {
  if (url.starts_with("//") || absl::AsciiStrToLower(url.substr(0, 4)) == "www.") {
    const char* separator = url.starts_with("//") ? ":" : "://";
    return CanonicalUrl(absl::StrCat("https", separator, url), canonical).ok() &&
           CanonicalUrl(absl::StrCat("http", separator, url), other).ok();
  }
  return CanonicalUrl(url, canonical).ok();
}

}  // namespace

std::vector<std::string> LinkedSourceIds(std::string_view artifact,
                                         const std::vector<Source>& sources) {
  std::vector<std::string> ids;
  for (const std::string& url : LinkedUrls(artifact)) {
    std::string canonical, other;
    if (!ResolveLinkedUrl(url, canonical, other)) continue;
    for (const Source& s : sources) {
      const std::string stored = StoredUrlForm(s);
      if ((stored == canonical || (!other.empty() && stored == other)) &&
          std::find(ids.begin(), ids.end(), s.source_id) == ids.end()) {
        ids.push_back(s.source_id);
      }
    }
  }
  return ids;
}

std::vector<std::string> CitedIds(std::string_view artifact) {
  std::vector<std::string> ids;
  for (const Part& p : SplitArtifact(artifact)) {
    if (p.code || p.hidden) continue;
    for (const Token& t : Tokens(p.text)) {
      if (std::find(ids.begin(), ids.end(), t.id) == ids.end()) ids.push_back(t.id);
    }
  }
  return ids;
}

std::vector<Issue> ValidateCitations(std::string_view artifact, const std::vector<Source>& sources,
                                     const std::vector<Claim>& claims, const std::string& field) {
  std::vector<Issue> issues;
  std::set<std::string> ids, urls;
  for (const Source& s : sources) {
    ids.insert(s.source_id);
    urls.insert(StoredUrlForm(s));
  }
  std::vector<std::string> cited = CitedIds(artifact);
  for (const std::string& id : cited) {
    if (!ids.count(id)) {
      issues.push_back({field, absl::StrCat("cites unknown Source [@", id,
                                            "]; register it in `sources` first")});
    }
  }
  for (const std::string& url : LinkedUrls(artifact)) {
    std::string canonical, other;
    if (!ResolveLinkedUrl(url, canonical, other)) {
      issues.push_back({field, absl::StrCat("contains invalid external URL ", url)});
    } else if (!urls.count(canonical) && !urls.count(other)) {
      issues.push_back({field, absl::StrCat("contains unregistered external URL ", url,
                                            "; register it as a Source and cite it as [@id]")});
    }
  }
  for (const Claim& c : claims) {
    if (!c.NeedsSupport() || c.importance != Importance::kMaterial) continue;
    bool any = std::any_of(c.source_ids.begin(), c.source_ids.end(), [&](const std::string& id) {
      return std::find(cited.begin(), cited.end(), id) != cited.end();
    });
    if (!any) {
      issues.push_back({field, absl::StrCat("does not cite any Source of material ",
                                            Name(c.disposition), " Claim ", c.claim_id,
                                            " (cite one of: ", absl::StrJoin(c.source_ids, ", "),
                                            ")")});
    }
  }
  return issues;
}

std::string EscapeInline(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\\': case '`': case '*': case '_': case '{': case '}': case '[': case ']':
      case '(': case ')': case '#': case '+': case '-': case '.': case '!': case '|':
      case '~': case ':':
        out.push_back('\\');
        out.push_back(c);
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string EscapeUrl(std::string_view url) {
  std::string out;
  for (char c : url) {
    switch (c) {
      case '(': out += "%28"; break;
      case ')': out += "%29"; break;
      case '<': out += "%3C"; break;
      case '>': out += "%3E"; break;
      case ' ': out += "%20"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string RenderArtifact(const TaskState& state, std::string_view artifact) {
  std::string body;
  for (const Part& p : SplitArtifact(artifact)) {
    if (p.code || p.hidden) {
      body.append(p.text);
      continue;
    }
    size_t at = 0;
    for (const Token& t : Tokens(p.text)) {
      body.append(p.text.substr(at, t.begin - at));
      const Source* s = state.FindSource(t.id);
      body += s ? SourceLink(*s) : std::string(p.text.substr(t.begin, t.end - t.begin));
      at = t.end;
    }
    body.append(p.text.substr(at));
  }
  std::vector<std::string> sources;
  for (const std::string& id : CitedIds(artifact)) {
    const Source* s = state.FindSource(id);
    if (s == nullptr) continue;
    sources.push_back(absl::StrCat("- `", id, "` ", SourceLink(*s), " — ", EscapeInline(s->locator)));
  }
  std::vector<std::string> trace;
  for (const Claim& c : state.claims) {
    if (c.importance != Importance::kMaterial ||
        (c.disposition != Disposition::kSupported && c.disposition != Disposition::kQualified)) {
      continue;
    }
    std::vector<std::string> links;
    std::set<std::string> families;
    bool undeclared = false;
    for (const std::string& id : c.source_ids) {
      const Source* s = state.FindSource(id);
      if (s == nullptr) continue;
      links.push_back(absl::StrCat("`", id, "` ", SourceLink(*s)));
      if (s->family) {
        families.insert(*s->family);
      } else {
        undeclared = true;
      }
    }
    std::string line = absl::StrCat("- `", c.claim_id, "` (", Name(c.kind), ", ",
                                     Name(c.disposition), "): ", EscapeInline(c.text));
    if (!links.empty()) absl::StrAppend(&line, " — ", absl::StrJoin(links, "; "));
    if (c.source_ids.size() >= 2 && undeclared) {
      absl::StrAppend(&line, " — independence unverified (undeclared Source family)");
    } else if (c.source_ids.size() >= 2 && families.size() == 1) {
      absl::StrAppend(&line, " — single Source family \"", EscapeInline(*families.begin()),
                      "\": not independent corroboration");
    }
    std::vector<std::string> with;
    if (Contested(state, c, with)) {
      absl::StrAppend(&line, " — contested with ", absl::StrJoin(with, ", ", [](std::string* o, const std::string& id) {
                        absl::StrAppend(o, "`", id, "`");
                      }));
    }
    trace.push_back(std::move(line));
  }
  std::string out = body;
  if (!sources.empty()) absl::StrAppend(&out, "\n\n## Sources\n\n", absl::StrJoin(sources, "\n"));
  if (!trace.empty()) absl::StrAppend(&out, "\n\n## Claim trace\n\n", absl::StrJoin(trace, "\n"));
  return out;
}

}  // namespace raw::raven
