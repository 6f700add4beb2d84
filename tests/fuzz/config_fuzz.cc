// Fuzz target: arbitrary bytes as the config file. ParseConfig must accept
// or refuse without crashing; a refusal lists at least one problem, every
// problem has a message, and the error text (shown by `raw config check`,
// the dashboard and the API's string fields) is valid UTF-8 even when the
// file is not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "daemon/config/config_loader.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "config_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<raw::config::ConfigProblem> problems;
  absl::StatusOr<raw::config::Config> config = raw::config::ParseConfig(text, &problems);
  if (config.ok()) return 0;
  Check(!problems.empty(), "a refused config lists no problem");
  for (const auto& p : problems) Check(!p.message.empty(), "a problem has no message");
  const std::string message(config.status().message());
  Check(!message.empty(), "the error has no message");
  Check(raw::ValidUtf8Prefix(message) == message.size(), "the error is not valid UTF-8");
  return 0;
}
