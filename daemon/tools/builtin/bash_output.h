// BashOutput: a command's combined output, bounded to a byte cap by keeping
// its beginning and its end.
//
// Memory stays within about twice the cap however much the command writes.
// When more than the cap arrives, Render() shows the first half and the last
// half with a marker in between that says how many bytes were left out and
// which setting sets the cap, so the model knows the output is incomplete.
// Cuts never split a UTF-8 sequence, nor a known secret value: the store
// hides secrets after the cut (SessionLog), so a cut through one would keep
// the part on this side of it. Not thread-safe: owned by one call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace raw::tools::builtin {

class BashOutput {
 public:
  explicit BashOutput(size_t cap);

  void Append(const char* data, size_t size);

  // Where the cuts must move so that they split no known secret (see
  // ToolContext::safe_end, safe_start); null: the cuts stay where the cap
  // puts them.
  struct SafeCuts {
    std::function<size_t(std::string_view text)> end;
    std::function<size_t(std::string_view text, size_t start)> start;
  };
  // The output, or its head and tail around an omission marker; the head
  // ends at `cuts.end` of it, the tail starts at `cuts.start`.
  std::string Render(const SafeCuts& cuts = {}) const;

  uint64_t total_bytes() const { return total_; }
  bool truncated() const { return total_ > cap_; }

 private:
  size_t cap_;
  size_t head_cap_;
  size_t tail_cap_;
  std::string head_;
  std::string tail_;  // the latest bytes; trimmed to tail_cap_ in batches
  uint64_t total_ = 0;
};

}  // namespace raw::tools::builtin
