// Test helpers for provider event streams: a one-line text form of each
// event (so whole sequences compare and print readably) and a checker of the
// invariants listed in provider_event.h.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "daemon/providers/provider_event.h"
#include "gtest/gtest.h"

namespace raw::providers::testing {

inline std::string CountText(const std::optional<int64_t>& n) {
  return n ? absl::StrCat(*n) : "?";
}

inline std::string EventText(const ProviderEvent& event) {
  struct Visitor {
    std::string operator()(const StartEvent& e) const {
      return absl::StrCat("start ", e.response_id, " ", e.model);
    }
    std::string operator()(const TextDeltaEvent& e) const {
      return absl::StrCat("text ", e.part_index, " [", e.text, "]");
    }
    std::string operator()(const ReasoningDeltaEvent& e) const {
      return absl::StrCat("reasoning ", e.part_index, " [", e.text, "]");
    }
    std::string operator()(const ReasoningEndEvent& e) const {
      std::string out = absl::StrCat("reasoning_end ", e.part_index);
      if (e.opaque) {
        absl::StrAppend(&out, " opaque=", e.opaque->provider, "/", e.opaque->kind, "/",
                        e.opaque->id, " [", e.opaque->data, "]");
      }
      return out;
    }
    std::string operator()(const ToolCallStartEvent& e) const {
      return absl::StrCat("call_start ", e.call_index, " ", e.call_id, " ", e.name);
    }
    std::string operator()(const ToolCallDeltaEvent& e) const {
      return absl::StrCat("call_delta ", e.call_index, " [", e.fragment, "]");
    }
    std::string operator()(const ToolCallEndEvent& e) const {
      return absl::StrCat("call_end ", e.call_index, " ", e.call_id, " ", e.name, " [",
                          e.arguments, "] ", e.complete ? "complete" : "incomplete");
    }
    std::string operator()(const UsageEvent& e) const {
      const events::Usage& u = e.usage;
      return absl::StrCat("usage in=", CountText(u.input_tokens),
                          " out=", CountText(u.output_tokens),
                          " cache_read=", CountText(u.cache_read_tokens),
                          " cache_write=", CountText(u.cache_write_tokens),
                          " reasoning=", CountText(u.reasoning_tokens));
    }
    std::string operator()(const FinishEvent& e) const {
      return absl::StrCat("finish ", FinishReasonName(e.reason), " raw=", e.raw_reason);
    }
    std::string operator()(const ErrorEvent& e) const {
      return absl::StrCat("error ", ErrorKindName(e.kind), e.retryable ? " retryable" : " final",
                          e.after_output ? " after_output" : " before_output",
                          " http=", e.http_status, " type=", e.provider_type,
                          " code=", e.provider_code, " retry_after=",
                          CountText(e.retry_after_ms));
    }
    std::string operator()(const RetryEvent& e) const {
      return absl::StrCat("retry ", e.attempt, "/", e.max_attempts, " after ", e.delay_ms,
                          " ms: ", (*this)(e.error));
    }
  };
  return std::visit(Visitor{}, event);
}

inline std::vector<std::string> EventTexts(const std::vector<ProviderEvent>& events) {
  std::vector<std::string> out;
  out.reserve(events.size());
  for (const ProviderEvent& e : events) out.push_back(EventText(e));
  return out;
}

// Checks the invariants of provider_event.h on a complete stream.
inline void ExpectStreamInvariants(const std::vector<ProviderEvent>& events) {
  ASSERT_FALSE(events.empty());
  // 1. Opens with Start, or with a lone Error.
  if (!std::holds_alternative<StartEvent>(events.front())) {
    EXPECT_TRUE(std::holds_alternative<ErrorEvent>(events.front()));
  }
  // 2. Exactly one terminal event, last; Usage only right before it.
  size_t terminals = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    bool terminal = std::holds_alternative<FinishEvent>(events[i]) ||
                    std::holds_alternative<ErrorEvent>(events[i]);
    if (terminal) {
      ++terminals;
      EXPECT_EQ(i, events.size() - 1) << "terminal event before the end";
    }
    if (std::holds_alternative<UsageEvent>(events[i])) {
      EXPECT_EQ(i, events.size() - 2) << "usage not right before the terminal event";
    }
    if (i > 0) {
      EXPECT_FALSE(std::holds_alternative<StartEvent>(events[i]));
    }
  }
  EXPECT_EQ(terminals, 1u);
  bool ended_in_error = std::holds_alternative<ErrorEvent>(events.back());
  // 3 and 4. Per call: Start, deltas, one End whose arguments are the deltas.
  std::map<int, std::string> args;
  std::set<int> ended;
  bool any_complete = false;
  for (const ProviderEvent& event : events) {
    if (auto* s = std::get_if<ToolCallStartEvent>(&event)) {
      EXPECT_EQ(args.count(s->call_index), 0u) << "second start of call " << s->call_index;
      args[s->call_index] = "";
    } else if (auto* d = std::get_if<ToolCallDeltaEvent>(&event)) {
      ASSERT_EQ(args.count(d->call_index), 1u) << "delta before start";
      EXPECT_EQ(ended.count(d->call_index), 0u) << "delta after end";
      args[d->call_index] += d->fragment;
    } else if (auto* e = std::get_if<ToolCallEndEvent>(&event)) {
      ASSERT_EQ(args.count(e->call_index), 1u) << "end before start";
      EXPECT_TRUE(ended.insert(e->call_index).second) << "second end";
      EXPECT_EQ(args[e->call_index], e->arguments);
      if (e->complete) {
        any_complete = true;
        EXPECT_TRUE(ParseJson(e->arguments).ok());
      }
    }
  }
  if (ended_in_error) {
    EXPECT_TRUE(ended.empty()) << "an error stream closed a call";
  } else {
    EXPECT_EQ(ended.size(), args.size()) << "a call was left open";
  }
  // 5. Finish is kToolCalls whenever a call completed.
  if (any_complete) {
    ASSERT_TRUE(std::holds_alternative<FinishEvent>(events.back()));
    EXPECT_EQ(std::get<FinishEvent>(events.back()).reason, FinishReason::kToolCalls);
  }
}

// A response of more than 256 named tool calls: the first 256 started, and
// then it ended with a non-retryable error that says why, before any call
// ended or the response finished.
inline void ExpectTooManyToolCalls(const std::vector<ProviderEvent>& events) {
  ExpectStreamInvariants(events);
  int started = 0;
  for (const ProviderEvent& event : events) {
    if (std::holds_alternative<ToolCallStartEvent>(event)) ++started;
  }
  EXPECT_EQ(started, 256);
  ASSERT_FALSE(events.empty());
  const auto* error = std::get_if<ErrorEvent>(&events.back());
  ASSERT_NE(error, nullptr) << EventText(events.back());
  EXPECT_EQ(error->kind, ErrorKind::kUnknown);
  EXPECT_FALSE(error->retryable);
  EXPECT_NE(error->message.find("more than 256 tool calls"), std::string::npos) << error->message;
}

}  // namespace raw::providers::testing
