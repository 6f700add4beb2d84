#include "daemon/raven/draft/provider_draft_generator.h"

#include <algorithm>
#include <thread>
#include <variant>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/thread_start.h"
#include "daemon/raven/domain.h"

namespace raw::raven::draft {
namespace {

// Collects one stream: the prose, and how it ended.
class DraftSink : public providers::ProviderEventSink {
 public:
  void OnEvent(const providers::ProviderEvent& event) override {
    if (const auto* text = std::get_if<providers::TextDeltaEvent>(&event)) {
      text_ += text->text;
    } else if (const auto* finish = std::get_if<providers::FinishEvent>(&event)) {
      finish_ = *finish;
    } else if (const auto* error = std::get_if<providers::ErrorEvent>(&event)) {
      error_ = error->message.empty() ? std::string(providers::ErrorKindName(error->kind))
                                      : error->message;
      if (error->http_status != 0) error_ = absl::StrCat("HTTP ", error->http_status, ": ", *error_);
    } else if (std::holds_alternative<providers::RetryEvent>(event)) {
      text_.clear();  // the failed attempt's output is void
    }
  }
  const std::string& text() const { return text_; }
  const std::optional<providers::FinishEvent>& finish() const { return finish_; }
  const std::optional<std::string>& error() const { return error_; }

 private:
  std::string text_;
  std::optional<providers::FinishEvent> finish_;
  std::optional<std::string> error_;
};

}  // namespace

const char kDraftSystemPrompt[] =
    "You draft candidate wording for a research or writing Task. Write only the requested prose, "
    "with no preamble and no closing remarks, in Markdown or plain text, one sentence per line. "
    "Never invent a citation, statistic, quotation or source: where evidence is needed, say what "
    "would have to be checked instead.";

providers::ModelRequest DraftRequest(const std::string& context, const std::string& instruction) {
  providers::ModelRequest request;
  request.system_prompt = kDraftSystemPrompt;
  request.messages.push_back(
      events::UserText(absl::StrCat(context, "\n\nWrite this now:\n", instruction)));
  return request;
}

DraftVariant JudgeDraft(const std::string& route, const std::string& text,
                        const std::optional<providers::FinishEvent>& finish,
                        const std::optional<std::string>& error) {
  DraftVariant v{route, false, "", ""};
  if (error) {
    v.detail = absl::StrCat("the route failed: ", *error);
  } else if (!finish) {
    v.detail = "the route's stream ended without finishing";
  } else if (finish->reason == providers::FinishReason::kLength) {
    v.detail = "truncated at the output cap (raven.draft.max_output_tokens); a cut-off draft is "
               "not a candidate";
  } else if (finish->reason != providers::FinishReason::kStop) {
    v.detail = absl::StrCat("the route stopped with \"",
                            finish->raw_reason.empty()
                                ? providers::FinishReasonName(finish->reason)
                                : finish->raw_reason,
                            "\" instead of finishing its prose");
  } else if (absl::StripAsciiWhitespace(text).empty()) {
    v.detail = "the route returned no prose";
  } else {
    v.drafted = true;
    v.text = std::string(absl::StripAsciiWhitespace(text));
  }
  return v;
}

std::vector<std::string> ProviderDraftGenerator::Routes() const {
  std::vector<std::string> routes = settings_.Current().draft.routes;
  if (routes.size() > Limits::kDraftRoutes) routes.resize(Limits::kDraftRoutes);
  return routes;
}

DraftVariant ProviderDraftGenerator::RunRoute(const std::string& route,
                                              const providers::ModelRequest& request,
                                              int64_t timeout_ms, int64_t max_output_tokens,
                                              const CancelToken& cancel) {
  absl::StatusOr<std::unique_ptr<providers::Provider>> provider =
      factory_ ? factory_(route, max_output_tokens)
               : absl::StatusOr<std::unique_ptr<providers::Provider>>(
                     absl::FailedPreconditionError("no model providers are available here"));
  if (!provider.ok()) {
    return DraftVariant{route, false, "",
                        absl::StrCat("the route is not usable: ", provider.status().message())};
  }
  // The route's own token: cancelled by its deadline or by the caller.
  CancelToken route_cancel;
  const int forward = cancel.OnCancel([&route_cancel] { route_cancel.Cancel("cancelled"); });
  absl::Notification done;
  absl::StatusOr<std::thread> deadline =
      StartThread(absl::StrCat("the deadline of draft route ", route), [&] {
        if (!done.WaitForNotificationWithTimeout(absl::Milliseconds(timeout_ms))) {
          route_cancel.Cancel("deadline");
        }
      });
  if (!deadline.ok()) {
    // Unbounded, the route could hold the draft for as long as it streams.
    cancel.RemoveCallback(forward);
    return DraftVariant{route, false, "",
                        absl::StrCat("the route could not run: ", deadline.status().message())};
  }
  DraftSink sink;
  absl::Status status = (*provider)->Stream(request, sink, route_cancel);
  done.Notify();
  deadline->join();
  cancel.RemoveCallback(forward);
  if (route_cancel.cancelled()) {
    return DraftVariant{route, false, "",
                        cancel.cancelled()
                            ? std::string("the draft was cancelled")
                            : absl::StrCat("no complete draft within ", timeout_ms,
                                           " ms (raven.draft.timeout_seconds)")};
  }
  std::optional<std::string> error = sink.error();
  if (!error && !status.ok()) error = std::string(status.message());
  return JudgeDraft(route, sink.text(), sink.finish(), error);
}

std::vector<DraftVariant> ProviderDraftGenerator::Generate(const std::vector<std::string>& routes,
                                                           const std::string& context,
                                                           const std::string& instruction,
                                                           const CancelToken& cancel) {
  const config::RavenSettings settings = settings_.Current();
  const int64_t timeout_ms = std::max<int64_t>(settings.draft.timeout_ms, 1);
  const int64_t max_tokens = std::max<int64_t>(settings.draft.max_output_tokens, 1);
  const providers::ModelRequest request = DraftRequest(context, instruction);
  std::vector<DraftVariant> variants(routes.size());
  std::vector<std::thread> threads;
  threads.reserve(routes.size());
  for (size_t i = 0; i < routes.size(); ++i) {
    absl::StatusOr<std::thread> thread = StartThread(
        absl::StrCat("draft route ", routes[i]),
        [&, i] { variants[i] = RunRoute(routes[i], request, timeout_ms, max_tokens, cancel); });
    if (thread.ok()) {
      threads.push_back(*std::move(thread));
    } else {
      // No thread to be had: this route fails; the others run.
      variants[i] =
          DraftVariant{routes[i], false, "",
                       absl::StrCat("the route could not run: ", thread.status().message())};
    }
  }
  for (std::thread& t : threads) t.join();
  return variants;
}

}  // namespace raw::raven::draft
