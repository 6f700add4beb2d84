// Token usage with unknown values. A count the provider did not report is
// std::nullopt and stays so through storage and display: unknown is never
// zero.
#pragma once

#include <cstdint>
#include <optional>

namespace raw::events {

struct Usage {
  std::optional<int64_t> input_tokens;        // every prompt token, cached ones included
  std::optional<int64_t> output_tokens;       // visible output plus reasoning
  std::optional<int64_t> cache_read_tokens;
  std::optional<int64_t> cache_write_tokens;
  std::optional<int64_t> reasoning_tokens;    // subset of output_tokens

  bool operator==(const Usage&) const = default;
};

}  // namespace raw::events
