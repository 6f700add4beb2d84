#include "daemon/http/sse_decoder.h"


namespace raw::http {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Index of the first '\r' or '\n' in `bytes` at or after `from`, or npos.
size_t FindLineEnd(std::string_view bytes, size_t from) {
  for (size_t i = from; i < bytes.size(); ++i) {
    char c = bytes[i];
    if (c == '\n' || c == '\r') return i;
  }
  return std::string_view::npos;
}

// A "retry" value counts only when it is all ASCII digits.
std::optional<int64_t> ParseRetry(std::string_view value) {
  if (value.empty() || value.size() > 18) return std::nullopt;
  int64_t ms = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    ms = ms * 10 + (c - '0');
  }
  return ms;
}

}  // namespace

void SseDecoder::Feed(std::string_view bytes, FrameSink sink) {
  if (overflowed_) return;
  size_t pos = 0;
  if (skip_lf_ && !bytes.empty()) {
    skip_lf_ = false;
    if (bytes[0] == '\n') pos = 1;
  }
  while (pos < bytes.size()) {
    size_t end = FindLineEnd(bytes, pos);
    if (end == std::string_view::npos) {
      partial_line_.append(bytes.data() + pos, bytes.size() - pos);
      if (partial_line_.size() + current_.data.size() > max_event_bytes_) Overflow();
      return;
    }
    std::string_view piece = bytes.substr(pos, end - pos);
    if (partial_line_.empty()) {
      ProcessLine(piece, sink);
    } else {
      partial_line_.append(piece.data(), piece.size());
      ProcessLine(partial_line_, sink);  // never touches partial_line_
      partial_line_.clear();
    }
    if (current_.data.size() > max_event_bytes_) {
      Overflow();
      return;
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos < bytes.size()) {
        if (bytes[pos] == '\n') ++pos;
      } else {
        skip_lf_ = true;  // the '\n' of a "\r\n" may start the next chunk
      }
    }
  }
}

std::vector<SseFrame> SseDecoder::Feed(std::string_view bytes) {
  std::vector<SseFrame> frames;
  Feed(bytes, [&frames](const SseFrame& frame) { frames.push_back(frame); });
  return frames;
}

void SseDecoder::Overflow() {
  overflowed_ = true;
  partial_line_.clear();
  partial_line_.shrink_to_fit();
  current_ = SseFrame();
}

bool SseDecoder::Finish() {
  bool pending = pending_fields_ || overflowed_;
  overflowed_ = false;
  if (!partial_line_.empty() && partial_line_[0] != ':') pending = true;
  partial_line_.clear();
  skip_lf_ = false;
  at_stream_start_ = true;
  pending_fields_ = false;
  has_data_ = false;
  current_ = SseFrame();
  last_event_id_.clear();
  return pending;
}

void SseDecoder::ProcessLine(std::string_view line, FrameSink sink) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (line.substr(0, kBom.size()) == kBom) line.remove_prefix(kBom.size());
  }
  if (line.empty()) {
    Dispatch(sink);
    return;
  }
  if (line[0] == ':') return;  // comment (": keep-alive")

  std::string_view field = line;
  std::string_view value;
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  pending_fields_ = true;
  if (field == "data") {
    if (has_data_) current_.data.push_back('\n');
    current_.data.append(value.data(), value.size());
    has_data_ = true;
  } else if (field == "event") {
    current_.event.assign(value.data(), value.size());
  } else if (field == "id") {
    // An id containing NUL is ignored, as the standard says.
    if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
  } else if (field == "retry") {
    if (auto retry = ParseRetry(value)) current_.retry = retry;
  }
  // Any other field is ignored.
}

void SseDecoder::Dispatch(FrameSink sink) {
  if (has_data_) {
    current_.id = last_event_id_;
    sink(current_);
  }
  current_.event.clear();
  current_.data.clear();
  current_.id.clear();
  current_.retry.reset();
  has_data_ = false;
  pending_fields_ = false;
}

}  // namespace raw::http
