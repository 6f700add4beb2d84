#include "daemon/providers/google/call_id.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace raw::providers::google {
namespace {

constexpr char kPrefix[] = "gemini-";

}  // namespace

std::string SyntheticCallId(std::string_view response_id, int position) {
  if (response_id.empty()) return absl::StrCat(kPrefix, position);
  return absl::StrCat(kPrefix, absl::string_view(response_id.data(), response_id.size()), "-",
                      position);
}

bool IsSyntheticCallId(std::string_view call_id) {
  return absl::StartsWith(absl::string_view(call_id.data(), call_id.size()), kPrefix);
}

}  // namespace raw::providers::google
