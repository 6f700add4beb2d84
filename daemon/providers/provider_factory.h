// MakeProvider: the one place that turns a model's config into the Provider
// for its wire method, with its API key and extra headers.
//
// The key comes from ProviderOptions::api_key when set, else from the
// environment variable models.<n>.api_key_env. A model that sets api_key or
// headers (which may reference variables) needs them resolved by the caller,
// normally with vars::ResolveModelSecrets, into ProviderOptions::api_key and
// ::headers; MakeProvider refuses such a model when they were not passed, so
// that an unexpanded "${NAME}" is never sent. Keys and header values are
// never logged.
//
// Errors name the model and say what to fix: a key variable that is not set,
// an unknown method, a method this daemon cannot speak, a missing base_url.
// Thread-safe (no state); `env` is called on the calling thread only.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "common/paths.h"
#include "daemon/config/config.h"
#include "daemon/http/http_client.h"
#include "daemon/providers/provider.h"
#include "daemon/providers/provider_options.h"
#include "daemon/providers/reasoning_rule.h"

namespace raw::providers {

// Which reasoning requests to `model` send back, by its method's request
// builder and its settings, and the model they go to (reasoning_rule.h).
ReasoningRule ReasoningRuleFor(const config::ModelConfig& model);

// The returned provider borrows `http`, which must outlive it.
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(const config::ModelConfig& model,
                                                       http::HttpClient& http,
                                                       const EnvLookup& env,
                                                       const ProviderOptions& options = {});

// A provider of `model` for Provider::Prepare only (a session's warm-up):
// made without the key and the headers, so nothing is resolved for it (no
// variable command runs, no environment variable is read). Never Stream()
// with it: its requests would carry no credentials. Same errors as
// MakeProvider otherwise (an unknown method, an empty base_url).
absl::StatusOr<std::unique_ptr<Provider>> MakeSerializingProvider(const config::ModelConfig& model,
                                                                  http::HttpClient& http);

}  // namespace raw::providers
