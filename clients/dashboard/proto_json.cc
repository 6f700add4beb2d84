#include "clients/dashboard/proto_json.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace raw::dashboard {

std::string ToJsonText(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  // Printing a valid message cannot fail; an empty object is the fallback.
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok()) return "{}";
  return out;
}

namespace {

// A JSON string; ill-formed UTF-8 (which rawd never sends) becomes U+FFFD
// rather than an exception.
std::string Quoted(std::string_view text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string EventJsonText(const raw::v1::Event& event) {
  if (event.has_text_delta()) return DeltaJsonText(event, event.text_delta().text());
  if (event.has_reasoning_delta()) return DeltaJsonText(event, event.reasoning_delta().text());
  return ToJsonText(event);
}

std::string DeltaJsonText(const raw::v1::Event& event, std::string_view text) {
  const char* field = event.has_reasoning_delta() ? "reasoningDelta" : "textDelta";
  // The proto3 JSON mapping: 64-bit integers as strings, every field
  // printed (always_print_primitive_fields).
  return absl::StrCat(R"({"sessionId":)", Quoted(event.session_id()), R"(,"seq":")", event.seq(),
                      R"(","turnId":)", Quoted(event.turn_id()), R"(,"timeUnixMs":")",
                      event.time_unix_ms(), R"(",")", field, R"(":{"text":)", Quoted(text), "}}");
}

Json ToJsonValue(const google::protobuf::Message& message) {
  absl::StatusOr<Json> parsed = ParseJson(ToJsonText(message));
  return parsed.ok() ? *std::move(parsed) : Json::object();
}

absl::Status FromJsonText(const std::string& text, google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  google::protobuf::util::Status parsed =
      google::protobuf::util::JsonStringToMessage(text, message, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the request body is not a valid ", message->GetDescriptor()->name(),
                     " in JSON: ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace raw::dashboard
