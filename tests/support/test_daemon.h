// TestDaemon: a real rawd process on a private socket with temporary XDG
// directories, for end-to-end tests. It talks to the daemon over real gRPC
// on the Unix socket, and runs the real `raw` binary for CLI tests.
//
// EventStream subscribes on a background thread and lets a test wait for an
// event (condition variable; the timeout only bounds a failing test).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "raw/v1/raw_service.grpc.pb.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {

struct CommandResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
  long max_rss_kb = 0;  // the command's peak resident memory (getrusage)
};

// Runs `argv` with `env` (the whole environment), optionally writing
// `stdin_text`, collecting stdout and stderr until both close.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         const std::string& stdin_text = "");

std::string BinaryPath(const std::string& name);  // <build>/bin/<name>

// A channel to the daemon at `socket_path` that never shares connections
// with other channels (so none left over from a stopped daemon).
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& socket_path);

// Shuts down the daemon listening at `socket_path` (one a client started on
// its own, not a TestDaemon) and waits up to 30 s for its process to exit;
// kills it when it does not. Records a test failure when something fails.
void ShutdownDaemonAt(const std::string& socket_path);

class TestDaemon {
 public:
  // `config_json` is written to the config file as is.
  explicit TestDaemon(const std::string& config_json);
  ~TestDaemon();

  // Starts rawd and waits until its socket listens. Fails (with rawd's
  // stderr) when it exits instead.
  absl::Status Start(const std::vector<std::string>& extra_args = {});
  // Sends `sig` and waits for the exit; returns the exit code (128+signal
  // when killed).
  int Stop(int sig = SIGTERM);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  raw::v1::Raw::Stub& stub();

  // Environment for child processes (rawd, raw): temporary XDG dirs, HOME,
  // RAW_SOCKET, the test API key and `extra_env` entries.
  std::map<std::string, std::string> env() const;
  void SetEnv(const std::string& name, const std::string& value) { extra_env_[name] = value; }
  // A command (absolute path first) that the next Start runs rawd under,
  // such as setpriv with fewer capabilities; it must exec rawd in place.
  void SetLauncher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }

  CommandResult RunRaw(const std::vector<std::string>& args, const std::string& stdin_text = "");

  const std::string& root() const { return root_; }
  const std::string& socket_path() const { return socket_path_; }
  const std::string& state_dir() const { return state_dir_; }
  const std::string& config_path() const { return config_path_; }
  const std::string& workdir() const { return workdir_; }
  std::string ReadStderr() const;
  std::string ReadLog() const;

  // Creates a session (agent "" = default) in workdir().
  std::string CreateSession(const std::string& agent = "");

 private:
  std::string root_, socket_path_, state_dir_, config_path_, workdir_;
  std::map<std::string, std::string> extra_env_;
  std::vector<std::string> launcher_;
  pid_t pid_ = -1;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<raw::v1::Raw::Stub> stub_;
};

class EventStream {
 public:
  EventStream(raw::v1::Raw::Stub& stub, const std::string& session_id, uint64_t after_seq = 0);
  ~EventStream();

  // The first received event (in arrival order, from `from_index` on) for
  // which `pred` holds; nullopt after `timeout`.
  std::optional<raw::v1::Event> WaitFor(const std::function<bool(const raw::v1::Event&)>& pred,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                        size_t from_index = 0);
  // Waits for the TurnEnded of `turn_id`.
  std::optional<raw::v1::Event> WaitForTurnEnd(const std::string& turn_id,
                                               std::chrono::milliseconds timeout =
                                                   std::chrono::seconds(30));
  std::vector<raw::v1::Event> events() const;
  // Events of one turn, in order.
  std::vector<raw::v1::Event> TurnEvents(const std::string& turn_id) const;
  // True once the server ended the stream; its status.
  bool finished() const;
  grpc::Status status() const;

 private:
  grpc::ClientContext ctx_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<raw::v1::Event> events_;
  bool finished_ = false;
  grpc::Status status_;
  std::thread thread_;
};

// Starts a turn under the test's write lease of the session (LeaseFor,
// test_leases.h) and returns its id (fails the test on error).
std::string StartTurn(raw::v1::Raw::Stub& stub, const std::string& session_id,
                      const std::string& text, grpc::Status* status = nullptr);

// The session's display history, its first 1,000 events (fails the test on
// error).
raw::v1::GetHistoryResponse History(raw::v1::Raw::Stub& stub, const std::string& session);

}  // namespace raw::e2e
