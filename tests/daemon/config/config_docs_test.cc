// docs/config.md and docs/config.schema.json agree with the loader: every
// example in the docs parses, the documented error output is what the loader
// prints, and the schema lists exactly the keys and values the loader takes.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/json.h"
#include "daemon/config/agent_entry.h"
#include "daemon/config/config_keys.h"
#include "daemon/config/config_loader.h"
#include "daemon/config/model_entry.h"
#include "daemon/config/variable_entry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::SizeIs;

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(RAW_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in.good()) << "cannot open " << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct FencedBlock {
  std::string info;  // the text after ``` on the opening line
  std::string body;
};

std::vector<FencedBlock> FencedBlocks(const std::string& markdown) {
  std::vector<FencedBlock> blocks;
  FencedBlock* open = nullptr;
  for (absl::string_view line : absl::StrSplit(markdown, '\n')) {
    if (line.substr(0, 3) == "```") {
      if (open == nullptr) {
        blocks.push_back({std::string(line.substr(3)), ""});
        open = &blocks.back();
      } else {
        open = nullptr;
      }
    } else if (open != nullptr) {
      open->body += std::string(line) + "\n";
    }
  }
  EXPECT_EQ(open, nullptr) << "unterminated code block";
  return blocks;
}

// Paths in the examples ("~/...", relative ones) resolve against these, so
// the examples parse whatever the environment.
const ParseContext kDocsContext{"/etc/raw", "/home/me"};

int ExpectExamplesParse(const std::string& doc) {
  int examples = 0;
  for (const FencedBlock& block : FencedBlocks(ReadSourceFile(doc))) {
    if (block.info != "jsonc") continue;
    ++examples;
    absl::StatusOr<Config> config = ParseConfig(block.body, kDocsContext);
    EXPECT_TRUE(config.ok()) << doc << ": " << config.status() << "\n" << block.body;
  }
  return examples;
}

TEST(ConfigDocsTest, EveryExampleParses) {
  EXPECT_GE(ExpectExamplesParse("docs/config.md"), 4);
  EXPECT_GE(ExpectExamplesParse("docs/variables.md"), 3);
}

// Checks every "jsonc broken" block of `doc` against the "text" block after
// it; returns how many there were.
int ExpectDocumentedErrors(const std::string& doc) {
  std::vector<FencedBlock> blocks = FencedBlocks(ReadSourceFile(doc));
  int checked = 0;
  for (size_t i = 0; i + 1 < blocks.size(); ++i) {
    if (blocks[i].info != "jsonc broken") continue;
    if (blocks[i + 1].info != "text") {
      ADD_FAILURE() << doc << ": a broken example is followed by its errors";
      continue;
    }
    std::vector<std::string> expected = absl::StrSplit(blocks[i + 1].body, '\n');
    expected.pop_back();  // the body ends with a newline
    EXPECT_EQ(testing::ProblemLines(blocks[i].body), expected) << doc;
    ++checked;
  }
  return checked;
}

// The "Built-in defaults" section names the default agent's tools as the
// defaults define them.
TEST(ConfigDocsTest, TheDefaultAgentsToolsAreTheBuiltInOnes) {
  const std::string doc = ReadSourceFile("docs/config.md");
  const size_t section = doc.find("## Built-in defaults");
  ASSERT_NE(section, std::string::npos);
  const size_t start = doc.find("Agent `default` has", section);
  ASSERT_NE(start, std::string::npos);
  const std::string sentence = doc.substr(start, doc.find(".\n", start) - start);
  const Config defaults = BuiltinDefaults();
  const std::vector<std::string>& tools = defaults.agents.at("default").tools_use;
  ASSERT_EQ(tools, std::vector<std::string>{"builtin/*"});
  for (const std::string& tool : tools) {
    EXPECT_NE(sentence.find("`" + tool + "`"), std::string::npos) << sentence;
  }
  EXPECT_EQ(sentence.find("builtin/read_file"), std::string::npos) << sentence;
}

TEST(ConfigDocsTest, DocumentedErrorsAreTheLoadersOutput) {
  EXPECT_EQ(ExpectDocumentedErrors("docs/config.md"), 1);
  EXPECT_EQ(ExpectDocumentedErrors("docs/variables.md"), 1);
}

// The property names of a schema object.
std::set<std::string> PropertyNames(const Json& object_schema) {
  std::set<std::string> names;
  for (const auto& [key, value] : object_schema.at("properties").items()) names.insert(key);
  return names;
}

template <typename List>
std::set<std::string> AsSet(const List& list) {
  std::set<std::string> out;
  for (const auto& s : list) out.insert(std::string(s));
  return out;
}

// Every object schema with "properties" refuses other keys, as the loader does.
void ExpectClosedObjects(const Json& schema, const std::string& where) {
  if (schema.is_object()) {
    if (schema.contains("properties")) {
      EXPECT_EQ(schema.value("additionalProperties", Json(true)), Json(false)) << where;
    }
    for (const auto& [key, value] : schema.items()) ExpectClosedObjects(value, where + "/" + key);
  } else if (schema.is_array()) {
    for (const Json& item : schema) ExpectClosedObjects(item, where);
  }
}

class ConfigSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Json> parsed = ParseJson(ReadSourceFile("docs/config.schema.json"));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    schema_ = *parsed;
  }
  const Json& Def(const char* name) { return schema_.at("definitions").at(name); }

  Json schema_;
};

TEST_F(ConfigSchemaTest, ListsExactlyTheLoadersKeys) {
  EXPECT_EQ(PropertyNames(schema_), AsSet(kTopLevelKeys));
  EXPECT_EQ(PropertyNames(Def("model")), AsSet(kModelKeys));
  EXPECT_EQ(AsSet(Def("model").at("required").get<std::vector<std::string>>()),
            AsSet(kModelRequiredKeys));
  EXPECT_EQ(PropertyNames(Def("model").at("properties").at("cache")), AsSet(kModelCacheKeys));
  const Json& agent = Def("agent");
  EXPECT_EQ(PropertyNames(agent), AsSet(kAgentKeys));
  EXPECT_EQ(PropertyNames(agent.at("properties").at("tools")), AsSet(kAgentToolsKeys));
  EXPECT_EQ(PropertyNames(agent.at("properties").at("compact")), AsSet(kAgentCompactKeys));
  EXPECT_EQ(AsSet(agent.at("properties")
                      .at("allow_protected_paths")
                      .at("items")
                      .at("enum")
                      .get<std::vector<std::string>>()),
            AsSet(kProtectedPathNames));
  const Json& tools = schema_.at("properties").at("tools");
  EXPECT_EQ(PropertyNames(tools), AsSet(kToolsKeys));
  EXPECT_EQ(PropertyNames(tools.at("properties").at("bash")), AsSet(kToolsBashKeys));
  EXPECT_EQ(PropertyNames(tools.at("properties").at("files")), AsSet(kToolsFilesKeys));
  EXPECT_EQ(PropertyNames(tools.at("properties").at("web_fetch")), AsSet(kToolsWebFetchKeys));
  EXPECT_EQ(PropertyNames(Def("rule")), AsSet(kRuleKeys));
  EXPECT_EQ(PropertyNames(Def("hook")), AsSet(kHookKeys));
  EXPECT_EQ(PropertyNames(Def("variable")), AsSet(kVariableKeys));
  EXPECT_EQ(PropertyNames(Def("mcp_server")), AsSet(kMcpServerKeys));
  EXPECT_EQ(PropertyNames(schema_.at("properties").at("sessions")), AsSet(kSessionsKeys));
  const Json& raven = schema_.at("properties").at("raven");
  EXPECT_EQ(PropertyNames(raven), AsSet(kRavenKeys));
  const Json& sections = raven.at("properties");
  EXPECT_EQ(PropertyNames(sections.at("verify")), AsSet(kRavenVerifyKeys));
  EXPECT_EQ(PropertyNames(sections.at("discovery")), AsSet(kRavenDiscoveryKeys));
  EXPECT_EQ(PropertyNames(sections.at("search")), AsSet(kRavenSearchKeys));
  EXPECT_EQ(PropertyNames(sections.at("draft")), AsSet(kRavenDraftKeys));
  EXPECT_EQ(PropertyNames(sections.at("network")), AsSet(kRavenNetworkKeys));
  ExpectClosedObjects(schema_, "");
}

TEST_F(ConfigSchemaTest, ListsExactlyTheLoadersValues) {
  const Json& model = Def("model").at("properties");
  EXPECT_EQ(AsSet(model.at("method").at("enum").get<std::vector<std::string>>()),
            AsSet(kSupportedMethods));
  EXPECT_EQ(AsSet(model.at("system_role").at("enum").get<std::vector<std::string>>()),
            AsSet(kSystemRoles));
  EXPECT_EQ(AsSet(model.at("max_tokens_field").at("enum").get<std::vector<std::string>>()),
            AsSet(kMaxTokensFields));
  EXPECT_EQ(model.at("context_window_tokens").at("maximum"), kMaxTokenCount);
  EXPECT_EQ(model.at("idle_timeout_seconds").at("maximum"), kMaxTimeoutSeconds);
  const Json& cache = model.at("cache").at("properties");
  EXPECT_EQ(AsSet(cache.at("retention").at("enum").get<std::vector<std::string>>()),
            AsSet(kCacheRetentions));
  EXPECT_EQ(cache.at("retention").at("default"), std::string(kCacheRetentions[0]));
  EXPECT_EQ(cache.at("key").at("minLength"), 1);
  EXPECT_EQ(AsSet(model.at("reasoning_content").at("enum").get<std::vector<std::string>>()),
            AsSet(kReasoningContentModes));
  EXPECT_EQ(model.at("reasoning_content").at("default"), "omit");
  EXPECT_EQ(model.at("max_retries").at("minimum"), 0);
  EXPECT_EQ(model.at("max_retries").at("maximum"), kMaxModelRetries);
  EXPECT_EQ(model.at("max_retries").at("default"), ModelConfig().max_retries);
  EXPECT_EQ(model.at("max_response_bytes").at("default"), ModelConfig().max_response_bytes);
  EXPECT_EQ(model.at("max_response_bytes").at("minimum"), kMinResponseBytes);
  EXPECT_EQ(model.at("max_response_bytes").at("maximum"), kMaxResponseBytes);
  EXPECT_EQ(model.at("max_stream_seconds").at("default"), ModelConfig().max_stream_ms / 1000);
  EXPECT_EQ(model.at("max_stream_seconds").at("maximum"), kMaxTimeoutSeconds);
  const Json& agent = Def("agent").at("properties");
  EXPECT_EQ(AsSet(agent.at("approval_mode").at("enum").get<std::vector<std::string>>()),
            AsSet(kApprovalModes));
  const Json& hook = Def("hook").at("properties");
  EXPECT_EQ(AsSet(hook.at("event").at("enum").get<std::vector<std::string>>()),
            AsSet(kHookEvents));
  EXPECT_EQ(AsSet(hook.at("on_failure").at("enum").get<std::vector<std::string>>()),
            AsSet(kHookFailurePolicies));
  EXPECT_EQ(agent.at("max_steps").at("minimum"), 1);
  EXPECT_EQ(agent.at("max_steps").at("maximum"), kMaxSteps);
  EXPECT_EQ(agent.at("compact").at("properties").at("keep_recent_turns").at("maximum"),
            kMaxKeepRecentTurns);
}

TEST_F(ConfigSchemaTest, ToolLimitsMatchTheLoader) {
  const Json& tools = schema_.at("properties").at("tools").at("properties");
  for (const char* tool : {"bash", "web_fetch"}) {
    EXPECT_EQ(tools.at(tool).at("properties").at("timeout_seconds").at("maximum"),
              kMaxTimeoutSeconds)
        << tool;
  }
  EXPECT_EQ(tools.at("bash").at("properties").at("max_output_bytes").at("maximum"), kMaxByteLimit);
  EXPECT_EQ(tools.at("files").at("properties").at("max_read_bytes").at("maximum"), kMaxByteLimit);
  EXPECT_EQ(tools.at("files").at("properties").at("max_results").at("maximum"), kMaxResults);
  for (const char* limit : {"max_bytes", "max_output_bytes"}) {
    EXPECT_EQ(tools.at("web_fetch").at("properties").at(limit).at("maximum"), kMaxByteLimit)
        << limit;
  }
  // One past each maximum is what the loader refuses.
  std::vector<ConfigProblem> problems;
  EXPECT_FALSE(ParseConfig(R"({"tools": {"web_fetch": {"timeout_seconds": 86401,
                                                      "max_bytes": 1073741825,
                                                      "max_output_bytes": 1073741825}}})",
                           &problems)
                   .ok());
  EXPECT_EQ(problems.size(), 3u);
  EXPECT_TRUE(ParseConfig(R"({"tools": {"web_fetch": {"timeout_seconds": 86400,
                                                     "max_bytes": 1073741824,
                                                     "max_output_bytes": 1073741824}}})")
                  .ok());
}

TEST_F(ConfigSchemaTest, VariablesServersAndSessionsMatchTheLoader) {
  const Json& variable = Def("variable").at("properties");
  std::set<std::string> sources;
  for (const Json& choice : Def("variable").at("oneOf")) {
    for (const Json& key : choice.at("required")) sources.insert(key.get<std::string>());
  }
  EXPECT_EQ(sources, AsSet(kVariableSources));
  EXPECT_EQ(variable.at("timeout_seconds").at("maximum"), kMaxVariableTimeoutSeconds);
  EXPECT_EQ(variable.at("timeout_seconds").at("default"), VariableConfig().timeout_ms / 1000);
  EXPECT_EQ(variable.at("secret").at("default"), VariableConfig().secret);

  const Json& server = Def("mcp_server").at("properties");
  McpServerConfig defaults;
  EXPECT_EQ(server.at("startup_timeout_seconds").at("default"), defaults.startup_timeout_ms / 1000);
  EXPECT_EQ(server.at("call_timeout_seconds").at("default"), defaults.call_timeout_ms / 1000);
  EXPECT_EQ(server.at("idle_timeout_seconds").at("default"), defaults.idle_timeout_ms / 1000);
  EXPECT_EQ(server.at("max_progress_bytes").at("default"), defaults.max_progress_bytes);
  EXPECT_EQ(server.at("max_progress_bytes").at("maximum"), kMaxProgressBytes);
  const Json& live =
      schema_.at("properties").at("sessions").at("properties").at("max_live_bytes");
  EXPECT_EQ(live.at("default"), SessionSettings().max_live_bytes);
  EXPECT_EQ(live.at("minimum"), kMinLiveBytes);
  EXPECT_EQ(live.at("maximum"), kMaxLiveBytes);

  const Json& days = schema_.at("properties").at("sessions").at("properties").at(
      "expire_after_days");
  EXPECT_EQ(days.at("default"), SessionSettings().expire_after_days);
  EXPECT_EQ(days.at("minimum"), 0);

  const Json& model = Def("model");
  EXPECT_EQ(model.at("not").at("required"), Json::array({"api_key", "api_key_env"}));
}

TEST_F(ConfigSchemaTest, RavenMatchesTheLoader) {
  const Json& raven = schema_.at("properties").at("raven").at("properties");
  const RavenSettings defaults;
  const Json& verify = raven.at("verify").at("properties");
  EXPECT_EQ(verify.at("fetch_timeout_seconds").at("default"),
            defaults.verify.fetch_timeout_ms / 1000);
  EXPECT_EQ(verify.at("total_timeout_seconds").at("default"),
            defaults.verify.total_timeout_ms / 1000);
  EXPECT_EQ(verify.at("fetch_timeout_seconds").at("maximum"), kMaxRavenTimeoutSeconds);
  EXPECT_EQ(verify.at("max_bytes").at("default"), defaults.verify.max_bytes);
  EXPECT_EQ(verify.at("max_parallel_fetches").at("default"), defaults.verify.max_parallel_fetches);
  EXPECT_EQ(verify.at("max_parallel_fetches").at("maximum"), kMaxRavenParallelFetches);
  EXPECT_EQ(raven.at("discovery").at("properties").at("enabled").at("default"),
            defaults.discovery_enabled);
  const Json& search = raven.at("search").at("properties");
  EXPECT_EQ(AsSet(search.at("backend").at("enum").get<std::vector<std::string>>()),
            AsSet(kSearchBackends));
  EXPECT_EQ(search.at("timeout_seconds").at("default"), defaults.search.timeout_ms / 1000);
  EXPECT_EQ(search.at("max_results").at("default"), defaults.search.max_results);
  EXPECT_EQ(search.at("max_results").at("maximum"), kMaxSearchResults);
  const Json& draft = raven.at("draft").at("properties");
  EXPECT_EQ(draft.at("routes").at("maxItems"), kMaxDraftRoutes);
  EXPECT_EQ(draft.at("timeout_seconds").at("default"), defaults.draft.timeout_ms / 1000);
  EXPECT_EQ(draft.at("max_output_tokens").at("default"), defaults.draft.max_output_tokens);
  EXPECT_EQ(raven.at("network").at("properties").at("allow_private_addresses").at("default"),
            defaults.allow_private_addresses);
}

}  // namespace
}  // namespace raw::config
