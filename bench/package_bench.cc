// Packages (daemon/packages) on real files in a temporary directory:
// - BM_ResolveAgentWith20Exports: packages::ResolvePackages for an agent
//   that uses 20 exports of one installed package (10 skills, 5 hooks,
//   4 prompt sections, 1 MCP server); each call reads the index, re-hashes
//   the store entry and reads its manifest, as a session start and every
//   turn do. Goal: under 1 ms with a warm page cache.
// - BM_Install10MB: packages::Install of a folder of 10 MB (100 files of
//   100 KiB) into an empty store: scan, copy, hash, rename, index.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "daemon/config/config_loader.h"
#include "daemon/packages/package_ops.h"
#include "daemon/packages/package_resolver.h"
#include "daemon/packages/package_tree.h"

namespace raw::packages {
namespace {

class Scratch {
 public:
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-pkg-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
  }
  ~Scratch() {
    if (!dir_.empty()) (void)RemoveTree(dir_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string Path(const std::string& rel) const { return dir_ + "/" + rel; }
  bool ok() const { return !dir_.empty(); }

 private:
  std::string dir_;
};

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// A package "kit" with skills s0..s9, hooks h0..h4, prompts p0..p3 and the
// MCP server "notes"; returns the config an agent "coder" using all 20.
std::string WriteTwentyExports(const Scratch& s) {
  std::string skills, hooks, prompts;
  std::string use_skills, use_hooks, use_prompts;
  for (int i = 0; i < 10; ++i) {
    Write(s.Path(absl::StrCat("kit/skills/s", i, "/SKILL.md")),
          absl::StrCat("---\nname: s", i, "\ndescription: skill ", i, "\n---\nStep ", i, ".\n"));
    absl::StrAppend(&skills, i ? "," : "", "\"s", i, "\": {\"path\": \"skills/s", i, "\"}");
    absl::StrAppend(&use_skills, i ? "," : "", "\"pkg/kit/skill/s", i, "\"");
  }
  for (int i = 0; i < 5; ++i) {
    absl::StrAppend(&hooks, i ? "," : "", "\"h", i,
                    "\": {\"event\": \"pre_tool_use\", \"command\": [\"${package}/bin/h\"]}");
    absl::StrAppend(&use_hooks, i ? "," : "", "\"pkg/kit/hook/h", i, "\"");
  }
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&prompts, i ? "," : "", "\"p", i, "\": {\"text\": \"Section ", i, ".\"}");
    absl::StrAppend(&use_prompts, i ? "," : "", "\"pkg/kit/prompt/p", i, "\"");
  }
  Write(s.Path("kit/bin/h"), "#!/bin/sh\n");
  Write(s.Path("kit/raw-package.json"),
        absl::StrCat(R"({"name": "kit", "version": "1", "description": "bench", "exports": {)",
                     R"("skills": {)", skills, R"(}, "hooks": {)", hooks, R"(}, "prompts": {)",
                     prompts, R"(}, "mcp": {"notes": {"command": ["${package}/bin/h"]}}}})"));
  return absl::StrCat(R"({"models": {"m": {"provider": "openai", "method": "openai-chat-completions", "model_id": "x",
                      "base_url": "http://127.0.0.1:1"}},
                      "agents": {"coder": {"model": "m", "skills": [)",
                      use_skills, R"(], "hooks": [)", use_hooks, R"(], "prompts": [)",
                      use_prompts, R"(], "tools": {"use": ["pkg/kit/mcp/notes/*"]}}}})");
}

void BM_ResolveAgentWith20Exports(benchmark::State& state) {
  Scratch s;
  if (!s.ok()) return state.SkipWithError("no temporary directory");
  Write(s.Path("config/config.json"), WriteTwentyExports(s));
  PackageStore store(s.Path("data/raw/packages"));
  PackageContext ctx{store, s.Path("config/config.json"), nullptr};
  if (auto installed = Install(ctx, s.Path("kit"), std::nullopt); !installed.ok()) {
    return state.SkipWithError(std::string(installed.status().message()).c_str());
  }
  absl::StatusOr<config::Config> cfg = config::LoadConfigFile(s.Path("config/config.json"));
  if (!cfg.ok()) return state.SkipWithError(std::string(cfg.status().message()).c_str());
  for (auto _ : state) {
    absl::StatusOr<PackagedConfig> resolved = ResolvePackages(*cfg, "coder", store);
    if (!resolved.ok()) return state.SkipWithError(std::string(resolved.status().message()).c_str());
    benchmark::DoNotOptimize(resolved->config);
  }
}
BENCHMARK(BM_ResolveAgentWith20Exports)->Unit(benchmark::kMicrosecond);

void BM_Install10MB(benchmark::State& state) {
  Scratch s;
  if (!s.ok()) return state.SkipWithError("no temporary directory");
  std::mt19937 rng(42);
  std::string block(100 << 10, '\0');
  for (int i = 0; i < 100; ++i) {
    for (char& c : block) c = static_cast<char>(rng());
    Write(s.Path(absl::StrCat("big/data/f", i, ".bin")), block);
  }
  Write(s.Path("big/raw-package.json"),
        R"({"name": "big", "version": "1", "description": "10 MB", "exports": {}})");
  int round = 0;
  for (auto _ : state) {
    // A new store each round: every install copies and hashes all 10 MB.
    PackageStore store(s.Path(absl::StrCat("data", round, "/raw/packages")));
    PackageContext ctx{store, s.Path("config/config.json"), nullptr};
    absl::StatusOr<InstallResult> installed = Install(ctx, s.Path("big"), std::nullopt);
    if (!installed.ok()) return state.SkipWithError(std::string(installed.status().message()).c_str());
    state.PauseTiming();
    (void)RemoveTree(s.Path(absl::StrCat("data", round++)));
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * 100 * static_cast<int64_t>(block.size()));
}
BENCHMARK(BM_Install10MB)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace raw::packages

BENCHMARK_MAIN();
