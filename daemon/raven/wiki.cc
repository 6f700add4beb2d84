#include "daemon/raven/wiki.h"

#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/raven/citations.h"

namespace raw::raven {
namespace {

using absl::StrAppend;
using absl::StrCat;

constexpr size_t kMaxSlugBytes = 80;

// A YAML double-quoted scalar on one line: white-space runs become one
// space; `\\` and `"` are escaped, and so is every character YAML does not
// print or reads as a line break (C0 and C1 controls, DEL, U+2028, U+2029).
std::string YamlQuoted(std::string_view text) {
  std::string out = "\"";
  bool space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || (c >= '\t' && c <= '\r')) {
      space = true;
      continue;
    }
    if (space && out.size() > 1) out.push_back(' ');
    space = false;
    const std::string_view rest = text.substr(i);
    if (c == '\\' || c == '"') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7F) {
      StrAppend(&out, absl::StrFormat("\\x%02X", c));
    } else if (c == 0xC2 && rest.size() >= 2 && static_cast<unsigned char>(rest[1]) < 0xA0) {
      StrAppend(&out, absl::StrFormat("\\x%02X", static_cast<unsigned char>(rest[1])));
      ++i;
    } else if (rest.substr(0, 3) == "\u2028" || rest.substr(0, 3) == "\u2029") {
      out += rest[2] == '\xA8' ? "\\L" : "\\P";
      i += 2;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

// A YAML flow sequence of double-quoted scalars.
std::string YamlList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  quoted.reserve(items.size());
  for (const std::string& item : items) quoted.push_back(YamlQuoted(item));
  return StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

// Slug without the fallback: "" when nothing is left.
std::string SlugOrEmpty(std::string_view text) {
  // Compatibility forms decomposed, marks dropped and case folded, so that
  // "Café" and "CAFÉ" are "cafe" and "ﬁ" is "fi".
  utf8proc_uint8_t* folded = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &folded,
                   static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT |
                                                  UTF8PROC_STRIPMARK | UTF8PROC_CASEFOLD));
  std::string lowered;
  if (n >= 0) {
    lowered.assign(reinterpret_cast<const char*>(folded), static_cast<size_t>(n));
  } else {  // ill-formed UTF-8: its ASCII letters and digits still count
    for (char c : text) lowered.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  std::free(folded);
  std::string out;
  for (char c : lowered) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
    if (out.size() == kMaxSlugBytes) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string DefaultTitle(const TaskState& s) {
  std::string first = s.request.substr(0, s.request.find('\n'));
  first = TrimText(first);
  size_t cut = 0, chars = 0;
  while (cut < first.size() && chars < 120) {
    ++cut;
    while (cut < first.size() && (static_cast<unsigned char>(first[cut]) & 0xC0) == 0x80) ++cut;
    ++chars;
  }
  return first.substr(0, cut);
}

// A page: frontmatter lines, then the body.
std::string Page(const std::vector<std::string>& frontmatter, const std::string& body) {
  return StrCat("---\n", absl::StrJoin(frontmatter, "\n"), "\n---\n", body);
}

// The immutable raw page of a Source: the verified excerpt plus its
// verification receipt (seed 004). Its path ends in the first 12 hex digits
// of its body's sha256, and the body names the Task and the Source, so a
// page at a path is always the same bytes: a later check of the Source is a
// new page at a new path, never a rewrite of the old one, and two Tasks (or
// Sessions) never write one path.
WikiPage RawPage(const TaskState& task, const Source& s) {
  std::string body = StrCat("# ", EscapeInline(s.title), "\n\n");
  size_t pos = 0;
  while (pos <= s.excerpt.size()) {
    size_t nl = s.excerpt.find('\n', pos);
    std::string_view line = std::string_view(s.excerpt).substr(
        pos, nl == std::string::npos ? std::string::npos : nl - pos);
    StrAppend(&body, ">", line.empty() ? "" : " ", std::string(line), "\n");
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  StrAppend(&body, "\n- Locator: ", EscapeInline(s.locator), "\n- Role: ", Name(s.role),
            "\n- Inspected: ", IsoTime(s.inspected_at), "\n");
  if (s.as_of) StrAppend(&body, "- As of: ", EscapeInline(*s.as_of), "\n");
  if (s.check.status == CheckStatus::kUnchecked) {
    StrAppend(&body, "- Verification: unverified\n");
  } else {
    StrAppend(&body, "- Verification: ", Name(s.check.status), " at ", IsoTime(s.check.checked_at),
              "\n");
    if (s.check.resolved_url) {
      StrAppend(&body, "- Resolved URL: <", EscapeUrl(*s.check.resolved_url), ">\n");
    }
    if (s.check.detail) StrAppend(&body, "- Detail: ", EscapeInline(*s.check.detail), "\n");
  }
  StrAppend(&body, "\nRecorded as Source `", s.source_id, "` by Raven Task ", task.task_id,
            ". Only the excerpt above was stored and matched against the retrieved body; this "
            "page is not a full-page capture.\n");
  const std::string sha = Sha256Hex(body);
  std::vector<std::string> fm = {
      StrCat("source_url: ", YamlQuoted(s.url)),
      StrCat("ingested: ", IsoDate(s.inspected_at)),
      StrCat("sha256: ", sha),
      "capture: excerpt-only",
      StrCat("locator: ", YamlQuoted(s.locator)),
      StrCat("source_role: ", Name(s.role)),
  };
  if (s.family) fm.push_back(StrCat("source_family: ", YamlQuoted(*s.family)));
  if (s.as_of) fm.push_back(StrCat("as_of: ", YamlQuoted(*s.as_of)));
  fm.push_back(StrCat("verification: ", s.check.status == CheckStatus::kUnchecked
                                            ? "unverified"
                                            : std::string(Name(s.check.status))));
  if (s.check.status != CheckStatus::kUnchecked) {
    fm.push_back(StrCat("verified_at: ", IsoTime(s.check.checked_at)));
  }
  fm.push_back(StrCat("raven_task: ", task.task_id));
  return {StrCat("wiki/raw/articles/", Slug(StrCat(s.source_id, " ", s.title)), "-",
                 sha.substr(0, 12), ".md"),
          Page(fm, body), false};
}

// The current check of every Source and its raw page, for the Task's query
// page.
std::string SourceChecks(const TaskState& task, const std::vector<WikiPage>& raw) {
  std::string out;
  for (size_t i = 0; i < task.sources.size(); ++i) {
    const Source& s = task.sources[i];
    StrAppend(&out, "- `", s.source_id, "` (", raw[i].path.substr(5), "): ");
    if (s.check.status == CheckStatus::kUnchecked) {
      StrAppend(&out, "unverified\n");
      continue;
    }
    StrAppend(&out, Name(s.check.status));
    if (s.check.outcome) StrAppend(&out, " (", Name(*s.check.outcome), ")");
    StrAppend(&out, " at ", IsoTime(s.check.checked_at));
    if (s.check.resolved_url)
      StrAppend(&out, "; resolved URL <", EscapeUrl(*s.check.resolved_url), ">");
    if (s.check.detail) StrAppend(&out, "; ", EscapeInline(*s.check.detail));
    StrAppend(&out, "\n");
  }
  return out;
}

constexpr char kSchema[] =
    "# Wiki Schema\n\n"
    "## Domain\n\n"
    "Research pages kept by an agent; Raven Tasks export into it.\n\n"
    "## Layers\n\n"
    "- `raw/`: immutable captures of Sources (Raven writes excerpt-only captures).\n"
    "- `queries/`, `entities/`, `concepts/`, `comparisons/`: pages the agent owns.\n"
    "- `SCHEMA.md`, `index.md`, `log.md`: the conventions, the catalog and the append-only "
    "history.\n\n"
    "## Conventions\n\n"
    "- File names are lower-case and hyphenated.\n"
    "- Every page starts with YAML frontmatter.\n"
    "- Pages link each other with `[[wikilinks]]`.\n"
    "- `log.md` is append-only.\n"
    "- Pages exported by Raven carry `raven_task`.\n\n"
    "## Page frontmatter\n\n"
    "```yaml\ntitle: \"...\"\ncreated: YYYY-MM-DD\nupdated: YYYY-MM-DD\n"
    "type: entity | concept | comparison | query | summary\ntags: [...]\nsources: [...]\n"
    "confidence: high | medium | low\ncontested: true   # only when Claims conflict\n```\n\n"
    "## Raw frontmatter\n\n"
    "```yaml\nsource_url: \"...\"\ningested: YYYY-MM-DD\nsha256: <hex of the body>\n"
    "capture: excerpt-only\nlocator: \"...\"\nsource_role: primary | secondary | dataset | "
    "user-provided\nsource_family: \"...\"   # optional\nas_of: \"...\"           # optional\n```\n\n"
    "`capture: excerpt-only` means only the verified excerpt was stored, not the whole page; "
    "`sha256` covers exactly the page body after the frontmatter, so it detects drift in what "
    "was stored, not changes of the upstream page.\n\n"
    "`source_family` names the originating record or institution, never the host: outlets "
    "republishing one wire item are one family.\n\n"
    "## Tags\n\n"
    "- Outcomes: research, general-writing, academic-writing, learning.\n"
    "- Evidence: primary-source, contested, unresolved.\n"
    "- Meta: method, limitation.\n";

constexpr char kIndex[] =
    "# Wiki Index\n\n"
    "> The catalog of this wiki's pages.\n"
    "> Add a line under the matching section for every page you write.\n\n"
    "## Queries\n\n## Concepts\n\n## Entities\n\n## Comparisons\n";

constexpr char kLog[] =
    "# Wiki Log\n\n"
    "Append-only history of changes to this wiki, newest last.\n\n"
    "Entry format: `## [YYYY-MM-DD] action | subject`\n";

}  // namespace

std::string Slug(std::string_view text) {
  std::string slug = SlugOrEmpty(text);
  return slug.empty() ? "untitled" : slug;
}

std::string Confidence(const TaskState& s) {
  if (s.phase == Phase::kActive || s.phase == Phase::kStopped) return "low";
  if (s.phase == Phase::kCompletedWithLimits) return "medium";
  // Only a Completion that reopened Sources and found one holding its
  // excerpt is verified; a structural-only receipt is not.
  if (!s.verification || s.verification->mode != "remote" || s.verification->reachable == 0) {
    return "medium";
  }
  bool deferred = std::any_of(s.claims.begin(), s.claims.end(),
                              [](const Claim& c) { return c.disposition == Disposition::kDeferred; });
  return !s.limitations.empty() || deferred ? "medium" : "high";
}

std::vector<WikiPage> ExportWiki(const TaskState& s, const ExportRequest& req) {
  // One line: the title heads the page and its log.md entry, where a line
  // break would let it write entries of its own.
  std::string title;
  for (char c : req.title.value_or(DefaultTitle(s))) {
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (!space) {
      title.push_back(c);
    } else if (!title.empty() && title.back() != ' ') {
      title.push_back(' ');
    }
  }
  while (!title.empty() && title.back() == ' ') title.pop_back();
  if (title.empty()) title = "untitled";
  std::vector<std::string> tags = req.tags;
  if (tags.empty()) tags.emplace_back(Name(s.outcome));
  std::string date = IsoDate(req.now_ms);
  // A title with nothing in ASCII (CJK) is named by the Task's id.
  std::string title_slug = SlugOrEmpty(title);
  if (title_slug.empty()) title_slug = Slug(s.task_id);
  std::string query_path = StrCat("queries/query-", date, "-", title_slug, ".md");
  bool contested = std::any_of(s.claims.begin(), s.claims.end(),
                               [](const Claim& c) { return !c.contradicts.empty(); });
  std::vector<WikiPage> raw;
  std::vector<std::string> sources;
  for (const Source& src : s.sources) {
    raw.push_back(RawPage(s, src));
    sources.push_back(raw.back().path.substr(5));  // without "wiki/"
  }
  std::vector<std::string> fm = {
      StrCat("title: ", YamlQuoted(title)),       StrCat("created: ", IsoDate(s.started_at)),
      StrCat("updated: ", IsoDate(s.updated_at)), "type: query",
      StrCat("tags: ", YamlList(tags)),           StrCat("sources: ", YamlList(sources)),
      StrCat("confidence: ", Confidence(s)),
  };
  if (contested) fm.push_back("contested: true");
  fm.push_back(StrCat("raven_task: ", s.task_id));
  fm.push_back(StrCat("raven_outcome: ", Name(s.outcome)));
  fm.push_back(StrCat("raven_phase: ", Name(s.phase)));
  if (s.final_artifact_sha256) fm.push_back(StrCat("raven_artifact_sha256: ", *s.final_artifact_sha256));
  std::string rendered = RenderArtifact(s, s.latest_artifact.value_or(""));
  while (!rendered.empty() && (rendered.back() == ' ' || rendered.back() == '\n')) rendered.pop_back();
  std::vector<WikiPage> pages;
  if (req.init) {
    pages.push_back({"wiki/SCHEMA.md", kSchema, false});
    pages.push_back({"wiki/index.md", kIndex, false});
    pages.push_back({"wiki/log.md", kLog, false});
  }
  std::string body = StrCat("# ", EscapeInline(title), "\n\n", rendered, "\n");
  if (!s.sources.empty()) StrAppend(&body, "\n## Source checks\n\n", SourceChecks(s, raw));
  pages.push_back({StrCat("wiki/", query_path), Page(fm, body), false});
  pages.insert(pages.end(), raw.begin(), raw.end());
  int verified = 0, material = 0, supported = 0, qualified = 0, deferred = 0;
  for (const Source& src : s.sources) verified += src.check.status == CheckStatus::kReachable;
  for (const Claim& c : s.claims) {
    if (c.kind != ClaimKind::kExternal || c.importance != Importance::kMaterial) continue;
    ++material;
    supported += c.disposition == Disposition::kSupported;
    qualified += c.disposition == Disposition::kQualified;
    deferred += c.disposition == Disposition::kDeferred;
  }
  std::string log = StrCat("\n## [", date, "] raven | ", Name(s.outcome), " — ", title, "\n",
                           "- Task: ", s.task_id, " · revision ", s.revision, " · steering ",
                           s.steering_revision, " · phase ", Name(s.phase), "\n",
                           "- Checkpoints: ", s.checkpoints.size(), " · Sources: ", s.sources.size(),
                           " (", verified, " verified)\n",
                           "- Material external Claims: ", material, " (", supported, " supported, ",
                           qualified, " qualified, ", deferred, " deferred)\n",
                           "- Limitations: ", s.limitations.size(),
                           contested ? " · contested claims present" : "", "\n",
                           "- Artifact: ", query_path, "\n");
  pages.push_back({"wiki/log.md", log, true});
  return pages;
}

}  // namespace raw::raven
