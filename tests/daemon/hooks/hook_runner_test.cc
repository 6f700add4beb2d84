#include "daemon/hooks/hook_runner.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "daemon/hooks/hook_fields.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::hooks {
namespace {

using config::HookConfig;
using config::HookEvent;
using config::HookFailurePolicy;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class HookRunnerTest : public ::testing::Test {
 protected:
  HookRunnerTest() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "raw-hooks-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) dir_ = std::filesystem::canonical(tmpl).string();
  }
  ~HookRunnerTest() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // A hook running a /bin/sh script with `body`.
  HookConfig Hook(const std::string& name, HookEvent event, const std::string& body,
                  HookFailurePolicy on_failure = HookFailurePolicy::kIgnore) {
    std::string script = Path(name + ".sh");
    {
      std::ofstream out(script, std::ios::trunc);
      out << "#!/bin/sh\n" << body << "\n";
    }
    chmod(script.c_str(), 0755);
    HookConfig hook;
    hook.name = name;
    hook.event = event;
    hook.command = {script};
    hook.on_failure = on_failure;
    hook.timeout_ms = 10000;
    return hook;
  }

  HookOutcome Run(const std::vector<HookConfig>& hooks, HookEvent event,
                  const std::string& tool_name = "builtin/bash", const Json& fields = {}) {
    CancelToken cancel;
    return RunHooks(hooks, event, tool_name, {"session-1", dir_}, fields, cancel);
  }

  std::string Read(const std::string& name) const {
    std::ifstream in(Path(name));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
};

std::string Reply(const std::string& json) { return "cat > /dev/null; echo '" + json + "'"; }

TEST_F(HookRunnerTest, EventNamesRoundTrip) {
  for (HookEvent e : {HookEvent::kSessionStart, HookEvent::kUserPromptSubmit,
                      HookEvent::kPreToolUse, HookEvent::kPostToolUse, HookEvent::kPreCompact,
                      HookEvent::kTurnEnd, HookEvent::kNotification}) {
    EXPECT_EQ(HookEventFromName(HookEventName(e)), e);
  }
  EXPECT_EQ(std::string(HookEventName(HookEvent::kPreToolUse)), "pre_tool_use");
  EXPECT_FALSE(HookEventFromName("PreToolUse").has_value());
}

TEST_F(HookRunnerTest, SilentSuccessIsNoObjection) {
  HookOutcome out = Run({Hook("quiet", HookEvent::kPreToolUse, "cat > /dev/null")},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_EQ(out.hooks_run, 1);
  EXPECT_THAT(out.warnings, IsEmpty());
}

TEST_F(HookRunnerTest, PreToolUseTakesAllowAskAndDeny) {
  HookOutcome out = Run({Hook("a", HookEvent::kPreToolUse,
                              Reply(R"({"decision": "allow", "reason": "read-only"})"))},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kAllow);
  EXPECT_EQ(out.reason, "allowed by hook \"a\": read-only");

  out = Run({Hook("q", HookEvent::kPreToolUse, Reply(R"({"decision": "ask", "reason": "sure?"})"))},
            HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kAsk);
  EXPECT_EQ(out.reason, "hook \"q\" asks for approval: sure?");

  out = Run({Hook("d", HookEvent::kPreToolUse, Reply(R"({"decision": "deny", "reason": "no rm"})"))},
            HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason, "denied by hook \"d\": no rm");
}

TEST_F(HookRunnerTest, ExitTwoDeniesWithStderrAsTheReason) {
  HookOutcome out = Run({Hook("guard", HookEvent::kPreToolUse,
                              "cat > /dev/null; echo '  rm -rf is not allowed  ' >&2; exit 2")},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason, "denied by hook \"guard\": rm -rf is not allowed");
  EXPECT_THAT(out.warnings, IsEmpty());

  out = Run({Hook("mute", HookEvent::kPreToolUse, "exit 2")}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason, "denied by hook \"mute\" (exit code 2, no reason on stderr)");
}

TEST_F(HookRunnerTest, ExitOneWithIgnoreIsAWarningNamingTheFirstStderrLine) {
  HookOutcome out =
      Run({Hook("lint", HookEvent::kPreToolUse, "echo; echo 'lint broke'; echo more >&2; exit 1")},
          HookEvent::kPreToolUse);
  // stdout is not stderr: the first stderr line is "more".
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings,
              ElementsAre("hook \"lint\" exited with code 1: more (on_failure: ignore)"));

  out = Run({Hook("lint", HookEvent::kPreToolUse,
                  "printf '\\n  first line  \\nsecond line\\n' >&2; exit 7")},
            HookEvent::kPreToolUse);
  EXPECT_THAT(out.warnings,
              ElementsAre("hook \"lint\" exited with code 7: first line (on_failure: ignore)"));
}

TEST_F(HookRunnerTest, ExitOneWithBlockDenies) {
  HookOutcome out = Run({Hook("lint", HookEvent::kPreToolUse, "echo 'lint broke' >&2; exit 1",
                              HookFailurePolicy::kBlock)},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason,
            "denied because hook \"lint\" failed: it exited with code 1: lint broke "
            "(on_failure: block)");
  EXPECT_THAT(out.warnings, ElementsAre("hook \"lint\" exited with code 1: lint broke "
                                        "(on_failure: block, so the call was denied)"));
}

TEST_F(HookRunnerTest, TimeoutIsAFailure) {
  HookConfig hook = Hook("slow", HookEvent::kPreToolUse, "exec sleep 100");
  hook.timeout_ms = 300;
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings, ElementsAre("hook \"slow\" timed out after 0.3 s and was killed with "
                                        "its process group (on_failure: ignore)"));
}

TEST_F(HookRunnerTest, CrashIsAFailureNamingTheSignal) {
  HookOutcome out = Run({Hook("crash", HookEvent::kPreToolUse, "kill -SEGV $$",
                              HookFailurePolicy::kBlock)},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_THAT(out.reason, HasSubstr("hook \"crash\" failed: it was killed by SIGSEGV"));
  EXPECT_THAT(out.warnings, ElementsAre(HasSubstr("hook \"crash\" was killed by SIGSEGV")));
}

TEST_F(HookRunnerTest, GarbageStdoutIsMalformedOutput) {
  HookOutcome out =
      Run({Hook("noisy", HookEvent::kPreToolUse, "echo 'checking...'; echo 'all good'")},
          HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings,
              ElementsAre("hook \"noisy\" printed malformed output: stdout is not JSON: "
                          "\"checking...\\nall good\" (on_failure: ignore)"));
}

// What a hook printed is cut (a stderr line to 200 bytes, a deny reason to
// 4,000, a malformed stdout to a snippet) after known secrets are hidden:
// a cut through one would keep its first bytes, which nothing hides later.
TEST_F(HookRunnerTest, SecretsAreHiddenBeforeWhatAHookPrintedIsCut) {
  const std::string secret = "SECRETVALUE-0123456789";
  HookContext context{"session-1", dir_};
  context.redact = [&secret](const std::string& text) {
    return absl::StrReplaceAll(text, {{secret, "[redacted]"}});
  };
  auto run = [&](const std::string& body) {
    CancelToken cancel;
    return RunHooks({Hook("leaky", HookEvent::kPreToolUse, body)}, HookEvent::kPreToolUse,
                    "builtin/bash", context, {}, cancel);
  };
  auto expect_hidden = [&secret](const std::string& text) {
    for (size_t n = 4; n <= secret.size(); ++n) {
      EXPECT_THAT(text, Not(HasSubstr(secret.substr(0, n)))) << text;
    }
  };
  // The stderr line's cut at 200 bytes falls inside the secret.
  HookOutcome out =
      run(absl::StrCat("cat > /dev/null; printf '%0190d' 0 >&2; echo ", secret, " >&2; exit 1"));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_THAT(out.warnings[0], HasSubstr("[redacted]"));
  expect_hidden(out.warnings[0]);
  // The deny reason's at 4,000.
  out = run(absl::StrCat("cat > /dev/null; printf '%03990d' 0 >&2; echo ", secret, " >&2; exit 2"));
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  expect_hidden(out.reason);
  // A malformed stdout's snippet.
  out = run(absl::StrCat("cat > /dev/null; printf '%070d' 0; echo ", secret));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_THAT(out.warnings[0], HasSubstr("malformed output"));
  expect_hidden(out.warnings[0]);
}

TEST_F(HookRunnerTest, WrongJsonTypesAreMalformedOutput) {
  HookOutcome out = Run({Hook("typed", HookEvent::kPreToolUse, Reply(R"({"decision": ["deny"]})"),
                              HookFailurePolicy::kBlock)},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_THAT(out.reason,
              HasSubstr("stdout field \"decision\" must be a string, got an array"));

  out = Run({Hook("typed", HookEvent::kUserPromptSubmit, Reply(R"({"additional_context": 5})"))},
            HookEvent::kUserPromptSubmit);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings, ElementsAre(HasSubstr(
                                "stdout field \"additional_context\" must be a string, got a "
                                "number")));
}

TEST_F(HookRunnerTest, MissingProgramIsAFailure) {
  HookConfig hook = Hook("gone", HookEvent::kPreToolUse, "true");
  hook.command = {Path("not-there.sh")};
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_THAT(out.warnings,
              ElementsAre(HasSubstr(absl::StrCat("hook \"gone\" could not start: program \"",
                                                 Path("not-there.sh"), "\" not found"))));
}

// The session's working directory belongs to the project: a program path
// relative to it (one the config did not resolve) is never run, even when
// the project holds that very file, and with on_failure "block" the call
// is refused rather than let through.
TEST_F(HookRunnerTest, ARelativeProgramPathIsNeverRunFromTheSessionDirectory) {
  HookConfig hook = Hook("guard", HookEvent::kPreToolUse,
                         "touch ran.out; cat > /dev/null; echo '{\"decision\":\"allow\"}'",
                         HookFailurePolicy::kBlock);
  hook.command = {"./guard.sh"};
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_THAT(out.reason, HasSubstr("program \"./guard.sh\" is a relative path"));
  EXPECT_FALSE(std::filesystem::exists(Path("ran.out")));
}

// So is an interpreter's relative script: `sh guard.sh` would read the
// project's guard.sh.
TEST_F(HookRunnerTest, ARelativeScriptOfAnInterpreterIsNeverRunFromTheSessionDirectory) {
  HookConfig hook = Hook("guard", HookEvent::kPreToolUse,
                         "touch ran.out; cat > /dev/null; echo '{\"decision\":\"allow\"}'",
                         HookFailurePolicy::kBlock);
  hook.command = {"sh", "guard.sh"};
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_THAT(out.reason, HasSubstr("script \"guard.sh\" is a relative path"));
  EXPECT_FALSE(std::filesystem::exists(Path("ran.out")));
  // The same script by its absolute path runs.
  hook.command = {"sh", Path("guard.sh")};
  out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kAllow);
}

// A relative script the config could not resolve (behind xargs, env -C,
// in env -S's string) is never run from the session's directory either.
TEST_F(HookRunnerTest, AnUnresolvedRelativeScriptIsNeverRunFromTheSessionDirectory) {
  HookConfig hook = Hook("guard", HookEvent::kPreToolUse,
                         "touch ran.out; cat > /dev/null; echo '{\"decision\":\"allow\"}'",
                         HookFailurePolicy::kBlock);
  for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
           {"xargs", "-0", "sh", "guard.sh"},
           {"env", "-C", ".", "sh", "guard.sh"},
           {"env", "-S", "sh guard.sh"},
           {"timeout", "--nonexistent-option", "5", "sh", "guard.sh"},
       }) {
    hook.command = command;
    HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
    EXPECT_EQ(out.decision, HookDecision::kDeny) << command[0];
    EXPECT_THAT(out.reason, HasSubstr("is a relative path")) << command[0];
    EXPECT_FALSE(std::filesystem::exists(Path("ran.out"))) << command[0];
  }
  // Behind a wrapper taken apart, a relative script is refused as without one.
  hook.command = {"timeout", "5", "sh", "guard.sh"};
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_THAT(out.reason, HasSubstr("script \"guard.sh\" is a relative path"));
  EXPECT_FALSE(std::filesystem::exists(Path("ran.out")));
  hook.command = {"timeout", "5", "sh", Path("guard.sh")};
  out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kAllow);
}

TEST_F(HookRunnerTest, MatcherSelectsToolsForToolEventsOnly) {
  HookConfig bash_only = Hook("bash-only", HookEvent::kPreToolUse, "exit 2");
  bash_only.matcher = "builtin/ba*";
  HookOutcome out = Run({bash_only}, HookEvent::kPreToolUse, "builtin/bash");
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  out = Run({bash_only}, HookEvent::kPreToolUse, "builtin/read_file");
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_EQ(out.hooks_run, 0);

  HookConfig all_mcp = Hook("mcp", HookEvent::kPostToolUse, "echo ran > mcp.out");
  all_mcp.matcher = "mcp/*";  // kText: '*' crosses '/'
  Run({all_mcp}, HookEvent::kPostToolUse, "mcp/github/create_issue");
  EXPECT_EQ(Read("mcp.out"), "ran\n");

  // Hooks of other events never run.
  out = Run({bash_only}, HookEvent::kPostToolUse, "builtin/bash");
  EXPECT_EQ(out.hooks_run, 0);
}

TEST_F(HookRunnerTest, InvalidMatcherIsAFailure) {
  HookConfig hook = Hook("bad", HookEvent::kPreToolUse, "true", HookFailurePolicy::kBlock);
  hook.matcher = "re:(";
  HookOutcome out = Run({hook}, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_THAT(out.warnings, ElementsAre(HasSubstr("hook \"bad\" has an invalid matcher")));
}

TEST_F(HookRunnerTest, HooksRunInOrderAndTheFirstDenyStopsTheRest) {
  std::vector<HookConfig> hooks = {
      Hook("first", HookEvent::kPreToolUse, "echo first >> order.log; " +
                                                Reply(R"({"decision": "allow"})")),
      Hook("second", HookEvent::kPreToolUse,
           "echo second >> order.log; echo 'stop here' >&2; exit 2"),
      Hook("third", HookEvent::kPreToolUse, "echo third >> order.log"),
  };
  HookOutcome out = Run(hooks, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason, "denied by hook \"second\": stop here");
  EXPECT_EQ(out.hooks_run, 2);
  EXPECT_EQ(Read("order.log"), "first\nsecond\n");
}

TEST_F(HookRunnerTest, AskOutranksAllowWhateverTheOrder) {
  std::vector<HookConfig> hooks = {
      Hook("allow1", HookEvent::kPreToolUse, Reply(R"({"decision": "allow"})")),
      Hook("ask1", HookEvent::kPreToolUse, Reply(R"({"decision": "ask", "reason": "one"})")),
      Hook("ask2", HookEvent::kPreToolUse, Reply(R"({"decision": "ask", "reason": "two"})")),
      Hook("allow2", HookEvent::kPreToolUse, Reply(R"({"decision": "allow"})")),
  };
  HookOutcome out = Run(hooks, HookEvent::kPreToolUse);
  EXPECT_EQ(out.decision, HookDecision::kAsk);
  EXPECT_EQ(out.reason, "hook \"ask1\" asks for approval: one");
  EXPECT_EQ(out.hooks_run, 4);
}

TEST_F(HookRunnerTest, UserPromptSubmitBlocksAndJoinsAdditionalContext) {
  std::vector<HookConfig> hooks = {
      Hook("ctx1", HookEvent::kUserPromptSubmit,
           Reply(R"({"additional_context": "Branch: main", "decision": "allow"})")),
      Hook("silent", HookEvent::kUserPromptSubmit, "cat > /dev/null"),
      Hook("ctx2", HookEvent::kUserPromptSubmit, Reply(R"({"additional_context": "Tests: green"})")),
  };
  HookOutcome out = Run(hooks, HookEvent::kUserPromptSubmit, "");
  EXPECT_EQ(out.decision, HookDecision::kNone);  // allow means nothing here
  EXPECT_EQ(out.additional_context, "Branch: main\n\nTests: green");

  out = Run({Hook("secrets", HookEvent::kUserPromptSubmit,
                  Reply(R"({"decision": "block", "reason": "the prompt holds a key"})"))},
            HookEvent::kUserPromptSubmit, "");
  EXPECT_EQ(out.decision, HookDecision::kDeny);
  EXPECT_EQ(out.reason, "blocked by hook \"secrets\": the prompt holds a key");
}

TEST_F(HookRunnerTest, AdditionalContextOfOtherEventsIsIgnored) {
  HookOutcome out = Run({Hook("ctx", HookEvent::kPreToolUse,
                              Reply(R"({"additional_context": "x"})"))},
                        HookEvent::kPreToolUse);
  EXPECT_EQ(out.additional_context, "");
}

TEST_F(HookRunnerTest, EventsWithoutDecisionsCannotBlock) {
  HookOutcome out = Run({Hook("post", HookEvent::kPostToolUse, Reply(R"({"decision": "deny"})"))},
                        HookEvent::kPostToolUse);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings, IsEmpty());

  out = Run({Hook("end", HookEvent::kTurnEnd, "echo nope >&2; exit 2")}, HookEvent::kTurnEnd, "");
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings, ElementsAre("hook \"end\" exited with code 2 (nope), but turn_end "
                                        "cannot be blocked; ignored"));

  out = Run({Hook("start", HookEvent::kSessionStart, "exit 1", HookFailurePolicy::kBlock)},
            HookEvent::kSessionStart, "");
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_THAT(out.warnings, ElementsAre(HasSubstr("but session_start cannot be blocked")));
}

TEST_F(HookRunnerTest, StdinCarriesTheEventDocument) {
  struct Case {
    HookEvent event;
    Json fields;    // built as the loop builds them
    Json expected;  // the shape docs/hooks.md shows
  };
  const Json input = {{"command", "ls"}};
  const Case cases[] = {
      {HookEvent::kSessionStart, SessionStartFields(), Json::object()},
      {HookEvent::kUserPromptSubmit, UserPromptSubmitFields("fix the tests"),
       {{"prompt", "fix the tests"}}},
      {HookEvent::kPreToolUse, PreToolUseFields("builtin/bash", input, "c1"),
       {{"tool_name", "builtin/bash"}, {"tool_input", {{"command", "ls"}}}, {"call_id", "c1"}}},
      {HookEvent::kPostToolUse,
       PostToolUseFields("builtin/bash", input, events::ToolStatus::kDenied, "a\nb\n"),
       {{"tool_name", "builtin/bash"},
        {"tool_input", {{"command", "ls"}}},
        {"tool_result", {{"status", "denied"}, {"content", "a\nb\n"}}}}},
      {HookEvent::kPreCompact, PreCompactFields(CompactTrigger::kAuto), {{"reason", "auto"}}},
      {HookEvent::kTurnEnd, TurnEndFields(events::TurnEndReason::kMaxSteps, "stopped"),
       {{"reason", "max_steps"}, {"message", "stopped"}}},
      {HookEvent::kNotification,
       NotificationFields(events::NoticeLevel::kWarning, "approval needed"),
       {{"level", "warning"}, {"message", "approval needed"}}},
  };
  for (const Case& c : cases) {
    HookConfig hook = Hook("record", c.event,
                           "cat > input.json; "
                           "printf '%s|%s|%s' \"$RAW_HOOK_NAME\" \"$RAW_HOOK_EVENT\" "
                           "\"$RAW_SESSION_ID\" > env.txt; pwd > cwd.txt");
    HookOutcome out = Run({hook}, c.event, "builtin/bash", c.fields);
    ASSERT_EQ(out.hooks_run, 1);
    EXPECT_THAT(out.warnings, IsEmpty());
    Json expected = c.expected;
    expected["event"] = HookEventName(c.event);
    expected["hook"] = "record";
    expected["session_id"] = "session-1";
    expected["cwd"] = dir_;
    absl::StatusOr<Json> got = ParseJson(Read("input.json"));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, expected) << HookEventName(c.event);
    EXPECT_EQ(Read("env.txt"), std::string("record|") + HookEventName(c.event) + "|session-1");
    EXPECT_EQ(Read("cwd.txt"), dir_ + "\n");
  }
}

TEST_F(HookRunnerTest, CancelStopsTheRunningHookAndTheRest) {
  std::string fifo = Path("started.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::vector<HookConfig> hooks = {
      Hook("waits", HookEvent::kPreToolUse, "echo started > started.fifo; exec sleep 100",
           HookFailurePolicy::kBlock),
      Hook("later", HookEvent::kPreToolUse, "echo ran > later.out"),
  };
  CancelToken cancel;
  HookOutcome out;
  std::thread runner(
      [&] { out = RunHooks(hooks, HookEvent::kPreToolUse, "x", {"s", dir_}, Json{}, cancel); });
  {
    std::ifstream started(fifo);  // opens once the hook opened it for writing
    std::string line;
    std::getline(started, line);
  }
  cancel.Cancel();
  runner.join();
  EXPECT_TRUE(out.cancelled);
  EXPECT_EQ(out.decision, HookDecision::kNone);
  EXPECT_EQ(out.hooks_run, 1);
  EXPECT_FALSE(std::filesystem::exists(Path("later.out")));

  out = RunHooks(hooks, HookEvent::kPreToolUse, "x", {"s", dir_}, Json{}, cancel);
  EXPECT_TRUE(out.cancelled);
  EXPECT_EQ(out.hooks_run, 0);
}

}  // namespace
}  // namespace raw::hooks
