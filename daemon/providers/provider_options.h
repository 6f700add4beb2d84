// ProviderOptions: what the caller of MakeProvider (provider_factory.h)
// passes on to the adapter it builds. Its own header so that the adapters,
// which sit below the factory, take it without seeing the factory.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace raw::providers {

struct ProviderOptions {
  // Sent to services that take a prompt-cache routing key; the caller
  // decides which ones get it (see the context module's cache key).
  std::optional<std::string> prompt_cache_key;
  // The API key, used instead of reading models.<n>.api_key_env; "" sends
  // no key. Unset: api_key_env as described in provider_factory.h.
  std::optional<std::string> api_key;
  // Sent on every request, after the API's own headers (models.<n>.headers
  // with their variables expanded).
  std::vector<std::pair<std::string, std::string>> headers;
};

}  // namespace raw::providers
