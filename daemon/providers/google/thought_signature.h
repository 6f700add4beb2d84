// Thought signatures: Gemini's opaque reasoning state, which may arrive on
// any response part and must go back on the same part of the same model
// content in later requests. Raw keeps each one as an events::OpaqueBlob
// {provider "google", kind "thought_signature", id = anchor, data = the
// signature exactly as received}. The anchor names the part it came on:
//   "thought"          a thought-summary part ("thought": true)
//   "text"             a text part of the answer (possibly empty text)
//   "call:<call_id>"   the functionCall part of that call
// The stream decoder creates the blobs (in ReasoningEndEvent.opaque) and the
// request builder places them; blobs of another provider or kind are never
// sent. Header-only constants and helpers; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace raw::providers::google {

inline constexpr char kOpaqueProvider[] = "google";
inline constexpr char kThoughtSignatureKind[] = "thought_signature";
inline constexpr char kThoughtAnchor[] = "thought";
inline constexpr char kTextAnchor[] = "text";
inline constexpr char kCallAnchorPrefix[] = "call:";

inline std::string CallAnchor(std::string_view call_id) {
  return absl::StrCat(kCallAnchorPrefix, absl::string_view(call_id.data(), call_id.size()));
}

}  // namespace raw::providers::google
