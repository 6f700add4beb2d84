// raw-dashboard: the browser dashboard's gateway (docs/dashboard.md).
// Connects to rawd as `raw` does (starting it if needed), serves the web app
// and its API on 127.0.0.1 with a fresh access token, prints the one line
//   Raw dashboard: http://127.0.0.1:PORT/#token=TOKEN
// on stdout, and runs until SIGINT or SIGTERM. `--open` hands the browser
// a private file that leads to that address (open_page.h), never the
// address itself, and removes it once the browser has logged in.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "clients/dashboard/api_routes.h"
#include "clients/dashboard/dashboard_args.h"
#include "clients/dashboard/gateway.h"
#include "clients/dashboard/open_page.h"
#include "clients/dashboard/preferences_file.h"
#include "clients/dashboard/server_options.h"
#include "clients/lib/assets.h"
#include "clients/lib/poll_engine.h"
#include "clients/web/access_token.h"
#include "common/mutex_mode.h"
#include "common/paths.h"
#include "common/spawn.h"
#include "common/version.h"

namespace {

using namespace raw::dashboard;

// file://PATH, with every byte but unreserved ones and '/' percent-encoded.
std::string FileUrl(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string url = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      url.push_back(static_cast<char>(c));
    } else {
      url += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return url;
}

// xdg-open URL, detached; a failure is reported, not fatal.
void OpenInBrowser(const std::string& url) {
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "/usr/bin:/bin", ':')) {
    std::string program = absl::StrCat(dir, "/xdg-open");
    if (access(program.c_str(), X_OK) != 0) continue;
    raw::SpawnRequest request;
    request.program = program;
    request.argv = {"xdg-open", url};
    absl::StatusOr<pid_t> pid = raw::SpawnInNewSession(request);
    if (!pid.ok()) break;
    std::thread([pid = *pid] { waitpid(pid, nullptr, 0); }).detach();
    return;
  }
  std::cerr << "raw-dashboard: could not run xdg-open; open the URL yourself\n";
}

}  // namespace

int main(int argc, char** argv) {
  raw::client::UsePollEngine();
  raw::ConfigureMutexDeadlockDetection();
  // A browser that went away is seen as a failed write, not a signal.
  signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<DashboardArgs> args =
      ParseDashboardArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok()) {
    std::cerr << "raw-dashboard: " << args.status().message()
              << "\nRun 'raw-dashboard --help' for usage.\n";
    return 2;
  }
  if (args->help) {
    std::cout << kDashboardUsage;
    return 0;
  }
  if (args->version) {
    std::cout << "raw-dashboard " << raw::kVersion << "\n";
    return 0;
  }
  // The signals are taken by the main thread (blocked in every other one).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  const std::string index = raw::client::FindAsset(self, "dashboard/index.html");
  if (index.empty()) {
    std::cerr << "raw-dashboard: the web app is missing: no share/raw/dashboard/index.html "
                 "beside "
              << self << "\n";
    return 1;
  }
  raw::client::ConnectOptions connect;
  connect.socket_path = args->socket;
  connect.lease_connection = true;  // see poll_engine.h
  absl::StatusOr<raw::client::RawClient> client = raw::client::Connect(connect);
  if (!client.ok()) {
    std::cerr << "raw-dashboard: " << client.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> token = raw::web::NewAccessToken();
  absl::StatusOr<std::string> session_secret = raw::web::NewAccessToken();
  for (const auto* made : {&token, &session_secret}) {
    if (!made->ok()) {
      std::cerr << "raw-dashboard: " << made->status().message() << "\n";
      return 1;
    }
  }
  // StartTurn and Compact wait while rawd prepares the turn, which a
  // `command` variable may stretch to 600 s (docs/variables.md): their own
  // connection waits longer than that instead of the usual 60 s, so a page
  // is never told a prompt failed that rawd then starts.
  raw::client::ConnectOptions slow_connect = connect;
  slow_connect.call_timeout = absl::Minutes(11);
  absl::StatusOr<raw::client::RawClient> slow_client = raw::client::Connect(slow_connect);
  if (!slow_client.ok()) {
    std::cerr << "raw-dashboard: " << slow_client.status().message() << "\n";
    return 1;
  }
  auto gateway = std::make_shared<Gateway>();
  gateway->client = std::make_shared<raw::client::RawClient>(*std::move(client));
  gateway->slow_client = std::make_shared<raw::client::RawClient>(*std::move(slow_client));
  gateway->feeds = std::make_shared<SessionFeeds>(gateway->client);
  gateway->token = *token;
  gateway->session_secret = *session_secret;
  gateway->web_root = std::filesystem::path(index).parent_path().string();
  gateway->pid = getpid();
  gateway->client_name = absl::StrCat("raw-dashboard (pid ", gateway->pid, ")");
  if (args->open) gateway->open_page = std::make_shared<OpenPage>();

  if (absl::StatusOr<raw::RawPaths> paths = raw::ResolvePaths(raw::ProcessEnv()); paths.ok()) {
    gateway->preferences_path = PreferencesPath(paths->state_dir);
  }

  // Without --port, a free port the kernel picks, new on each run: a port
  // used run after run would give the page the same origin every time, which
  // another local user could serve while the gateway is down (the page's
  // preferences follow the user through preferences_file.h instead).
  auto server = raw::web::LocalServer::Start(
      DashboardServerOptions(args->port, *token, *session_secret), DashboardRoutes(gateway));
  if (!server.ok()) {
    std::cerr << "raw-dashboard: " << server.status().message() << "\n";
    return 1;
  }
  if (!(*server)->notice().empty()) {
    std::cerr << "raw-dashboard: " << (*server)->notice() << "; use the address below\n";
  }
  const std::string url = absl::StrCat((*server)->origin(), "/#token=", *token);
  std::cout << "Raw dashboard: " << url << std::endl;
  if (args->open) {
    absl::StatusOr<std::string> page =
        WriteOpenPage(OpenPageDir(raw::ProcessEnv()), (*server)->port(), url);
    if (page.ok()) {
      gateway->open_page->Set(*page);
      OpenInBrowser(FileUrl(*page));
    } else {
      std::cerr << "raw-dashboard: --open: " << page.status().message()
                << "; open the URL yourself\n";
    }
  }
  int sig = 0;
  sigwait(&signals, &sig);
  (*server)->Stop();
  if (gateway->open_page) gateway->open_page->Remove();  // unless a login did already
  // A StartTurn or Compact still waiting for rawd goes on in rawd without
  // the gateway: exit without waiting for its answer (nor running the
  // destructors its thread could still reach).
  if (!gateway->slow_calls->WaitIdle(absl::Seconds(1))) {
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(0);
  }
  return 0;
}
