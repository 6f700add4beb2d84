// builtin/raven_task: the model's one tool for a durable research Task
// (daemon/raven). The handler rebuilds the session's Task book from the
// host-side metadata of its earlier results (ToolContext::prior_meta), runs
// one action through the pure engine, and returns the rendered result as
// content and the Task's compact state as metadata — stored with the
// result, never sent to the model. The Task therefore lives in the
// session's own history: it survives a daemon restart and needs no storage
// of its own.
//
// Seams composed here, each reading the deployment's settings
// (ToolContext::raven_settings, config `raven`) when it runs:
// - Sources are reopened over the daemon's HttpClient by the HTTP Source
//   verifier (daemon/raven/web) under raven.verify.*, connecting to
//   non-public addresses only when raven.network.allow_private_addresses or
//   the agent's allow_private_addresses is true; without an HttpClient,
//   Source checks report `unavailable` (never a fabricated success).
// - Leads come from the web search backend (raven.search) through the
//   WebSourceSearcher; with discovery withheld or no backend, `discover`
//   reports unavailable with the reason.
// - Draft Variants come from ToolContext::drafter (the configured
//   raven.draft.routes over the provider adapters); without one, `draft`
//   reports unavailable.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/time.h"
#include "daemon/config/config_keys.h"
#include "daemon/raven/codec.h"
#include "daemon/raven/engine.h"
#include "daemon/raven/prompt.h"
#include "daemon/raven/seams.h"
#include "daemon/raven/web/http_source_verifier.h"
#include "daemon/raven/web/verifier_settings.h"
#include "daemon/raven/web/web_source_searcher.h"
#include "daemon/tools/builtin/builtin_tools.h"

namespace raw::tools::builtin {
namespace {

namespace rv = raw::raven;

constexpr char kNoVerifier[] =
    "no HTTP client is available to this tool call, so the excerpt could not be matched "
    "against the page; cite this Source only once it can be verified, or record the gap as a "
    "Limitation";

static_assert(config::kMaxRavenParallelFetches == rv::web::kMaxParallelFetches,
              "raven.verify.max_parallel_fetches is bounded as the verifier clamps it");

// The verifier's settings read from the Raven settings at every Verify
// call (the verifier asks for Current() each time).
class RavenVerifierSettings : public rv::web::VerifierSettingsSource {
 public:
  RavenVerifierSettings(const config::RavenSettingsSource* raven, bool agent_allows_private)
      : raven_(raven), agent_allows_private_(agent_allows_private) {}
  rv::web::VerifierSettings Current() const override {
    const config::RavenSettings raven = raven_ != nullptr ? raven_->Current() : config::RavenSettings();
    rv::web::VerifierSettings v;
    v.fetch_timeout_ms = raven.verify.fetch_timeout_ms;
    v.total_timeout_ms = raven.verify.total_timeout_ms;
    v.max_bytes = raven.verify.max_bytes;
    v.max_parallel_fetches = static_cast<int>(raven.verify.max_parallel_fetches);
    v.allow_private_addresses = raven.allow_private_addresses || agent_allows_private_;
    return v;
  }

 private:
  const config::RavenSettingsSource* raven_;
  bool agent_allows_private_;
};

OrderedJson StringEnum(const std::vector<std::string>& names, const std::string& description) {
  return {{"type", "string"}, {"enum", names}, {"description", description}};
}
OrderedJson Text(const std::string& description) {
  return {{"type", "string"}, {"description", description}};
}
OrderedJson Strings(const std::string& description) {
  return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", description}};
}
OrderedJson Object(OrderedJson properties, std::vector<std::string> required) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", required},
          {"additionalProperties", false}};
}

std::string ActionDescription() {
  std::string out = "The action. Fields each action accepts (others are refused):";
  for (const std::string& a : rv::ActionNames()) {
    absl::StrAppend(&out, " ", a, ": ", absl::StrJoin(rv::ActionFields().at(a), ", "), ";");
  }
  return out;
}

OrderedJson Schema() {
  OrderedJson source = Object(
      {{"sourceId", Text("Stable id: a letter or digit, then up to 63 of letters, digits, . _ -")},
       {"url", Text("The http(s) URL you inspected (no credentials; at most 2048 characters)")},
       {"title", Text("Title (at most 1000 characters)")},
       {"locator", Text("Where in the page the excerpt is (section, page, paragraph)")},
       {"excerpt", Text("A verbatim passage copied from the page: at least 40 characters once "
                        "white space is folded, at most 20000")},
       {"role", StringEnum(rv::Names<rv::SourceRole>(), "Default: secondary")},
       {"sourceFamily", Text("The originating record or institution (never the host)")},
       {"asOf", Text("The date the Source's values are as of")}},
      {"sourceId", "url", "title", "locator", "excerpt"});
  OrderedJson claim = Object(
      {{"claimId", Text("Stable id; reusing it with different text is refused")},
       {"text", Text("The Claim (at most 10000 characters)")},
       {"kind", StringEnum(rv::Names<rv::ClaimKind>(), "external: from Sources; analysis: yours")},
       {"importance", StringEnum(rv::Names<rv::Importance>(), "")},
       {"disposition", StringEnum(rv::Names<rv::Disposition>(), "")},
       {"sourceIds", Strings("Registered Source ids that support it")},
       {"contradicts", Strings("Claim ids it genuinely conflicts with")}},
      {"claimId", "text", "kind", "importance", "disposition", "sourceIds"});
  OrderedJson failure = Object({{"kind", StringEnum(rv::Names<rv::LimitationKind>(), "")},
                                {"detail", Text("What is missing or failed")},
                                {"sourceId", Text("The Source concerned, if any")}},
                               {"kind", "detail"});
  OrderedJson props = {
      {"action", StringEnum(rv::ActionNames(), ActionDescription())},
      {"outcome", StringEnum(rv::Names<rv::Outcome>(), "start: what the Task produces")},
      {"request", Text("start: the user's request (at most 20000 characters)")},
      {"grounding", StringEnum(rv::Names<rv::Grounding>(),
                               "start: the evidence floor. Default: required for research and "
                               "academic-writing (which may narrow it to optional, never none), "
                               "optional otherwise")},
      {"taskId", Text("The Task (status: defaults to the current Task)")},
      {"stage", StringEnum(rv::Names<rv::Stage>(), "checkpoint: an observation, not a gate")},
      {"summary", Text("checkpoint: what changed (at most 2000 characters)")},
      {"artifact", Text("checkpoint, complete: the whole Artifact in Markdown; cite Sources as "
                        "[@source-id] (at most 100000 characters)")},
      {"sources", {{"type", "array"}, {"items", source}, {"description", "checkpoint: Sources"}}},
      {"claims", {{"type", "array"}, {"items", claim}, {"description", "checkpoint: Claims"}}},
      {"failures",
       {{"type", "array"}, {"items", failure}, {"description", "checkpoint: Limitations"}}},
      {"queries", Strings("discover: up to 4 complementary search queries")},
      {"instruction", Text("draft: what to write (at most 8000 characters)")},
      {"routes", Strings("draft: a subset of the configured provider/model routes")},
      {"correction", Text("steer: the user's correction")},
      {"reason", Text("stop: why (not stored)")},
      {"title", Text("export: the page title (default: the request's first line)")},
      {"tags", Strings("export: lower-case tags (default: the Outcome)")},
      {"init", {{"type", "boolean"}, {"description", "export: also seed SCHEMA.md, index.md, log.md"}}},
  };
  return {{"type", "object"},
          {"properties", props},
          {"required", OrderedJson::array({"action"})},
          {"additionalProperties", false}};
}

// What the model needs to recover from a refused or cancelled call without
// starting a replacement Task: the Task the call addressed (`args`' taskId,
// when the session has it), else the current one; "" when there is none.
// The handler adds it to its own errors; the dispatcher, through
// not_run_note, to the results of calls that never reached the handler
// (arguments the schema refused, a turn cancelled first), which name the
// current Task.
std::string Recovery(const rv::TaskBook& book, const Json& args = Json::object()) {
  const rv::TaskState* t = book.Current();
  if (auto id = args.find("taskId"); args.is_object() && id != args.end() && id->is_string()) {
    if (auto addressed = book.tasks.find(id->get<std::string>()); addressed != book.tasks.end()) {
      t = &addressed->second;
    }
  }
  if (t == nullptr) return "";
  const bool current = t->task_id == book.current_task_id;
  return absl::StrCat(
      "<raven_task_recovery>\nThe ", current ? "current" : "addressed", " Task is ", t->task_id,
      " (phase ", rv::Name(t->phase), ", revision ", t->revision, ", ", t->checkpoints.size(),
      " Checkpoints, ", t->sources.size(), " Sources, ", t->claims.size(), " Claims)",
      current || book.current_task_id.empty()
          ? ""
          : absl::StrCat("; the current Task is ", book.current_task_id),
      ". Continue this Task rather than starting a new one: correct this call if it was refused",
      t->phase == rv::Phase::kStopped ? "; call resume first if the user wants to continue" : "",
      ".\n</raven_task_recovery>");
}

ToolOutput RunRavenTask(const Json& args, const ToolContext& ctx) {
  std::vector<std::string> records;
  if (ctx.prior_meta) {
    absl::StatusOr<std::vector<std::string>> prior = ctx.prior_meta();
    if (!prior.ok()) {
      return ToolOutput::Error(absl::StrCat("cannot read the session's Raven Tasks: ",
                                            prior.status().message()));
    }
    records = std::move(*prior);
  }
  rv::TaskBook book = rv::ReplayBook(records);
  rv::UnavailableSourceVerifier unavailable(kNoVerifier);
  const bool agent_allows_private = ctx.settings.web_fetch.allow_private_addresses;
  RavenVerifierSettings settings_source(ctx.raven_settings, agent_allows_private);
  std::optional<rv::web::HttpSourceVerifier> http_verifier;
  if (ctx.http != nullptr) http_verifier.emplace(*ctx.http, settings_source, ctx.url_refused);
  rv::SourceVerifier& verifier =
      http_verifier ? static_cast<rv::SourceVerifier&>(*http_verifier) : unavailable;
  config::FixedRavenSettings defaults{config::RavenSettings()};
  const config::RavenSettingsSource& raven_settings =
      ctx.raven_settings != nullptr ? *ctx.raven_settings : defaults;
  rv::web::WebSourceSearcher searcher(ctx.http, raven_settings, ctx.resolve_variable,
                                      agent_allows_private);
  rv::DeterministicDraftGenerator no_drafter({});
  rv::DraftGenerator& drafter = ctx.drafter != nullptr ? *ctx.drafter : no_drafter;
  rv::EngineContext engine{ctx.session_id, SystemClock().NowUnixMs(), verifier, searcher, drafter,
                           ctx.cancel};
  absl::StatusOr<rv::ActionResult> result = rv::RunAction(book, args, engine);
  if (!result.ok()) {
    const std::string recovery = Recovery(book, args);
    return ToolOutput::Error(
        absl::StrCat(result.status().message(), recovery.empty() ? "" : "\n", recovery));
  }
  // Replay is the restart source of truth: a state its decoder would refuse
  // (or read back differently) would vanish on the next call after being
  // reported as recorded, so such a call fails and records nothing.
  std::string meta = rv::EncodeRecord(result->state, result->current_task_id);
  absl::StatusOr<rv::Record> replayed = rv::DecodeRecord(meta);
  if (!replayed.ok() || replayed->state != result->state) {
    const std::string recovery = Recovery(book, args);
    const std::string why = replayed.ok()
                                ? absl::StrCat("it reads back differently at ",
                                               rv::StateDifference(result->state, replayed->state))
                                : std::string(replayed.status().message());
    return ToolOutput::Error(
        absl::StrCat("nothing was recorded: the resulting Task state would not replay (", why, ")",
                     recovery.empty() ? "" : "\n", recovery));
  }
  // The store keeps the record with known secret values replaced, which no
  // longer matches its hashes: the Checkpoint would be lost on replay. So a
  // state holding such a value is not recorded.
  if (ctx.redact && ctx.redact(meta) != meta) {
    const std::string recovery = Recovery(book, args);
    return ToolOutput::Error(absl::StrCat(
        "nothing was recorded: the resulting Task state holds a value this session keeps secret "
        "(an API key or a variable marked secret), which the session's store replaces with "
        "[redacted]; write the Artifact, Sources and Claims without it",
        recovery.empty() ? "" : "\n", recovery));
  }
  ToolOutput out = ToolOutput::Ok(rv::RenderResult(*result));
  out.meta = std::move(meta);
  // Clients show the compact card; the full result (with the Artifact) is
  // the content.
  out.display = rv::RenderCard(*result);
  return out;
}

}  // namespace

ToolSpec MakeRavenTaskTool() {
  ToolSpec spec;
  spec.qualified_name = "builtin/raven_task";
  spec.model_name = "raven_task";
  spec.description =
      "Keep one durable research Task per session: start it, checkpoint useful Artifacts with the "
      "Sources (verbatim excerpts), Claims and Limitations behind them, steer it on the user's "
      "corrections, and complete exactly the latest Checkpoint. Do the research with your other "
      "tools; cite Sources as [@source-id]. export returns llm-wiki page bytes for you to write.";
  spec.input_schema = Schema();
  // It changes nothing outside its own Task record in the session history,
  // but checkpoint and complete reopen Source URLs: like web_fetch, a URL is
  // data leaving the machine, so it asks unless the rules allow it, and the
  // url rules judge the Sources a call registers (every URL a later call
  // reopens was registered so) and, at every request, refuse what a deny
  // rule names (ToolContext::url_refused).
  spec.read_only = false;
  // start, status, steer, stop, resume and export (which returns page bytes
  // for the agent to write with its file tools) touch only the Task record:
  // no question for them in the default mode. checkpoint and complete reopen
  // Sources, discover sends queries, draft sends the instruction to models.
  spec.call_stays_local = [](const Json& args) {
    auto action = args.find("action");
    if (action == args.end() || !action->is_string()) return false;
    const std::string& name = action->get_ref<const std::string&>();
    return name == "start" || name == "status" || name == "steer" || name == "stop" ||
           name == "resume" || name == "export";
  };
  spec.fetched_urls_of = [](const Json& args) {
    std::vector<std::string> urls;
    auto sources = args.find("sources");
    if (sources == args.end() || !sources->is_array()) return urls;
    for (const Json& source : *sources) {
      if (!source.is_object()) continue;
      auto url = source.find("url");
      if (url != source.end() && url->is_string()) urls.push_back(url->get<std::string>());
    }
    return urls;
  };
  spec.handler = RunRavenTask;
  spec.prompt_section = rv::PromptSection();
  // After /clear or a compaction that summarized the Task's results away,
  // the next turn starts with a compact summary of the current Task.
  spec.turn_context = [](const std::vector<std::string>& prior_meta) {
    return rv::TaskContext(rv::ReplayBook(prior_meta));
  };
  // A call refused before the handler (by the schema, or cut off) or
  // cancelled before it ran still names the Task to continue.
  spec.not_run_note = [](const std::vector<std::string>& prior_meta) {
    return Recovery(rv::ReplayBook(prior_meta));
  };
  return spec;
}

}  // namespace raw::tools::builtin
