// The stored JSON of events and context items. Every object starts with
// "kind", then the fields in declaration order (ordered_json keeps insertion
// order, so the bytes are stable). Enums are written as lower_snake names,
// never as numbers. Usage writes only the counts that are known. Text that is
// not valid UTF-8 is stored with U+FFFD replacements (JSON cannot carry it).
//
// Compatibility rule: every field written by this version is required when
// decoding; a field added later must be read as optional with a default, so
// rows written now keep decoding. Unknown fields are ignored.
#include "daemon/events/event_codec.h"

#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/status_macros.h"
#include "daemon/events/json_fields.h"

namespace raw::events {
namespace {

constexpr EnumName<ToolStatus> kToolStatusNames[] = {
    {ToolStatus::kOk, "ok"},           {ToolStatus::kError, "error"},
    {ToolStatus::kCancelled, "cancelled"}, {ToolStatus::kDenied, "denied"},
    {ToolStatus::kSkipped, "skipped"},
};
constexpr EnumName<NoticeLevel> kNoticeLevelNames[] = {
    {NoticeLevel::kInfo, "info"},
    {NoticeLevel::kWarning, "warning"},
    {NoticeLevel::kError, "error"},
};
constexpr EnumName<TurnEndReason> kTurnEndReasonNames[] = {
    {TurnEndReason::kCompleted, "completed"},
    {TurnEndReason::kMaxSteps, "max_steps"},
    {TurnEndReason::kCancelled, "cancelled"},
    {TurnEndReason::kError, "error"},
};

constexpr EnumName<StopReason> kStopReasonNames[] = {
    {StopReason::kEndTurn, "end_turn"},   {StopReason::kMaxTokens, "max_tokens"},
    {StopReason::kRefusal, "refusal"},    {StopReason::kMaxSteps, "max_steps"},
    {StopReason::kCancelled, "cancelled"}, {StopReason::kError, "error"},
};

constexpr EnumName<ApprovalState> kApprovalStateNames[] = {
    {ApprovalState::kPending, "pending"},
    {ApprovalState::kAllowed, "allowed"},
    {ApprovalState::kDenied, "denied"},
    {ApprovalState::kNotApplicable, "not_applicable"},
};
constexpr EnumName<ApprovalDecision> kApprovalDecisionNames[] = {
    {ApprovalDecision::kAllowOnce, "allow_once"},
    {ApprovalDecision::kAllowSession, "allow_session"},
    {ApprovalDecision::kDeny, "deny"},
};
constexpr EnumName<ApprovalResolution> kApprovalResolutionNames[] = {
    {ApprovalResolution::kAnswered, "answered"},
    {ApprovalResolution::kTimedOut, "timed_out"},
    {ApprovalResolution::kCancelled, "cancelled"},
};

constexpr EnumName<CompactionTrigger> kCompactionTriggerNames[] = {
    {CompactionTrigger::kManual, "manual"},
    {CompactionTrigger::kAutomatic, "automatic"},
};
constexpr EnumName<CompactionOutcome> kCompactionOutcomeNames[] = {
    {CompactionOutcome::kAccepted, "accepted"},
    {CompactionOutcome::kRejected, "rejected"},
    {CompactionOutcome::kFailed, "failed"},
    {CompactionOutcome::kCancelled, "cancelled"},
    {CompactionOutcome::kNothingToCompact, "nothing_to_compact"},
};

template <typename E, size_t N>
const char* NameOf(E value, const EnumName<E> (&names)[N]) {
  for (const auto& n : names) {
    if (n.value == value) return n.name;
  }
  return "invalid";  // decodes as an error: only a corrupted enum value gets here
}

constexpr std::pair<const char*, std::optional<int64_t> Usage::*> kUsageFields[] = {
    {"input_tokens", &Usage::input_tokens},
    {"output_tokens", &Usage::output_tokens},
    {"cache_read_tokens", &Usage::cache_read_tokens},
    {"cache_write_tokens", &Usage::cache_write_tokens},
    {"reasoning_tokens", &Usage::reasoning_tokens},
};

// --- event payloads: one Write/Read pair per alternative -------------------

void Write(OrderedJson& j, const TurnStarted& p) { j["user_text"] = p.user_text; }
void Read(JsonFields& r, TurnStarted& p) { p.user_text = r.String("user_text"); }

// "images" came later: written only when there are any.
void WriteImages(OrderedJson& j, const std::vector<ImagePart>& images) {
  if (images.empty()) return;
  OrderedJson list = OrderedJson::array();
  for (const ImagePart& image : images) {
    OrderedJson one;
    one["mime_type"] = image.mime_type;
    one["base64"] = image.base64;
    one["width"] = image.width;
    one["height"] = image.height;
    if (!image.name.empty()) one["name"] = image.name;  // came later still
    list.push_back(std::move(one));
  }
  j["images"] = std::move(list);
}
void ReadImages(JsonFields& r, std::vector<ImagePart>& images) {
  r.OptionalForEach("images", [&](JsonFields& one) {
    ImagePart& image = images.emplace_back();
    image.mime_type = one.String("mime_type");
    image.base64 = one.String("base64");
    image.width = one.Int64("width");
    image.height = one.Int64("height");
    image.name = one.OptionalString("name");
  });
}

void Write(OrderedJson& j, const UserMessage& p) {
  j["text"] = p.text;
  WriteImages(j, p.images);
}
void Read(JsonFields& r, UserMessage& p) {
  p.text = r.String("text");
  ReadImages(r, p.images);
}

void Write(OrderedJson& j, const TextDelta& p) { j["text"] = p.text; }
void Read(JsonFields& r, TextDelta& p) { p.text = r.String("text"); }

void Write(OrderedJson& j, const ReasoningDelta& p) { j["text"] = p.text; }
void Read(JsonFields& r, ReasoningDelta& p) { p.text = r.String("text"); }

void Write(OrderedJson& j, const AssistantMessage& p) {
  j["text"] = p.text;
  j["reasoning"] = p.reasoning;
  j["step"] = p.step;
  if (p.interrupted) j["interrupted"] = true;  // absent in rows stored before the field
}
void Read(JsonFields& r, AssistantMessage& p) {
  p.text = r.String("text");
  p.reasoning = r.String("reasoning");
  p.step = r.Int("step");
  p.interrupted = r.OptionalBool("interrupted");
}

void Write(OrderedJson& j, const ToolCallBatch& p) {
  OrderedJson calls = OrderedJson::array();
  for (const ToolCallInfo& c : p.calls) {
    OrderedJson call;
    call["call_id"] = c.call_id;
    call["name"] = c.name;
    call["tool"] = c.tool;
    call["arguments"] = c.arguments;
    calls.push_back(std::move(call));
  }
  j["calls"] = std::move(calls);
}
void Read(JsonFields& r, ToolCallBatch& p) {
  r.ForEach("calls", [&p](JsonFields& c) {
    ToolCallInfo call;
    call.call_id = c.String("call_id");
    call.name = c.String("name");
    call.tool = c.String("tool");
    call.arguments = c.String("arguments");
    p.calls.push_back(std::move(call));
  });
}

void Write(OrderedJson& j, const ToolStarted& p) {
  j["call_id"] = p.call_id;
  j["name"] = p.name;
  j["tool"] = p.tool;
}
void Read(JsonFields& r, ToolStarted& p) {
  p.call_id = r.String("call_id");
  p.name = r.String("name");
  p.tool = r.String("tool");
}

void Write(OrderedJson& j, const ToolResult& p) {
  j["call_id"] = p.call_id;
  j["name"] = p.name;
  j["tool"] = p.tool;
  j["status"] = NameOf(p.status, kToolStatusNames);
  j["content"] = p.content;
  j["duration_ms"] = p.duration_ms;
  if (!p.display.empty()) j["display"] = p.display;
  if (!p.meta.empty()) j["meta"] = p.meta;
}
void Read(JsonFields& r, ToolResult& p) {
  p.call_id = r.String("call_id");
  p.name = r.String("name");
  p.tool = r.String("tool");
  p.status = r.Enum("status", kToolStatusNames);
  p.content = r.String("content");
  p.duration_ms = r.Int64("duration_ms");
  p.display = r.OptionalString("display");
  p.meta = r.OptionalString("meta");
}

void Write(OrderedJson& j, const ApprovalRequested& p) {
  j["request_id"] = p.request_id;
  OrderedJson calls = OrderedJson::array();
  for (const ApprovalCall& c : p.calls) {
    OrderedJson call;
    call["call_id"] = c.call_id;
    call["name"] = c.name;
    call["tool"] = c.tool;
    call["arguments"] = c.arguments;
    call["state"] = NameOf(c.state, kApprovalStateNames);
    call["reason"] = c.reason;
    if (!c.session_rules.empty()) {
      OrderedJson options = OrderedJson::array();
      for (const SessionRuleOption& option : c.session_rules) {
        OrderedJson rules = OrderedJson::array();
        for (const std::string& rule : option.rules) rules.push_back(OrderedJson{{"rule", rule}});
        options.push_back(OrderedJson{{"rules", std::move(rules)}});
      }
      call["session_rules"] = std::move(options);
    }
    calls.push_back(std::move(call));
  }
  j["calls"] = std::move(calls);
  j["timeout_ms"] = p.timeout_ms;
}
void Read(JsonFields& r, ApprovalRequested& p) {
  p.request_id = r.String("request_id");
  r.ForEach("calls", [&p](JsonFields& c) {
    ApprovalCall call;
    call.call_id = c.String("call_id");
    call.name = c.String("name");
    call.tool = c.String("tool");
    call.arguments = c.String("arguments");
    call.state = c.Enum("state", kApprovalStateNames);
    call.reason = c.String("reason");
    c.OptionalForEach("session_rules", [&call](JsonFields& o) {
      SessionRuleOption option;
      o.ForEach("rules", [&option](JsonFields& rule) { option.rules.push_back(rule.String("rule")); });
      call.session_rules.push_back(std::move(option));
    });
    p.calls.push_back(std::move(call));
  });
  p.timeout_ms = r.Int64("timeout_ms");
}

void Write(OrderedJson& j, const ApprovalResolved& p) {
  j["request_id"] = p.request_id;
  OrderedJson answers = OrderedJson::array();
  for (const ApprovalAnswer& a : p.answers) {
    OrderedJson answer;
    answer["call_id"] = a.call_id;
    answer["decision"] = NameOf(a.decision, kApprovalDecisionNames);
    answer["message"] = a.message;
    if (a.session_rule != 0) answer["session_rule"] = a.session_rule;
    if (a.unattended) answer["unattended"] = true;
    answers.push_back(std::move(answer));
  }
  j["answers"] = std::move(answers);
  j["resolution"] = NameOf(p.resolution, kApprovalResolutionNames);
}
void Read(JsonFields& r, ApprovalResolved& p) {
  p.request_id = r.String("request_id");
  r.ForEach("answers", [&p](JsonFields& a) {
    ApprovalAnswer answer;
    answer.call_id = a.String("call_id");
    answer.decision = a.Enum("decision", kApprovalDecisionNames);
    answer.message = a.String("message");
    answer.session_rule = static_cast<int>(a.OptionalCount("session_rule").value_or(0));
    answer.unattended = a.OptionalBool("unattended");
    p.answers.push_back(std::move(answer));
  });
  p.resolution = r.Enum("resolution", kApprovalResolutionNames);
}

void Write(OrderedJson& j, const UsageReport& p) {
  OrderedJson usage = OrderedJson::object();
  for (const auto& [name, field] : kUsageFields) {
    if (p.usage.*field) usage[name] = *(p.usage.*field);
  }
  j["usage"] = std::move(usage);
  j["step"] = p.step;
}
void Read(JsonFields& r, UsageReport& p) {
  r.Nested("usage", [&p](JsonFields& u) {
    for (const auto& [name, field] : kUsageFields) p.usage.*field = u.OptionalCount(name);
  });
  p.step = r.Int("step");
}

void Write(OrderedJson& j, const Notice& p) {
  j["level"] = NameOf(p.level, kNoticeLevelNames);
  j["text"] = p.text;
}
void Read(JsonFields& r, Notice& p) {
  p.level = r.Enum("level", kNoticeLevelNames);
  p.text = r.String("text");
}

void Write(OrderedJson& j, const TurnEnded& p) {
  j["reason"] = NameOf(p.reason, kTurnEndReasonNames);
  j["message"] = p.message;
  j["steps"] = p.steps;
  // Written only when set, so rows stored before it existed and rows
  // without it read the same.
  if (p.stop_reason) j["stop_reason"] = NameOf(*p.stop_reason, kStopReasonNames);
}
void Read(JsonFields& r, TurnEnded& p) {
  p.reason = r.Enum("reason", kTurnEndReasonNames);
  p.message = r.String("message");
  p.steps = r.Int("steps");
  if (r.Has("stop_reason")) p.stop_reason = r.Enum("stop_reason", kStopReasonNames);
}

void Write(OrderedJson& j, const StreamReset& p) { j["reason"] = p.reason; }
void Read(JsonFields& r, StreamReset& p) { p.reason = r.String("reason"); }

void Write(OrderedJson& j, const Resync& p) { j["last_delivered_seq"] = p.last_delivered_seq; }
void Read(JsonFields& r, Resync& p) { p.last_delivered_seq = r.Uint64("last_delivered_seq"); }

void Write(OrderedJson& j, const CompactionStarted& p) {
  j["trigger"] = NameOf(p.trigger, kCompactionTriggerNames);
  j["tokens_before"] = p.tokens_before;
  j["chunks"] = p.chunks;
}
void Read(JsonFields& r, CompactionStarted& p) {
  p.trigger = r.Enum("trigger", kCompactionTriggerNames);
  p.tokens_before = r.Int64("tokens_before");
  p.chunks = r.Int("chunks");
}

void Write(OrderedJson& j, const CompactionProgress& p) {
  j["chunk"] = p.chunk;
  j["chunks"] = p.chunks;
}
void Read(JsonFields& r, CompactionProgress& p) {
  p.chunk = r.Int("chunk");
  p.chunks = r.Int("chunks");
}

void Write(OrderedJson& j, const CompactionEnded& p) {
  j["trigger"] = NameOf(p.trigger, kCompactionTriggerNames);
  j["outcome"] = NameOf(p.outcome, kCompactionOutcomeNames);
  j["message"] = p.message;
  j["tokens_before"] = p.tokens_before;
  j["tokens_after"] = p.tokens_after;
  j["first_summarized_seq"] = p.first_summarized_seq;
  j["last_summarized_seq"] = p.last_summarized_seq;
  j["summary"] = p.summary;
}
void Read(JsonFields& r, CompactionEnded& p) {
  p.trigger = r.Enum("trigger", kCompactionTriggerNames);
  p.outcome = r.Enum("outcome", kCompactionOutcomeNames);
  p.message = r.String("message");
  p.tokens_before = r.Int64("tokens_before");
  p.tokens_after = r.Int64("tokens_after");
  p.first_summarized_seq = r.Uint64("first_summarized_seq");
  p.last_summarized_seq = r.Uint64("last_summarized_seq");
  p.summary = r.String("summary");
}

void Write(OrderedJson& j, const ContextCleared& p) {
  j["tokens_before"] = p.tokens_before;
  j["tokens_after"] = p.tokens_after;
}
void Read(JsonFields& r, ContextCleared& p) {
  p.tokens_before = r.Int64("tokens_before");
  p.tokens_after = r.Int64("tokens_after");
}

void Write(OrderedJson& j, const ContextEstimate& p) {
  j["tokens"] = p.tokens;
  if (p.window_tokens) j["window_tokens"] = *p.window_tokens;
  j["reported_baseline"] = p.reported_baseline;
}
void Read(JsonFields& r, ContextEstimate& p) {
  p.tokens = r.Int64("tokens");
  p.window_tokens = r.OptionalCount("window_tokens");
  p.reported_baseline = r.Bool("reported_baseline");
}

void Write(OrderedJson& j, const ToolProgress& p) {
  j["call_id"] = p.call_id;
  j["progress"] = p.progress;
  if (p.total) j["total"] = *p.total;
  j["message"] = p.message;
}
void Read(JsonFields& r, ToolProgress& p) {
  p.call_id = r.String("call_id");
  p.progress = r.Double("progress");
  p.total = r.OptionalDouble("total");
  p.message = r.String("message");
}

// --- context items -----------------------------------------------------------

struct ContextKindNamer {
  const char* operator()(const UserText&) const { return "user_text"; }
  const char* operator()(const AssistantTurn&) const { return "assistant_turn"; }
  const char* operator()(const ToolOutcome&) const { return "tool_outcome"; }
};
const char* ContextKindName(const ContextItem& item) {
  return std::visit(ContextKindNamer{}, item);
}

// "role" and "turn_id" came later: written only when they say something, so
// a plain prompt keeps its original bytes, and read as optional.
void Write(OrderedJson& j, const UserText& p) {
  j["text"] = p.text;
  if (p.kind == UserTextKind::kSummary) j["role"] = "summary";
  if (!p.turn_id.empty()) j["turn_id"] = p.turn_id;
  WriteImages(j, p.images);
}
void Read(JsonFields& r, UserText& p) {
  p.text = r.String("text");
  std::string role = r.OptionalString("role");
  p.kind = role == "summary" ? UserTextKind::kSummary : UserTextKind::kPrompt;
  p.turn_id = r.OptionalString("turn_id");
  ReadImages(r, p.images);
}

void Write(OrderedJson& j, const AssistantTurn& p) {
  j["text"] = p.text;
  j["reasoning"] = p.reasoning;
  OrderedJson calls = OrderedJson::array();
  for (const ToolCallRequest& c : p.tool_calls) {
    OrderedJson call;
    call["call_id"] = c.call_id;
    call["name"] = c.name;
    call["arguments"] = c.arguments;
    calls.push_back(std::move(call));
  }
  j["tool_calls"] = std::move(calls);
  OrderedJson opaque = OrderedJson::array();
  for (const OpaqueBlob& b : p.opaque) {
    OrderedJson blob;
    blob["provider"] = b.provider;
    blob["kind"] = b.kind;
    blob["id"] = b.id;
    blob["data"] = b.data;
    opaque.push_back(std::move(blob));
  }
  j["opaque"] = std::move(opaque);
  if (!p.model.empty()) j["model"] = p.model;
}
void Read(JsonFields& r, AssistantTurn& p) {
  p.text = r.String("text");
  p.reasoning = r.String("reasoning");
  r.ForEach("tool_calls", [&p](JsonFields& c) {
    ToolCallRequest call;
    call.call_id = c.String("call_id");
    call.name = c.String("name");
    call.arguments = c.String("arguments");
    p.tool_calls.push_back(std::move(call));
  });
  r.ForEach("opaque", [&p](JsonFields& b) {
    OpaqueBlob blob;
    blob.provider = b.String("provider");
    blob.kind = b.String("kind");
    blob.id = b.String("id");
    blob.data = b.String("data");
    p.opaque.push_back(std::move(blob));
  });
  p.model = r.OptionalString("model");
}

void Write(OrderedJson& j, const ToolOutcome& p) {
  j["call_id"] = p.call_id;
  j["name"] = p.name;
  j["content"] = p.content;
  j["is_error"] = p.is_error;
}
void Read(JsonFields& r, ToolOutcome& p) {
  p.call_id = r.String("call_id");
  p.name = r.String("name");
  p.content = r.String("content");
  p.is_error = r.Bool("is_error");
}

// --- shared machinery ----------------------------------------------------------

template <typename Variant, typename Namer>
std::string Encode(const Variant& value, Namer name_of) {
  OrderedJson j;
  j["kind"] = name_of(value);
  std::visit([&j](const auto& alternative) { Write(j, alternative); }, value);
  return DumpJson(j);
}

// Finds the alternative of `Variant` whose kind name is `kind` and reads it.
template <typename Variant, size_t I = 0, typename Namer>
absl::StatusOr<Variant> DecodeKind(const std::string& kind, const Json& object, Namer name_of,
                                   const char* what) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return absl::InvalidArgumentError(absl::StrCat("unknown ", what, " kind \"", kind, "\""));
  } else {
    if (kind != name_of(Variant(std::in_place_index<I>))) {
      return DecodeKind<Variant, I + 1>(kind, object, name_of, what);
    }
    std::variant_alternative_t<I, Variant> value;
    JsonFields fields(object, kind);
    Read(fields, value);
    RETURN_IF_ERROR(fields.status());
    return Variant(std::move(value));
  }
}

absl::StatusOr<Json> ParseObject(const std::string& text, const std::string& what) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a JSON object, got ", parsed->type_name()));
  }
  return parsed;
}

}  // namespace

std::string EncodePayload(const EventPayload& payload) { return Encode(payload, KindName); }

absl::StatusOr<EventPayload> DecodePayload(const std::string& kind, const std::string& json) {
  ASSIGN_OR_RETURN(Json object, ParseObject(json, absl::StrCat("event payload of kind \"", kind,
                                                               "\"")));
  // The stored text repeats its kind; a disagreement with the kind column
  // means the row was tampered with or mixed up.
  auto stored = object.find("kind");
  if (stored != object.end() && (!stored->is_string() || *stored != kind)) {
    return absl::InvalidArgumentError(absl::StrCat("event payload of kind \"", kind,
                                                   "\" says its kind is ", DumpJson(*stored)));
  }
  return DecodeKind<EventPayload>(kind, object, KindName, "event");
}

std::string EncodeContextItem(const ContextItem& item) {
  return Encode(item, ContextKindName);
}

absl::StatusOr<ContextItem> DecodeContextItem(const std::string& json) {
  ASSIGN_OR_RETURN(Json object, ParseObject(json, "context item"));
  auto kind = object.find("kind");
  if (kind == object.end()) {
    return absl::InvalidArgumentError("context item: missing field \"kind\"");
  }
  if (!kind->is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("context item.kind: expected a string, got ", kind->type_name()));
  }
  return DecodeKind<ContextItem>(kind->get<std::string>(), object, ContextKindName,
                                 "context item");
}

}  // namespace raw::events
