#include "daemon/providers/anthropic/usage_overlay.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace raw::providers::anthropic {

std::optional<int64_t> TokenCount(const Json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->is_number_unsigned()) {
    uint64_t n = it->get<uint64_t>();
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  if (it->is_number_integer()) {
    int64_t n = it->get<int64_t>();
    return n >= 0 ? std::optional<int64_t>(n) : std::nullopt;
  }
  if (it->is_number_float()) {
    double d = it->get<double>();
    if (d >= 0 && d < 9e18 && std::floor(d) == d) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

void UsageOverlay::ApplyStart(const Json& usage) {
  if (!usage.is_object()) return;
  seen_ = true;
  // output_tokens here is a placeholder, deliberately not taken.
  input_ = TokenCount(usage, "input_tokens");
  cache_creation_ = TokenCount(usage, "cache_creation_input_tokens");
  cache_read_ = TokenCount(usage, "cache_read_input_tokens");
  auto details = usage.find("output_tokens_details");
  if (details != usage.end()) thinking_ = TokenCount(*details, "thinking_tokens");
}

void UsageOverlay::ApplyDelta(const Json& usage) {
  if (!usage.is_object()) return;
  seen_ = true;
  final_ = true;
  Overlay(usage);
}

void UsageOverlay::Overlay(const Json& usage) {
  auto overwrite = [&usage](const char* key, std::optional<int64_t>* field) {
    std::optional<int64_t> value = TokenCount(usage, key);
    if (value.has_value()) *field = value;
  };
  overwrite("input_tokens", &input_);
  overwrite("cache_creation_input_tokens", &cache_creation_);
  overwrite("cache_read_input_tokens", &cache_read_);
  overwrite("output_tokens", &output_);
  auto details = usage.find("output_tokens_details");
  if (details != usage.end()) {
    std::optional<int64_t> thinking = TokenCount(*details, "thinking_tokens");
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
