#include "clients/tui/cell_renderer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "clients/present/usage_text.h"
#include "clients/tui/markdown_renderer.h"
#include "clients/tui/text_width.h"
#include "clients/tui/tool_card_renderer.h"

namespace raw::tui {
namespace {

Role LevelRole(Level level) {
  switch (level) {
    case Level::kWarning: return Role::kWarning;
    case Level::kError: return Role::kError;
    default: return Role::kDim;
  }
}

Lines RenderUser(const Cell& cell, const RenderContext& ctx) {
  StyledLine first;
  first.Add(ctx.glyphs->prompt + " ", Style{Role::kAccent, kAttrBold});
  StyledLine rest("  ");
  return WrapSpans(StyledLine(SanitizeForTerminal(cell.text), Style{Role::kUser}), ctx.width,
                   first, rest);
}

Lines RenderReasoning(const Cell& cell, const RenderContext& ctx) {
  Style dim{Role::kDim, kAttrItalic};
  std::string text = SanitizeForTerminal(cell.text);
  size_t words = 0;
  for (absl::string_view w : absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    (void)w;
    ++words;
  }
  StyledLine header;
  header.Add((cell.expanded ? ctx.glyphs->expanded : ctx.glyphs->collapsed) + " ", Style{Role::kDim});
  header.Add(cell.streaming ? "Thinking" : "Thought", dim);
  header.Add(absl::StrCat(" (", words, words == 1 ? " word)" : " words)"), Style{Role::kDim});
  Lines out;
  if (!cell.expanded) {
    // While it streams, the latest words show what the model is doing.
    if (cell.streaming && !text.empty()) {
      std::string tail = text.substr(text.find_last_of('\n') == std::string::npos
                                         ? 0
                                         : text.find_last_of('\n') + 1);
      header.Add(": ", Style{Role::kDim});
      int room = std::max(8, ctx.width - header.Width());
      if (DisplayWidth(tail) > room) {
        // The end of the line, not its start.
        std::string cut;
        int used = 0;
        std::vector<std::string> clusters;
        ForEachGrapheme(tail, [&](std::string_view c, int) { clusters.emplace_back(c); });
        for (auto it = clusters.rbegin(); it != clusters.rend(); ++it) {
          int w = DisplayWidth(*it);
          if (used + w > room - DisplayWidth(ctx.glyphs->ellipsis)) break;
          cut.insert(0, *it);
          used += w;
        }
        tail = ctx.glyphs->ellipsis + cut;
      }
      header.Add(tail, dim);
    }
    out.push_back(std::move(header));
    return out;
  }
  out.push_back(header);
  for (auto& line : WrapSpans(StyledLine(text, dim), ctx.width, StyledLine("  "), StyledLine("  "))) {
    out.push_back(std::move(line));
  }
  return out;
}

Lines RenderNotice(const Cell& cell, const RenderContext& ctx) {
  Role role = LevelRole(cell.level);
  StyledLine first;
  if (cell.level == Level::kWarning) first.Add("warning: ", Style{role, kAttrBold});
  if (cell.level == Level::kError) first.Add("error: ", Style{role, kAttrBold});
  return WrapSpans(StyledLine(SanitizeForTerminal(cell.text), Style{role}), ctx.width, first,
                   StyledLine("  "));
}

Lines RenderTurnEnd(const Cell& cell, const RenderContext& ctx) {
  Role role = LevelRole(cell.level);
  StyledLine first;
  first.Add(ctx.glyphs->tool_denied + " ", Style{role, kAttrBold});
  return WrapSpans(StyledLine(SanitizeForTerminal(cell.text), Style{role}), ctx.width, first,
                   StyledLine("  "));
}

Lines RenderCompaction(const Cell& cell, const RenderContext& ctx) {
  const Compaction& c = cell.compaction;
  std::string text;
  Role role = Role::kDim;
  if (c.running) {
    text = absl::StrCat(c.automatic ? "Compacting the context automatically" : "Compacting the context",
                        " (", present::FormatTokens(c.tokens_before), " tokens)");
    if (c.chunks > 0) absl::StrAppend(&text, ": summary ", std::max(c.chunk, 1), " of ", c.chunks);
    text += ctx.glyphs->ellipsis;
    role = Role::kRunning;
  } else if (c.outcome == "cleared") {
    text = absl::StrCat("Context cleared: ", present::FormatTokens(c.tokens_before), " ", "→ ",
                        present::FormatTokens(c.tokens_after), " tokens");
    role = Role::kOk;
  } else if (c.accepted) {
    text = absl::StrCat("Context compacted: ", present::FormatTokens(c.tokens_before), " → ",
                        present::FormatTokens(c.tokens_after), " tokens");
    role = Role::kOk;
  } else {
    text = absl::StrCat("Compaction ", c.outcome);
    role = Role::kWarning;
  }
  if (ctx.glyphs->rule == "-") absl::StrReplaceAll({{"→", "->"}}, &text);
  return WrapSpans(StyledLine(text, Style{role}), ctx.width,
                   StyledLine(ctx.glyphs->rule + ctx.glyphs->rule + " ", Style{Role::kBorder}),
                   StyledLine("   "));
}

}  // namespace

Lines RenderCell(const Cell& cell, const RenderContext& ctx) {
  switch (cell.kind) {
    case CellKind::kUser:
      return RenderUser(cell, ctx);
    case CellKind::kAssistant:
      return RenderMarkdown(cell.text, ctx.width, *ctx.glyphs);
    case CellKind::kReasoning:
      return RenderReasoning(cell, ctx);
    case CellKind::kTool:
      return RenderToolCard(cell, ctx);
    case CellKind::kNotice:
      return RenderNotice(cell, ctx);
    case CellKind::kTurnEnd:
      return RenderTurnEnd(cell, ctx);
    case CellKind::kCompaction:
      return RenderCompaction(cell, ctx);
    case CellKind::kInfo: {
      Lines out;
      for (const StyledLine& line : cell.info) {
        for (auto& wrapped : WrapSpans(line, ctx.width, StyledLine(), StyledLine("  "))) {
          out.push_back(std::move(wrapped));
        }
      }
      return out;
    }
  }
  return {};
}

}  // namespace raw::tui
