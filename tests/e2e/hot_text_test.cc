// The code a turn runs sits together at the start of each program's code
// (docs/performance.md, "Code layout"): the linker script that
// scripts/hot-text.sh writes gathers it into a section of its own,
// `.text.raw_hot`. These tests read the built programs' ELF files and check
// that functions every turn runs are in that section. A failure means that
// the script is no longer applied, or that it has gone stale for code every
// turn runs: run scripts/hot-text.sh.
#include <cxxabi.h>
#include <elf.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/test_daemon.h"

namespace raw::e2e {
namespace {

struct Range {
  uint64_t begin = 0;
  uint64_t end = 0;
};

// The functions of an ELF program (demangled names and addresses) and the
// address range of its hot section.
struct Program {
  std::string error;
  Range hot;
  std::vector<std::pair<std::string, uint64_t>> functions;
};

std::string Demangle(const char* name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

Program ReadProgram(const std::string& path) {
  Program p;
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < sizeof(Elf64_Ehdr) || bytes.compare(0, 4, ELFMAG) != 0) {
    p.error = "not an ELF file: " + path;
    return p;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (eh.e_shoff + uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > bytes.size()) {
    p.error = "truncated section table: " + path;
    return p;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), bytes.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  auto inside = [&](const Elf64_Shdr& s) { return s.sh_offset + s.sh_size <= bytes.size(); };
  const Elf64_Shdr& names = sections.at(eh.e_shstrndx);
  for (const Elf64_Shdr& s : sections) {
    if (!inside(names) || s.sh_name >= names.sh_size) continue;
    if (std::string_view(bytes.data() + names.sh_offset + s.sh_name) == ".text.raw_hot") {
      p.hot = {s.sh_addr, s.sh_addr + s.sh_size};
    }
    if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[s.sh_link];
    if (!inside(s) || !inside(strings)) continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= s.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, bytes.data() + s.sh_offset + at, sizeof sym);
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0 ||
          sym.st_name >= strings.sh_size) {
        continue;
      }
      p.functions.emplace_back(Demangle(bytes.data() + strings.sh_offset + sym.st_name),
                               sym.st_value);
    }
  }
  if (p.functions.empty()) p.error = "no symbol table: " + path;
  return p;
}

// Each of `prefixes` (the start of a demangled name) that names no function in
// the hot section. One function of a name is enough: an overload that no
// turn calls, or a clone holding a function's cold path, stays outside.
std::vector<std::string> NotHot(const Program& p, const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const std::string& prefix : prefixes) {
    bool hot = false;
    for (const auto& [name, address] : p.functions) {
      hot = hot || (name.compare(0, prefix.size(), prefix) == 0 && address >= p.hot.begin &&
                    address < p.hot.end);
    }
    if (!hot) out.push_back(prefix);
  }
  return out;
}

// Each program is read once (demangling its 30,000 symbols takes a second).
const Program& Built(const std::string& name) {
  static auto* programs = new std::map<std::string, Program>;
  auto it = programs->find(name);
  if (it == programs->end()) it = programs->emplace(name, ReadProgram(BinaryPath(name))).first;
  return it->second;
}

class HotTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef RAW_HOT_TEXT
    GTEST_SKIP() << "this build does not apply the hot-text scripts (sanitizers, or not GCC)";
#endif
  }
};

TEST_F(HotTextTest, TheDaemonsTurnCodeIsInItsHotSection) {
  const Program& rawd = Built("rawd");
  ASSERT_EQ(rawd.error, "");
  ASSERT_LT(rawd.hot.begin, rawd.hot.end) << "rawd has no .text.raw_hot section";
  // A model request's stream, a tool call's validation and the commits.
  EXPECT_EQ(NotHot(rawd, {"raw::http::SseDecoder::Feed(", "raw::AppendJsonString(",
                          "raw::store::WriteCommit(", "raw::loop::SessionLog::Commit(",
                          "raw::store::Statement::Step("}),
            std::vector<std::string>{});
}

TEST_F(HotTextTest, TheClientsRunCodeIsInItsHotSection) {
  const Program& raw = Built("raw");
  ASSERT_EQ(raw.error, "");
  ASSERT_LT(raw.hot.begin, raw.hot.end) << "raw has no .text.raw_hot section";
  // `raw run`: its arguments, the turn, and each event it prints.
  EXPECT_EQ(NotHot(raw, {"raw::cli::ParseRunArgs(", "raw::cli::TurnRunner::Run(",
                         "raw::cli::TurnRunner::OnEvent(", "raw::cli::EventPrinter::Print("}),
            std::vector<std::string>{});
}

TEST_F(HotTextTest, CodeNoTurnRunsStaysOutOfTheHotSection) {
  const Program& rawd = Built("rawd");
  ASSERT_EQ(rawd.error, "");
  ASSERT_LT(rawd.hot.begin, rawd.hot.end);
  // Raven's draft writer runs only for a research call; the ten-step turn
  // makes none, so its code must not take room in the hot section.
  int inside = 0;
  int outside = 0;
  for (const auto& [name, address] : rawd.functions) {
    if (name.rfind("raw::raven::", 0) != 0) continue;
    (address >= rawd.hot.begin && address < rawd.hot.end ? inside : outside)++;
  }
  EXPECT_GT(outside, 0);
  EXPECT_LT(inside * 10, outside) << inside << " of Raven's functions are in the hot section";
}

}  // namespace
}  // namespace raw::e2e
