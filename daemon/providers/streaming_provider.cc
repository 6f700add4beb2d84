#include "daemon/providers/streaming_provider.h"

#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/time.h"
#include "daemon/http/sse_decoder.h"

namespace raw::providers {
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
  ResponseHandler(std::string url, std::string_view request_id_header, HttpErrorClassifier classify,
                  VendorDecoder& decoder, ProviderEventSink& sink, const config::ModelConfig& model)
      : url_(std::move(url)),
        request_id_header_(request_id_header),
        classify_(classify),
        decoder_(decoder),
        sink_(sink),
        model_(model) {}

  void OnStatus(int status, const http::Headers& headers) override {
    status_ = status;
    headers_ = headers;
    request_id_ = http::FindHeader(headers, request_id_header_);
    std::string type = absl::AsciiStrToLower(http::FindHeader(headers, "content-type"));
    type = std::string(absl::StripLeadingAsciiWhitespace(type));
    if (status < 200 || status >= 300) {
      mode_ = Mode::kHttpError;
    } else if (absl::StartsWith(type, "application/json")) {
      mode_ = Mode::kJson;
    } else if (absl::StartsWith(type, "text/html") ||
               absl::StartsWith(type, "application/xhtml+xml")) {
      // A login page, a proxy's notice or a web UI at the base URL: a page,
      // not an answer, whatever its status says.
      mode_ = Mode::kPage;
      page_type_ = type.substr(0, type.find(';'));
    } else {
      mode_ = Mode::kSse;
      declared_type_ = type.substr(0, type.find(';'));
    }
  }

  // A stream is over at its terminal event; what follows is not read.
  bool Done() const override { return mode_ == Mode::kSse && decoder_.done(); }

  bool OnBody(std::string_view bytes) override {
    if (!bytes.empty()) body_seen_ = true;
    switch (mode_) {
      case Mode::kHttpError:
      case Mode::kPage:
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
        if (!sniffed_) {
          // No event stream starts with '<' (its lines are fields, comments
          // or blank): a page served under another type (text/plain, none)
          // is reported as a page, not as a stream that ended too early.
          const size_t first = bytes.find_first_not_of(" \t\r\n");
          if (first != std::string_view::npos) {
            sniffed_ = true;
            if (bytes[first] == '<') {
              mode_ = Mode::kPage;
              page_type_ = declared_type_.empty() ? "markup (no content type)"
                                                  : absl::StrCat("markup (", declared_type_, ")");
              return OnBody(bytes);
            }
          }
        }
        if (decoder_.done()) return true;  // a client that still delivers
        sse_.Feed(bytes, [this](const http::SseFrame& frame) { decoder_.Decode(frame, &events_); });
        if (sse_.overflowed()) {
          decoder_.Fail(MakeError(ErrorKind::kUnknown, false,
                                  absl::StrCat("an event in the stream from ", url_, " exceeds ",
                                               http::SseDecoder::kDefaultMaxEventBytes, " bytes")),
                        &events_);
        }
        EnforceResponseCap();
        Deliver();
        // Nothing after the terminal event matters (Done()): the client
        // drops the rest, which lets a response that ends keep its
        // connection for the next request.
        return true;
      case Mode::kNone:
        break;
    }
    return false;
  }

  // Ends the stream after Send() returned `sent`, delivering whatever
  // terminal event is still due. Returns Stream()'s result.
  absl::Status Complete(const absl::Status& sent, const CancelToken& cancel,
                        int64_t idle_timeout_ms) {
    if (!decoder_.done() && sent.code() == absl::StatusCode::kDeadlineExceeded &&
        absl::StrContains(sent.message(), "total timeout")) {
      // The stream outlived models.<name>.max_stream_seconds: a slow drip
      // that never finishes. Retrying would only repeat it.
      decoder_.Fail(MakeError(ErrorKind::kTimeout, false,
                              absl::StrCat("the response from ", url_, " took longer than ",
                                           model_.max_stream_ms / 1000, " s (models.", model_.name,
                                           ".max_stream_seconds)")),
                    &events_);
    }
    if (!decoder_.done()) {
      if (sent.code() == absl::StatusCode::kCancelled || cancel.cancelled()) {
        decoder_.Fail(MakeError(ErrorKind::kCancelled, false,
                                absl::StrCat("request cancelled: ", cancel.reason())),
                      &events_);
      } else if (mode_ == Mode::kNone) {
        decoder_.Fail(ConnectionError(sent, idle_timeout_ms), &events_);
      } else if (mode_ == Mode::kHttpError) {
        decoder_.Fail(classify_(status_, headers_, body_, absl::Now()), &events_);
      } else if (mode_ == Mode::kPage) {
        decoder_.Fail(PageError(), &events_);
      } else if (sent.ok() && !body_seen_) {
        // Nothing at all after a 2xx status: the answer was lost on the
        // way (a proxy or the server dropped it); another attempt may get it.
        decoder_.Fail(MakeError(ErrorKind::kPrematureEof, true,
                                absl::StrCat("the response from ", url_, " (HTTP ", status_,
                                             ") had an empty body")),
                      &events_);
      } else if (mode_ == Mode::kJson) {
        if (json_too_large_) {
          decoder_.Fail(MakeError(ErrorKind::kUnknown, false,
                                  absl::StrCat("the response body of ", url_, " exceeds ",
                                               kMaxJsonBodyBytes, " bytes")),
                        &events_);
        } else if (sent.ok()) {
          decoder_.DecodeNonStreamed(body_, &events_);
          EnforceResponseCap();
        } else {
          decoder_.Fail(CutOffError(sent, idle_timeout_ms), &events_);
        }
      } else {
        sse_.Finish();  // a half-read event is dropped either way
        if (sent.ok() || decoder_.answer_complete()) {
          decoder_.Finish(&events_);
        } else {
          decoder_.Fail(CutOffError(sent, idle_timeout_ms), &events_);
        }
      }
    }
    Deliver();
    return result_;
  }

 private:
  enum class Mode { kNone, kHttpError, kPage, kJson, kSse };

  // A 2xx page: reported with the page's title, not retried (the same URL
  // would serve the same page).
  ErrorEvent PageError() const {
    ErrorEvent error = classify_(status_, headers_, body_, absl::Now());
    error.kind = ErrorKind::kUnknown;
    error.retryable = false;
    error.message =
        absl::StrCat("the server at ", url_, " answered with a ", page_type_,
                     " page instead of a model response (", error.message,
                     "); check models.", model_.name, ".base_url");
    return error;
  }

  ErrorEvent ConnectionError(const absl::Status& sent, int64_t idle_timeout_ms) const {
    switch (sent.code()) {
      case absl::StatusCode::kDeadlineExceeded:
        return TimeoutError(sent, idle_timeout_ms);
      case absl::StatusCode::kFailedPrecondition:
        // The connection cannot be made as configured (the server's TLS
        // certificate was refused): the same request would fail the same way.
        return MakeError(ErrorKind::kNetwork, false,
                         absl::StrCat("request to ", url_, " failed: ", sent.message()));
      case absl::StatusCode::kInvalidArgument:
      case absl::StatusCode::kUnimplemented:
        return MakeError(ErrorKind::kInvalidRequest, false,
                         absl::StrCat("request to ", url_, " failed: ", sent.message()));
      default:
        return MakeError(ErrorKind::kNetwork, true,
                         absl::StrCat("request to ", url_, " failed: ", sent.message()));
    }
  }

  ErrorEvent CutOffError(const absl::Status& sent, int64_t idle_timeout_ms) const {
    if (sent.code() == absl::StatusCode::kDeadlineExceeded) {
      return TimeoutError(sent, idle_timeout_ms);
    }
    ErrorKind kind = body_seen_ ? ErrorKind::kPrematureEof : ErrorKind::kNetwork;
    return MakeError(kind, true,
                     absl::StrCat("the response from ", url_, " was cut off: ", sent.message()));
  }

  // `sent` is kDeadlineExceeded: the idle timeout, or a connection that
  // was not made within the connect timeout (HttpClient says which).
  ErrorEvent TimeoutError(const absl::Status& sent, int64_t idle_timeout_ms) const {
    if (absl::StartsWith(sent.message(), "connecting to")) {
      return MakeError(ErrorKind::kTimeout, true,
                       absl::StrCat("request to ", url_, " failed: ", sent.message()));
    }
    return MakeError(ErrorKind::kTimeout, true,
                     absl::StrCat("no data from ", url_, " for ", idle_timeout_ms, " ms (models.",
                                  model_.name, ".idle_timeout_seconds)"));
  }

  // Counts the text, reasoning, reasoning state and tool-call argument
  // bytes of the events about to be delivered, plus what the decoder holds
  // back, against models.<name>.max_response_bytes; at the first event past
  // it, drops the rest and fails the stream, so a hostile endpoint cannot
  // grow the daemon's memory without bound.
  void EnforceResponseCap() {
    for (size_t i = 0; i < events_.size(); ++i) {
      const ProviderEvent& event = events_[i];
      size_t bytes = 0;
      if (const auto* text = std::get_if<TextDeltaEvent>(&event)) bytes = text->text.size();
      if (const auto* reasoning = std::get_if<ReasoningDeltaEvent>(&event)) {
        bytes = reasoning->text.size();
      }
      // Signatures, redacted thinking and encrypted reasoning are kept with
      // the message and sent back with every later request.
      if (const auto* end = std::get_if<ReasoningEndEvent>(&event); end && end->opaque) {
        bytes = end->opaque->data.size();
      }
      if (const auto* call = std::get_if<ToolCallDeltaEvent>(&event)) bytes = call->fragment.size();
      // A call's name, id and bookkeeping count once, when it starts.
      if (const auto* start = std::get_if<ToolCallStartEvent>(&event)) {
        bytes = start->call_id.size() + start->name.size() + kToolCallOverheadBytes;
      }
      if (const auto* end = std::get_if<ToolCallEndEvent>(&event)) {
        // Adapters that send arguments whole (no deltas) count here.
        if (!saw_argument_deltas_) bytes = end->arguments.size();
      }
      if (std::holds_alternative<ToolCallDeltaEvent>(event)) saw_argument_deltas_ = true;
      response_bytes_ += static_cast<int64_t>(bytes);
      if (response_bytes_ <= model_.max_response_bytes) continue;
      events_.resize(i);
      FailOverCap();
      return;
    }
    if (!decoder_.done() &&
        response_bytes_ + static_cast<int64_t>(decoder_.held_bytes()) > model_.max_response_bytes) {
      FailOverCap();
    }
  }

  void FailOverCap() {
    decoder_.Fail(
        MakeError(ErrorKind::kUnknown, false,
                  absl::StrCat("the response from ", url_, " exceeded ", model_.max_response_bytes,
                               " bytes of text, reasoning and tool calls "
                               "(models.",
                               model_.name, ".max_response_bytes)")),
        &events_);
  }

  void Deliver() {
    for (ProviderEvent& event : events_) {
      if (auto* error = std::get_if<ErrorEvent>(&event)) {
        if (error->request_id.empty()) error->request_id = request_id_;
        result_ = ErrorEventToStatus(*error);
      } else if (std::holds_alternative<FinishEvent>(event)) {
        result_ = absl::OkStatus();
      }
      sink_.OnEvent(event);
    }
    events_.clear();
  }

  std::string url_;
  std::string_view request_id_header_;
  HttpErrorClassifier classify_;
  http::SseDecoder sse_;
  VendorDecoder& decoder_;
  ProviderEventSink& sink_;
  const config::ModelConfig& model_;
  std::vector<ProviderEvent> events_;
  int64_t response_bytes_ = 0;
  bool saw_argument_deltas_ = false;
  absl::Status result_ = absl::UnknownError("the stream produced no terminal event");

  Mode mode_ = Mode::kNone;
  int status_ = 0;
  http::Headers headers_;
  std::string request_id_;
  std::string body_;  // kHttpError, kPage and kJson only
  std::string page_type_;  // kPage: the media type
  // kSse: the declared media type, and whether the body's first byte that is
  // not white space was seen (OnBody).
  std::string declared_type_;
  bool sniffed_ = false;
  bool body_seen_ = false;
  bool json_too_large_ = false;
};

}  // namespace

StreamingProvider::StreamingProvider(config::ModelConfig model, http::HttpClient& http,
                                     StreamingApi api)
    : model_(std::move(model)), http_(http), api_(std::move(api)) {
  absl::string_view base = model_.base_url;
  while (absl::ConsumeSuffix(&base, "/")) {
  }
  url_ = absl::StrCat(base, "/", api_.path);
}

void StreamingProvider::Prepare(const ModelRequest& request) {
  if (request.history != nullptr) api_.build_body(request);
}

absl::Status StreamingProvider::Stream(const ModelRequest& request, ProviderEventSink& sink,
                                       const CancelToken& cancel) {
  http::HttpRequest http_request;
  http_request.method = "POST";
  http_request.url = url_;
  http_request.headers = api_.headers;
  http_request.SetBody(api_.build_body(request));
  // The first attempt of a request is the one its step is timed by.
  http::HttpRequest::Times transfer_times;
  const bool timed = request.times != nullptr && request.times->body_built_ns == 0;
  if (timed) {
    request.times->body_built_ns = SteadyNowNs();
    http_request.times = &transfer_times;
  }
  http_request.connect_timeout_ms = model_.connect_timeout_ms;
  http_request.idle_timeout_ms = model_.idle_timeout_ms;
  http_request.total_timeout_ms = model_.max_stream_ms;

  std::unique_ptr<VendorDecoder> decoder = api_.new_decoder();
  ResponseHandler handler(url_, api_.request_id_header, api_.classify_http_error, *decoder, sink,
                          model_);
  absl::Status sent = cancel.cancelled() ? absl::CancelledError(cancel.reason())
                                         : http_.Send(http_request, handler, cancel);
  if (timed) {
    request.times->first_byte_sent_ns = transfer_times.first_byte_sent_ns;
    request.times->network_setup_ns = transfer_times.network_setup_ns;
  }
  return handler.Complete(sent, cancel, model_.idle_timeout_ms);
}

}  // namespace raw::providers
