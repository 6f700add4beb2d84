#include "daemon/providers/openai_responses/openai_responses_provider.h"

#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "daemon/providers/openai_chat/error_classifier.h"
#include "daemon/providers/openai_responses/request_builder.h"
#include "daemon/providers/openai_responses/stream_decoder.h"
#include "daemon/providers/sse/sse_decoder.h"

namespace raw::providers::openai_responses {
namespace {

// Error bodies are small; a proxy's HTML page is cut here.
constexpr size_t kMaxErrorBodyBytes = 64 * 1024;
// A non-streamed answer is one JSON document; this bounds its memory.
constexpr size_t kMaxJsonBodyBytes = 32 * 1024 * 1024;

ErrorEvent MakeError(ErrorKind kind, bool retryable, std::string message) {
  ErrorEvent error;
  error.kind = kind;
  error.retryable = retryable;
  error.message = std::move(message);
  return error;
}

// Receives the HTTP response on the calling thread of Send() and turns it
// into events for the sink as the bytes arrive.
class ResponseHandler : public http::HttpResponseHandler {
 public:
  ResponseHandler(std::string url, ProviderEventSink& sink) : url_(std::move(url)), sink_(sink) {}

  void OnStatus(int status, const http::Headers& headers) override {
    status_ = status;
    headers_ = headers;
    request_id_ = http::FindHeader(headers, "x-request-id");
    std::string type = absl::AsciiStrToLower(http::FindHeader(headers, "content-type"));
    if (status < 200 || status >= 300) {
      mode_ = Mode::kHttpError;
    } else if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(type), "application/json")) {
      mode_ = Mode::kJson;
    } else {
      mode_ = Mode::kSse;
    }
  }

  bool OnBody(std::string_view bytes) override {
    if (!bytes.empty()) body_seen_ = true;
    switch (mode_) {
      case Mode::kHttpError:
        body_.append(bytes.substr(0, kMaxErrorBodyBytes - body_.size()));
        return body_.size() < kMaxErrorBodyBytes;
      case Mode::kJson:
        if (body_.size() + bytes.size() > kMaxJsonBodyBytes) {
          json_too_large_ = true;
          return false;
        }
        body_.append(bytes);
        return true;
      case Mode::kSse:
        sse_.Feed(bytes, [this](const sse::SseFrame& frame) { decoder_.Decode(frame, &events_); });
        if (sse_.overflowed()) {
          decoder_.Fail(MakeError(ErrorKind::kUnknown, false,
                                  absl::StrCat("an event in the stream from ", url_, " exceeds ",
                                               sse::SseDecoder::kDefaultMaxEventBytes, " bytes")),
                        &events_);
        }
        Deliver();
        // Nothing after the terminal event matters; stop reading.
        return !decoder_.done();
      case Mode::kNone:
        break;
    }
    return false;
  }

  // Ends the stream after Send() returned `sent`, delivering whatever
  // terminal event is still due. Returns Stream()'s result.
  absl::Status Complete(const absl::Status& sent, const CancelToken& cancel,
                        int64_t idle_timeout_ms) {
    if (!decoder_.done()) {
      if (sent.code() == absl::StatusCode::kCancelled || cancel.cancelled()) {
        decoder_.Fail(MakeError(ErrorKind::kCancelled, false,
                                absl::StrCat("request cancelled: ", cancel.reason())),
                      &events_);
      } else if (mode_ == Mode::kNone) {
        decoder_.Fail(ConnectionError(sent, idle_timeout_ms), &events_);
      } else if (mode_ == Mode::kHttpError) {
        decoder_.Fail(openai_chat::ClassifyHttpError(status_, headers_, body_, absl::Now()),
                      &events_);
      } else if (mode_ == Mode::kJson) {
        if (json_too_large_) {
          decoder_.Fail(MakeError(ErrorKind::kUnknown, false,
                                  absl::StrCat("the response body of ", url_, " exceeds ",
                                               kMaxJsonBodyBytes, " bytes")),
                        &events_);
        } else if (sent.ok()) {
          decoder_.DecodeNonStreamed(body_, &events_);
        } else {
          decoder_.Fail(CutOffError(sent, idle_timeout_ms), &events_);
        }
      } else {
        sse_.Finish();  // a half-read event is dropped either way
        if (sent.ok()) {
          decoder_.Finish(&events_);  // EOF before the terminal event
        } else {
          decoder_.Fail(CutOffError(sent, idle_timeout_ms), &events_);
        }
      }
    }
    Deliver();
    return result_;
  }

 private:
  enum class Mode { kNone, kHttpError, kJson, kSse };

  ErrorEvent ConnectionError(const absl::Status& sent, int64_t idle_timeout_ms) const {
    switch (sent.code()) {
      case absl::StatusCode::kDeadlineExceeded:
        return TimeoutError(idle_timeout_ms);
      case absl::StatusCode::kInvalidArgument:
      case absl::StatusCode::kFailedPrecondition:
      case absl::StatusCode::kUnimplemented:
        return MakeError(ErrorKind::kInvalidRequest, false,
                         absl::StrCat("request to ", url_, " failed: ", sent.message()));
      default:
        return MakeError(ErrorKind::kNetwork, true,
                         absl::StrCat("request to ", url_, " failed: ", sent.message()));
    }
  }

  ErrorEvent CutOffError(const absl::Status& sent, int64_t idle_timeout_ms) const {
    if (sent.code() == absl::StatusCode::kDeadlineExceeded) return TimeoutError(idle_timeout_ms);
    ErrorKind kind = body_seen_ ? ErrorKind::kPrematureEof : ErrorKind::kNetwork;
    return MakeError(kind, true,
                     absl::StrCat("the response from ", url_, " was cut off: ", sent.message()));
  }

  ErrorEvent TimeoutError(int64_t idle_timeout_ms) const {
    return MakeError(ErrorKind::kTimeout, true,
                     absl::StrCat("no data from ", url_, " for ", idle_timeout_ms, " ms"));
  }

  void Deliver() {
    for (ProviderEvent& event : events_) {
      if (auto* error = std::get_if<ErrorEvent>(&event)) {
        if (error->request_id.empty()) error->request_id = request_id_;
        result_ = openai_chat::ErrorEventToStatus(*error);
      } else if (std::holds_alternative<FinishEvent>(event)) {
        result_ = absl::OkStatus();
      }
      sink_.OnEvent(event);
    }
    events_.clear();
  }

  std::string url_;
  sse::SseDecoder sse_;
  StreamDecoder decoder_;
  ProviderEventSink& sink_;
  std::vector<ProviderEvent> events_;
  absl::Status result_ = absl::UnknownError("the stream produced no terminal event");

  Mode mode_ = Mode::kNone;
  int status_ = 0;
  http::Headers headers_;
  std::string request_id_;
  std::string body_;  // kHttpError and kJson only
  bool body_seen_ = false;
  bool json_too_large_ = false;
};

}  // namespace

OpenAiResponsesProvider::OpenAiResponsesProvider(config::ModelConfig model,
                                                 http::HttpClient& http,
                                                 std::optional<std::string> api_key,
                                                 std::optional<std::string> prompt_cache_key)
    : model_(std::move(model)),
      http_(http),
      api_key_(std::move(api_key)),
      prompt_cache_key_(std::move(prompt_cache_key)) {}

std::string OpenAiResponsesProvider::endpoint() const {
  absl::string_view base = model_.base_url;
  while (absl::ConsumeSuffix(&base, "/")) {
  }
  return absl::StrCat(base, "/responses");
}

absl::Status OpenAiResponsesProvider::Stream(const ModelRequest& request,
                                             ProviderEventSink& sink,
                                             const CancelToken& cancel) {
  http::HttpRequest http_request;
  http_request.method = "POST";
  http_request.url = endpoint();
  if (api_key_.has_value() && !api_key_->empty()) {
    http_request.headers.emplace_back("Authorization", absl::StrCat("Bearer ", *api_key_));
  }
  http_request.headers.emplace_back("Content-Type", "application/json");
  http_request.headers.emplace_back("Accept", "text/event-stream");
  http_request.body = BuildRequestBody(request, model_, prompt_cache_key_);
  http_request.connect_timeout_ms = model_.connect_timeout_ms;
  http_request.idle_timeout_ms = model_.idle_timeout_ms;

  ResponseHandler handler(http_request.url, sink);
  absl::Status sent = cancel.cancelled() ? absl::CancelledError(cancel.reason())
                                         : http_.Send(http_request, handler, cancel);
  return handler.Complete(sent, cancel, model_.idle_timeout_ms);
}

}  // namespace raw::providers::openai_responses

namespace raw::providers {

std::unique_ptr<Provider> MakeOpenAiResponsesProvider(const config::ModelConfig& model,
                                                      http::HttpClient& http,
                                                      std::string api_key,
                                                      const ProviderOptions& options) {
  std::optional<std::string> key;
  if (!api_key.empty()) key = std::move(api_key);
  return std::make_unique<openai_responses::OpenAiResponsesProvider>(model, http, std::move(key),
                                                                     options.prompt_cache_key);
}

}  // namespace raw::providers
