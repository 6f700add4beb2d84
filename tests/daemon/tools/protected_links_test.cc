// Hard links of protected files: another name of a protected file is denied
// like the file (policy/protected_links.h), by the rules' check of a call,
// by a walk, and when a single-file tool runs.

#include "daemon/tools/policy/protected_links.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/protected_paths.h"
#include "daemon/tools/policy/rule_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools::policy {
namespace {

using config::ApprovalMode;
using config::RuleAction;
using ::testing::HasSubstr;
using ::testing::Optional;
using tools::testing::TempDir;
using tools::testing::WriteText;

class ProtectedLinksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = {{"HOME", home_.path()}};
    config_.source_path = home_.Join("project/raw.json");
    agent_.name = "coder";
    WriteText(home_.Join(".ssh/id_ed25519"), "PRIVATE KEY");
    WriteText(home_.Join(".netrc"), "machine x password y");
    WriteText(home_.Join("project/main.cc"), "int main() {}\n");
  }
  EnvLookup Env() {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }
  // The built-in rules, then the agent's own: here one that allows every
  // builtin tool everything.
  RuleSet Rules() {
    config::RuleConfig allow_all;
    allow_all.action = RuleAction::kAllow;
    allow_all.tool = "builtin/*";
    agent_.rules = {allow_all};
    auto set = RuleSet::Compile(agent_.rules, "agents.coder.rules");
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_TRUE(set->PrependRules(ProtectedPathRules(ProtectedPaths(config_, Env()), agent_)).ok());
    return *std::move(set);
  }
  Decision Judge(const RuleSet& rules, const ToolSpec& spec, const std::string& path) {
    return rules.Evaluate(spec, Json{{"path", path}}, home_.Join("project"),
                          ApprovalMode::kAllowAll);
  }
  void Link(const std::string& from, const std::string& to) {
    ASSERT_EQ(link(home_.Join(from).c_str(), home_.Join(to).c_str()), 0) << from << " " << to;
  }

  TempDir home_;
  std::map<std::string, std::string> env_;
  config::Config config_;
  config::AgentConfig agent_;
  ToolSpec read_ = builtin::MakeReadFileTool();
  ToolSpec write_ = builtin::MakeWriteFileTool();
  ToolSpec edit_ = builtin::MakeEditFileTool();
  ToolSpec grep_ = builtin::MakeGrepTool();
};

TEST_F(ProtectedLinksTest, AHardLinkOfAProtectedFileIsDeniedToTheFileTools) {
  Link(".ssh/id_ed25519", "project/notes.txt");
  Link(".netrc", "project/hosts.txt");
  RuleSet rules = Rules();
  for (const ToolSpec& spec : {read_, write_, edit_, grep_}) {
    Decision d = Judge(rules, spec, "notes.txt");
    EXPECT_EQ(d.action, RuleAction::kDeny) << spec.qualified_name << ": " << d.reason;
    EXPECT_THAT(d.reason, HasSubstr("protected path ~/.ssh; an agent lifts it with "
                                    "\"allow_protected_paths\": [\"~/.ssh\"] in agents.coder"));
    EXPECT_THAT(d.reason, HasSubstr(absl::StrCat("(a hard link of ", home_.Join(".ssh/id_ed25519"),
                                                 ") for ", home_.Join("project/notes.txt"))));
  }
  // A protected file (not a directory) too.
  Decision d = Judge(rules, read_, "hosts.txt");
  EXPECT_EQ(d.action, RuleAction::kDeny) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("protected path ~/.netrc; "));
  EXPECT_THAT(d.reason, HasSubstr(absl::StrCat("a hard link of ", home_.Join(".netrc"))));
  // A symlink to the hard link leads to the same file.
  ASSERT_EQ(symlink("notes.txt", home_.Join("project/pointer").c_str()), 0);
  EXPECT_EQ(Judge(rules, read_, "pointer").action, RuleAction::kDeny);
}

TEST_F(ProtectedLinksTest, AllowProtectedPathsLiftsTheHardLinksOfWhatItNames) {
  Link(".ssh/id_ed25519", "project/notes.txt");
  Link(".netrc", "project/hosts.txt");
  agent_.allow_protected_paths = {"~/.ssh"};
  RuleSet rules = Rules();
  EXPECT_EQ(Judge(rules, read_, "notes.txt").action, RuleAction::kAllow);
  EXPECT_EQ(Judge(rules, read_, "hosts.txt").action, RuleAction::kDeny) << "only ~/.ssh is lifted";
}

TEST_F(ProtectedLinksTest, AnOrdinaryFileWithSeveralNamesIsAllowed) {
  Link("project/main.cc", "project/copy.cc");  // as pnpm installs files
  ASSERT_EQ(std::filesystem::hard_link_count(home_.Join("project/main.cc")), 2u);
  RuleSet rules = Rules();
  for (const ToolSpec& spec : {read_, write_, edit_, grep_}) {
    Decision d = Judge(rules, spec, "copy.cc");
    EXPECT_EQ(d.action, RuleAction::kAllow) << spec.qualified_name << ": " << d.reason;
  }
  // A protected file with several names, all inside the protected place,
  // leaves the other files alone.
  Link(".ssh/id_ed25519", ".ssh/id_ed25519.bak");
  EXPECT_EQ(Judge(Rules(), read_, "copy.cc").action, RuleAction::kAllow);
}

// Nothing is kept from one check to the next: a link made by a call in
// between (on either side) is seen by the next check of the same rules.
TEST_F(ProtectedLinksTest, AHardLinkMadeBetweenTwoChecksIsSeen) {
  RuleSet rules = Rules();
  EXPECT_EQ(Judge(rules, read_, "notes.txt").action, RuleAction::kAllow);  // nothing there
  Link(".ssh/id_ed25519", "project/notes.txt");
  EXPECT_EQ(Judge(rules, read_, "notes.txt").action, RuleAction::kDeny);
  // An ordinary file that gets a second name inside a protected directory.
  EXPECT_EQ(Judge(rules, read_, "main.cc").action, RuleAction::kAllow);
  Link("project/main.cc", ".ssh/authorized_keys");
  Decision d = Judge(rules, read_, "main.cc");
  EXPECT_EQ(d.action, RuleAction::kDeny) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr(home_.Join(".ssh/authorized_keys")));
}

// A walk (grep, glob, list_dir) leaves such links out; a single-file tool
// asks about the file it opened, for a link made after the call was
// judged.
TEST_F(ProtectedLinksTest, WalksAndRunningToolsLeaveHardLinksOut) {
  Link(".ssh/id_ed25519", "project/notes.txt");
  Link("project/main.cc", "project/copy.cc");
  RuleSet rules = Rules();
  for (const ToolSpec& spec : {grep_, builtin::MakeGlobTool(), builtin::MakeListDirTool()}) {
    auto withheld = rules.WalkFilterFor(spec, home_.Join("project"), /*user_approved=*/true);
    ASSERT_NE(withheld, nullptr) << spec.qualified_name;
    EXPECT_TRUE(withheld(home_.Join("project/notes.txt"))) << spec.qualified_name;
    EXPECT_FALSE(withheld(home_.Join("project/copy.cc"))) << spec.qualified_name;
    EXPECT_FALSE(withheld(home_.Join("project/main.cc"))) << spec.qualified_name;
  }

  // A tool that names one file walks nothing; it asks about the file it
  // opened, whose reason names the protected file.
  auto check = rules.ProtectedLinkCheck();
  ASSERT_NE(check, nullptr);
  struct stat info;
  ASSERT_EQ(stat(home_.Join("project/notes.txt").c_str(), &info), 0);
  EXPECT_THAT(check(home_.Join("project/notes.txt"), info).value_or(""),
              HasSubstr(home_.Join(".ssh/id_ed25519")));
  // The file it is given is judged, not what the name holds now (the name
  // could have been swapped after the open).
  EXPECT_THAT(check(home_.Join("project/copy.cc"), info).value_or(""),
              HasSubstr(home_.Join(".ssh/id_ed25519")));
  ASSERT_EQ(stat(home_.Join("project/copy.cc").c_str(), &info), 0);
  EXPECT_EQ(check(home_.Join("project/copy.cc"), info), std::nullopt);
  for (const ToolSpec& spec : {read_, edit_, write_}) {
    EXPECT_EQ(rules.WalkFilterFor(spec, home_.Join("project"), true), nullptr);
  }

  // read_file judged before the link existed, run after a bash call of the
  // same batch made it: the tool refuses the file it opened.
  const std::string cwd = home_.Join("project");
  Json args = {{"path", "later.txt"}};
  ASSERT_EQ(rules.Evaluate(read_, args, cwd, ApprovalMode::kAllowAll).action, RuleAction::kAllow);
  Link(".ssh/id_ed25519", "project/later.txt");
  config::ToolSettings settings;
  CancelToken cancel;
  for (const ToolSpec& spec : {read_, edit_, grep_}) {
    ToolContext ctx{cwd, settings, cancel};
    ctx.protected_link = rules.ProtectedLinkCheck();
    ctx.judged_path = home_.Join("project/later.txt");
    Json call = spec.qualified_name == edit_.qualified_name
                    ? Json{{"path", "later.txt"}, {"old_string", "KEY"}, {"new_string", "x"}}
                : spec.qualified_name == grep_.qualified_name
                    ? Json{{"path", "later.txt"}, {"pattern", "KEY"}}
                    : args;
    ToolOutput out = spec.handler(call, ctx);
    EXPECT_EQ(out.status, events::ToolStatus::kError) << spec.qualified_name;
    EXPECT_THAT(out.content, HasSubstr("a hard link of " + home_.Join(".ssh/id_ed25519")))
        << spec.qualified_name;
    EXPECT_THAT(out.content, ::testing::Not(HasSubstr("PRIVATE"))) << spec.qualified_name;
  }
  EXPECT_EQ(tools::testing::ReadText(home_.Join(".ssh/id_ed25519")), "PRIVATE KEY");
  // An ordinary file with two names still reads.
  ToolContext ctx{cwd, settings, cancel};
  ctx.protected_link = rules.ProtectedLinkCheck();
  EXPECT_EQ(read_.handler(Json{{"path", "copy.cc"}}, ctx).status, events::ToolStatus::kOk);
}

// Past the walk's bounds Raw cannot tell: a file with several names on the
// same file system is denied, saying why; one with a single name is not.
TEST_F(ProtectedLinksTest, AProtectedDirectoryTooDeepToWalkDeniesFilesWithSeveralNames) {
  std::string deep = ".gnupg";
  for (int i = 0; i <= ProtectedLinks::kMaxDepth; ++i) deep += "/d";
  std::filesystem::create_directories(home_.Join(deep));
  Link("project/main.cc", "project/copy.cc");
  WriteText(home_.Join("project/single.cc"), "x");
  RuleSet rules = Rules();
  Decision d = Judge(rules, read_, "copy.cc");
  EXPECT_EQ(d.action, RuleAction::kDeny) << d.reason;
  EXPECT_THAT(d.reason, HasSubstr("protected path ~/.gnupg; an agent lifts it with"));
  EXPECT_THAT(d.reason, HasSubstr("Raw cannot tell that the file is not one of them"));
  EXPECT_EQ(Judge(rules, read_, "single.cc").action, RuleAction::kAllow);
  agent_.allow_protected_paths = {"~/.gnupg"};
  EXPECT_EQ(Judge(Rules(), read_, "copy.cc").action, RuleAction::kAllow);
}

// A root of another user makes nothing doubtful: another local user who
// makes /tmp/raw-$UID first, too large or unreadable, cannot have every file
// with several names denied. What it holds that can be seen still counts.
TEST_F(ProtectedLinksTest, ARootOfAnotherUserMakesNothingDoubtful) {
  std::string deep = "runtime";
  for (int i = 0; i <= ProtectedLinks::kMaxDepth; ++i) deep += "/d";
  std::filesystem::create_directories(home_.Join(deep));
  WriteText(home_.Join("runtime/token"), "t");
  Link("runtime/token", "project/token.txt");
  Link("project/main.cc", "project/copy.cc");
  const std::vector<ProtectedLinks::Root> roots = {{home_.Join("runtime"), "protected path r"}};
  const ProtectedLinks mine(roots);
  EXPECT_THAT(mine.CheckPath(home_.Join("project/copy.cc")),
              Optional(HasSubstr("Raw cannot tell that the file is not one of them")));
  const ProtectedLinks foreign(roots, geteuid() + 1);
  EXPECT_EQ(foreign.CheckPath(home_.Join("project/copy.cc")), std::nullopt);
  EXPECT_THAT(foreign.CheckPath(home_.Join("project/token.txt")),
              Optional(HasSubstr("(a hard link of " + home_.Join("runtime/token") + ")")));
}

TEST(ProtectedLinksLiteralTest, OnlyLiteralPathsAreRoots) {
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("/home/u/.ssh"), "/home/u/.ssh");
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("/home/u/.ssh/**"), "/home/u/.ssh");
  EXPECT_EQ(ProtectedLinks::LiteralPathOf(EscapeGlob("/home/a*b?/x")), "/home/a*b?/x");
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("/proc/*/environ"), std::nullopt);
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("re:/home/.*"), std::nullopt);
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("src/**"), std::nullopt);
  EXPECT_EQ(ProtectedLinks::LiteralPathOf("~/.ssh"), std::nullopt);
}

}  // namespace
}  // namespace raw::tools::policy
