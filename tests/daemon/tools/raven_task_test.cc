// builtin/raven_task as a tool: its schema (flat, unknown keys refused, the
// per-action allow-list in the description), and its results — content for
// the model, the compact card as display, the Task state as metadata that
// the next call gets back through ToolContext::prior_meta.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "daemon/raven/codec.h"
#include "daemon/raven/domain.h"
#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/registry.h"
#include "daemon/tools/schema_validator.h"

namespace raw::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class RavenTaskToolTest : public ::testing::Test {
 protected:
  ToolOutput Call(const Json& args) {
    ToolContext ctx{"/", settings_, cancel_};
    ctx.session_id = "sess-A";
    ctx.prior_meta = [this]() -> absl::StatusOr<std::vector<std::string>> { return metas_; };
    ctx.redact = redact_;
    ToolOutput out = spec_.handler(args, ctx);
    if (!out.meta.empty()) metas_.push_back(out.meta);
    return out;
  }
  ToolSpec spec_ = builtin::MakeRavenTaskTool();
  config::ToolSettings settings_;
  CancelToken cancel_;
  std::vector<std::string> metas_;
  std::function<std::string(const std::string&)> redact_ = nullptr;
};

// The store keeps a record with known secret values replaced, so a state
// holding one would not replay as published: such a call records nothing.
TEST_F(RavenTaskToolTest, AStateHoldingAKnownSecretIsNotRecorded) {
  redact_ = [](const std::string& text) {
    std::string out = text;
    for (size_t at; (at = out.find("sk-live-123")) != std::string::npos;) {
      out.replace(at, 11, "[redacted]");
    }
    return out;
  };
  ToolOutput start = Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Explain"}});
  ASSERT_EQ(start.status, events::ToolStatus::kOk) << start.content;
  std::string task = raven::MakeTaskId("sess-A", 1);
  ToolOutput leaked = Call({{"action", "checkpoint"},
                            {"taskId", task},
                            {"stage", "draft"},
                            {"summary", "s"},
                            {"artifact", "The key is sk-live-123."}});
  EXPECT_EQ(leaked.status, events::ToolStatus::kError);
  EXPECT_THAT(leaked.content, HasSubstr("nothing was recorded"));
  EXPECT_THAT(leaked.content, HasSubstr("[redacted]"));
  EXPECT_TRUE(leaked.meta.empty());
  ToolOutput clean = Call({{"action", "checkpoint"},
                           {"taskId", task},
                           {"stage", "draft"},
                           {"summary", "s"},
                           {"artifact", "The key is not shown."}});
  EXPECT_EQ(clean.status, events::ToolStatus::kOk) << clean.content;
  EXPECT_THAT(clean.content, HasSubstr("revision 2"));
}

TEST_F(RavenTaskToolTest, SchemaIsFlatClosedAndListsEachActionsFields) {
  const OrderedJson& schema = spec_.input_schema;
  EXPECT_EQ(schema["additionalProperties"], false);
  EXPECT_EQ(schema["required"], OrderedJson::array({"action"}));
  EXPECT_EQ(schema["properties"]["action"]["enum"],
            OrderedJson::array({"start", "discover", "checkpoint", "draft", "steer", "complete",
                                "status", "stop", "resume", "export"}));
  std::string description = schema["properties"]["action"]["description"];
  EXPECT_THAT(description, HasSubstr("start: outcome, request, grounding;"));
  EXPECT_THAT(description,
              HasSubstr("checkpoint: taskId, stage, summary, artifact, sources, claims, failures;"));
  EXPECT_EQ(schema["properties"]["sources"]["items"]["additionalProperties"], false);
  auto validator = SchemaValidator::Compile(Json::parse(schema.dump()));
  ASSERT_TRUE(validator.ok()) << validator.status();
  EXPECT_FALSE((*validator)->Validate({{"action", "status"}, {"colour", 1}}, "raven_task").ok());
  EXPECT_FALSE((*validator)->Validate({{"action", "begin"}}, "raven_task").ok());
  EXPECT_TRUE((*validator)->Validate({{"action", "status"}}, "raven_task").ok());
  ToolRegistry registry;
  EXPECT_TRUE(RegisterBuiltinTools(registry).ok());
  EXPECT_NE(registry.FindQualified("builtin/raven_task"), nullptr);
}

TEST_F(RavenTaskToolTest, ResultsCarryStateAsMetadataNotContent) {
  ToolOutput start = Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Explain"}});
  ASSERT_EQ(start.status, events::ToolStatus::kOk) << start.content;
  std::string task = raven::MakeTaskId("sess-A", 1);
  EXPECT_THAT(start.content, HasSubstr("Raven Task " + task));
  EXPECT_THAT(start.content, Not(HasSubstr("raw.raven/task-state")));
  EXPECT_THAT(start.display, HasSubstr("Raven " + task + " · active · phase active · revision 1"));
  absl::StatusOr<raven::Record> rec = raven::DecodeRecord(start.meta);
  ASSERT_TRUE(rec.ok()) << rec.status();
  EXPECT_EQ(rec->current_task_id, task);
  // The next call continues the same Task from the metadata.
  ToolOutput cp = Call({{"action", "checkpoint"}, {"taskId", task}, {"stage", "draft"},
                        {"summary", "s"}, {"artifact", "One. Two."}});
  ASSERT_EQ(cp.status, events::ToolStatus::kOk) << cp.content;
  EXPECT_THAT(cp.content, HasSubstr("revision 2"));
  // Per-action allow-list at run time (a direct caller bypassing the schema).
  ToolOutput bad = Call({{"action", "steer"}, {"taskId", task}, {"correction", "x"}, {"stage", "draft"}});
  EXPECT_EQ(bad.status, events::ToolStatus::kError);
  EXPECT_THAT(bad.content, HasSubstr("contains unknown field(s): stage. Accepted field(s): action, taskId, correction"));
  EXPECT_THAT(bad.content, HasSubstr("<raven_task_recovery>"));
  EXPECT_TRUE(bad.meta.empty());
  // The same block for a call that never reaches the handler (the
  // dispatcher appends the note to a schema refusal or a cancellation).
  ASSERT_TRUE(spec_.not_run_note);
  EXPECT_EQ(spec_.not_run_note({}), "") << "no Task, nothing to recover";
  std::string note = spec_.not_run_note(metas_);
  EXPECT_EQ(note.rfind("<raven_task_recovery>\nThe current Task is " + task + " (phase active", 0),
            0u)
      << note;
  EXPECT_THAT(bad.content, HasSubstr("\n" + note));
  // Without a composed verifier a cited Source is never reported verified.
  ToolOutput cited = Call(
      {{"action", "checkpoint"},
       {"taskId", task},
       {"stage", "read"},
       {"summary", "s"},
       {"artifact", "Fact [@a]."},
       {"sources",
        Json::array({Json{{"sourceId", "a"},
                          {"url", "https://a.test/"},
                          {"title", "t"},
                          {"locator", "l"},
                          {"excerpt", "a passage of the page at a.test, copied verbatim"}}})}});
  EXPECT_THAT(cited.content, HasSubstr("status needs-revision"));
  EXPECT_THAT(cited.content, HasSubstr("no HTTP client is available to this tool call"));
}

// A refused call names the Task it addressed, not only the current one.
TEST_F(RavenTaskToolTest, RecoveryNamesTheAddressedTask) {
  ToolOutput first = Call({{"action", "start"}, {"outcome", "learning"}, {"request", "One"}});
  ASSERT_EQ(first.status, events::ToolStatus::kOk) << first.content;
  const std::string older = raven::MakeTaskId("sess-A", 1);
  ASSERT_EQ(Call({{"action", "stop"}, {"taskId", older}}).status, events::ToolStatus::kOk);
  ToolOutput second = Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Two"}});
  ASSERT_EQ(second.status, events::ToolStatus::kOk) << second.content;
  const std::string current = raven::MakeTaskId("sess-A", 2);
  ToolOutput bad =
      Call({{"action", "steer"}, {"taskId", older}, {"correction", "x"}, {"stage", "draft"}});
  EXPECT_EQ(bad.status, events::ToolStatus::kError);
  EXPECT_THAT(bad.content, HasSubstr("<raven_task_recovery>\nThe addressed Task is " + older +
                                     " (phase stopped"));
  EXPECT_THAT(bad.content, HasSubstr("the current Task is " + current));
  EXPECT_THAT(bad.content, HasSubstr("call resume first"));
}

}  // namespace
}  // namespace raw::tools
