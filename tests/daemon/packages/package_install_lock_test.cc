// An install from a URL downloads, unpacks and checks the package before it
// takes the store's lock: while a download is parked, the lock is free and
// another command (a remove) completes; the install then takes the lock
// only to store the entry and write the index.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <future>
#include <optional>
#include <string>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "daemon/http/http_client.h"
#include "daemon/packages/package_ops.h"
#include "gtest/gtest.h"
#include "tests/daemon/packages/package_test_support.h"

namespace raw::packages {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteMinimalPackage;
using testing::WriteTarGz;

// Answers every request with `body`, once the test releases it; tells the
// test when a request has arrived. (The wait is bounded only so that a
// failing test ends.)
class ParkedHttpClient : public http::HttpClient {
 public:
  explicit ParkedHttpClient(std::string body) : body_(std::move(body)) {}

  absl::Status Send(const http::HttpRequest& /*request*/, http::HttpResponseHandler& handler,
                    const CancelToken& /*cancel*/) override {
    if (!arrived_.HasBeenNotified()) arrived_.Notify();
    if (!released_.WaitForNotificationWithTimeout(absl::Seconds(60))) {
      return absl::DeadlineExceededError("the test never released the download");
    }
    handler.OnStatus(200, {});
    handler.OnBody(body_);
    return absl::OkStatus();
  }

  void WaitUntilParked() { arrived_.WaitForNotification(); }
  void Release() { released_.Notify(); }

 private:
  const std::string body_;
  absl::Notification arrived_, released_;
};

// True when nobody holds the store's lock now: the test's own open file
// takes it without waiting (flock locks of two open files exclude each
// other, in one process too), and lets it go at once.
bool LockIsFree(const PackageStore& store) {
  const std::string path = store.root() + "/lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
  EXPECT_TRUE(free || errno == EWOULDBLOCK) << errno;
  close(fd);  // releases it
  return free;
}

TEST(PackageInstallLockTest, ADownloadInProgressDoesNotHoldTheStoreLock) {
  TempDir tmp;
  PackageStore store(tmp.File("data/packages"));
  WriteMinimalPackage(tmp.File("old"), "old");
  const std::string config = tmp.File("config/config.json");
  ASSERT_TRUE(Install(PackageContext{store, config, nullptr}, tmp.File("old"), "old").ok());

  WriteTarGz(tmp.File("kit.tar.gz"),
             {{"raw-package.json",
               R"({"name": "kit", "version": "1.0.0", "description": "d", "exports": {}})"}});
  ParkedHttpClient http(ReadFile(tmp.File("kit.tar.gz")));
  const PackageContext ctx{store, config, &http};
  std::future<absl::StatusOr<InstallResult>> install = std::async(std::launch::async, [&] {
    return Install(ctx, "https://packages.test/kit-1.0.0.tar.gz", std::nullopt);
  });
  http.WaitUntilParked();

  const bool free = LockIsFree(store);
  EXPECT_TRUE(free) << "the install holds the store's lock during its download";
  if (free) {
    // Another command runs to its end meanwhile.
    absl::StatusOr<IndexEntry> removed = Remove(ctx, "old");
    EXPECT_TRUE(removed.ok()) << removed.status();
  }
  http.Release();
  absl::StatusOr<InstallResult> installed = install.get();
  ASSERT_TRUE(installed.ok()) << installed.status();
  EXPECT_EQ(installed->alias, "kit");
  EXPECT_TRUE(LockIsFree(store));
  auto index = PackageIndex::Load(PackageIndex::PathForConfig(config));
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_TRUE(index->aliases.contains("kit"));
  EXPECT_EQ(index->aliases.contains("old"), !free);
  // Nothing of the download is left in staging.
  EXPECT_TRUE(std::filesystem::is_empty(store.root() + "/staging"));
}

}  // namespace
}  // namespace raw::packages
