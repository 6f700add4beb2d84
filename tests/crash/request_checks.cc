#include "tests/crash/request_checks.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace raw::crash {
namespace {

// Chat Completions: an assistant message's tool_calls are answered by the
// "tool" messages right after it, one per call; a "tool" message anywhere
// else is invalid.
std::string CheckChat(const Json& body) {
  const Json& messages = body.value("messages", Json::array());
  std::set<std::string> open;
  size_t opened_at = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string role = m.value("role", "");
    if (role == "tool") {
      const std::string id = m.value("tool_call_id", "");
      if (open.erase(id) == 0) return absl::StrCat("messages[", i, "] answers no open call ", id);
      continue;
    }
    if (!open.empty()) {
      return absl::StrCat("the calls of messages[", opened_at, "] are unanswered: ",
                          absl::StrJoin(open, ", "));
    }
    if (role == "assistant" && m.contains("tool_calls")) {
      for (const Json& call : m["tool_calls"]) open.insert(call.value("id", ""));
      opened_at = i;
    }
  }
  if (!open.empty()) return absl::StrCat("the last calls are unanswered: ", absl::StrJoin(open, ", "));
  return "";
}

// Responses: every function_call has one function_call_output after it, and
// every output follows its call.
std::string CheckResponses(const Json& body) {
  const Json& input = body.value("input", Json::array());
  std::set<std::string> called, answered;
  for (size_t i = 0; i < input.size(); ++i) {
    const Json& item = input[i];
    const std::string type = item.value("type", "");
    const std::string id = item.value("call_id", "");
    if (type == "function_call") {
      if (!called.insert(id).second) return absl::StrCat("input[", i, "] repeats call ", id);
    } else if (type == "function_call_output") {
      if (called.count(id) == 0) return absl::StrCat("input[", i, "] answers no earlier call ", id);
      if (!answered.insert(id).second) return absl::StrCat("input[", i, "] answers ", id, " again");
    }
  }
  for (const std::string& id : called) {
    if (answered.count(id) == 0) return absl::StrCat("call ", id, " is unanswered");
  }
  return "";
}

// Anthropic Messages: roles alternate from "user"; the tool_use blocks of an
// assistant message are answered by tool_result blocks of the next message.
std::string CheckAnthropic(const Json& body) {
  const Json& messages = body.value("messages", Json::array());
  std::set<std::string> open;
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& m = messages[i];
    const std::string want = i % 2 == 0 ? "user" : "assistant";
    if (m.value("role", "") != want) return absl::StrCat("messages[", i, "] is not ", want);
    std::set<std::string> results;
    const Json& content = m.value("content", Json());
    if (content.is_array()) {
      for (const Json& block : content) {
        const std::string type = block.value("type", "");
        if (type == "tool_result") results.insert(block.value("tool_use_id", ""));
      }
    }
    if (results != open) {
      return absl::StrCat("messages[", i, "] answers {", absl::StrJoin(results, ", "),
                          "} where the calls before it were {", absl::StrJoin(open, ", "), "}");
    }
    open.clear();
    if (content.is_array() && want == "assistant") {
      for (const Json& block : content) {
        if (block.value("type", "") == "tool_use") open.insert(block.value("id", ""));
      }
    }
  }
  if (!open.empty()) return absl::StrCat("the last calls are unanswered: ", absl::StrJoin(open, ", "));
  return "";
}

// Google: the functionCall parts of a "model" content are answered by as many
// functionResponse parts, with the same names in order, in the next content.
std::string CheckGoogle(const Json& body) {
  const Json& contents = body.value("contents", Json::array());
  std::vector<std::string> open;
  for (size_t i = 0; i < contents.size(); ++i) {
    const Json& c = contents[i];
    std::vector<std::string> calls, responses;
    for (const Json& part : c.value("parts", Json::array())) {
      if (part.contains("functionCall")) calls.push_back(part["functionCall"].value("name", ""));
      if (part.contains("functionResponse")) {
        responses.push_back(part["functionResponse"].value("name", ""));
      }
    }
    if (responses != open) {
      return absl::StrCat("contents[", i, "] answers [", absl::StrJoin(responses, ", "),
                          "] where the calls before it were [", absl::StrJoin(open, ", "), "]");
    }
    if (!calls.empty() && c.value("role", "") != "model") {
      return absl::StrCat("contents[", i, "] holds calls but is not the model's");
    }
    open = calls;
  }
  if (!open.empty()) return absl::StrCat("the last calls are unanswered: ", absl::StrJoin(open, ", "));
  return "";
}

}  // namespace

std::string CheckRequestBody(Api api, const Json& body) {
  switch (api) {
    case Api::kChat:
      return CheckChat(body);
    case Api::kResponses:
      return CheckResponses(body);
    case Api::kAnthropic:
      return CheckAnthropic(body);
    case Api::kGoogle:
      return CheckGoogle(body);
  }
  return "unknown API";
}

}  // namespace raw::crash
