// JSON helpers. nlohmann::json throws; Raw code never lets an exception cross
// its own functions, so every parse goes through here.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace raw {

using Json = nlohmann::json;
// Keeps object keys in insertion order: used where bytes must be stable and
// readable in the order Raw wrote them (request bodies, stored payloads).
using OrderedJson = nlohmann::ordered_json;

// Deeper nesting than this is refused by ParseJson: nlohmann's dump and
// comparison, schema validation and every other walk over a value recurse,
// so a hostile document (a provider stream, an MCP message, tool arguments)
// of 200 000 '[' must fail as invalid input, not overflow the stack.
inline constexpr int kMaxJsonDepth = 512;

// Parses `text`. Comments (// and /* */) are accepted only when
// `allow_comments` is set. The error message names line and column (and the
// token expected there), or says that the document nests deeper than
// kMaxJsonDepth; it never quotes the text, which may hold secrets (a key
// pasted into a config) or what a model wrote. A NUL byte anywhere is an
// error (nlohmann's parser would stop there and accept what came before).
absl::StatusOr<Json> ParseJson(std::string_view text, bool allow_comments = false);
absl::StatusOr<OrderedJson> ParseOrderedJson(std::string_view text);

// Serializes without throwing: invalid UTF-8 is replaced, never an error.
std::string DumpJson(const Json& value, int indent = -1);
std::string DumpJson(const OrderedJson& value, int indent = -1);

}  // namespace raw
