#include "clients/present/usage_text.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::present {

std::string FormatTokens(int64_t tokens) {
  double t = static_cast<double>(tokens);
  if (tokens < 1000) return absl::StrCat("~", tokens);
  if (tokens < 100000) return absl::StrFormat("~%.1fk", t / 1000.0);
  if (tokens < 1000000) return absl::StrFormat("~%.0fk", t / 1000.0);
  return absl::StrFormat("~%.2fM", t / 1000000.0);
}

std::string FormatContext(const v1::ContextEstimate& estimate) {
  std::string text = FormatTokens(estimate.tokens());
  if (estimate.has_window_tokens() && estimate.window_tokens() > 0) {
    double percent = estimate.has_percent()
                         ? estimate.percent()
                         : 100.0 * static_cast<double>(estimate.tokens()) /
                               static_cast<double>(estimate.window_tokens());
    absl::StrAppend(&text, absl::StrFormat(" (%.*f%%)", percent < 10 ? 1 : 0, percent));
  }
  return text;
}

std::string FormatCount(const std::optional<int64_t>& count) {
  if (!count) return "unknown";
  int64_t v = *count;
  if (v < 1000) return absl::StrCat(v);
  if (v < 1000000) return absl::StrFormat("%.1fk", static_cast<double>(v) / 1000.0);
  return absl::StrFormat("%.2fM", static_cast<double>(v) / 1000000.0);
}

std::string GroupDigits(int64_t v) {
  std::string digits = absl::StrCat(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string ShortSessionId(const std::string& id) {
  std::string s = id;
  if (absl::StartsWith(s, "sess_")) s = s.substr(5);
  return s.substr(0, 8);
}

std::string FormatOverhead(const v1::GetStatsResponse& stats) {
  if (!stats.has_overhead() || stats.overhead().steps() == 0) return "";
  const v1::OverheadStats& o = stats.overhead();
  return absl::StrFormat("p50 %.2f ms, p99 %.2f ms over %d %s",
                         static_cast<double>(o.p50_us()) / 1000.0,
                         static_cast<double>(o.p99_us()) / 1000.0, o.steps(),
                         o.steps() == 1 ? "step" : "steps");
}

}  // namespace raw::present
