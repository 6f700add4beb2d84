// The rules' judgement of one file tool call or bash call: what the turn
// pays in its commit phase for each call (tool_batch.cc Gate) before the
// call runs.
// The rules are the built-in protected paths (protected_paths.h) for a home
// directory with the usual layout, put before an agent's own rules, as
// loop/turn_planner.cc builds them.
//
//   build/bin/rule_eval_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/policy/protected_paths.h"
#include "daemon/tools/policy/rule_set.h"

namespace raw::tools::policy {
namespace {

namespace fs = std::filesystem;

// A home directory holding the secret stores and a project, removed at exit.
class Home {
 public:
  Home() {
    std::string pattern = (fs::temp_directory_path() / "raw-rule-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    root_ = pattern;
    for (const char* dir : {".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube",
                            ".config/raw", "project/src"}) {
      fs::create_directories(root_ / dir);
    }
    std::ofstream(root_ / "project/src/main.cc") << "int main() {}\n";
  }
  ~Home() {
    std::error_code ec;
    fs::remove(link_, ec);
    fs::remove_all(root_, ec);
  }
  // A link to the home directory, as HOME names it on a system whose /home
  // is a link: every protected path then leads through a link.
  std::string Link() {
    link_ = root_.string() + "-link";
    fs::create_directory_symlink(root_, link_);
    return link_.string();
  }
  std::string Join(const std::string& rel) const { return (root_ / rel).string(); }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
  fs::path link_;
};

RuleSet MakeRules(const Home& home, std::vector<config::RuleConfig> agent_rules,
                  const std::string& home_variable = "") {
  std::map<std::string, std::string> env = {
      {"HOME", home_variable.empty() ? home.path() : home_variable}};
  EnvLookup lookup = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  config::Config config;
  config.source_path = home.Join(".config/raw/config.json");
  config::AgentConfig agent;
  agent.name = "coder";
  agent.rules = std::move(agent_rules);
  auto rules = RuleSet::Compile(agent.rules, "agents.coder.rules");
  if (!rules.ok()) std::abort();
  if (!rules->PrependRules(ProtectedPathRules(ProtectedPaths(config, lookup), agent)).ok()) {
    std::abort();
  }
  return *std::move(rules);
}

config::RuleConfig PathRule(config::RuleAction action, const std::string& path) {
  config::RuleConfig rule;
  rule.action = action;
  rule.tool = "builtin/*";
  rule.path = path;
  return rule;
}

// Judges read_file of a file in the project, with the built-in rules and
// then `agent_rules`.
void EvaluateReadFile(benchmark::State& state, std::vector<config::RuleConfig> agent_rules) {
  Home home;
  RuleSet rules = MakeRules(home, std::move(agent_rules));
  ToolSpec read = builtin::MakeReadFileTool();
  Json args = {{"path", "src/main.cc"}};
  const std::string cwd = home.Join("project");
  for (auto _ : state) {
    Decision d = rules.Evaluate(read, args, cwd, config::ApprovalMode::kDefault);
    benchmark::DoNotOptimize(d);
  }
}

void BM_ReadFileProtectedPaths(benchmark::State& state) { EvaluateReadFile(state, {}); }
BENCHMARK(BM_ReadFileProtectedPaths);

// With an agent's rules after them: a few denials and an allowance.
void BM_ReadFileWithAgentRules(benchmark::State& state) {
  EvaluateReadFile(state, {PathRule(config::RuleAction::kDeny, "**/.env"),
                           PathRule(config::RuleAction::kDeny, "secrets/**"),
                           PathRule(config::RuleAction::kAsk, "/etc/**"),
                           PathRule(config::RuleAction::kAllow, "src/**")});
}
BENCHMARK(BM_ReadFileWithAgentRules);

// HOME names the home directory through a link: no protected path resolves
// as written.
void BM_ReadFileHomeBehindALink(benchmark::State& state) {
  Home home;
  RuleSet rules = MakeRules(home, {}, home.Link());
  ToolSpec read = builtin::MakeReadFileTool();
  Json args = {{"path", "src/main.cc"}};
  const std::string cwd = home.Join("project");
  for (auto _ : state) {
    Decision d = rules.Evaluate(read, args, cwd, config::ApprovalMode::kDefault);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_ReadFileHomeBehindALink);

config::RuleConfig CommandRule(config::RuleAction action, const std::string& command) {
  config::RuleConfig rule;
  rule.action = action;
  rule.tool = "builtin/bash";
  rule.command = command;
  return rule;
}

// Judges a bash call of `command` in the project, with the built-in rules
// and an agent's command and redirect rules: the line is split into its
// commands and redirections and each is decided.
void EvaluateBash(benchmark::State& state, const std::string& command) {
  Home home;
  config::RuleConfig logs;
  logs.action = config::RuleAction::kAllow;
  logs.tool = "builtin/bash";
  logs.redirect = "**/*.log";
  RuleSet rules = MakeRules(home, {CommandRule(config::RuleAction::kDeny, "rm *"),
                                   CommandRule(config::RuleAction::kAllow, "git status*"),
                                   CommandRule(config::RuleAction::kAllow, "grep *"),
                                   CommandRule(config::RuleAction::kAllow, "echo *"), logs});
  ToolSpec bash = builtin::MakeBashTool();
  Json args = {{"command", command}};
  const std::string cwd = home.Join("project");
  for (auto _ : state) {
    Decision d = rules.Evaluate(bash, args, cwd, config::ApprovalMode::kDefault);
    benchmark::DoNotOptimize(d);
  }
}

void BM_BashSimpleCommand(benchmark::State& state) { EvaluateBash(state, "git status -s"); }
BENCHMARK(BM_BashSimpleCommand);

// Three commands, a pipe and a redirection the rules must resolve.
void BM_BashCompoundLine(benchmark::State& state) {
  EvaluateBash(state, "git status -s | grep -v '^??' && echo \"checked $(date)\" >> build/run.log");
}
BENCHMARK(BM_BashCompoundLine);

// A long line broken with continuations, as a model writes a long command.
void BM_BashContinuedLine(benchmark::State& state) {
  EvaluateBash(state,
               "git status --porcelain=v2 \\\n  --branch \\\n  --untracked-files=no \\\n"
               "  | grep -e '^# branch' \\\n  | grep -v ahead");
}
BENCHMARK(BM_BashContinuedLine);

// What a turn pays to compile the rules it judges its calls by: the
// built-in ones and an agent's four.
void BM_CompileRules(benchmark::State& state) {
  Home home;
  for (auto _ : state) {
    RuleSet rules = MakeRules(home, {PathRule(config::RuleAction::kDeny, "**/.env"),
                                     PathRule(config::RuleAction::kDeny, "secrets/**"),
                                     PathRule(config::RuleAction::kAsk, "/etc/**"),
                                     PathRule(config::RuleAction::kAllow, "src/**")});
    benchmark::DoNotOptimize(rules);
  }
}
BENCHMARK(BM_CompileRules);

}  // namespace
}  // namespace raw::tools::policy

BENCHMARK_MAIN();
