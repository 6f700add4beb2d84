#include "daemon/mcp/json_rpc_peer.h"

#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "daemon/mcp/log_text.h"

namespace raw::mcp {
namespace {

constexpr char kRpcErrorPayload[] = "raw.mcp/rpc-error";

absl::Status ErrorResponseStatus(const Message& message) {
  std::string text = absl::StrCat("the server answered with error ", message.error_code, ": ",
                                  message.error_message);
  absl::Status status = message.error_code == kMethodNotFound ? absl::UnimplementedError(text)
                                                              : absl::FailedPreconditionError(text);
  Json error = {{"code", message.error_code}, {"message", message.error_message}};
  if (!message.error_data.is_null()) error["data"] = message.error_data;
  status.SetPayload(kRpcErrorPayload, absl::Cord(DumpJson(error)));
  return status;
}

}  // namespace

std::optional<Json> RpcErrorOf(const absl::Status& status) {
  auto payload = status.GetPayload(kRpcErrorPayload);
  if (!payload.has_value()) return std::nullopt;
  absl::StatusOr<Json> error = ParseJson(std::string(*payload));
  if (!error.ok()) return std::nullopt;
  return *std::move(error);
}

JsonRpcPeer::JsonRpcPeer(std::string server_name, McpTransport& transport,
                         NotificationHandler on_notification, RequestHandler on_request)
    : server_name_(std::move(server_name)),
      transport_(transport),
      on_notification_(std::move(on_notification)),
      on_request_(std::move(on_request)),
      answer_log_limit_(absl::StrCat("failed answers to mcp server ", server_name_)),
      invalid_log_limit_(
          absl::StrCat("messages mcp server ", server_name_, " sent that could not be handled")) {}

JsonRpcPeer::~JsonRpcPeer() {
  for (LogRateLimiter* limit : {&answer_log_limit_, &invalid_log_limit_}) {
    if (std::string summary = limit->TakeSummary(); !summary.empty()) {
      RAW_LOG(Warning) << summary;
    }
  }
}

bool JsonRpcPeer::AdmitInvalidLog() {
  LogRateLimiter::Verdict verdict = invalid_log_limit_.Admit();
  if (!verdict.summary.empty()) RAW_LOG(Warning) << verdict.summary;
  return verdict.log;
}

TransportCallbacks JsonRpcPeer::Callbacks(std::function<void(const absl::Status&)> on_closed) {
  TransportCallbacks callbacks;
  callbacks.on_message = [this](const Json& message) { OnMessage(message); };
  callbacks.on_request_failed = [this](const Json& id, const absl::Status& status) {
    OnRequestFailed(id, status);
  };
  callbacks.on_closed = [this, on_closed = std::move(on_closed)](const absl::Status& reason) {
    Shutdown(reason);
    if (on_closed) on_closed(reason);
  };
  return callbacks;
}

absl::StatusOr<Json> JsonRpcPeer::Call(const std::string& method, Json params,
                                       const RequestOptions& options) {
  auto pending = std::make_shared<Pending>();
  pending->wants_progress = static_cast<bool>(options.on_progress);
  int64_t id;
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_.has_value()) return *shutdown_;
    id = next_id_++;
    pending_[id] = pending;
  }
  if (pending->wants_progress) {
    if (!params.is_object()) params = Json::object();
    params["_meta"]["progressToken"] = id;
  }
  if (absl::Status sent = transport_.Send(MakeRequest(id, method, std::move(params))); !sent.ok()) {
    absl::MutexLock lock(&mu_);
    pending_.erase(id);
    return sent;
  }
  // A cancel only needs to wake the waiter below: absl::Mutex re-evaluates
  // the await condition whenever the mutex is released.
  int callback_id = 0;
  if (options.cancel != nullptr) {
    callback_id = options.cancel->OnCancel([this] { absl::MutexLock lock(&mu_); });
  }
  const absl::Time deadline = options.timeout_ms > 0
                                  ? absl::Now() + absl::Milliseconds(options.timeout_ms)
                                  : absl::InfiniteFuture();
  const CancelToken* cancel = options.cancel;
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return pending->done || !pending->progress.empty() ||
           (cancel != nullptr && cancel->cancelled());
  };
  absl::StatusOr<Json> outcome;
  while (true) {
    std::deque<Json> progress;
    bool timed_out = false;
    bool done = false;
    {
      absl::MutexLock lock(&mu_);
      timed_out = !mu_.AwaitWithDeadline(absl::Condition(&ready), deadline);
      progress.swap(pending->progress);
      if (pending->done) {
        pending_.erase(id);
        outcome = std::move(pending->result);
        done = true;
      }
    }
    // Progress that came before the response is reported first.
    for (const Json& params_of_progress : progress) options.on_progress(params_of_progress);
    if (done) break;
    if (cancel != nullptr && cancel->cancelled()) {
      Abandon(id, options, cancel->reason());
      outcome = absl::CancelledError(absl::StrCat(method, " was cancelled: ", cancel->reason()));
      break;
    }
    if (timed_out) {
      Abandon(id, options, "timed out");
      outcome = absl::DeadlineExceededError(
          absl::StrCat("no answer to ", method, " within ", options.timeout_ms, " ms"));
      break;
    }
  }
  if (options.cancel != nullptr) options.cancel->RemoveCallback(callback_id);
  return outcome;
}

void JsonRpcPeer::Abandon(int64_t id, const RequestOptions& options, const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    pending_.erase(id);
    if (shutdown_.has_value()) return;
  }
  // The request's own transfer is released first; the cancellation is not
  // waited for, so a server that stalls on it cannot hold the caller.
  transport_.Abandon(Json(id));
  if (options.send_cancel_notification) {
    transport_.SendDetached(
        MakeNotification("notifications/cancelled", {{"requestId", id}, {"reason", reason}}));
  }
}

absl::Status JsonRpcPeer::Notify(const std::string& method, Json params,
                                 const CancelToken* cancel) {
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_.has_value()) return *shutdown_;
  }
  Json message = MakeNotification(method, std::move(params));
  return cancel != nullptr ? transport_.SendUnlessCancelled(message, *cancel)
                           : transport_.Send(message);
}

void JsonRpcPeer::Shutdown(const absl::Status& reason) {
  absl::MutexLock lock(&mu_);
  if (!shutdown_.has_value()) shutdown_ = reason.ok() ? absl::CancelledError("closed") : reason;
  for (auto& [id, pending] : pending_) {
    if (!pending->done) {
      pending->done = true;
      pending->result = *shutdown_;
    }
  }
}

bool JsonRpcPeer::shut_down() const {
  absl::MutexLock lock(&mu_);
  return shutdown_.has_value();
}

void JsonRpcPeer::Complete(int64_t id, absl::StatusOr<Json> result) {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(id);
  if (it == pending_.end() || it->second->done) return;  // late or duplicate
  it->second->done = true;
  it->second->result = std::move(result);
}

void JsonRpcPeer::OnRequestFailed(const Json& id, const absl::Status& status) {
  if (id.is_number_integer()) Complete(id.get<int64_t>(), status);
}

void JsonRpcPeer::OnMessage(const Json& value) {
  // A backstop: the handlers read what the server sent type by type, but a
  // value of an unexpected type that slipped through must not throw on a
  // transport thread, which would end the daemon. A request is answered
  // -32603 (in HandleMessage); anything else is logged and dropped.
  try {
    HandleMessage(value);
  } catch (const nlohmann::json::exception& e) {
    if (AdmitInvalidLog()) {
      RAW_LOG(Warning) << "mcp server " << server_name_
                       << ": a message could not be handled: " << e.what();
    }
  }
}

void JsonRpcPeer::HandleMessage(const Json& value) {
  absl::StatusOr<Message> message = ClassifyMessage(value);
  if (!message.ok()) {
    if (AdmitInvalidLog()) {
      RAW_LOG(Warning) << "mcp server " << server_name_
                       << ": ignoring an invalid JSON-RPC message: "
                       << LogText(std::string(message.status().message()));
    }
    return;
  }
  switch (message->kind) {
    case MessageKind::kResponse:
      if (message->id.is_number_integer()) {
        Complete(message->id.get<int64_t>(), std::move(message->result));
      }
      return;
    case MessageKind::kErrorResponse:
      if (message->id.is_number_integer()) {
        Complete(message->id.get<int64_t>(), ErrorResponseStatus(*message));
      }
      return;
    case MessageKind::kRequest: {
      Json reply;
      try {
        std::optional<Json> result;
        if (message->method == "ping") {
          result = Json::object();
        } else if (on_request_) {
          result = on_request_(message->method, message->params);
        }
        reply = result.has_value() ? MakeResult(message->id, *std::move(result))
                                   : MakeError(message->id, kMethodNotFound,
                                               absl::StrCat("Method not found: ", message->method));
      } catch (const nlohmann::json::exception& e) {
        if (AdmitInvalidLog()) {
          RAW_LOG(Warning) << "mcp server " << server_name_ << ": could not handle its "
                           << LogText(message->method, 200) << " request: " << e.what();
        }
        reply = MakeError(message->id, kInternalError,
                          absl::StrCat("the client could not handle this request: ", e.what()));
      }
      if (absl::Status sent = transport_.Send(reply); !sent.ok()) {
        LogRateLimiter::Verdict verdict = answer_log_limit_.Admit();
        if (!verdict.summary.empty()) RAW_LOG(Warning) << verdict.summary;
        if (verdict.log) {
          RAW_LOG(Warning) << "mcp server " << server_name_ << ": could not answer "
                           << LogText(message->method, 200) << ": "
                           << LogText(std::string(sent.message()));
        }
      }
      return;
    }
    case MessageKind::kNotification:
      break;
  }
  if (message->method == "notifications/progress") {
    const Json& params = message->params;
    if (!params.is_object() || !params.contains("progressToken") ||
        !params["progressToken"].is_number_integer()) {
      return;
    }
    absl::MutexLock lock(&mu_);
    auto it = pending_.find(params["progressToken"].get<int64_t>());
    if (it != pending_.end() && it->second->wants_progress && !it->second->done) {
      it->second->progress.push_back(params);
    }
    return;
  }
  if (on_notification_) on_notification_(*message);
}

}  // namespace raw::mcp
