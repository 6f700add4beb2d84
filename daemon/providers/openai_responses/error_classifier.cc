#include "daemon/providers/openai_responses/error_classifier.h"

#include "daemon/providers/error_body.h"

namespace raw::providers::openai_responses {

ErrorEvent ClassifyErrorEvent(const Json& event) {
  // The shared classifier reads a document holding the error object under
  // "error" (the nested shape) and otherwise the document itself (the flat
  // shape, whose "type":"error" it skips as non-informative).
  return error_body::ClassifyStreamError(event);
}

ErrorEvent ClassifyFailedResponse(const Json& response) {
  if (response.is_object()) {
    auto error = response.find("error");
    if (error != response.end() &&
        ((error->is_object() && !error->empty()) || error->is_string())) {
      return error_body::ClassifyStreamError(*error);
    }
  }
  ErrorEvent event;
  event.kind = ErrorKind::kServer;
  event.retryable = true;
  event.message = "the response failed without an error message";
  return event;
}

}  // namespace raw::providers::openai_responses
