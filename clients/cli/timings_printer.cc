#include "clients/cli/timings_printer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::cli {
namespace {

std::string Ms(int64_t us) { return absl::StrFormat("%.2f", static_cast<double>(us) / 1000.0); }

}  // namespace

std::string TimingsText(const v1::GetStatsResponse& stats) {
  if (!stats.has_overhead() || stats.overhead().steps() == 0) {
    return "raw run: no step of this session was timed by the running daemon\n";
  }
  const v1::OverheadStats& o = stats.overhead();
  std::string text =
      "Raw's own time per step, in ms (tools, hooks, approvals and the model excluded):\n"
      "         before request + build + send + commit + tools = total\n";
  int n = 0;
  for (const v1::StepOverhead& s : o.last_turn()) {
    absl::StrAppend(&text, absl::StrFormat("  step %d: %s + %s + %s + %s + %s = %s\n", ++n,
                                           Ms(s.pre_request_us()), Ms(s.build_us()),
                                           Ms(s.send_us()), Ms(s.commit_us()), Ms(s.tools_us()),
                                           Ms(s.total_us())));
  }
  absl::StrAppend(&text, "This session: p50 ", Ms(o.p50_us()), " ms, p99 ", Ms(o.p99_us()),
                  " ms over ", o.steps(), o.steps() == 1 ? " step" : " steps",
                  " timed since the daemon loaded it.\n");
  return text;
}

void PrintTimings(client::RawClient& client, const std::string& session_id, std::ostream& err) {
  v1::GetStatsRequest request;
  request.set_session_id(session_id);
  absl::StatusOr<v1::GetStatsResponse> stats = client.GetStats(request);
  if (!stats.ok()) {
    err << "raw run: could not read the step timings: " << stats.status().message() << "\n";
    return;
  }
  err << TimingsText(*stats);
  err.flush();
}

}  // namespace raw::cli
