// Wiki projection: a Task as llm-wiki page bytes (`export`). Pure: Raven
// never writes files; the agent writes the returned bytes with its ordinary
// file tools, under the usual approvals.
//
// Pages: one `wiki/queries/query-<date>-<slug>.md` page with the rendered
// Artifact (the slug of the Task id when nothing of the title is left) and
// the current check of every Source; one immutable
// `wiki/raw/articles/<slug(id title)>-<sha12>.md` page per Source with
// `capture: excerpt-only` and a `sha256` of exactly its body (the bytes
// after the closing frontmatter line), `<sha12>` its first 12 hex digits:
// the body holds only what the agent recorded plus the Task and Source ids,
// never a check, so it is rewritten by no later export and no other Task
// shares its path; a `wiki/log.md` entry to append; with `init`,
// `wiki/SCHEMA.md`, `wiki/index.md` and `wiki/log.md` seed pages.
// Frontmatter strings are YAML double-quoted scalars, list items too.
// Frontmatter is derived from evidence: `confidence` is low while the Task
// is unfinished, at most medium with any Limitation or deferred Claim or
// without a remote verification receipt that found a Source reachable, high
// only for such a clean, verified completion; `contested: true` comes from
// contradiction links.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/raven/domain.h"

namespace raw::raven {

struct WikiPage {
  std::string path;
  std::string content;
  bool append = false;  // append to the file instead of writing it
  bool operator==(const WikiPage&) const = default;
};

struct ExportRequest {
  std::optional<std::string> title;  // default: the request's first line
  std::vector<std::string> tags;     // default: the Outcome
  bool init = false;
  int64_t now_ms = 0;
};

// A file name part of lower-case ASCII letters and digits in runs joined by
// single hyphens ([a-z0-9]+(-[a-z0-9]+)*), safe in a path, a URL and
// unquoted YAML: accents and other marks are dropped and compatibility
// forms decomposed first ("Café" is "cafe"), every other run of characters
// (punctuation, white space, scripts without an ASCII form) is one hyphen;
// at most 80 bytes, "untitled" when nothing is left.
std::string Slug(std::string_view text);
// "high", "medium" or "low" as described above.
std::string Confidence(const TaskState& state);
// Needs state.latest_artifact.
std::vector<WikiPage> ExportWiki(const TaskState& state, const ExportRequest& request);

}  // namespace raw::raven
