#include "daemon/providers/anthropic/usage_overlay.h"

#include "daemon/providers/wire_fields.h"

namespace raw::providers::anthropic {

void UsageOverlay::ApplyStart(const Json& usage) {
  if (!usage.is_object()) return;
  seen_ = true;
  // output_tokens here is a placeholder, deliberately not taken.
  input_ = CountField(usage, "input_tokens");
  cache_creation_ = CountField(usage, "cache_creation_input_tokens");
  cache_read_ = CountField(usage, "cache_read_input_tokens");
  auto details = usage.find("output_tokens_details");
  if (details != usage.end()) thinking_ = CountField(*details, "thinking_tokens");
}

void UsageOverlay::ApplyDelta(const Json& usage) {
  if (!usage.is_object()) return;
  seen_ = true;
  final_ = true;
  Overlay(usage);
}

void UsageOverlay::Overlay(const Json& usage) {
  auto overwrite = [&usage](const char* key, std::optional<int64_t>* field) {
    std::optional<int64_t> value = CountField(usage, key);
    if (value.has_value()) *field = value;
  };
  overwrite("input_tokens", &input_);
  overwrite("cache_creation_input_tokens", &cache_creation_);
  overwrite("cache_read_input_tokens", &cache_read_);
  overwrite("output_tokens", &output_);
  auto details = usage.find("output_tokens_details");
  if (details != usage.end()) {
    std::optional<int64_t> thinking = CountField(*details, "thinking_tokens");
    if (thinking.has_value()) thinking_ = thinking;
  }
}

events::Usage UsageOverlay::ToUsage() const {
  events::Usage out;
  if (input_ && cache_creation_ && cache_read_) {
    out.input_tokens = *input_ + *cache_creation_ + *cache_read_;
  }
  out.cache_read_tokens = cache_read_;
  out.cache_write_tokens = cache_creation_;
  out.output_tokens = output_;
  out.reasoning_tokens = thinking_;
  return out;
}

}  // namespace raw::providers::anthropic
