#include "mcp_test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/logging.h"
#include "common/subprocess.h"
#include "gtest/gtest.h"

namespace raw::mcp::testing {
namespace {

// The system's programs (Debian's python3 and node), not whatever wrappers
// (version managers' shims) a developer's PATH puts first.
constexpr char kTestPath[] = "/usr/local/bin:/usr/bin:/bin";

std::string McpServersDir() { return std::string(RAW_SOURCE_DIR) + "/tests/mcp-servers"; }

// A TCP connect to 127.0.0.1:port; true when something accepts.
bool CanConnect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

std::string ReferenceServerScript(const std::string& package) {
  return McpServersDir() + "/node_modules/@modelcontextprotocol/" + package + "/dist/index.js";
}

bool ReferenceServersInstalled(std::string* why) {
  for (const char* package : {"server-everything", "server-filesystem"}) {
    if (!std::filesystem::exists(ReferenceServerScript(package))) {
      *why = absl::StrCat("@modelcontextprotocol/", package,
                          " is not installed: run `npm ci` in tests/mcp-servers");
      return false;
    }
  }
  return true;
}

std::string FakeServerScript() {
  return std::string(RAW_SOURCE_DIR) + "/tests/daemon/mcp/fake_mcp_server.py";
}

config::McpServerConfig FakeServer(const std::string& name, std::vector<std::string> flags) {
  config::McpServerConfig config;
  config.name = name;
  config.command = {"python3", FakeServerScript()};
  for (std::string& flag : flags) config.command.push_back(std::move(flag));
  config.startup_timeout_ms = 10000;
  config.call_timeout_ms = 10000;
  return config;
}

config::McpServerConfig EverythingStdio(const std::string& name) {
  config::McpServerConfig config;
  config.name = name;
  config.command = {"node", ReferenceServerScript("server-everything"), "stdio"};
  return config;
}

config::McpServerConfig FilesystemStdio(const std::string& root, const std::string& name) {
  config::McpServerConfig config;
  config.name = name;
  config.command = {"node", ReferenceServerScript("server-filesystem"), root};
  return config;
}

EnvLookup TestEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (name == "PATH") return std::string(kTestPath);
    if (name != "HOME") return std::nullopt;
    const char* value = getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

tools::ToolContext TestContext::Get(std::function<void(const tools::ToolProgress&)> also) {
  tools::ToolContext ctx{"/", settings, cancel};
  ctx.on_progress = [this, also = std::move(also)](const tools::ToolProgress& update) {
    {
      absl::MutexLock lock(&mu);
      progress.push_back(update);
    }
    if (also) also(update);
  };
  return ctx;
}

const tools::ToolSpec* FindSpec(const std::vector<tools::ToolSpec>& specs,
                                const std::string& qualified_name) {
  for (const tools::ToolSpec& spec : specs) {
    if (spec.qualified_name == qualified_name) return &spec;
  }
  return nullptr;
}

std::vector<std::string> QualifiedNames(const std::vector<tools::ToolSpec>& specs) {
  std::vector<std::string> names;
  for (const tools::ToolSpec& spec : specs) names.push_back(spec.qualified_name);
  return names;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "raw-mcp-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) != nullptr) path_ = std::filesystem::canonical(pattern).string();
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

StartGate::StartGate(std::string path) : path_(std::move(path)) {
  if (mkfifo(path_.c_str(), 0600) == 0) fd_ = open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) ADD_FAILURE() << "cannot make the FIFO " << path_ << ": " << strerror(errno);
}

StartGate::~StartGate() {
  if (fd_ >= 0) close(fd_);
  unlink(path_.c_str());
}

void StartGate::Release(const std::string& line) {
  if (fd_ < 0) return;
  const std::string text = line + "\n";
  ssize_t ignored = write(fd_, text.data(), text.size());
  (void)ignored;
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountLines(const std::string& path) {
  std::string text = ReadFile(path);
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

CapturedLog::CapturedLog() {
  char path[] = "/tmp/raw-mcp-log-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return;
  close(fd);
  if (SetLogFile(path, /*also_stderr=*/false)) {
    path_ = path;
  } else {
    unlink(path);
  }
}

std::string CapturedLog::Stop() {
  if (path_.empty()) return "";
  SetLogFile("/nonexistent-dir/raw.log", true);  // back to stderr
  std::string text = ReadFile(path_);
  unlink(path_.c_str());
  path_.clear();
  return text;
}

int CountLinesWith(const std::string& text, const std::string& needle) {
  int count = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, needle)) ++count;
  }
  return count;
}

std::string LastLineWith(const std::string& text, const std::string& needle) {
  std::string last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, needle)) last = std::string(line);
  }
  return last;
}

int64_t FakeClock::NowUnixMs() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

void FakeClock::Advance(int64_t ms) {
  absl::MutexLock lock(&mu_);
  now_ += ms;
}

absl::StatusOr<std::string> ExpandVars(const std::map<std::string, std::string>& vars,
                                       const std::string& value) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t start = value.find("${", pos);
    if (start == std::string::npos) break;
    size_t end = value.find('}', start);
    if (end == std::string::npos) break;
    std::string name = value.substr(start + 2, end - start - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      return absl::NotFoundError(absl::StrCat("variable ", name, " is not defined"));
    }
    out += value.substr(pos, start - pos) + it->second;
    pos = end + 1;
  }
  return out + value.substr(pos);
}

ManagerHarness::ManagerHarness(EnvLookup env, http::HttpClient* http, RedactFn redact,
                               int64_t grace_ms, int64_t hang_ping_timeout_ms) {
  McpManagerOptions options;
  options.redact = std::move(redact);
  options.http = http;
  options.clock = &clock_;
  options.env = std::move(env);
  options.stop_idle_servers = false;
  options.stdin_close_grace_ms = grace_ms;
  options.term_grace_ms = grace_ms;
  options.hang_ping_timeout_ms = hang_ping_timeout_ms;
  options.on_status_change = [this] {
    absl::MutexLock lock(&changes_mu_);
    ++changes_;
  };
  manager_ = std::make_unique<McpManager>(std::move(options));
}

bool ManagerHarness::WaitForState(const std::string& name, ServerState state) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (true) {
    int64_t seen;
    {
      absl::MutexLock lock(&changes_mu_);
      seen = changes_;
    }
    for (const McpServerStatus& status : manager_->Status()) {
      if (status.name == name && status.state == state) return true;
    }
    absl::MutexLock lock(&changes_mu_);
    auto changed = [this, seen]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(changes_mu_) { return changes_ != seen; };
    if (!changes_mu_.AwaitWithDeadline(absl::Condition(&changed), deadline)) return false;
  }
}

ManagerHarness::~ManagerHarness() { manager_->Shutdown(); }

McpSelection ManagerHarness::Select(const std::vector<std::string>& patterns,
                                    const std::vector<config::McpServerConfig>& servers,
                                    const std::string& root_dir) {
  std::map<std::string, config::McpServerConfig> by_name;
  for (const config::McpServerConfig& server : servers) by_name[server.name] = server;
  return manager_->Select(
      patterns, by_name, [this](const std::string& value) { return ExpandVars(vars, value); },
      root_dir);
}

tools::ToolOutput ManagerHarness::Call(const config::McpServerConfig& server,
                                       const std::string& tool, const Json& arguments,
                                       TestContext* context) {
  std::string name = absl::StrCat("mcp/", server.name, "/", tool);
  McpSelection selection = Select({name}, {server});
  const tools::ToolSpec* spec = FindSpec(selection.tools, name);
  if (spec == nullptr) {
    std::string notices;
    for (const std::string& notice : selection.notices) absl::StrAppend(&notices, notice, "\n");
    return tools::ToolOutput::Error(absl::StrCat("test: ", name, " was not selected\n", notices));
  }
  TestContext local;
  TestContext& ctx = context != nullptr ? *context : local;
  return spec->handler(arguments, ctx.Get());
}

bool WaitReadable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1;
}

std::string EverythingHttpServer::Start() {
  absl::StatusOr<std::string> node = FindProgram("node", kTestPath, "");
  if (!node.ok()) return std::string(node.status().message());
  port_ = FreePort();
  if (port_ == 0) return "no free port";
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) return "pipe failed";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // The server logs every request on stdout; nothing reads it.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  std::string script = ReferenceServerScript("server-everything");
  std::vector<std::string> args = {"node", script, "streamableHttp"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = {absl::StrCat("PORT=", port_), absl::StrCat("PATH=", kTestPath)};
  if (const char* home = getenv("HOME")) env.push_back(absl::StrCat("HOME=", home));

  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, node->c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(err[1]);
  if (rc != 0) {
    close(err[0]);
    return absl::StrCat("cannot start node: ", strerror(rc));
  }
  pid_ = pid;
  stderr_fd_ = err[0];
  // Readiness: each line the server writes to stderr is a reason to try the
  // port again ("... listening on port N" comes when it is bound).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string seen;
  while (std::chrono::steady_clock::now() < deadline) {
    if (CanConnect(port_)) return "";
    if (!WaitReadable(stderr_fd_, 100)) continue;
    char buf[4096];
    ssize_t n = read(stderr_fd_, buf, sizeof buf);
    if (n <= 0) return absl::StrCat("server-everything exited: ", seen);
    seen.append(buf, static_cast<size_t>(n));
  }
  return absl::StrCat("server-everything did not listen on port ", port_, ": ", seen);
}

std::string EverythingHttpServer::url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/mcp");
}

EverythingHttpServer::~EverythingHttpServer() {
  if (pid_ > 0) {
    kill(-pid_, SIGKILL);
    int status;
    waitpid(pid_, &status, 0);
  }
  if (stderr_fd_ >= 0) close(stderr_fd_);
}

}  // namespace raw::mcp::testing
