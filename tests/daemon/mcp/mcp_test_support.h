// Helpers shared by the MCP tests: where the reference servers and the fake
// server live, server definitions for them, a ToolContext, a temporary
// directory, a controllable clock, and a running Streamable HTTP
// server-everything on a free loopback port.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "common/paths.h"
#include "common/time.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/mcp/mcp_manager.h"
#include "daemon/tools/tool.h"

namespace raw::mcp::testing {

// tests/mcp-servers/node_modules/@modelcontextprotocol/<package>/dist/index.js
std::string ReferenceServerScript(const std::string& package);
// False (with a message for GTEST_SKIP) when `npm ci` was not run.
bool ReferenceServersInstalled(std::string* why);
std::string FakeServerScript();

config::McpServerConfig FakeServer(const std::string& name, std::vector<std::string> flags = {});
config::McpServerConfig EverythingStdio(const std::string& name = "everything");
config::McpServerConfig FilesystemStdio(const std::string& root, const std::string& name = "fs");

// What stdio servers of the tests inherit: a system PATH and HOME.
EnvLookup TestEnv();

// A ToolContext whose cancel token and progress sink the test controls.
struct TestContext {
  config::ToolSettings settings;
  CancelToken cancel;
  absl::Mutex mu;
  std::vector<tools::ToolProgress> progress;
  tools::ToolContext Get(std::function<void(const tools::ToolProgress&)> also = nullptr);
};

// Finds the spec named `qualified_name`, or null.
const tools::ToolSpec* FindSpec(const std::vector<tools::ToolSpec>& specs,
                                const std::string& qualified_name);
std::vector<std::string> QualifiedNames(const std::vector<tools::ToolSpec>& specs);

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A FIFO at `path` that holds the starts of fake servers given
// `--start-gate path`: each reads a line from it before anything else (and
// a server given `--stall-gate path` reads one after its first call).
// Created when the test wants the next starts held. It is kept open for
// reading and writing, so that a server's open never waits and a line
// written before the server reads it stays; closing it on destruction lets
// a waiting server through (it reads the end of the FIFO).
class StartGate {
 public:
  explicit StartGate(std::string path);
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;
  // Lets one start through: the one waiting, or else the next. A stalled
  // server reads `line` to choose what it does next.
  void Release(const std::string& line = "go");

 private:
  std::string path_;
  int fd_ = -1;
};

void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);
int CountLines(const std::string& path);

// The daemon's log goes to a file of its own while this lives (ok() says
// whether it could be made); Stop() sends it back to stderr and returns what
// was logged, removing the file.
class CapturedLog {
 public:
  CapturedLog();
  ~CapturedLog() { (void)Stop(); }
  bool ok() const { return !path_.empty(); }
  std::string Stop();

 private:
  std::string path_;
};
// How many lines of `text` hold `needle`; and the last that does ("" if none).
int CountLinesWith(const std::string& text, const std::string& needle);
std::string LastLineWith(const std::string& text, const std::string& needle);

class FakeClock : public Clock {
 public:
  int64_t NowUnixMs() const override;
  void Advance(int64_t ms);

 private:
  mutable absl::Mutex mu_;
  int64_t now_ ABSL_GUARDED_BY(mu_) = 1'700'000'000'000;
};

// `node server-everything streamableHttp` on a free 127.0.0.1 port; ready
// once the port accepts connections (waited for with connect(), driven by
// the child's stderr so no time is spent sleeping). Killed with its group
// on destruction.
class EverythingHttpServer {
 public:
  EverythingHttpServer() = default;
  ~EverythingHttpServer();
  // Empty on success, else what went wrong.
  std::string Start();
  std::string url() const;
  int port() const { return port_; }

 private:
  int pid_ = -1;
  int port_ = 0;
  int stderr_fd_ = -1;
};

// A manager on a FakeClock (no idle thread, short shutdown graces:
// `grace_ms` for both stdin_close_grace_ms and term_grace_ms;
// `hang_ping_timeout_ms` as McpManagerOptions has it) and a way to select
// and call fake-server tools in one line.
class ManagerHarness {
 public:
  explicit ManagerHarness(EnvLookup env = TestEnv(), http::HttpClient* http = nullptr,
                          RedactFn redact = nullptr, int64_t grace_ms = 200,
                          int64_t hang_ping_timeout_ms = 0);
  ~ManagerHarness();

  McpManager& manager() { return *manager_; }
  FakeClock& clock() { return clock_; }

  // Selects `patterns` among `servers`, expanding "${NAME}" from `vars`;
  // `root_dir` is the root offered to servers with `roots`.
  McpSelection Select(const std::vector<std::string>& patterns,
                      const std::vector<config::McpServerConfig>& servers,
                      const std::string& root_dir = "");
  // Selects mcp/<server>/<tool> and calls it.
  tools::ToolOutput Call(const config::McpServerConfig& server, const std::string& tool,
                         const Json& arguments, TestContext* context = nullptr);
  // Waits (up to 10 s) until the server named `name` is in `state`.
  bool WaitForState(const std::string& name, ServerState state);

  std::map<std::string, std::string> vars;

 private:
  FakeClock clock_;
  absl::Mutex changes_mu_;
  int64_t changes_ ABSL_GUARDED_BY(changes_mu_) = 0;  // status changes so far
  std::unique_ptr<McpManager> manager_;
};

// "${NAME}" replaced by vars[NAME]; NotFound for an unknown name.
absl::StatusOr<std::string> ExpandVars(const std::map<std::string, std::string>& vars,
                                       const std::string& value);

// Polls `fd` (a pidfd) until readable or `timeout_ms`; true when readable.
bool WaitReadable(int fd, int timeout_ms);

}  // namespace raw::mcp::testing
