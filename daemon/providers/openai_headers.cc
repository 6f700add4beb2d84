#include "daemon/providers/openai_headers.h"

#include "absl/strings/str_cat.h"

namespace raw::providers {

http::Headers OpenAiRequestHeaders(const std::optional<std::string>& api_key) {
  http::Headers headers;
  if (api_key.has_value() && !api_key->empty()) {
    headers.emplace_back("Authorization", absl::StrCat("Bearer ", *api_key));
  }
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Accept", "text/event-stream");
  return headers;
}

}  // namespace raw::providers
