// The `raw` command line against a real rawd: what a user sees on stdout
// and stderr, exit codes, JSON Lines, and race-free autostart.
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/json.h"
#include "common/paths.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

TEST_F(E2eTest, RawRunStreamsTextToStdoutAndToolActivityToStderr) {
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"echo from-bash"})"}}));
  fake_.Enqueue(chat::TextAnswer("All done."));
  auto r = daemon_->RunRaw({"run", "--cwd", daemon_->workdir(), "please", "run", "it"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("All done."));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("from-bash")));
  EXPECT_THAT(r.err, HasSubstr("bash"));
  auto body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["messages"][1]["content"], "please run it");
}

// `--timings` prints each step's phases after the turn; GetStats holds the
// same timeline. The tool sleeps for a second, which is the tool's time,
// not Raw's: the step's tools phase stays under it.
TEST_F(E2eTest, RawRunTimingsPrintsEachStepWithoutTheToolsOwnTime) {
  const std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"sleep 1"})"}}));
  fake_.Enqueue(chat::TextAnswer("Slept."));
  auto r = daemon_->RunRaw({"run", "--timings", "--session", session, "sleep please"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Slept."));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("Raw's own time")));
  EXPECT_THAT(r.err, HasSubstr("Raw's own time per step"));
  EXPECT_THAT(r.err, HasSubstr("step 1: "));
  EXPECT_THAT(r.err, HasSubstr("step 2: "));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("step 3: ")));
  EXPECT_THAT(r.err, HasSubstr("over 2 steps timed"));

  raw::v1::GetStatsRequest request;
  request.set_session_id(session);
  raw::v1::GetStatsResponse stats;
  grpc::ClientContext ctx;
  ASSERT_TRUE(daemon_->stub().GetStats(&ctx, request, &stats).ok());
  const raw::v1::OverheadStats& o = stats.overhead();
  EXPECT_EQ(o.steps(), 2);
  ASSERT_EQ(o.last_turn_size(), 2);
  for (const raw::v1::StepOverhead& step : o.last_turn()) {
    EXPECT_EQ(step.total_us(), step.pre_request_us() + step.build_us() + step.send_us() +
                                   step.commit_us() + step.tools_us());
    // The provider reported when the body was built and its first byte sent.
    EXPECT_GT(step.build_us(), 0);
    EXPECT_GT(step.send_us(), 0);
  }
  EXPECT_LT(o.last_turn(0).tools_us(), 1'000'000);
  EXPECT_EQ(o.last_turn(1).tools_us(), 0);  // the answer had no calls
  EXPECT_GE(o.p99_us(), o.p50_us());
  EXPECT_GT(o.p50_us(), 0);
}

TEST_F(E2eTest, RawRunJsonPrintsOneEventPerLine) {
  fake_.Enqueue(chat::TextAnswer("Hello JSON."));
  auto r = daemon_->RunRaw({"run", "--json", "--cwd", daemon_->workdir(), "hi"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 4u);
  bool saw_end = false;
  std::string text;
  for (const auto& line : lines) {
    auto j = ParseJson(line);
    ASSERT_TRUE(j.ok()) << line;
    EXPECT_TRUE(j->contains("seq")) << line;
    EXPECT_TRUE(j->contains("session_id")) << line;
    if (j->contains("text_delta")) text += (*j)["text_delta"]["text"].get<std::string>();
    if (j->contains("turn_ended")) saw_end = true;
  }
  EXPECT_TRUE(saw_end);
  EXPECT_EQ(text, "Hello JSON.");
}

TEST_F(E2eTest, RawRunExitsNonZeroWithTheProviderError) {
  fake_.Enqueue(chat::ErrorResponse(401, "Incorrect API key provided", "invalid_request_error",
                                    "invalid_api_key"));
  auto r = daemon_->RunRaw({"run", "--cwd", daemon_->workdir(), "hi"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("Incorrect API key provided"));
}

TEST_F(E2eTest, RawRunContinuesASessionAndSessionsCommandsShowIt) {
  fake_.Enqueue(chat::TextAnswer("First answer."));
  fake_.Enqueue(chat::TextAnswer("Second answer."));
  std::string session = daemon_->CreateSession();
  auto r1 = daemon_->RunRaw({"run", "--session", session, "first question"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  auto r2 = daemon_->RunRaw({"run", "--session", session, "second question"});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_THAT(r2.out, HasSubstr("Second answer."));
  auto body = fake_.requests()[1].BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["messages"].size(), 4u) << "the second turn sees the first";

  auto list = daemon_->RunRaw({"sessions", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(session));
  auto show = daemon_->RunRaw({"sessions", "show", session});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("first question"));
  EXPECT_THAT(show.out, HasSubstr("Second answer."));
  auto show_json = daemon_->RunRaw({"sessions", "show", "--json", session});
  EXPECT_EQ(show_json.exit_code, 0) << show_json.err;
  for (const auto& line : absl::StrSplit(show_json.out, '\n', absl::SkipEmpty())) {
    EXPECT_TRUE(ParseJson(std::string(line)).ok()) << line;
  }
}

TEST_F(E2eTest, ConfigCheckAndDaemonStatusAndStop) {
  auto check = daemon_->RunRaw({"config", "check"});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("ok"));

  std::string bad = daemon_->root() + "/bad.json";
  { std::ofstream(bad) << R"({"agents": {"coder": {"model": "flsh"}}, "models": {"flash": {"method": "openai-chat-completions", "model_id": "m", "base_url": "https://example.invalid/v1"}}})"; }
  auto bad_check = daemon_->RunRaw({"config", "check", "--config", bad});
  EXPECT_NE(bad_check.exit_code, 0);
  EXPECT_THAT(bad_check.out + bad_check.err,
              HasSubstr("agents.coder.model: \"flsh\" is not a defined model (defined: flash)"));

  // A skill folder that does not exist would fail every turn of an agent
  // with skills: the check names it.
  std::string no_skills = daemon_->root() + "/no-skills.json";
  { std::ofstream(no_skills) << R"({"skill_dirs": ["/nonexistent/dir"]})"; }
  auto skills_check = daemon_->RunRaw({"config", "check", "--config", no_skills});
  EXPECT_EQ(skills_check.exit_code, 2);
  EXPECT_THAT(skills_check.out + skills_check.err,
              HasSubstr("skill_dirs[0]: \"/nonexistent/dir\" (/nonexistent/dir) does not exist"));

  // A skill folder that cannot be read is set aside (turns go on without
  // it), and the check names it, as it does a selection turns would fail.
  const std::string skills = daemon_->root() + "/skills";
  std::filesystem::create_directories(skills + "/good");
  std::filesystem::create_directories(skills + "/bad");
  { std::ofstream(skills + "/good/SKILL.md") << "---\nname: good\ndescription: d\n---\nx\n"; }
  { std::ofstream(skills + "/bad/SKILL.md") << "no front matter\n"; }
  std::string broken = daemon_->root() + "/broken-skill.json";
  {
    std::ofstream(broken) << absl::StrCat(
        R"({"skill_dirs": [")", skills, R"("], "agents": {"a": {"skills": ["good"]}, )",
        R"("b": {"skills": ["nothing-like-it"]}, )",
        R"("c": {"tools": {"use": ["builtin/read_file", "builtin/nope", "builtin/nor*"]}}}})");
  }
  auto broken_check = daemon_->RunRaw({"config", "check", "--config", broken});
  EXPECT_EQ(broken_check.exit_code, 2);
  const std::string said = broken_check.out + broken_check.err;
  EXPECT_THAT(said,
              HasSubstr(absl::StrCat("skill_dirs: ", skills, "/bad/SKILL.md: no front matter")));
  EXPECT_THAT(said, HasSubstr("agents.b.skills: skill selection \"nothing-like-it\" matches no "
                              "skill"));
  EXPECT_THAT(said, ::testing::Not(HasSubstr("agents.a.skills")));
  // Every tools.use entry matching no tool, each with its index.
  EXPECT_THAT(said, HasSubstr("agents.c.tools.use[1]: \"builtin/nope\" matches no tool"));
  EXPECT_THAT(said, HasSubstr("agents.c.tools.use[2]: \"builtin/nor*\" matches no tool"));

  auto status = daemon_->RunRaw({"daemon", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr(std::to_string(daemon_->pid())));
  auto stop = daemon_->RunRaw({"daemon", "stop"});
  EXPECT_EQ(stop.exit_code, 0) << stop.err;
  EXPECT_EQ(daemon_->Stop(0), 0) << "rawd exits 0 after Shutdown";
  auto after = daemon_->RunRaw({"daemon", "status"});
  EXPECT_EQ(after.exit_code, 3) << after.out << after.err;
}

// The config decides which commands rawd runs: one that others can write
// is warned about by `raw config check` and by the daemon (its log and
// `raw daemon status`), and still used.
TEST_F(E2eTest, AConfigFileOthersCanWriteIsWarnedAbout) {
  ASSERT_EQ(chmod(daemon_->config_path().c_str(), 0666), 0);
  const std::string warning =
      "the config file " + daemon_->config_path() + " is writable by group and others (mode 0666)";
  auto check = daemon_->RunRaw({"config", "check"});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("ok"));
  EXPECT_THAT(check.err, HasSubstr("raw config check: warning: " + warning));

  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start().ok());
  auto status = daemon_->RunRaw({"daemon", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr(warning));
  EXPECT_THAT(daemon_->ReadLog(), HasSubstr(warning));
}

TEST(CliAutostartTest, TwoClientsRacingStartOneDaemon) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon daemon(TestConfig(fake.base_url()));  // config and dirs only; not started
  fake.Enqueue(chat::TextAnswer("one"));
  fake.Enqueue(chat::TextAnswer("two"));
  CommandResult a, b;
  std::thread ta([&] { a = daemon.RunRaw({"run", "--cwd", daemon.workdir(), "first"}); });
  std::thread tb([&] { b = daemon.RunRaw({"run", "--cwd", daemon.workdir(), "second"}); });
  ta.join();
  tb.join();
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(b.exit_code, 0) << b.err;
  auto status = daemon.RunRaw({"daemon", "status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  auto list = daemon.RunRaw({"sessions", "list", "--json"});
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 2) << list.out;
  EXPECT_EQ(daemon.RunRaw({"daemon", "stop"}).exit_code, 0);
}

// A client that arrives while rawd stops (its socket closed, its turns
// ending) gets the next daemon, which waits for the stopping one's state
// lock, instead of an error. The stop takes over 2 s here: the tool's
// command ignores SIGTERM and is killed only after its grace.
TEST(CliAutostartTest, AClientArrivingDuringAStopGetsTheNextDaemon) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon daemon(TestConfig(fake.base_url()));  // config and dirs only; not started
  const std::string started = daemon.workdir() + "/started";
  ASSERT_EQ(mkfifo(started.c_str(), 0600), 0);
  fake.Enqueue(chat::ToolCallsAnswer(
      {{"c1", "bash", R"({"command":"trap '' TERM; echo > started; sleep 30"})"}}));
  CommandResult turn;
  std::thread running([&] {
    turn = daemon.RunRaw({"run", "--yes", "--cwd", daemon.workdir(), "go"});
  });
  {
    std::ifstream command_runs(started);  // opens once the command opened it
    std::string line;
    std::getline(command_runs, line);
  }
  auto status = daemon.RunRaw({"daemon", "status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  absl::StatusOr<Json> info = ParseJson(status.out);
  ASSERT_TRUE(info.ok()) << status.out;
  const pid_t old_pid = static_cast<pid_t>(std::stol((*info)["pid"].get<std::string>()));
  ASSERT_EQ(kill(old_pid, SIGTERM), 0);
  auto list = daemon.RunRaw({"sessions", "list", "--json"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  running.join();
  auto after = daemon.RunRaw({"daemon", "status", "--json"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  absl::StatusOr<Json> next = ParseJson(after.out);
  ASSERT_TRUE(next.ok()) << after.out;
  EXPECT_NE((*next)["pid"].get<std::string>(), std::to_string(old_pid));
  EXPECT_EQ(daemon.RunRaw({"daemon", "stop"}).exit_code, 0);
}

// Without XDG_RUNTIME_DIR and RAW_SOCKET (an ssh login without a session
// manager, cron), the client that starts rawd, rawd itself and the next
// client all find the socket under the user's state directory, not in /tmp.
TEST(CliAutostartTest, WithoutXdgRuntimeDirTheSocketIsUnderTheStateDirectory) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok());
  TestDaemon daemon(TestConfig(fake.base_url()));  // config and dirs only; not started
  std::map<std::string, std::string> env = daemon.env();
  env.erase("XDG_RUNTIME_DIR");
  env.erase("RAW_SOCKET");
  const std::string socket = env["XDG_STATE_HOME"] + "/raw/run/rawd.sock";
  // Checked first, so that a daemon is never started in (nor one stopped
  // from) a shared place such as /tmp/raw-$UID.
  ASSERT_EQ(ResolveSocketPath([&env](const std::string& name) -> std::optional<std::string> {
              auto it = env.find(name);
              if (it == env.end()) return std::nullopt;
              return it->second;
            }),
            socket);
  const std::string raw = BinaryPath("raw");
  auto start = RunCommand({raw, "daemon", "start"}, env);
  EXPECT_EQ(start.exit_code, 0) << start.err;
  struct stat st;
  EXPECT_EQ(lstat(socket.c_str(), &st), 0) << "no socket at " << socket;
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  auto status = RunCommand({raw, "daemon", "status"}, env);
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr(socket));
  EXPECT_EQ(RunCommand({raw, "daemon", "stop"}, env).exit_code, 0);
}

}  // namespace
}  // namespace raw::e2e
