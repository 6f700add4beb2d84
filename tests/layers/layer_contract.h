// The layering contract of docs/architecture.md, read and checked against
// the project's own #include lines.
//
// The contract is the fenced block whose info string is "layers": one line
// per module, "module: seen module..." (an indented line goes on with the
// line above), with '#' starting a comment. A module is a path relative to
// the source root: a directory (every file below it belongs to it) or a file
// name without its extension ("dir/name" owns dir/name.h and dir/name.cc). A
// file belongs to the module with the longest matching path. Two
// pseudo-modules name what only some modules may reach: "grpc" (grpcpp/,
// grpc/) and "proto" (the generated raw/v1/ headers and google/protobuf/).
//
// A module may include its own files and those of every module it sees. It
// sees the modules its line names and, through them, all that those see. A
// module that would see itself through others makes the contract invalid.
//
// Pure functions over in-memory text; the test that walks the tree supplies
// the files.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::layers {

struct Contract {
  // module -> the modules its line names, in order.
  std::map<std::string, std::vector<std::string>> named;
  // module -> every module it sees (named and seen through them).
  std::map<std::string, std::set<std::string>> sees;
};

// Reads the "layers" block of `markdown`. Errors: no block, a line without
// ':', a module listed twice, a named module without its own line, a cycle.
absl::StatusOr<Contract> ParseContract(std::string_view markdown);

// The module owning `path` (relative to the source root, or an include
// path), or nullopt when no module matches. "grpc" and "proto" for the
// pseudo-modules' include paths.
std::optional<std::string> ModuleOf(const Contract& contract, std::string_view path);

struct Include {
  int line = 0;          // 1-based
  std::string target;    // the path between the quotes or angle brackets
  bool angled = false;   // <target> rather than "target"
};

// Every #include line of a source file's text.
std::vector<Include> IncludesOf(std::string_view text);

struct Violation {
  std::string file;
  int line = 0;
  std::string message;  // names the edge and why it is not allowed

  std::string ToString() const;  // "file:line: message"
};

// The violations of the #include lines of `file` (a path relative to the
// source root) with text `text`. Includes of paths outside the project
// (absl/..., <vector>) are not checked. A file that no module owns, and an
// include of a project path (common/, daemon/, clients/, tests/, bench/,
// proto/) that no module owns, are violations too.
std::vector<Violation> CheckFile(const Contract& contract, std::string_view file,
                                 std::string_view text);

}  // namespace raw::layers
