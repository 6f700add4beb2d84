// ForEachString reaches every string field: each payload and context item
// kind has all of its strings set through it, and its stored encoding is
// then checked for a string that kept its empty default (a field the
// visitor misses).
#include "daemon/events/payload_strings.h"

#include <utility>
#include <variant>

#include "common/json.h"
#include "daemon/events/event_codec.h"
#include "gtest/gtest.h"

namespace raw::events {
namespace {

constexpr char kMark[] = "MARK";

// A value of T whose lists hold one element, so their strings exist.
template <typename T>
T Sample() {
  return T{};
}
template <>
ToolCallBatch Sample() {
  return ToolCallBatch{{ToolCallInfo{}}};
}
template <>
ApprovalRequested Sample() {
  ApprovalRequested p;
  p.calls.emplace_back();
  return p;
}
template <>
ApprovalResolved Sample() {
  ApprovalResolved p;
  p.answers.emplace_back();
  return p;
}
template <>
AssistantTurn Sample() {
  AssistantTurn p;
  p.tool_calls.emplace_back();
  p.opaque.emplace_back();
  return p;
}

// Every string of `marked` is kMark, or what `plain` holds at the same
// place when that is not empty (an enum name, the kind).
void ExpectAllMarked(const Json& marked, const Json* plain, const std::string& where) {
  if (marked.is_string()) {
    bool kept = plain != nullptr && plain->is_string() && !plain->get<std::string>().empty() &&
                *plain == marked;
    EXPECT_TRUE(marked == kMark || kept) << where << " = " << marked.dump();
  } else if (marked.is_array()) {
    for (size_t i = 0; i < marked.size(); ++i) {
      const Json* p = plain != nullptr && plain->is_array() && i < plain->size() ? &(*plain)[i]
                                                                                : nullptr;
      ExpectAllMarked(marked[i], p, where + "[" + std::to_string(i) + "]");
    }
  } else if (marked.is_object()) {
    for (const auto& [key, value] : marked.items()) {
      const Json* p = plain != nullptr && plain->is_object() && plain->contains(key)
                          ? &plain->at(key)
                          : nullptr;
      ExpectAllMarked(value, p, where + "." + key);
    }
  }
}

template <typename Variant, typename Encode, size_t... I>
void CheckEveryKind(Encode encode, std::index_sequence<I...>) {
  (
      [&] {
        Variant plain(Sample<std::variant_alternative_t<I, Variant>>());
        Variant marked = plain;
        ForEachString(marked, [](std::string& s) { s = kMark; });
        auto plain_json = ParseJson(encode(plain));
        auto marked_json = ParseJson(encode(marked));
        ASSERT_TRUE(plain_json.ok() && marked_json.ok());
        ExpectAllMarked(*marked_json, &*plain_json, "kind " + std::to_string(I));
      }(),
      ...);
}

TEST(PayloadStringsTest, EveryStringOfEveryEventPayloadIsVisited) {
  CheckEveryKind<EventPayload>(
      [](const EventPayload& p) { return EncodePayload(p); },
      std::make_index_sequence<std::variant_size_v<EventPayload>>());
}

TEST(PayloadStringsTest, EveryStringOfEveryContextItemIsVisited) {
  CheckEveryKind<ContextItem>(
      [](const ContextItem& c) { return EncodeContextItem(c); },
      std::make_index_sequence<std::variant_size_v<ContextItem>>());
}

TEST(PayloadStringsTest, RewritesInPlace) {
  EventPayload p = AssistantMessage{"say sk-1234", "think sk-1234", 2};
  ForEachString(p, [](std::string& s) {
    if (auto at = s.find("sk-1234"); at != std::string::npos) s.replace(at, 7, "[redacted]");
  });
  EXPECT_EQ(std::get<AssistantMessage>(p), (AssistantMessage{"say [redacted]", "think [redacted]", 2}));
}

}  // namespace
}  // namespace raw::events
