// The recorded-shape SSE fixtures of tests/fixtures/sse/<api>/<name>.sse
// (api: chat, responses, anthropic, gemini), read for tests that replay them
// through a fake HTTP client or a FakeProviderServer.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace raw::testing {

// The bytes of <source_dir>/tests/fixtures/sse/<api>/<name>.sse. Records a
// test failure naming the path, and returns "", when it cannot be read.
std::string ReadSseFixtureIn(std::string_view source_dir, std::string_view api,
                             std::string_view name);

#ifdef RAW_SOURCE_DIR
// ReadSseFixtureIn for this checkout (test binaries define RAW_SOURCE_DIR).
inline std::string ReadSseFixture(std::string_view api, std::string_view name) {
  return ReadSseFixtureIn(RAW_SOURCE_DIR, api, name);
}
#endif

// `body` cut after every "\n\n": one SSE event per piece (a trailing piece
// without a blank line is kept as is).
std::vector<std::string> SplitSseEvents(std::string_view body);

}  // namespace raw::testing
