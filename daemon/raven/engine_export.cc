// export: the Task projected into llm-wiki pages the agent writes itself.

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "daemon/raven/engine_internal.h"

namespace raw::raven {

using absl::StrCat;

absl::StatusOr<ActionResult> Engine::Export(const Fields& f) {
  ExportRequest req;
  ASSIGN_OR_RETURN(req.title, f.OptionalText("title", Limits::kSummaryChars));
  ASSIGN_OR_RETURN(req.tags, f.TextList("tags", Limits::kExportTags, 64));
  for (size_t i = 0; i < req.tags.size(); ++i) {
    const std::string& t = req.tags[i];
    bool ok = !t.empty() && (std::islower(static_cast<unsigned char>(t[0])) ||
                             std::isdigit(static_cast<unsigned char>(t[0])));
    for (char c : t) ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                                 std::isdigit(static_cast<unsigned char>(c)) || c == '-');
    if (!ok) {
      return FieldError(StrCat("tags[", i, "]"),
                        "must be a lower-case letter or digit followed by up to 63 lower-case "
                        "letters, digits or '-'");
    }
  }
  ASSIGN_OR_RETURN(req.init, f.Bool("init"));
  req.now_ms = ctx_.now_ms;
  if (!result_.state.latest_artifact) {
    return NeedsRevision({{"taskId", "publish a Checkpoint before exporting"}},
                         "Nothing to export yet.");
  }
  result_.pages = ExportWiki(result_.state, req);
  std::string text = "## Wiki pages (write these with your file tools)\n";
  for (const WikiPage& p : result_.pages) {
    // A fence longer than any backtick run of the page, so no code fence
    // in the Artifact can end the page early.
    size_t longest = 0;
    for (size_t i = 0; i < p.content.size();) {
      size_t run = 0;
      while (i + run < p.content.size() && p.content[i + run] == '`') ++run;
      longest = std::max(longest, run);
      i += std::max<size_t>(run, 1);
    }
    const std::string fence(std::max<size_t>(4, longest + 1), '`');
    absl::StrAppend(&text, "\n", p.append ? "Append to `" : "Write `", p.path, "`:\n\n", fence,
                    "markdown\n", p.content, fence, "\n");
  }
  result_.extra = std::move(text);
  return Finish(StatusOf(result_.state),
                StrCat(result_.pages.size(), " page(s); Raven wrote nothing itself."));
}

}  // namespace raw::raven
