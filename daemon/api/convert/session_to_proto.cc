#include "daemon/api/convert/session_to_proto.h"

namespace raw::api::convert {

raw::v1::Usage ToProto(const events::Usage& usage) {
  raw::v1::Usage out;
  if (usage.input_tokens) out.set_input_tokens(*usage.input_tokens);
  if (usage.output_tokens) out.set_output_tokens(*usage.output_tokens);
  if (usage.cache_read_tokens) out.set_cache_read_tokens(*usage.cache_read_tokens);
  if (usage.cache_write_tokens) out.set_cache_write_tokens(*usage.cache_write_tokens);
  if (usage.reasoning_tokens) out.set_reasoning_tokens(*usage.reasoning_tokens);
  return out;
}

raw::v1::Session ToProto(const loop::SessionInfo& info) {
  const store::SessionRecord& r = info.record;
  raw::v1::Session out;
  out.set_id(r.id);
  out.set_agent(r.agent);
  out.set_cwd(r.cwd);
  out.set_model(info.model);
  out.set_model_id(info.model_id);
  out.set_created_at_unix_ms(r.created_at_unix_ms);
  out.set_last_activity_unix_ms(r.last_activity_unix_ms);
  out.set_turn_state(info.running ? raw::v1::TURN_STATE_RUNNING : raw::v1::TURN_STATE_IDLE);
  out.set_last_seq(r.last_seq);
  out.set_title(r.title);
  *out.mutable_usage() = ToProto(r.usage);
  out.set_requests(r.usage_requests);
  return out;
}

}  // namespace raw::api::convert
