// VariableStore: read once, cached by definition, failures retried, values
// expanded into text and reported for redaction.
#include "daemon/vars/variable_store.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/json.h"
#include "daemon/vars/redact.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/vars/vars_test_util.h"

namespace raw::vars {
namespace {

using ::raw::vars::testing::EnvVar;
using ::raw::vars::testing::FakeEnv;
using ::raw::vars::testing::FileVar;
using ::raw::vars::testing::ShellVar;
using ::raw::vars::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// An environment that counts its lookups.
struct CountingEnv {
  std::map<std::string, std::string> vars;
  std::atomic<int> lookups{0};
  EnvLookup AsLookup() {
    return [this](const std::string& name) -> std::optional<std::string> {
      ++lookups;
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  }
};

int LineCount(const std::string& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(VariableStoreTest, ReadsOnFirstUseAndCachesForItsLifetime) {
  CountingEnv env;
  env.vars = {{"OPENAI_API_KEY", "sk-first"}};
  VariableStore store(env.AsLookup());
  EXPECT_EQ(env.lookups, 0);  // nothing is read up front
  config::VariableConfig def = EnvVar("OPENAI", "OPENAI_API_KEY");
  EXPECT_EQ(*store.Value(def), "sk-first");
  env.vars["OPENAI_API_KEY"] = "sk-second";
  EXPECT_EQ(*store.Value(def), "sk-first");
  EXPECT_EQ(env.lookups, 1);
}

TEST(VariableStoreTest, CommandRunsOnce) {
  TempDir dir;
  std::string runs = dir.path() + "/runs";
  VariableStore store(FakeEnv({}));
  config::VariableConfig def = ShellVar("GH", "echo run >> '" + runs + "'; echo token-1");
  EXPECT_EQ(*store.Value(def), "token-1");
  EXPECT_EQ(*store.Value(def), "token-1");
  EXPECT_EQ(LineCount(runs), 1);
}

TEST(VariableStoreTest, AChangedDefinitionIsReadAgain) {
  TempDir dir;
  std::string a = dir.Write("a", "value-a\n");
  std::string b = dir.Write("b", "value-b\n");
  VariableStore store(FakeEnv({}));
  EXPECT_EQ(*store.Value(FileVar("K", a)), "value-a");
  EXPECT_EQ(*store.Value(FileVar("K", b)), "value-b");
  // The old definition keeps its own value.
  dir.Write("a", "changed\n");
  EXPECT_EQ(*store.Value(FileVar("K", a)), "value-a");
  config::VariableConfig not_secret = FileVar("K", a);
  not_secret.secret = false;
  EXPECT_EQ(*store.Value(not_secret), "changed");
}

TEST(VariableStoreTest, FailuresAreNotCached) {
  TempDir dir;
  std::string path = dir.path() + "/key";
  VariableStore store(FakeEnv({}));
  absl::StatusOr<std::string> first = store.Value(FileVar("K", path));
  EXPECT_EQ(first.status().code(), absl::StatusCode::kFailedPrecondition);
  dir.Write("key", "now-there\n");
  EXPECT_EQ(*store.Value(FileVar("K", path)), "now-there");
}

TEST(VariableStoreTest, ConcurrentCallersShareOneRead) {
  // The first lookup blocks until released; every other caller either waits
  // for it or finds the cached value. Either way there is one read.
  absl::Notification started;
  absl::Notification release;
  std::atomic<int> lookups{0};
  VariableStore store([&](const std::string&) -> std::optional<std::string> {
    if (lookups++ == 0) started.Notify();
    release.WaitForNotification();
    return "shared-value";
  });
  config::VariableConfig def = EnvVar("K", "K");
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = store.Value(def).value_or("error"); });
  }
  started.WaitForNotification();  // one read is in progress while the others call
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(lookups, 1);
  for (const std::string& r : results) EXPECT_EQ(r, "shared-value");
}

TEST(VariableStoreTest, WaitersGetTheFailureAndTheNextCallRetries) {
  absl::Notification release;
  absl::Mutex mu;
  int lookups = 0;
  bool set = false;
  VariableStore store([&](const std::string&) -> std::optional<std::string> {
    bool first;
    {
      absl::MutexLock lock(&mu);
      first = lookups++ == 0;
    }
    if (first) release.WaitForNotification();
    absl::MutexLock lock(&mu);
    if (!set) return std::nullopt;
    return "late-value";
  });
  config::VariableConfig def = EnvVar("K", "K");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (!store.Value(def).ok()) ++failures;
    });
  }
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 4);
  {
    absl::MutexLock lock(&mu);
    set = true;
  }
  EXPECT_EQ(*store.Value(def), "late-value");
}

TEST(VariableStoreTest, ExpandReplacesReferences) {
  VariableStore store(FakeEnv({{"A_ENV", "alpha"}, {"B_ENV", "beta"}}));
  std::map<std::string, config::VariableConfig> defs = {{"A", EnvVar("A", "A_ENV")},
                                                        {"B", EnvVar("B", "B_ENV")}};
  EXPECT_EQ(*store.Expand("Bearer ${A}", defs), "Bearer alpha");
  EXPECT_EQ(*store.Expand("${A}:${B}:${A}", defs), "alpha:beta:alpha");
  EXPECT_EQ(*store.Expand("$${A} costs $5", defs), "${A} costs $5");
  EXPECT_EQ(*store.Expand("", defs), "");
}

TEST(VariableStoreTest, ExpandErrors) {
  VariableStore store(FakeEnv({}));
  std::map<std::string, config::VariableConfig> defs = {{"A", EnvVar("A", "A_ENV")}};
  EXPECT_EQ(store.Expand("${NOPE}", defs).status(),
            absl::NotFoundError("variable NOPE is not defined under \"variables\""));
  EXPECT_EQ(store.Expand("${A", defs).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Expand("x ${A}", defs).status(),
            absl::FailedPreconditionError("variable A: environment variable A_ENV is not set"));
}

TEST(VariableStoreTest, SecretValuesAreTheSecretOnesReadSoFar) {
  VariableStore store(FakeEnv({{"S1", "secret-one"},
                               {"S2", "secret-one"},
                               {"P", "public-value"},
                               {"SHORT", "abc"},
                               {"UNREAD", "never-read"}}));
  EXPECT_THAT(store.SecretValues(), IsEmpty());
  ASSERT_TRUE(store.Value(EnvVar("S1", "S1")).ok());
  ASSERT_TRUE(store.Value(EnvVar("S2", "S2")).ok());
  ASSERT_TRUE(store.Value(EnvVar("P", "P", /*secret=*/false)).ok());
  ASSERT_TRUE(store.Value(EnvVar("SHORT", "SHORT")).ok());
  // Each value once; non-secret, short and unread ones left out.
  EXPECT_THAT(store.SecretValues(), UnorderedElementsAre("secret-one"));
  ASSERT_TRUE(store.Value(EnvVar("S3", "P")).ok());
  EXPECT_THAT(store.SecretValues(), UnorderedElementsAre("secret-one", "public-value"));
}

// A tool call's arguments are JSON text: a secret with a quote, a
// backslash or a control character reads there escaped, and is hidden so too.
TEST(VariableStoreTest, SecretValuesHoldTheJsonEscapedFormOfSecretsAJsonStringWritesOtherwise) {
  VariableStore store(FakeEnv({{"S", "PW\"Q\\Z12345"}}));
  ASSERT_TRUE(store.Value(EnvVar("S", "S")).ok());
  store.NoteSecret("key\twith-tab");
  EXPECT_THAT(store.SecretValues(), UnorderedElementsAre("PW\"Q\\Z12345", "PW\\\"Q\\\\Z12345",
                                                         "key\twith-tab", "key\\twith-tab"));
  const std::string arguments = Json{{"command", "curl -u me:PW\"Q\\Z12345 x"}}.dump();
  const std::string stored = Redact(arguments, store.SecretValues());
  EXPECT_EQ(stored, R"({"command":"curl -u me:[redacted] x"})");
}

// For the daemon's stop: a command being read ends at once, and none runs
// after; values read before stay.
TEST(VariableStoreTest, CancelCommandsEndsTheRunningCommandAndRunsNoMore) {
  TempDir dir;
  const std::string fifo = dir.path() + "/started";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int started = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(started, 0);
  VariableStore store(FakeEnv({}));
  ASSERT_EQ(*store.Value(ShellVar("EARLY", "echo early")), "early");

  absl::StatusOr<std::string> slow = std::string("not read");
  absl::Notification read;
  std::thread reader([&] {
    slow = store.Value(ShellVar("SLOW", "echo > " + fifo + "; sleep 600; echo late", 600000));
    read.Notify();
  });
  // The command runs once it has written to the FIFO.
  struct pollfd pfd = {started, POLLIN, 0};
  EXPECT_EQ(poll(&pfd, 1, 30000), 1);
  close(started);
  store.CancelCommands("the daemon is shutting down");
  EXPECT_TRUE(read.WaitForNotificationWithTimeout(absl::Seconds(30)));
  reader.join();
  EXPECT_EQ(slow.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(slow.status().message(), HasSubstr("variable SLOW: command sh was not let finish: "
                                                 "the daemon is shutting down"));

  const std::string marker = dir.path() + "/ran";
  absl::StatusOr<std::string> later =
      store.Value(ShellVar("LATER", "touch " + marker + "; echo x"));
  EXPECT_EQ(later.status().code(), absl::StatusCode::kCancelled);
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_EQ(*store.Value(ShellVar("EARLY", "echo early")), "early");
}

}  // namespace
}  // namespace raw::vars
