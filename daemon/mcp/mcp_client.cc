#include "daemon/mcp/mcp_client.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/thread_start.h"
#include "common/version.h"
#include "daemon/mcp/log_text.h"
#include "daemon/mcp/tool_naming.h"

namespace raw::mcp {
namespace {

// A server that keeps returning cursors is broken; stop well before memory
// becomes a concern.
constexpr int kMaxToolPages = 1000;
// The tools of one list left out for a problem in their entry that are
// named in the log; the rest are counted.
constexpr int kMaxLoggedIgnoredTools = 20;
// The tool definitions of one server, as the JSON it sent (the tools kept:
// well-formed, not needing tasks, first of their name). Far more than any
// model's context could take; a server past it fails to list.
constexpr size_t kMaxToolListBytes = 8 * 1024 * 1024;

bool IsSupportedVersion(const std::string& version) {
  for (const char* supported : kSupportedProtocolVersions) {
    if (version == supported) return true;
  }
  return false;
}

std::string SupportedVersionList() {
  std::vector<std::string> versions(std::begin(kSupportedProtocolVersions),
                                    std::end(kSupportedProtocolVersions));
  return absl::StrJoin(versions, ", ");
}

ProgressUpdate ParseProgress(const Json& params) {
  ProgressUpdate update;
  if (auto it = params.find("progress"); it != params.end() && it->is_number()) {
    update.progress = it->get<double>();
  }
  if (auto it = params.find("total"); it != params.end() && it->is_number()) {
    update.total = it->get<double>();
  }
  if (auto it = params.find("message"); it != params.end() && it->is_string()) {
    update.message = it->get<std::string>();
  }
  return update;
}

// What a server sent is read type by type: nlohmann's value() throws on a
// field of another type, and an exception on a transport thread would end
// the daemon. `object[key]`, or null when `object` is no object or lacks it.
const Json* ServerField(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it != object.end() ? &*it : nullptr;
}

// The string `object[key]`, or "" when it is absent or of another type.
std::string ServerString(const Json& object, const char* key) {
  const Json* value = ServerField(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

// A backstop for what `read` does with a server's messages: every field is
// read type by type, but a slip (a value of an unexpected type read with
// one of nlohmann's throwing accessors) must fail this start or request,
// never end the daemon. Returns read()'s result, or an error naming `what`.
template <typename Read>
auto Guarded(const char* what, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " failed: the server sent a value of an unexpected type (", e.what(), ")"));
  }
}

}  // namespace

std::string FileUri(const std::string& path) {
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (absl::ascii_isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      absl::StrAppend(&uri, absl::StrFormat("%%%02X", c));
    }
  }
  return uri;
}

Json RootsList(const std::string& dir) {
  std::string name = std::filesystem::path(dir).filename().string();
  Json root = {{"uri", FileUri(dir)}};
  if (!name.empty()) root["name"] = name;
  return Json{{"roots", Json::array({root})}};
}

McpClient::McpClient(std::unique_ptr<McpTransport> transport, McpClientOptions options)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      peer_(options_.server_name, *transport_,
            [this](const Message& notification) { OnNotification(notification); },
            [this](const std::string& method, const Json&) -> std::optional<Json> {
              if (method != "roots/list" || options_.root_dir.empty()) return std::nullopt;
              return RootsList(options_.root_dir);
            }),
      message_log_limit_(absl::StrCat("log messages (notifications/message) of mcp server ",
                                      options_.server_name)) {
  if (options_.client_version.empty()) options_.client_version = kVersion;
}

McpClient::~McpClient() {
  Close();
  if (std::string summary = message_log_limit_.TakeSummary(); !summary.empty()) {
    RAW_LOG(Warning) << summary;
  }
}

absl::Status McpClient::Connect(const CancelToken* cancel) {
  {
    absl::MutexLock lock(&mu_);
    if (started_) return absl::FailedPreconditionError("the client was already connected");
    started_ = true;
  }
  absl::Status started = transport_->Start(peer_.Callbacks([this](const absl::Status& reason) {
    {
      absl::MutexLock lock(&mu_);
      alive_ = false;
    }
    if (options_.on_closed) options_.on_closed(reason);
  }));
  if (!started.ok()) {
    Close();
    return started;
  }
  {
    absl::MutexLock lock(&mu_);
    alive_ = true;
  }
  const absl::Time deadline = options_.connect_timeout_ms > 0
                                  ? absl::Now() + absl::Milliseconds(options_.connect_timeout_ms)
                                  : absl::InfiniteFuture();
  // No one else uses the client before Connect returns.
  absl::Status handshake = Guarded("initialize", [&] { return Initialize(cancel, deadline); });
  if (handshake.ok()) {
    absl::MutexLock lock(&session_mu_);
    session_ = 1;
  }
  absl::StatusOr<ToolList> tools = ToolList();
  if (handshake.ok() && server_info().has_tools) {
    tools = Guarded("tools/list", [&] { return ListTools(cancel, deadline); });
  }
  if (!handshake.ok() || !tools.ok()) {
    Close();
    return handshake.ok()
               ? absl::Status(tools.status().code(),
                              absl::StrCat("tools/list failed: ", tools.status().message()))
               : handshake;
  }
  {
    absl::MutexLock lock(&mu_);
    tools_ = std::move(tools->tools);
    left_out_ = std::move(tools->left_out);
    tools_generation_ = 1;
  }
  absl::StatusOr<std::thread> refresher = StartThread(
      absl::StrCat("the tool list refresher of MCP server \"", options_.server_name, "\""),
      [this] { RefresherLoop(); });
  if (!refresher.ok()) {
    // Without it a list_changed would never be acted on: the connection
    // fails as a whole, and the next use starts it again.
    Close();
    return refresher.status();
  }
  refresher_ = *std::move(refresher);
  return absl::OkStatus();
}

absl::StatusOr<Json> McpClient::CallBefore(absl::Time deadline, const std::string& method,
                                           Json params, RequestOptions request) {
  if (deadline == absl::InfiniteFuture()) return peer_.Call(method, std::move(params), request);
  auto past = [&] {
    return absl::DeadlineExceededError(
        absl::StrCat("no answer to ", method, " within ", options_.connect_timeout_ms,
                     " ms of the start (the limit for the handshake and the whole tool list)"));
  };
  const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
  if (left <= 0) return past();
  const bool cut = request.timeout_ms <= 0 || left < request.timeout_ms;
  if (cut) request.timeout_ms = left;
  absl::StatusOr<Json> result = peer_.Call(method, std::move(params), request);
  if (cut && absl::IsDeadlineExceeded(result.status())) return past();
  return result;
}

absl::Status McpClient::Initialize(const CancelToken* cancel, absl::Time deadline) {
  RequestOptions request;
  request.timeout_ms = options_.request_timeout_ms;
  request.cancel = cancel;
  request.send_cancel_notification = false;  // never for initialize
  std::string wanted = kSupportedProtocolVersions[0];
  absl::StatusOr<Json> result;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Json params = {
        {"protocolVersion", wanted},
        {"capabilities",
         options_.root_dir.empty() ? Json::object() : Json{{"roots", Json::object()}}},
        {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
    result = CallBefore(deadline, "initialize", std::move(params), request);
    if (result.ok() || attempt == 1) break;
    // A server may refuse the version with -32602 and list what it speaks.
    std::optional<Json> error = RpcErrorOf(result.status());
    const Json* code = error.has_value() ? ServerField(*error, "code") : nullptr;
    if (code == nullptr || *code != kInvalidParams) break;
    const Json* data = ServerField(*error, "data");
    const Json* supported = data != nullptr ? ServerField(*data, "supported") : nullptr;
    if (supported == nullptr || !supported->is_array()) break;
    std::string choice;
    for (const char* ours : kSupportedProtocolVersions) {
      for (const Json& theirs : *supported) {
        if (choice.empty() && theirs == ours) choice = ours;
      }
    }
    if (choice.empty()) break;
    wanted = choice;
  }
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("initialize failed: ", result.status().message()));
  }
  if (!result->is_object() || !(*result)["protocolVersion"].is_string()) {
    return absl::FailedPreconditionError("initialize failed: the answer has no protocolVersion");
  }
  std::string version = (*result)["protocolVersion"].get<std::string>();
  if (!IsSupportedVersion(version)) {
    return absl::FailedPreconditionError(absl::StrCat("the server speaks MCP revision ", version,
                                                      ", which Raw does not support (Raw speaks ",
                                                      SupportedVersionList(), ")"));
  }
  ServerInfo info;
  info.protocol_version = version;
  if (const Json* server = ServerField(*result, "serverInfo")) {
    info.name = ServerString(*server, "name");
    info.version = ServerString(*server, "version");
  }
  info.instructions = ServerString(*result, "instructions");
  const Json* capabilities = ServerField(*result, "capabilities");
  info.has_tools = capabilities != nullptr && ServerField(*capabilities, "tools") != nullptr;
  {
    absl::MutexLock lock(&mu_);
    info_ = info;
  }
  transport_->SetProtocolVersion(version);
  RETURN_IF_ERROR(peer_.Notify("notifications/initialized", nullptr, cancel));
  transport_->OnInitialized();
  return absl::OkStatus();
}

absl::StatusOr<McpClient::ToolList> McpClient::ListTools(const CancelToken* cancel,
                                                         absl::Time deadline) {
  ToolList list;
  std::vector<McpTool>& tools = list.tools;
  std::set<std::string> names;
  std::set<std::string> cursors;
  std::string cursor;
  size_t list_bytes = 0;
  int ignored = 0;
  RequestOptions request;
  request.timeout_ms = options_.request_timeout_ms;
  request.cancel = cancel;
  for (int page = 0; page < kMaxToolPages; ++page) {
    Json params = Json::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    ASSIGN_OR_RETURN(Json result, CallBefore(deadline, "tools/list", std::move(params), request));
    if (!result.is_object() || !result["tools"].is_array()) {
      return absl::FailedPreconditionError("the tools/list answer has no tools array");
    }
    for (const Json& entry : result["tools"]) {
      absl::StatusOr<McpTool> tool = ParseTool(entry);
      if (!tool.ok()) {
        // A list may hold a great many: the first few are named.
        if (++ignored <= kMaxLoggedIgnoredTools) {
          RAW_LOG(Warning) << "mcp server " << options_.server_name << ": ignoring a tool: "
                           << LogText(std::string(tool.status().message()));
        }
        continue;
      }
      if (tool->task_required) continue;
      if (std::string problem = ToolNameProblem(tool->name); !problem.empty()) {
        // Its qualified name is what rules match; one they cannot name
        // exactly would slip past them.
        RAW_LOG(Warning) << "mcp server " << options_.server_name << ": leaving out tool \""
                         << EscapedToolName(tool->name) << "\": its name has " << problem;
        if (list.left_out.size() < kMaxLeftOutNames) list.left_out.push_back(tool->name);
        continue;
      }
      if (!names.insert(tool->name).second) continue;
      list_bytes += DumpJson(entry).size();
      if (list_bytes > kMaxToolListBytes) {
        return absl::ResourceExhaustedError(
            absl::StrCat("the server's tools take more than ", kMaxToolListBytes, " bytes"));
      }
      tools.push_back(*std::move(tool));
    }
    auto next = result.find("nextCursor");
    if (next == result.end() || !next->is_string() || next->get<std::string>().empty()) {
      std::sort(tools.begin(), tools.end(),
                [](const McpTool& a, const McpTool& b) { return a.name < b.name; });
      if (ignored > kMaxLoggedIgnoredTools) {
        RAW_LOG(Warning) << "mcp server " << options_.server_name << ": ignored "
                         << ignored - kMaxLoggedIgnoredTools << " more tools";
      }
      return list;
    }
    cursor = next->get<std::string>();
    if (!cursors.insert(cursor).second) {
      return absl::FailedPreconditionError("tools/list returned the same cursor twice");
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("tools/list did not end after ", kMaxToolPages, " pages"));
}

void McpClient::OnNotification(const Message& notification) {
  if (notification.method == "notifications/tools/list_changed") {
    absl::MutexLock lock(&mu_);
    refresh_requested_ = true;
    return;
  }
  if (notification.method == "notifications/message" && notification.params.is_object()) {
    const Json& params = notification.params;
    LogRateLimiter::Verdict verdict = message_log_limit_.Admit();
    if (!verdict.summary.empty()) RAW_LOG(Warning) << verdict.summary;
    if (!verdict.log) return;
    const Json* level = ServerField(params, "level");
    const Json* data = ServerField(params, "data");
    std::string level_text = level == nullptr     ? "info"
                             : level->is_string() ? level->get<std::string>()
                                                  : DumpJson(*level);
    std::string data_text = data == nullptr     ? ""
                            : data->is_string() ? data->get<std::string>()
                                                : DumpJson(*data);
    RAW_LOG(Info) << "mcp server " << options_.server_name << " [" << LogText(level_text, 40)
                  << "]: " << LogText(data_text);
  }
  // Other notifications (resources, prompts, cancelled) concern features
  // Raw does not use.
}

void McpClient::RefresherLoop() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](McpClient* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->refresh_requested_ || self->stopping_;
          },
          this));
      if (stopping_) return;
      refresh_requested_ = false;
    }
    absl::StatusOr<ToolList> tools =
        Guarded("tools/list", [&] { return ListTools(nullptr, absl::InfiniteFuture()); });
    if (!tools.ok()) {
      RAW_LOG(Warning) << "mcp server " << options_.server_name
                       << ": refreshing the tool list failed: "
                       << LogText(std::string(tools.status().message()));
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      tools_ = std::move(tools->tools);
      left_out_ = std::move(tools->left_out);
      ++tools_generation_;
    }
    if (options_.on_tools_changed) options_.on_tools_changed();
  }
}

absl::Status McpClient::Reinitialize(uint64_t seen_session, const CancelToken* cancel) {
  // A cancel only needs to wake the wait for another caller's start:
  // absl::Mutex re-evaluates the condition whenever the mutex is released.
  int wake =
      cancel != nullptr ? cancel->OnCancel([this] { absl::MutexLock lock(&session_mu_); }) : 0;
  absl::Status status = StartNewSession(seen_session, cancel);
  if (cancel != nullptr) cancel->RemoveCallback(wake);
  return status;
}

absl::Status McpClient::StartNewSession(uint64_t seen_session, const CancelToken* cancel) {
  {
    absl::MutexLock lock(&session_mu_);
    auto settled = [this, cancel]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(session_mu_) {
      return !starting_session_ || (cancel != nullptr && cancel->cancelled());
    };
    session_mu_.Await(absl::Condition(&settled));
    if (cancel != nullptr && cancel->cancelled()) {
      return absl::CancelledError(
          absl::StrCat("cancelled while a new session was being started: ", cancel->reason()));
    }
    if (session_ != seen_session && !session_lost_) return absl::OkStatus();  // another did it
    starting_session_ = true;
  }
  RAW_LOG(Info) << "mcp server " << options_.server_name
                << ": the server no longer knows the session; starting a new one";
  transport_->ResetSession();
  absl::Status started = Initialize(cancel, absl::InfiniteFuture());
  {
    absl::MutexLock lock(&session_mu_);
    starting_session_ = false;
    session_lost_ = !started.ok();
    if (started.ok()) ++session_;
  }
  RETURN_IF_ERROR(started);
  absl::MutexLock state_lock(&mu_);
  refresh_requested_ = true;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> McpClient::UsableSession(const CancelToken* cancel) {
  uint64_t session;
  bool usable;
  {
    absl::MutexLock lock(&session_mu_);
    session = session_;
    usable = !starting_session_ && !session_lost_;
  }
  if (usable) return session;
  RETURN_IF_ERROR(Reinitialize(session, cancel));
  absl::MutexLock lock(&session_mu_);
  return session_;
}

absl::StatusOr<CallToolResult> McpClient::CallTool(const std::string& name, const Json& arguments,
                                                   const CallOptions& options) {
  return Guarded("tools/call", [&] { return CallToolOnce(name, arguments, options); });
}

absl::StatusOr<CallToolResult> McpClient::CallToolOnce(const std::string& name,
                                                       const Json& arguments,
                                                       const CallOptions& options) {
  ASSIGN_OR_RETURN(uint64_t seen_session, UsableSession(options.cancel));
  RequestOptions request;
  request.timeout_ms = options.timeout_ms;
  request.cancel = options.cancel;
  if (options.on_progress) {
    request.on_progress = [&options](const Json& params) {
      options.on_progress(ParseProgress(params));
    };
  }
  for (int attempt = 0;; ++attempt) {
    Json params = {{"name", name}, {"arguments", arguments.is_null() ? Json::object() : arguments}};
    absl::StatusOr<Json> result = peer_.Call("tools/call", std::move(params), request);
    if (!result.ok() && IsSessionExpired(result.status()) && attempt == 0) {
      RETURN_IF_ERROR(Reinitialize(seen_session, options.cancel));
      continue;
    }
    if (!result.ok()) return result.status();
    return ParseCallToolResult(*result);
  }
}

absl::Status McpClient::Ping(int64_t timeout_ms) {
  RequestOptions request;
  request.timeout_ms = timeout_ms;
  return peer_.Call("ping", Json::object(), request).status();
}

std::vector<McpTool> McpClient::tools() const {
  absl::MutexLock lock(&mu_);
  return tools_;
}

std::vector<std::string> McpClient::left_out_tools() const {
  absl::MutexLock lock(&mu_);
  return left_out_;
}

uint64_t McpClient::tools_generation() const {
  absl::MutexLock lock(&mu_);
  return tools_generation_;
}

bool McpClient::WaitForToolsGeneration(uint64_t generation, int64_t timeout_ms) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, generation]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return tools_generation_ >= generation; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Milliseconds(timeout_ms));
}

ServerInfo McpClient::server_info() const {
  absl::MutexLock lock(&mu_);
  return info_;
}

bool McpClient::alive() const {
  {
    absl::MutexLock lock(&mu_);
    if (!alive_ || stopping_) return false;
  }
  return !peer_.shut_down();
}

void McpClient::Close() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    alive_ = false;
  }
  // Unavailable, not Cancelled: a call of another session still waiting
  // was not cancelled by anyone, and its model is told what happened.
  peer_.Shutdown(absl::UnavailableError("the server was stopped and its connection closed"));
  if (refresher_.joinable()) refresher_.join();
  transport_->Close();
}

}  // namespace raw::mcp
