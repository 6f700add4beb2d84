// DecoderBase: the bookkeeping every vendor decoder keeps the same way, and
// the shared ways to end a response. A vendor's StreamDecoder derives from
// it and says which usage is certain when a response fails.
//
// Contract (on top of VendorDecoder's): Start is emitted at most once, with
// the response id and model noted so far; the first terminal event sets
// done() and every later ending is a no-op; an ErrorEvent carries
// after_output, and is preceded by the usage FinalUsageSoFar() reports.
//
// Thread-compatible: one decoder per response.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "daemon/events/usage.h"
#include "daemon/providers/provider_event.h"
#include "daemon/providers/vendor_decoder.h"

namespace raw::providers {

class DecoderBase : public VendorDecoder {
 public:
  void Fail(ErrorEvent error, std::vector<ProviderEvent>* out) final;
  bool done() const final { return done_; }
  size_t held_bytes() const final { return held_bytes_; }

  // Some text, reasoning or tool-call event has been produced.
  bool after_output() const { return after_output_; }

 protected:
  // The usage that is certain although the response did not finish (for
  // most APIs the counts reported so far, for some only the prompt count);
  // nullopt when there is none. Reported just before a terminal error.
  virtual std::optional<events::Usage> FinalUsageSoFar() const = 0;

  // Records the response id and model where none is known yet; the Start
  // event carries them.
  void NoteIdentity(std::string_view response_id, std::string_view model);
  const std::string& response_id() const { return start_.response_id; }

  // Emits Start once.
  void EnsureStarted(std::vector<ProviderEvent>* out);
  bool started() const { return started_; }

  // Text, reasoning or a tool call has been emitted.
  void MarkOutput() { after_output_ = true; }
  // A Finish event has been emitted.
  void MarkDone() { done_ = true; }

  // Counts a new tool call of the response. Past kMaxToolCallsPerResponse
  // it ends the response with a non-retryable error and returns false: the
  // caller drops the call and decodes nothing more.
  bool AdmitCall(std::vector<ProviderEvent>* out);

  // Bytes kept back from the events (see held_bytes()) grew or were let
  // out (emitted or dropped).
  void Hold(size_t bytes) { held_bytes_ += bytes; }
  void Release(size_t bytes) { held_bytes_ -= std::min(bytes, held_bytes_); }

  // Ends the response with `error`. No-op once done().
  void EndWithError(ErrorEvent error, std::vector<ProviderEvent>* out);
  // Ends it with a retryable kPrematureEof that says `message`.
  void EndPrematurely(std::string message, std::vector<ProviderEvent>* out);

  // A non-streamed response body as a JSON object; anything else ends the
  // response with a kUnknown error saying why, and gives nullopt.
  std::optional<Json> ParseBodyObject(std::string_view body, std::vector<ProviderEvent>* out);

 private:
  StartEvent start_;
  bool started_ = false;
  bool done_ = false;
  bool after_output_ = false;
  size_t held_bytes_ = 0;
  int calls_ = 0;
};

}  // namespace raw::providers
