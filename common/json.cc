#include "common/json.h"

#include "absl/strings/str_cat.h"

namespace raw {
namespace {

template <typename J>
absl::StatusOr<J> ParseAs(std::string_view text, bool allow_comments) {
  try {
    return J::parse(text.begin(), text.end(), /*cb=*/nullptr,
                    /*allow_exceptions=*/true, allow_comments);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() looks like "[json.exception.parse_error.101] parse error at
    // line 3, column 5: syntax error ..."; drop the bracketed prefix.
    std::string what = e.what();
    auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", what));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", e.what()));
  }
}

}  // namespace

absl::StatusOr<Json> ParseJson(std::string_view text, bool allow_comments) {
  return ParseAs<Json>(text, allow_comments);
}

absl::StatusOr<OrderedJson> ParseOrderedJson(std::string_view text) {
  return ParseAs<OrderedJson>(text, false);
}

std::string DumpJson(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string DumpJson(const OrderedJson& value, int indent) {
  return value.dump(indent, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace raw
