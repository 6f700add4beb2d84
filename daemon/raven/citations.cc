#include "daemon/raven/citations.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace raw::raven {
namespace {

// The parts of an Artifact outside code: each with a flag saying whether it
// is code (kept verbatim) or prose (scanned and rendered).
struct Part {
  std::string_view text;
  bool code = false;
};

std::vector<Part> SplitCode(std::string_view text) {
  std::vector<Part> parts;
  std::string fence;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, end - pos);
    std::string_view trimmed = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    bool fence_line = trimmed.substr(0, 3) == "```" || trimmed.substr(0, 3) == "~~~";
    if (!fence.empty()) {
      parts.push_back({line, true});
      if (trimmed.substr(0, fence.size()) == fence) fence.clear();
    } else if (fence_line) {
      size_t run = 0;
      while (run < trimmed.size() && trimmed[run] == trimmed[0]) ++run;
      fence = std::string(trimmed.substr(0, run));
      parts.push_back({line, true});
    } else {
      // Inline code spans: a backtick run closed by a run of equal length.
      size_t i = 0, prose = 0;
      while (i < line.size()) {
        if (line[i] != '`') {
          ++i;
          continue;
        }
        size_t run = 0;
        while (i + run < line.size() && line[i + run] == '`') ++run;
        std::string ticks(run, '`');
        size_t close = line.find(ticks, i + run);
        while (close != std::string_view::npos && close + run < line.size() &&
               line[close + run] == '`') {
          close = line.find(ticks, close + run + 1);
        }
        if (close == std::string_view::npos) {
          i += run;
          continue;
        }
        parts.push_back({line.substr(prose, i - prose), false});
        parts.push_back({line.substr(i, close + run - i), true});
        i = prose = close + run;
      }
      parts.push_back({line.substr(prose), false});
    }
    pos = end;
  }
  return parts;
}

struct Token {
  size_t begin = 0, end = 0;
  std::string id;
};

std::vector<Token> Tokens(std::string_view prose) {
  std::vector<Token> out;
  size_t i = 0;
  while ((i = prose.find("[@", i)) != std::string_view::npos) {
    size_t close = prose.find(']', i + 2);
    if (close == std::string_view::npos) break;
    std::string id(prose.substr(i + 2, close - i - 2));
    if (ValidId(id)) {
      out.push_back({i, close + 1, id});
      i = close + 1;
    } else {
      i += 2;
    }
  }
  return out;
}

std::vector<std::string> RawUrls(std::string_view prose) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < prose.size()) {
    size_t a = prose.find("http://", i), b = prose.find("https://", i);
    size_t at = std::min(a, b);
    if (at == std::string_view::npos) break;
    size_t end = at;
    while (end < prose.size() && !std::isspace(static_cast<unsigned char>(prose[end])) &&
           prose[end] != '<' && prose[end] != '>' && prose[end] != ']') {
      ++end;
    }
    std::string url(prose.substr(at, end - at));
    // Trailing punctuation ends the sentence, not the URL; a ')' does only
    // when it closes nothing inside the URL.
    for (;;) {
      if (url.empty()) break;
      char last = url.back();
      bool unbalanced = last == ')' && std::count(url.begin(), url.end(), ')') >
                                           std::count(url.begin(), url.end(), '(');
      if (std::string_view(",.;!?").find(last) == std::string_view::npos && !unbalanced) break;
      url.pop_back();
    }
    out.push_back(url);
    i = end;
  }
  return out;
}

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

}  // namespace

std::vector<std::string> CitedIds(std::string_view artifact) {
  std::vector<std::string> ids;
  for (const Part& p : SplitCode(artifact)) {
    if (p.code) continue;
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
    urls.insert(s.url);
  }
  std::vector<std::string> cited = CitedIds(artifact);
  for (const std::string& id : cited) {
    if (!ids.count(id)) {
      issues.push_back({field, absl::StrCat("cites unknown Source [@", id,
                                            "]; register it in `sources` first")});
    }
  }
  for (const Part& p : SplitCode(artifact)) {
    if (p.code) continue;
    for (const std::string& url : RawUrls(p.text)) {
      std::string canonical;
      if (!CanonicalUrl(url, canonical).ok()) {
        issues.push_back({field, absl::StrCat("contains invalid external URL ", url)});
      } else if (!urls.count(canonical)) {
        issues.push_back({field, absl::StrCat("contains unregistered external URL ", url,
                                              "; register it as a Source and cite it as [@id]")});
      }
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
  for (const Part& p : SplitCode(artifact)) {
    if (p.code) {
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
