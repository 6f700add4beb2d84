#include "clients/dashboard/live_commands.h"

#include <memory>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "clients/dashboard/error_mapping.h"
#include "clients/dashboard/proto_json.h"

namespace raw::dashboard {
namespace {

// A command's string field, "" when absent; INVALID_ARGUMENT when not a string.
absl::StatusOr<std::string> StringField(const Json& command, const char* name) {
  auto it = command.find(name);
  if (it == command.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", name, "\" must be a string"));
  }
  return it->get<std::string>();
}

absl::StatusOr<v1::ApprovalDecision> Decision(const std::string& name) {
  if (name == "allow") return v1::APPROVAL_DECISION_ALLOW_ONCE;
  if (name == "allow_session") return v1::APPROVAL_DECISION_ALLOW_SESSION;
  if (name == "deny") return v1::APPROVAL_DECISION_DENY;
  return absl::InvalidArgumentError(
      absl::StrCat("\"decision\" must be allow, allow_session or deny, not \"", name, "\""));
}

// The "images" of a prompt command, [{"mimeType": "image/png", "data":
// BASE64}, ...], decoded into `request`. The bytes themselves (their type,
// count and size) are rawd's to check; only the form is checked here.
absl::Status AddImages(const Json& command, v1::StartTurnRequest& request) {
  auto images = command.find("images");
  if (images == command.end() || images->is_null()) return absl::OkStatus();
  if (!images->is_array()) return absl::InvalidArgumentError("\"images\" must be an array");
  for (size_t i = 0; i < images->size(); ++i) {
    const Json& image = (*images)[i];
    const std::string which = absl::StrCat("images[", i, "]");
    if (!image.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(which, " must be an object"));
    }
    absl::StatusOr<std::string> mime_type = StringField(image, "mimeType");
    absl::StatusOr<std::string> data = StringField(image, "data");
    for (const auto* field : {&mime_type, &data}) {
      if (!field->ok()) {
        return absl::InvalidArgumentError(absl::StrCat(which, ": ", field->status().message()));
      }
    }
    v1::Image* added = request.add_images();
    added->set_mime_type(*mime_type);
    if (auto name = image.find("name"); name != image.end() && !name->is_null()) {
      if (!name->is_string()) {
        return absl::InvalidArgumentError(absl::StrCat(which, ".name must be a string"));
      }
      added->set_name(name->get<std::string>());
    }
    if (data->empty() || !absl::Base64Unescape(*data, added->mutable_data())) {
      return absl::InvalidArgumentError(
          absl::StrCat(which, ".data is not an image in base64 (RFC 4648, standard alphabet)"));
    }
  }
  return absl::OkStatus();
}

template <typename Response>
absl::StatusOr<Json> AsJson(absl::StatusOr<Response> response) {
  if (!response.ok()) return response.status();
  return ToJsonValue(*response);
}

absl::StatusOr<Json> Approve(const Json& command, CommandTarget& target) {
  absl::StatusOr<std::string> approval_id = StringField(command, "approval_id");
  absl::StatusOr<std::string> decision_name = StringField(command, "decision");
  absl::StatusOr<std::string> message = StringField(command, "message");
  for (const auto* field : {&approval_id, &decision_name, &message}) {
    if (!field->ok()) return field->status();
  }
  absl::StatusOr<v1::ApprovalDecision> decision = Decision(*decision_name);
  if (!decision.ok()) return decision.status();
  // Which of a call's session_rules options allow_session adds (0, the
  // exact rules, when absent); rawd refuses an index the call lacks.
  int32_t session_rule = 0;
  if (auto rule = command.find("session_rule"); rule != command.end() && !rule->is_null()) {
    if (!rule->is_number_integer() || rule->get<int64_t>() < 0 || rule->get<int64_t>() > 1000) {
      return absl::InvalidArgumentError("\"session_rule\" must be a small non-negative integer");
    }
    session_rule = static_cast<int32_t>(rule->get<int64_t>());
  }
  v1::RespondToApprovalRequest request;
  request.set_session_id(target.session_id());
  request.set_request_id(*approval_id);
  request.set_lease_id(target.lease_id());
  auto call_ids = command.find("call_ids");
  if (call_ids == command.end() || call_ids->is_null()) {
    request.set_all(*decision);
    request.set_all_message(*message);
    request.set_all_session_rule(session_rule);
  } else {
    if (!call_ids->is_array()) return absl::InvalidArgumentError("\"call_ids\" must be an array");
    for (const Json& id : *call_ids) {
      if (!id.is_string()) return absl::InvalidArgumentError("\"call_ids\" must hold strings");
      v1::ApprovalAnswer* answer = request.add_answers();
      answer->set_call_id(id.get<std::string>());
      answer->set_decision(*decision);
      answer->set_message(*message);
      answer->set_session_rule(session_rule);
    }
  }
  return AsJson(target.gateway().client->RespondToApproval(request));
}

absl::StatusOr<Json> Configure(const Json& command, CommandTarget& target, const char* field) {
  absl::StatusOr<std::string> value = StringField(command, field);
  if (!value.ok()) return value.status();
  v1::ConfigureSessionRequest request;
  request.set_session_id(target.session_id());
  request.set_lease_id(target.lease_id());
  if (std::string(field) == "agent") {
    request.set_agent(*value);
  } else {
    request.set_model(*value);
  }
  return AsJson(target.gateway().client->ConfigureSession(request));
}

// The result of op `op`; sets `*later` instead when the reply comes later.
absl::StatusOr<Json> Run(const std::string& op, int64_t id, const Json& command,
                         CommandTarget& target, bool* later) {
  client::RawClient& client = *target.gateway().client;
  const std::string& session = target.session_id();
  if (op == "acquire_lease") {
    target.DropEndedLease();
    auto handover = command.find("request_handover");
    std::optional<Json> now = target.AcquireLease(
        id, handover != command.end() && handover->is_boolean() && handover->get<bool>());
    if (!now) {
      *later = true;
      return Json::object();
    }
    return *std::move(now);
  }
  if (op == "release_lease") {
    target.ReleaseLease();
    return Json::object();
  }
  if (op == "decline_handover") {
    v1::DeclineHandoverRequest request;
    request.set_session_id(session);
    request.set_lease_id(target.lease_id());
    return AsJson(client.DeclineHandover(request));
  }
  if (op == "prompt") {
    absl::StatusOr<std::string> text = StringField(command, "text");
    if (!text.ok()) return text.status();
    v1::StartTurnRequest request;
    request.set_session_id(session);
    request.set_text(*text);
    request.set_lease_id(target.lease_id());
    if (absl::Status s = AddImages(command, request); !s.ok()) return s;
    std::shared_ptr<client::RawClient> slow = target.gateway().SlowClient();
    absl::Status started = target.RunSlow(
        id, [slow, request = std::move(request)] { return AsJson(slow->StartTurn(request)); });
    if (!started.ok()) return started;
    *later = true;
    return Json::object();
  }
  if (op == "interrupt") {
    v1::InterruptTurnRequest request;
    request.set_session_id(session);
    request.set_lease_id(target.lease_id());
    return AsJson(client.InterruptTurn(request));
  }
  if (op == "approve") return Approve(command, target);
  if (op == "compact") {
    v1::CompactRequest request;
    request.set_session_id(session);
    request.set_lease_id(target.lease_id());
    std::shared_ptr<client::RawClient> slow = target.gateway().SlowClient();
    absl::Status started = target.RunSlow(
        id, [slow, request = std::move(request)] { return AsJson(slow->Compact(request)); });
    if (!started.ok()) return started;
    *later = true;
    return Json::object();
  }
  if (op == "clear") {
    v1::ClearContextRequest request;
    request.set_session_id(session);
    request.set_lease_id(target.lease_id());
    return AsJson(client.ClearContext(request));
  }
  if (op == "set_agent") return Configure(command, target, "agent");
  if (op == "set_model") return Configure(command, target, "model");
  return absl::InvalidArgumentError(absl::StrCat("unknown op \"", op, "\""));
}

}  // namespace

Json OkReply(int64_t id, Json result) {
  return Json{{"type", "reply"}, {"id", id}, {"ok", true}, {"result", std::move(result)}};
}

Json ErrorReply(int64_t id, const absl::Status& status) {
  return Json{{"type", "reply"}, {"id", id}, {"ok", false}, {"error", ErrorObject(status)}};
}

std::optional<Json> RunCommand(const std::string& text, CommandTarget& target) {
  absl::StatusOr<Json> command = ParseJson(text);
  if (!command.ok() || !command->is_object()) {
    return ErrorReply(0, absl::InvalidArgumentError("a command must be a JSON object"));
  }
  auto id_field = command->find("id");
  if (id_field == command->end() || !id_field->is_number_integer()) {
    return ErrorReply(0, absl::InvalidArgumentError("a command needs an integer \"id\""));
  }
  const int64_t id = id_field->get<int64_t>();
  absl::StatusOr<std::string> op = StringField(*command, "op");
  if (!op.ok()) return ErrorReply(id, op.status());
  bool later = false;
  absl::StatusOr<Json> result = Run(*op, id, *command, target, &later);
  if (!result.ok()) return ErrorReply(id, result.status());
  if (later) return std::nullopt;
  return OkReply(id, *std::move(result));
}

}  // namespace raw::dashboard
