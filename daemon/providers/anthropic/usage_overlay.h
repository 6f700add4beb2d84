// UsageOverlay: the token counts of one Anthropic Messages response, built
// the way the official SDK builds them: the input-side counts of
// message_start's usage, overwritten (never added to) by every non-null
// count a later message_delta reports.
//
// Normalisation to events::Usage:
// - input_tokens = input_tokens + cache_creation_input_tokens +
//   cache_read_input_tokens (Anthropic's input_tokens excludes the cached
//   parts); unknown when any of the three is missing.
// - cache_read_tokens / cache_write_tokens = cache_read_input_tokens /
//   cache_creation_input_tokens.
// - output_tokens only from message_delta: message_start carries a small
//   placeholder that is not the final count, so without a message_delta
//   the output stays unknown.
// - reasoning_tokens = output_tokens_details.thinking_tokens, else unknown.
// A count is a non-negative whole number; anything else (null, missing,
// negative, fractional) is unknown, never zero.
//
// Thread-compatible value type.
#pragma once

#include <cstdint>
#include <optional>

#include "common/json.h"
#include "daemon/events/usage.h"

namespace raw::providers::anthropic {

class UsageOverlay {
 public:
  // message_start.message.usage.
  void ApplyStart(const Json& usage);
  // message_delta.usage; may be applied more than once.
  void ApplyDelta(const Json& usage);

  // Some usage object was applied.
  bool seen() const { return seen_; }
  // A message_delta usage was applied (the counts are final).
  bool final() const { return final_; }

  events::Usage ToUsage() const;

 private:
  void Overlay(const Json& usage);

  bool seen_ = false;
  bool final_ = false;
  std::optional<int64_t> input_;
  std::optional<int64_t> cache_creation_;
  std::optional<int64_t> cache_read_;
  std::optional<int64_t> output_;
  std::optional<int64_t> thinking_;
};

}  // namespace raw::providers::anthropic
