// MakeProvider: the one place that turns a model's config into the Provider
// for its wire method, reading its API key from the environment.
//
// Errors name the model and say what to fix: a key variable that is not set,
// an unknown method, a method this daemon cannot speak, a missing base_url.
// Thread-safe (no state); `env` is called on the calling thread only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/paths.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"

namespace raw::providers {

struct ProviderOptions {
  // Sent to services that take a prompt-cache routing key; the caller
  // decides which ones get it (see the context module's cache key).
  std::optional<std::string> prompt_cache_key;
};

// The returned provider borrows `http`, which must outlive it.
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const config::ModelConfig& model,
                                                       http::HttpClient& http,
                                                       const EnvLookup& env,
                                                       const ProviderOptions& options = {});

}  // namespace raw::providers
