#include "daemon/mcp/response_reader.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace raw::mcp {

namespace {
constexpr int64_t kMaxLoggedResponseSkips = 20;
}  // namespace
namespace {

constexpr size_t kErrorExcerptBytes = 300;

bool IsResponseTo(const Json& message, const Json& id) {
  return !id.is_null() && message.is_object() && !message.contains("method") &&
         message.contains("id") && message["id"] == id;
}

}  // namespace

ResponseReader::ResponseReader(Json awaited_id, size_t max_bytes, Sink sink,
                               StatusObserver on_status)
    : awaited_id_(std::move(awaited_id)),
      max_bytes_(max_bytes),
      sink_(std::move(sink)),
      on_status_(std::move(on_status)),
      decoder_(max_bytes) {}

void ResponseReader::OnStatus(int status, const http::Headers& headers) {
  status_ = status;
  std::string type = absl::AsciiStrToLower(http::FindHeader(headers, "Content-Type"));
  sse_ = ok_status() && absl::StartsWith(type, "text/event-stream");
  if (on_status_) on_status_(status, headers);
}

bool ResponseReader::OnBody(std::string_view bytes) {
  if (!sse_) {
    if (body_.size() + bytes.size() > max_bytes_) {
      overflowed_ = true;
      return false;
    }
    body_.append(bytes);
    return true;
  }
  if (got_awaited_) return true;  // a client that still delivers: not read
  decoder_.Feed(bytes, [this](const http::SseFrame& frame) {
    if (!frame.id.empty()) last_event_id_ = frame.id;
    if (frame.retry.has_value()) retry_ms_ = frame.retry;
    ++events_;
    if (!frame.data.empty()) Dispatch(frame.data);
  });
  if (decoder_.overflowed()) {
    overflowed_ = true;
    return false;
  }
  // Nothing this transfer carries matters after the awaited response
  // (Done()); the client ends a stream that stays open after it.
  return true;
}

bool ResponseReader::Finish() {
  if (sse_ || !ok_status()) return true;
  if (absl::StripAsciiWhitespace(body_).empty()) return true;
  return Dispatch(body_);
}

bool ResponseReader::Dispatch(std::string_view text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok() || !(parsed->is_object() || parsed->is_array())) {
    if (++skipped_ <= kMaxLoggedResponseSkips) {
      RAW_LOG(Warning) << "mcp: skipping a response part that is not JSON-RPC (" << text.size()
                       << " bytes)"
                       << (skipped_ == kMaxLoggedResponseSkips
                               ? "; more such parts of this response "
                                 "are skipped without a word"
                               : "");
    }
    return false;
  }
  const Json messages = parsed->is_array() ? *std::move(parsed) : Json::array({*parsed});
  for (const Json& message : messages) {
    if (IsResponseTo(message, awaited_id_)) got_awaited_ = true;
    sink_(message);
  }
  return true;
}

std::string DescribeHttpError(int status, const std::string& body) {
  std::string detail;
  absl::StatusOr<Json> parsed = ParseJson(body);
  if (parsed.ok() && parsed->is_object() && (*parsed)["error"].is_object() &&
      (*parsed)["error"]["message"].is_string()) {
    detail = (*parsed)["error"]["message"].get<std::string>();
  } else {
    detail = std::string(absl::StripAsciiWhitespace(body));
  }
  if (detail.size() > kErrorExcerptBytes)
    detail = absl::StrCat(detail.substr(0, kErrorExcerptBytes), "…");
  return detail.empty() ? absl::StrCat("HTTP ", status)
                        : absl::StrCat("HTTP ", status, ": ", detail);
}

}  // namespace raw::mcp
