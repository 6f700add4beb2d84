#include "daemon/api/convert/session_to_proto.h"

#include <string_view>

#include "common/utf8.h"

namespace raw::api::convert {
namespace {

// A proto3 string must be UTF-8, or the whole message fails to parse on the
// client: text from a session's row (which a damaged database or another
// program may have changed) has each ill-formed byte replaced by U+FFFD.
std::string WireText(std::string_view text) {
  if (ValidUtf8Prefix(text) == text.size()) return std::string(text);
  return SanitizeUtf8(text);
}

}  // namespace

raw::v1::Usage ToProto(const events::Usage& usage) {
  raw::v1::Usage out;
  if (usage.input_tokens) out.set_input_tokens(*usage.input_tokens);
  if (usage.output_tokens) out.set_output_tokens(*usage.output_tokens);
  if (usage.cache_read_tokens) out.set_cache_read_tokens(*usage.cache_read_tokens);
  if (usage.cache_write_tokens) out.set_cache_write_tokens(*usage.cache_write_tokens);
  if (usage.reasoning_tokens) out.set_reasoning_tokens(*usage.reasoning_tokens);
  return out;
}

raw::v1::ContextEstimate ToProto(const events::ContextEstimate& estimate) {
  raw::v1::ContextEstimate out;
  out.set_tokens(estimate.tokens);
  out.set_reported_baseline(estimate.reported_baseline);
  if (estimate.window_tokens && *estimate.window_tokens > 0) {
    out.set_window_tokens(*estimate.window_tokens);
    out.set_percent(100.0 * static_cast<double>(estimate.tokens) /
                    static_cast<double>(*estimate.window_tokens));
  }
  return out;
}

raw::v1::Session ToProto(const loop::SessionInfo& info) {
  const store::SessionRecord& r = info.record;
  raw::v1::Session out;
  out.set_id(WireText(r.id));
  out.set_agent(WireText(r.agent));
  out.set_cwd(WireText(r.cwd));
  out.set_model(WireText(info.model));
  out.set_model_id(WireText(info.model_id));
  out.set_created_at_unix_ms(r.created_at_unix_ms);
  out.set_last_activity_unix_ms(r.last_activity_unix_ms);
  out.set_turn_state(info.compacting ? raw::v1::TURN_STATE_COMPACTING
                     : info.running  ? raw::v1::TURN_STATE_RUNNING
                                     : raw::v1::TURN_STATE_IDLE);
  out.set_last_seq(r.last_seq);
  out.set_title(WireText(r.title));
  *out.mutable_usage() = ToProto(r.usage);
  out.set_requests(r.usage_requests);
  if (info.writer) {
    out.set_writer(WireText(info.writer->client.name));
    raw::v1::LeaseHolder* holder = out.mutable_writer_holder();
    holder->set_client_name(WireText(info.writer->client.name));
    holder->set_client_kind(WireText(info.writer->client.kind));
    holder->set_client_pid(info.writer->client.pid);
    holder->set_since_unix_ms(info.writer->since_unix_ms);
  }
  out.set_expires_at_unix_ms(info.expires_at_unix_ms);
  if (info.context) *out.mutable_context() = ToProto(*info.context);
  return out;
}

namespace {

raw::v1::UsageFieldStats FieldStats(const std::optional<int64_t>& total, int64_t reported) {
  raw::v1::UsageFieldStats out;
  // Unknown stays absent: a field no request reported has no total.
  if (total && reported > 0) out.set_total(*total);
  out.set_requests_reported(reported);
  return out;
}

}  // namespace

raw::v1::GetStatsResponse ToStatsProto(const loop::SessionInfo& info) {
  const store::SessionRecord& r = info.record;
  raw::v1::GetStatsResponse out;
  out.set_requests(r.usage_requests);
  *out.mutable_input_tokens() = FieldStats(r.usage.input_tokens, r.usage_coverage.input_tokens);
  *out.mutable_output_tokens() =
      FieldStats(r.usage.output_tokens, r.usage_coverage.output_tokens);
  *out.mutable_cache_read_tokens() =
      FieldStats(r.usage.cache_read_tokens, r.usage_coverage.cache_read_tokens);
  *out.mutable_cache_write_tokens() =
      FieldStats(r.usage.cache_write_tokens, r.usage_coverage.cache_write_tokens);
  *out.mutable_reasoning_tokens() =
      FieldStats(r.usage.reasoning_tokens, r.usage_coverage.reasoning_tokens);
  // Only over requests that reported both, and only with input to divide by.
  if (r.cache_ratio.requests > 0 && r.cache_ratio.input_tokens > 0) {
    out.set_cache_read_ratio(static_cast<double>(r.cache_ratio.cache_read_tokens) /
                             static_cast<double>(r.cache_ratio.input_tokens));
  }
  out.set_cache_ratio_requests(r.cache_ratio.requests);
  if (info.context) *out.mutable_context() = ToProto(*info.context);
  out.set_compactions(r.compactions);
  if (info.overhead) {
    raw::v1::OverheadStats* overhead = out.mutable_overhead();
    overhead->set_steps(info.overhead->steps);
    overhead->set_p50_us(info.overhead->p50_us);
    overhead->set_p99_us(info.overhead->p99_us);
    for (const loop::StepTiming& t : info.overhead->last_turn) {
      raw::v1::StepOverhead* step = overhead->add_last_turn();
      step->set_pre_request_us(t.pre_us);
      step->set_build_us(t.build_us);
      step->set_send_us(t.send_us);
      step->set_commit_us(t.commit_us);
      step->set_tools_us(t.tools_us);
      step->set_total_us(t.total_us());
    }
  }
  return out;
}

}  // namespace raw::api::convert
