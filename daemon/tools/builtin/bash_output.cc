#include "daemon/tools/builtin/bash_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace raw::tools::builtin {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

}  // namespace

BashOutput::BashOutput(size_t cap)
    : cap_(std::max<size_t>(cap, 2)), head_cap_(cap_ / 2), tail_cap_(cap_ - head_cap_) {}

void BashOutput::Append(const char* data, size_t size) {
  total_ += size;
  size_t to_head = std::min(size, head_cap_ - head_.size());
  head_.append(data, to_head);
  tail_.append(data + to_head, size - to_head);
  // Trimming only once the tail holds twice what it keeps makes each byte
  // move at most a constant number of times.
  if (tail_.size() > 2 * tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
}

std::string BashOutput::Render(const SafeCuts& cuts) const {
  if (total_ <= cap_) return head_ + tail_;
  std::string head = head_.substr(0, cuts.end ? cuts.end(head_) : head_.size());
  {
    // A sequence cut by the head limit: its lead byte is the last byte that
    // is not a continuation byte; drop it and what follows when incomplete.
    size_t i = head.size();
    size_t k = 0;
    while (i > 0 && k < 4 && IsContinuationByte(head[i - 1])) {
      --i;
      ++k;
    }
    if (i > 0) {
      unsigned char lead = static_cast<unsigned char>(head[i - 1]);
      size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (need > k + 1) head.resize(i - 1);
    }
  }
  size_t tail_start = tail_.size() - std::min(tail_.size(), tail_cap_);
  if (cuts.start) tail_start = cuts.start(tail_, tail_start);
  size_t skip = 0;
  while (tail_start + skip < tail_.size() && skip < 3 && IsContinuationByte(tail_[tail_start + skip])) {
    ++skip;
  }
  std::string tail = tail_.substr(tail_start + skip);
  uint64_t omitted = total_ - head.size() - tail.size();
  std::string out = head;
  if (!out.empty() && out.back() != '\n') out += '\n';
  absl::StrAppend(&out, "[... ", omitted, " bytes omitted: the output was ", total_,
                  " bytes, over the ", cap_,
                  "-byte limit (tools.bash.max_output_bytes); showing the first ", head.size(),
                  " and the last ", tail.size(), " bytes ...]\n", tail);
  return out;
}

}  // namespace raw::tools::builtin
