#include "daemon/providers/decoder_base.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace raw::providers {

void DecoderBase::Fail(ErrorEvent error, std::vector<ProviderEvent>* out) {
  EndWithError(std::move(error), out);
}

void DecoderBase::NoteIdentity(std::string_view response_id, std::string_view model) {
  if (start_.response_id.empty()) start_.response_id = std::string(response_id);
  if (start_.model.empty()) start_.model = std::string(model);
}

void DecoderBase::EnsureStarted(std::vector<ProviderEvent>* out) {
  if (started_) return;
  started_ = true;
  out->push_back(start_);
}

bool DecoderBase::AdmitCall(std::vector<ProviderEvent>* out) {
  if (done()) return false;
  if (++calls_ <= kMaxToolCallsPerResponse) return true;
  ErrorEvent error;
  error.kind = ErrorKind::kUnknown;
  error.retryable = false;
  error.message = absl::StrCat("the response has more than ", kMaxToolCallsPerResponse,
                               " tool calls, more than Raw runs from one response");
  EndWithError(std::move(error), out);
  return false;
}

void DecoderBase::EndWithError(ErrorEvent error, std::vector<ProviderEvent>* out) {
  if (done_) return;
  error.after_output = after_output_;
  if (std::optional<events::Usage> usage = FinalUsageSoFar()) out->push_back(UsageEvent{*usage});
  out->push_back(std::move(error));
  done_ = true;
}

void DecoderBase::EndPrematurely(std::string message, std::vector<ProviderEvent>* out) {
  ErrorEvent error;
  error.kind = ErrorKind::kPrematureEof;
  error.retryable = true;
  error.message = std::move(message);
  EndWithError(std::move(error), out);
}

std::optional<Json> DecoderBase::ParseBodyObject(std::string_view body,
                                                 std::vector<ProviderEvent>* out) {
  absl::StatusOr<Json> doc = ParseJson(body);
  if (doc.ok() && doc->is_object()) return *std::move(doc);
  ErrorEvent error;
  error.kind = ErrorKind::kUnknown;
  error.message = doc.ok() ? "the response body is not a JSON object"
                           : absl::StrCat("the response body is not valid JSON: ",
                                          doc.status().message());
  EndWithError(std::move(error), out);
  return std::nullopt;
}

}  // namespace raw::providers
