// PrepareToolCall: every way a committed call can be unfit to run becomes
// an error result the model can act on, before any handler runs.
#include "daemon/loop/tool_dispatch.h"

#include <string>
#include <vector>

#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::loop {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ToolDispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_.qualified_name = "builtin/echo";
    spec_.model_name = "echo";
    Json schema = {{"type", "object"},
                   {"properties", {{"text", {{"type", "string"}}}, {"n", {{"type", "integer"}}}}},
                   {"required", {"text"}},
                   {"additionalProperties", false}};
    spec_.input_schema = OrderedJson::parse(schema.dump());
    auto validator = tools::SchemaValidator::Compile(schema);
    ASSERT_TRUE(validator.ok()) << validator.status();
    spec_.validator = *validator;
    spec_.handler = [this](const Json& args, const tools::ToolContext&) {
      ++runs_;
      return tools::ToolOutput::Ok(args.at("text").get<std::string>());
    };
    table_["echo"] = &spec_;
  }

  PreparedCall Prepare(const std::string& name, const std::string& arguments, bool complete = true,
                       bool at_output_limit = false) {
    events::ToolCallRequest call{"c1", name, arguments};
    return PrepareToolCall(DispatchInput{call, complete, at_output_limit}, table_);
  }

  tools::ToolSpec spec_;
  ToolTable table_;
  int runs_ = 0;
};

TEST_F(ToolDispatchTest, ValidCallIsPreparedAndRuns) {
  PreparedCall p = Prepare("echo", R"({"text": "hi", "n": 2})");
  ASSERT_FALSE(p.error) << p.error->content;
  EXPECT_EQ(p.spec, &spec_);
  config::ToolSettings settings;
  CancelToken cancel;
  tools::ToolOutput out = RunPreparedCall(p, {"/", settings, cancel});
  EXPECT_EQ(out.content, "hi");
  EXPECT_EQ(runs_, 1);
}

TEST_F(ToolDispatchTest, EveryUnfitCallGetsASpecificError) {
  auto error = [&](const std::string& name, const std::string& args, bool complete = true,
                   bool at_output_limit = false) {
    PreparedCall p = Prepare(name, args, complete, at_output_limit);
    EXPECT_TRUE(p.error.has_value()) << args;
    return p.error ? p.error->content : std::string();
  };
  EXPECT_THAT(error("rocket", "{}"), HasSubstr("unknown tool \"rocket\". Available tools: echo"));
  EXPECT_THAT(error("echo", R"({"text": )"), HasSubstr("not valid JSON"));
  EXPECT_THAT(error("echo", R"({"text": "x"})", /*complete=*/false), HasSubstr("cut off"));
  // A call the output limit cut off is reported as cut off even when it
  // does not parse, and no error repeats the arguments.
  std::string cut = error("echo", R"({"text": "PARTIAL-CONTENT-123)", /*complete=*/false,
                          /*at_output_limit=*/true);
  EXPECT_THAT(cut, HasSubstr("cut off at the model's output limit"));
  EXPECT_THAT(cut, Not(HasSubstr("PARTIAL-CONTENT-123")));
  EXPECT_THAT(cut, Not(HasSubstr("not valid JSON")));
  EXPECT_THAT(error("echo", R"({"text": "x"})", false, true), HasSubstr("output limit"));
  // Invalid JSON in a response that ended normally is invalid JSON (the
  // provider marks such a call incomplete too).
  std::string unterminated = error("echo", R"({"text": "UNTERMINATED-456)", /*complete=*/false);
  EXPECT_THAT(unterminated, HasSubstr("not valid JSON"));
  EXPECT_THAT(unterminated, HasSubstr("column"));
  EXPECT_THAT(unterminated, Not(HasSubstr("UNTERMINATED-456")));
  EXPECT_THAT(error("echo", "{\"text\": \"abc\ndef\"}"), Not(HasSubstr("abc")));
  EXPECT_THAT(error("echo", R"(["text"])"), HasSubstr("must be a JSON object"));
  EXPECT_THAT(error("echo", R"({"text": 5})"), HasSubstr("/text"));
  EXPECT_THAT(error("echo", R"({})"), HasSubstr("text"));
  EXPECT_THAT(error("echo", R"({"text": "x", "colour": 1})"), HasSubstr("colour"));
  EXPECT_THAT(error("echo", R"({"text": "x", "n": "2"})"), HasSubstr("integer"));
  std::string huge = R"({"text": ")" + std::string(kMaxToolArgumentBytes, 'a') + R"("})";
  EXPECT_THAT(error("echo", huge), HasSubstr("more than the limit"));
  // Absurd nesting is an error too, never a crash.
  std::string nested = R"({"text": )" + std::string(200000, '[') + std::string(200000, ']') + "}";
  EXPECT_THAT(error("echo", nested), HasSubstr("nested more than 512 levels"));
  EXPECT_EQ(runs_, 0);
}

TEST_F(ToolDispatchTest, CancelledTurnDoesNotRunAPreparedCall) {
  PreparedCall p = Prepare("echo", R"({"text": "hi"})");
  ASSERT_FALSE(p.error);
  config::ToolSettings settings;
  CancelToken cancel;
  cancel.Cancel();
  tools::ToolOutput out = RunPreparedCall(p, {"/", settings, cancel});
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(runs_, 0);
}

// A call that never reaches its handler carries the tool's note, made from
// the tool's earlier result metadata.
TEST_F(ToolDispatchTest, ACallCancelledBeforeItRunsCarriesTheToolsNote) {
  std::vector<std::string> seen;
  spec_.not_run_note = [&seen](const std::vector<std::string>& prior_meta) {
    seen = prior_meta;
    return std::string("<note>");
  };
  PreparedCall p = Prepare("echo", R"({"text": "hi"})");
  ASSERT_FALSE(p.error);
  config::ToolSettings settings;
  CancelToken cancel;
  cancel.Cancel();
  tools::ToolContext ctx{"/", settings, cancel};
  ctx.prior_meta = []() -> absl::StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{"m1", "m2"};
  };
  tools::ToolOutput out = RunPreparedCall(p, ctx);
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(out.content, "Cancelled: the turn was interrupted before this call ran.\n<note>");
  EXPECT_EQ(seen, (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(runs_, 0);
  // Without readable metadata the result goes without the note.
  ctx.prior_meta = []() -> absl::StatusOr<std::vector<std::string>> {
    return absl::UnavailableError("store closed");
  };
  EXPECT_EQ(RunPreparedCall(p, ctx).content,
            "Cancelled: the turn was interrupted before this call ran.");
}

}  // namespace
}  // namespace raw::loop
