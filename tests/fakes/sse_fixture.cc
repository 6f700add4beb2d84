#include "tests/fakes/sse_fixture.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace raw::testing {

std::string ReadSseFixtureIn(std::string_view source_dir, std::string_view api,
                             std::string_view name) {
  std::string path = std::string(source_dir) + "/tests/fixtures/sse/" + std::string(api) + "/" +
                     std::string(name) + ".sse";
  std::ifstream in(path, std::ios::binary);
  if (!in.good()) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> SplitSseEvents(std::string_view body) {
  std::vector<std::string> events;
  size_t at = 0;
  while (at < body.size()) {
    size_t end = body.find("\n\n", at);
    end = end == std::string_view::npos ? body.size() : end + 2;
    events.emplace_back(body.substr(at, end - at));
    at = end;
  }
  return events;
}

}  // namespace raw::testing
