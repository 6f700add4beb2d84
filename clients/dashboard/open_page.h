// What `raw-dashboard --open` gives the browser: not the tokened address,
// whose command line (xdg-open's, and the browser's when it starts) any
// local user can read in /proc, but a file that sends the browser on to it.
// The file is in the private runtime directory ($XDG_RUNTIME_DIR/raw, else
// /tmp/raw-$UID: mode 0700, the user's own), mode 0600, and is removed as
// soon as the browser has used it (the first login with the token), or at
// the latest when the gateway exits: while it exists, any program of the
// user that reads it has the token (the agent's file tools are kept out of
// the directory: the protected path raw-runtime, docs/tools.md).
#pragma once

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/paths.h"

namespace raw::dashboard {

// The private runtime directory of `env` (the directory of the default
// daemon socket, whatever RAW_SOCKET says).
std::string OpenPageDir(const EnvLookup& env);

// The page once written: removed at the first Remove() or by the
// destructor, whichever comes first. Thread-safe.
class OpenPage {
 public:
  OpenPage() = default;
  ~OpenPage();  // Remove()
  OpenPage(const OpenPage&) = delete;
  OpenPage& operator=(const OpenPage&) = delete;

  // The page is at `path` (from WriteOpenPage).
  void Set(std::string path);
  // Removes the page, if there is one still; later calls do nothing.
  void Remove();

 private:
  absl::Mutex mu_;
  std::string path_ ABSL_GUARDED_BY(mu_);  // "" when none is kept
};

// Writes `dir`/dashboard-PORT.html (creating `dir` as a private directory):
// an HTML page that refreshes to `url` at once and links to it. Returns its
// path.
absl::StatusOr<std::string> WriteOpenPage(const std::string& dir, uint16_t port,
                                          const std::string& url);

}  // namespace raw::dashboard
