#include "clients/tui/footer.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/present/usage_text.h"
#include "clients/tui/cell_renderer.h"
#include "clients/tui/text_width.h"

namespace raw::tui {
namespace {

std::optional<int64_t> Field(bool has, int64_t value) {
  if (!has) return std::nullopt;
  return value;
}

}  // namespace

StyledLine RenderFooter(const FooterState& s, int width, const Glyphs& glyphs) {
  Style base{Role::kFooter};
  std::string sep = glyphs.rule == "-" ? " | " : " · ";
  // Parts in order of importance; dropped from the end when too wide.
  struct Part {
    std::string text;
    Style style;
    int priority;  // lower survives longer
  };
  std::vector<Part> parts;
  parts.push_back({s.agent.empty() ? "raw" : s.agent, base.With(kAttrBold), 0});
  if (!s.model.empty()) parts.push_back({s.model, base, 3});
  if (!s.session_id.empty()) parts.push_back({present::ShortSessionId(s.session_id), base, 4});
  if (!s.connected) {
    parts.push_back({"disconnected", Style{Role::kError, kAttrBold | kAttrReverse}, 0});
  } else if (!s.turn_state.empty()) {
    parts.push_back({s.turn_state, base.With(kAttrBold), 1});
  }
  if (s.read_only) parts.push_back({"read-only", base.With(kAttrBold), 0});
  if (s.context) parts.push_back({"context " + present::FormatContext(*s.context), base, 2});
  if (s.requests > 0) {
    const v1::Usage& u = s.usage;
    parts.push_back({absl::StrCat("in ", present::FormatCount(Field(u.has_input_tokens(), u.input_tokens())),
                                  " out ", present::FormatCount(Field(u.has_output_tokens(), u.output_tokens()))),
                     base, 5});
    if (s.cache_read_ratio) {
      parts.push_back({absl::StrFormat("cache %.0f%%", *s.cache_read_ratio * 100.0), base, 6});
    }
  }
  auto total = [&] {
    int w = 2;
    for (size_t i = 0; i < parts.size(); ++i) {
      w += DisplayWidth(parts[i].text) + (i > 0 ? DisplayWidth(sep) : 0);
    }
    return w;
  };
  while (total() > width && parts.size() > 1) {
    auto worst = parts.begin();
    for (auto it = parts.begin(); it != parts.end(); ++it) {
      if (it->priority >= worst->priority) worst = it;
    }
    parts.erase(worst);
  }
  StyledLine line(" ", base);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) line.Add(sep, base);
    line.Add(parts[i].text, parts[i].style);
  }
  return FitToWidth(line, width, base);
}

Lines RenderStats(const v1::GetStatsResponse& stats) {
  Lines out;
  Style head{Role::kAccent, kAttrBold};
  Style dim{Role::kDim};
  out.emplace_back(absl::StrCat("Usage this session (", stats.requests(),
                                stats.requests() == 1 ? " model request)" : " model requests)"),
                   head);
  auto row = [&](const char* name, const v1::UsageFieldStats& f) {
    StyledLine line;
    line.Add(absl::StrFormat("  %-20s", name));
    std::string value = f.has_total() ? present::GroupDigits(f.total()) : "unknown";
    line.Add(absl::StrFormat("%12s", value),
             f.has_total() ? Style{} : Style{Role::kWarning});
    line.Add(absl::StrCat("   reported by ", f.requests_reported(), " of ", stats.requests(),
                          stats.requests() == 1 ? " request" : " requests"),
             dim);
    out.push_back(std::move(line));
  };
  row("input tokens", stats.input_tokens());
  row("output tokens", stats.output_tokens());
  row("cache read tokens", stats.cache_read_tokens());
  row("cache write tokens", stats.cache_write_tokens());
  row("reasoning tokens", stats.reasoning_tokens());
  StyledLine ratio;
  ratio.Add(absl::StrFormat("  %-20s", "cache-read ratio"));
  if (stats.has_cache_read_ratio()) {
    ratio.Add(absl::StrFormat("%11.1f%%", stats.cache_read_ratio() * 100.0));
    ratio.Add(absl::StrCat("   over ", stats.cache_ratio_requests(),
                           stats.cache_ratio_requests() == 1 ? " request" : " requests",
                           " that reported input and cache reads"),
              dim);
  } else {
    ratio.Add(absl::StrFormat("%12s", "unknown"), Style{Role::kWarning});
    ratio.Add("   no request reported both input and cache reads", dim);
  }
  out.push_back(std::move(ratio));
  if (stats.has_context()) {
    StyledLine ctx;
    ctx.Add(absl::StrFormat("  %-20s", "context estimate"));
    ctx.Add(absl::StrFormat("%12s", present::FormatContext(stats.context())));
    if (!stats.context().has_window_tokens()) {
      ctx.Add("   no context_window_tokens set for the model", dim);
    } else {
      ctx.Add(absl::StrCat("   of ", present::GroupDigits(stats.context().window_tokens()), " tokens"), dim);
    }
    out.push_back(std::move(ctx));
  }
  StyledLine compactions;
  compactions.Add(absl::StrFormat("  %-20s%12d", "compactions", stats.compactions()));
  out.push_back(std::move(compactions));
  // Raw's own time per step, as rawd timed it (tools, hooks, approvals and
  // the model left out).
  if (stats.has_overhead() && stats.overhead().steps() > 0) {
    const v1::OverheadStats& o = stats.overhead();
    StyledLine overhead;
    overhead.Add(absl::StrFormat("  %-20s", "Raw's own overhead"));
    overhead.Add(absl::StrFormat("%9.2f ms", static_cast<double>(o.p50_us()) / 1000.0));
    overhead.Add(absl::StrFormat("   per step (p50; p99 %.2f ms, over %d %s)",
                                 static_cast<double>(o.p99_us()) / 1000.0, o.steps(),
                                 o.steps() == 1 ? "step" : "steps"),
                 dim);
    out.push_back(std::move(overhead));
  }
  return out;
}

}  // namespace raw::tui
