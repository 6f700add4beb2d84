#include "tests/layers/layer_contract.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace raw::layers {
namespace {

constexpr std::string_view kBlockStart = "```layers";
constexpr std::string_view kBlockEnd = "```";
constexpr std::string_view kGrpc = "grpc";
constexpr std::string_view kProto = "proto";

// Top-level folders of the source tree: an include below one of them that no
// module owns is a mistake, not a third-party header.
constexpr std::string_view kProjectRoots[] = {"common/", "daemon/",  "clients/",
                                              "tests/",  "bench/",   "proto/"};

// This absl build has its own string_view type.
absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }
std::string_view FromAbsl(absl::string_view s) { return std::string_view(s.data(), s.size()); }

std::string_view Trim(std::string_view s) { return FromAbsl(absl::StripAsciiWhitespace(ToAbsl(s))); }

bool IsPseudo(std::string_view module) { return module == kGrpc || module == kProto; }

// Fills contract->sees[module] by depth-first search; `path` is the chain
// being visited, for naming a cycle.
absl::Status Close(Contract* contract, const std::string& module, std::vector<std::string>* path) {
  if (contract->sees.count(module) > 0) return absl::OkStatus();
  if (std::find(path->begin(), path->end(), module) != path->end()) {
    path->push_back(module);
    return absl::InvalidArgumentError(
        absl::StrCat("layers: a module sees itself: ", absl::StrJoin(*path, " -> ")));
  }
  std::set<std::string> sees;
  auto it = contract->named.find(module);
  if (it != contract->named.end()) {
    path->push_back(module);
    for (const std::string& next : it->second) {
      if (absl::Status s = Close(contract, next, path); !s.ok()) return s;
      sees.insert(next);
      const std::set<std::string>& below = contract->sees[next];
      sees.insert(below.begin(), below.end());
    }
    path->pop_back();
  }
  contract->sees[module] = std::move(sees);
  return absl::OkStatus();
}

// Appends the module names in `words` (separated by spaces, tabs or commas).
void AppendWords(std::string_view words, std::vector<std::string>* named) {
  for (absl::string_view word :
       absl::StrSplit(ToAbsl(words), absl::ByAnyChar(" \t,"), absl::SkipEmpty())) {
    named->emplace_back(word);
  }
}

}  // namespace

absl::StatusOr<Contract> ParseContract(std::string_view markdown) {
  Contract contract;
  bool in_block = false;
  bool found = false;
  std::vector<std::string>* current = nullptr;  // the module of the line above
  for (absl::string_view raw_line : absl::StrSplit(ToAbsl(markdown), '\n')) {
    std::string_view line = Trim(FromAbsl(raw_line));
    if (!in_block) {
      if (line == kBlockStart) in_block = found = true;
      continue;
    }
    if (line == kBlockEnd) {
      in_block = false;
      break;
    }
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    // An indented line goes on with the modules of the line above.
    if (current != nullptr && (raw_line.front() == ' ' || raw_line.front() == '\t')) {
      AppendWords(line, current);
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("layers: a line without ':' in the contract: ", ToAbsl(line)));
    }
    const std::string module(Trim(line.substr(0, colon)));
    if (module.empty() || IsPseudo(module)) {
      return absl::InvalidArgumentError(
          absl::StrCat("layers: not a module name: '", module, "'"));
    }
    if (contract.named.count(module) > 0) {
      return absl::InvalidArgumentError(absl::StrCat("layers: ", module, " is listed twice"));
    }
    current = &contract.named[module];
    AppendWords(line.substr(colon + 1), current);
  }
  if (!found) return absl::NotFoundError("layers: no ```layers block");
  if (in_block) return absl::InvalidArgumentError("layers: the ```layers block is not closed");
  for (const auto& [module, named] : contract.named) {
    for (const std::string& next : named) {
      if (!IsPseudo(next) && contract.named.count(next) == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("layers: ", module, " names ", next, ", which has no line of its own"));
      }
    }
  }
  for (const auto& [module, named] : contract.named) {
    std::vector<std::string> path;
    if (absl::Status s = Close(&contract, module, &path); !s.ok()) return s;
  }
  return contract;
}

std::optional<std::string> ModuleOf(const Contract& contract, std::string_view path) {
  if (absl::StartsWith(ToAbsl(path), "grpcpp/") || absl::StartsWith(ToAbsl(path), "grpc/")) {
    return std::string(kGrpc);
  }
  if (absl::StartsWith(ToAbsl(path), "raw/v1/") ||
      absl::StartsWith(ToAbsl(path), "google/protobuf/")) {
    return std::string(kProto);
  }
  std::optional<std::string> best;
  for (const auto& [module, named] : contract.named) {
    if (!absl::StartsWith(ToAbsl(path), module)) continue;
    if (path.size() > module.size() && path[module.size()] != '/' && path[module.size()] != '.') {
      continue;
    }
    if (!best.has_value() || module.size() > best->size()) best = module;
  }
  return best;
}

std::vector<Include> IncludesOf(std::string_view text) {
  std::vector<Include> includes;
  int number = 0;
  for (absl::string_view raw_line : absl::StrSplit(ToAbsl(text), '\n')) {
    ++number;
    std::string_view line = Trim(FromAbsl(raw_line));
    if (line.empty() || line.front() != '#') continue;
    line = Trim(line.substr(1));
    if (line.substr(0, 7) != "include") continue;
    line = Trim(line.substr(7));
    if (line.empty()) continue;
    const char close = line.front() == '"' ? '"' : line.front() == '<' ? '>' : '\0';
    if (close == '\0') continue;
    const size_t end = line.find(close, 1);
    if (end == std::string_view::npos) continue;
    includes.push_back(Include{number, std::string(line.substr(1, end - 1)), close == '>'});
  }
  return includes;
}

std::string Violation::ToString() const {
  if (line == 0) return absl::StrCat(file, ": ", message);
  return absl::StrCat(file, ":", line, ": ", message);
}

std::vector<Violation> CheckFile(const Contract& contract, std::string_view file,
                                 std::string_view text) {
  std::vector<Violation> violations;
  const std::optional<std::string> from = ModuleOf(contract, file);
  if (!from.has_value() || IsPseudo(*from)) {
    violations.push_back(Violation{std::string(file), 0,
                                   "no module of the layers contract owns this file"});
    return violations;
  }
  const std::set<std::string>& sees = contract.sees.at(*from);
  for (const Include& include : IncludesOf(text)) {
    const std::optional<std::string> to = ModuleOf(contract, include.target);
    const std::string edge = include.angled
                                 ? absl::StrCat("#include <", include.target, ">: ")
                                 : absl::StrCat("#include \"", include.target, "\": ");
    if (!to.has_value()) {
      for (std::string_view root : kProjectRoots) {
        if (absl::StartsWith(include.target, ToAbsl(root))) {
          violations.push_back(Violation{std::string(file), include.line,
                                         absl::StrCat(edge, "no module owns this path")});
          break;
        }
      }
      continue;
    }
    if (*to == *from || sees.count(*to) > 0) continue;
    std::string why;
    if (IsPseudo(*to)) {
      why = absl::StrCat(*from, " -> ", *to, " reaches gRPC or generated protobuf code, which ",
                         *from, " may not see");
    } else if (contract.sees.at(*to).count(*from) > 0) {
      why = absl::StrCat(*from, " -> ", *to, " goes up a layer (", *to, " sees ", *from, ")");
    } else {
      why = absl::StrCat(*from, " -> ", *to, " crosses to a module ", *from, " may not see");
    }
    violations.push_back(Violation{std::string(file), include.line, edge + why});
  }
  return violations;
}

}  // namespace raw::layers
