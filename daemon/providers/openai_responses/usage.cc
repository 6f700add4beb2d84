#include "daemon/providers/openai_responses/usage.h"

#include "daemon/providers/wire_fields.h"

namespace raw::providers::openai_responses {

events::Usage NormalizeResponsesUsage(const Json& usage) {
  events::Usage out;
  if (!usage.is_object()) return out;
  out.input_tokens = CountField(usage, "input_tokens");
  out.output_tokens = CountField(usage, "output_tokens");
  if (const Json* input = FindField(usage, "input_tokens_details")) {
    out.cache_read_tokens = CountField(*input, "cached_tokens");
    out.cache_write_tokens = CountField(*input, "cache_write_tokens");
  }
  if (const Json* output = FindField(usage, "output_tokens_details")) {
    out.reasoning_tokens = CountField(*output, "reasoning_tokens");
  }
  return out;
}

}  // namespace raw::providers::openai_responses
