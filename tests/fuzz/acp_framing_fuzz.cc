// Fuzz target: arbitrary bytes as an editor's side of an ACP stdio
// connection, arriving in chunks cut where the input says. The line framing
// must not depend on the cuts, and every message JSON-RPC handling sends
// back (an error for a malformed message, or a handler's answer to each
// request) must be a JSON-RPC 2.0 object of valid UTF-8. Every request the
// handler got is answered, with its result or as cancelled (-32800, when a
// `$/cancel_request` came first), and answering it again sends nothing. (A malformed message is refused each time it comes, even when it
// repeats an id.)
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "clients/acp/json_rpc.h"
#include "common/line_framer.h"
#include "common/utf8.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "acp_framing_fuzz", what); }

// Small, so that overlong lines are common.
constexpr size_t kLimit = 96;

struct Framed {
  std::vector<std::string> lines;  // "\x01<bytes>" stands for an overlong line
  bool operator==(const Framed&) const = default;
};

Framed Frame(std::string_view stream, std::string_view cuts) {
  raw::LineFramer framer(kLimit);
  Framed out;
  auto on_line = [&](std::string line) {
    out.lines.push_back(std::move(line));
    return true;
  };
  auto on_overlong = [&](size_t bytes) {
    out.lines.push_back("\x01" + std::to_string(bytes));
    return true;
  };
  size_t at = 0, c = 0;
  while (at < stream.size()) {
    const size_t n = cuts.empty() ? stream.size() : 1 + static_cast<uint8_t>(cuts[c++ % cuts.size()]) % 37;
    framer.Feed(stream.substr(at, n), on_line, on_overlong);
    at += n;
  }
  return out;
}

class Capture : public raw::acp::Transport {
 public:
  bool Send(std::string message) override {
    sent.push_back(std::move(message));
    return true;
  }
  void Close() override {}
  std::vector<std::string> sent;
};

class Answerer : public raw::acp::JsonRpc::Handler {
 public:
  void OnRequest(const raw::Json& id, const std::string&, const raw::Json&) override {
    requests.push_back(id);
  }
  void OnNotification(const std::string&, const raw::Json&) override {}
  std::vector<raw::Json> requests;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t cut_bytes = data[0] % 8;
  if (size < 1 + cut_bytes) return 0;
  const std::string_view cuts(reinterpret_cast<const char*>(data + 1), cut_bytes);
  const std::string_view stream(reinterpret_cast<const char*>(data + 1 + cut_bytes),
                                size - 1 - cut_bytes);

  const Framed whole = Frame(stream, "");
  Check(Frame(stream, cuts) == whole, "the lines depend on where the chunks were cut");
  for (const std::string& line : whole.lines) {
    if (line[0] == '\x01') continue;
    Check(line.size() <= kLimit, "a line over the limit was delivered");
    Check(line.find('\n') == std::string::npos, "a delivered line holds a line break");
  }

  auto transport = std::make_shared<Capture>();
  Answerer handler;
  raw::acp::JsonRpc rpc(transport, handler);
  for (const std::string& line : whole.lines) {
    if (line[0] != '\x01') rpc.Receive(line);
  }
  // Answer every request the handler got, twice: the second must be dropped.
  for (const raw::Json& id : handler.requests) {
    rpc.Reply(id, raw::Json::object());
    rpc.Reply(id, raw::Json::object());
  }
  std::map<std::string, int> handled, results, cancelled;
  for (const raw::Json& id : handler.requests) ++handled[id.dump()];
  for (const std::string& message : transport->sent) {
    Check(raw::ValidUtf8Prefix(message) == message.size(), "a sent message is not valid UTF-8");
    absl::StatusOr<raw::Json> parsed = raw::ParseJson(message);
    Check(parsed.ok() && parsed->is_object(), "a sent message is not a JSON object");
    Check(parsed->value("jsonrpc", "") == "2.0", "a sent message is not JSON-RPC 2.0");
    Check(parsed->contains("result") != parsed->contains("error"),
          "a sent message is not exactly one of a result and an error");
    const std::string id = parsed->value("id", raw::Json()).dump();
    if (parsed->contains("result")) ++results[id];
    if (parsed->contains("error") && (*parsed)["error"].is_object() &&
        (*parsed)["error"].value("code", 0) == raw::acp::rpc_code::kRequestCancelled) {
      ++cancelled[id];
    }
  }
  for (const auto& [id, count] : results) {
    Check(count <= handled[id], "a request was answered twice, or one never asked was answered");
  }
  for (const auto& [id, count] : handled) {
    Check(results[id] + cancelled[id] >= 1, "a request the handler got was never answered");
  }
  return 0;
}
