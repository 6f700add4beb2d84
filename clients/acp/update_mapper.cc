#include "clients/acp/update_mapper.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "clients/acp/tool_calls.h"

namespace raw::acp {

Json TextChunk(const char* kind, const std::string& text) {
  return {{"sessionUpdate", kind}, {"content", {{"type", "text"}, {"text", text}}}};
}

namespace {

// The user's text, then each image as an image content block.
void AppendUserChunks(const v1::UserMessage& message, std::vector<Json>& out) {
  if (!message.text().empty() || message.images().empty()) {
    out.push_back(TextChunk("user_message_chunk", message.text()));
  }
  for (const v1::Image& image : message.images()) {
    out.push_back({{"sessionUpdate", "user_message_chunk"},
                   {"content",
                    {{"type", "image"},
                     {"mimeType", image.mime_type()},
                     {"data", absl::Base64Escape(image.data())}}}});
  }
}

}  // namespace

std::optional<UpdateMapper::Delta> UpdateMapper::LiveDelta(const v1::Event& event) {
  switch (event.payload_case()) {
    case v1::Event::kTextDelta:
      streamed_text_ = true;
      return Delta{"agent_message_chunk", &event.text_delta().text()};
    case v1::Event::kReasoningDelta:
      streamed_reasoning_ = true;
      return Delta{"agent_thought_chunk", &event.reasoning_delta().text()};
    default:
      return std::nullopt;
  }
}

std::vector<Json> UpdateMapper::Live(const v1::Event& event, bool foreign_turn) {
  std::vector<Json> out;
  switch (event.payload_case()) {
    case v1::Event::kUserMessage:
      if (foreign_turn) AppendUserChunks(event.user_message(), out);
      break;
    case v1::Event::kTextDelta:
    case v1::Event::kReasoningDelta: {
      const Delta delta = *LiveDelta(event);
      out.push_back(TextChunk(delta.kind, *delta.text));
      break;
    }
    case v1::Event::kStreamReset:
      // The step starts over; what was streamed cannot be taken back.
      streamed_text_ = streamed_reasoning_ = false;
      break;
    case v1::Event::kAssistantMessage: {
      const v1::AssistantMessage& m = event.assistant_message();
      if (!streamed_reasoning_ && !m.reasoning().empty()) {
        out.push_back(TextChunk("agent_thought_chunk", m.reasoning()));
      }
      if (!streamed_text_ && !m.text().empty()) {
        out.push_back(TextChunk("agent_message_chunk", m.text()));
      }
      streamed_text_ = streamed_reasoning_ = false;
      break;
    }
    case v1::Event::kToolCallBatch:
      for (const v1::ToolCall& call : event.tool_call_batch().calls()) {
        Json update = ToolCallUpdate(call, cwd_);
        update["toolCallId"] = NextToolCallId(call.call_id());
        calls_[call.call_id()] = {call, update["toolCallId"].get<std::string>()};
        out.push_back(std::move(update));
      }
      break;
    case v1::Event::kToolStarted:
      out.push_back({{"sessionUpdate", "tool_call_update"},
                     {"toolCallId", ToolCallId(event.tool_started().call_id())},
                     {"status", "in_progress"}});
      break;
    case v1::Event::kToolResult: {
      const v1::ToolResult& r = event.tool_result();
      auto call = calls_.find(r.call_id());
      std::string arguments = call != calls_.end() ? call->second.call.arguments() : "";
      out.push_back({{"sessionUpdate", "tool_call_update"},
                     {"toolCallId", ToolCallId(r.call_id())},
                     {"status", ResultStatus(r.status())},
                     {"content", ResultContent(r, arguments, cwd_)}});
      if (call != calls_.end()) calls_.erase(call);
      break;
    }
    default:
      break;
  }
  return out;
}

std::string UpdateMapper::NextToolCallId(const std::string& call_id) {
  int& n = batches_of_[call_id];
  std::string id = ++n == 1 ? call_id : absl::StrCat(call_id, "~", n);
  // A provider may name a call "x~2" itself: an id given once is never
  // given again.
  while (issued_.contains(id)) id = absl::StrCat(call_id, "~", ++n);
  issued_.insert(id);
  return id;
}

std::string UpdateMapper::ToolCallId(const std::string& call_id) const {
  auto call = calls_.find(call_id);
  return call != calls_.end() ? call->second.tool_call_id : call_id;
}

std::vector<Json> UpdateMapper::Replay(const std::vector<v1::Event>& history) {
  // Each result belongs to the latest batch before it that held its call id
  // (by the batch's index in `history` and the call's in the batch).
  std::map<std::pair<size_t, int>, const v1::ToolResult*> results;
  std::map<std::string, std::pair<size_t, int>> open;
  for (size_t i = 0; i < history.size(); ++i) {
    const v1::Event& e = history[i];
    if (e.has_tool_call_batch()) {
      for (int k = 0; k < e.tool_call_batch().calls_size(); ++k) {
        open[e.tool_call_batch().calls(k).call_id()] = {i, k};
      }
    } else if (e.has_tool_result()) {
      auto batch = open.find(e.tool_result().call_id());
      if (batch == open.end()) continue;
      results[batch->second] = &e.tool_result();
      open.erase(batch);
    }
  }
  std::vector<Json> out;
  for (size_t i = 0; i < history.size(); ++i) {
    const v1::Event& e = history[i];
    switch (e.payload_case()) {
      case v1::Event::kUserMessage:
        AppendUserChunks(e.user_message(), out);
        break;
      case v1::Event::kAssistantMessage:
        if (!e.assistant_message().reasoning().empty()) {
          out.push_back(TextChunk("agent_thought_chunk", e.assistant_message().reasoning()));
        }
        if (!e.assistant_message().text().empty()) {
          out.push_back(TextChunk("agent_message_chunk", e.assistant_message().text()));
        }
        break;
      case v1::Event::kToolCallBatch:
        for (int k = 0; k < e.tool_call_batch().calls_size(); ++k) {
          const v1::ToolCall& call = e.tool_call_batch().calls(k);
          Json update = ToolCallUpdate(call, cwd_);
          update["toolCallId"] = NextToolCallId(call.call_id());
          auto result = results.find({i, k});
          if (result != results.end()) {
            update["status"] = ResultStatus(result->second->status());
            update["content"] = ResultContent(*result->second, call.arguments(), cwd_);
          }
          out.push_back(std::move(update));
        }
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace raw::acp
