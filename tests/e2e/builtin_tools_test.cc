// Every built-in tool through a real rawd: the model calls each one once
// the way that works and once the way that fails, and the results it reads
// back (and what happened on disk) are checked.
#include <filesystem>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kOk = raw::v1::TOOL_RESULT_STATUS_OK;
constexpr auto kError = raw::v1::TOOL_RESULT_STATUS_ERROR;

class BuiltinToolsTest : public ContractTest {};

TEST_F(BuiltinToolsTest, FileToolsSucceedAndFailWithResultsTheModelCanActOn) {
  StartDaemon(R"("approval_mode": "allow_all")");
  const std::string work = daemon_->workdir();
  WriteFile(work + "/notes.txt", "alpha\nbeta\ngamma\n");
  WriteFile(work + "/src/main.c", "int x = 1;\nint y = 1;\n");
  WriteFile(work + "/src/util.c", "// TODO: tidy\n");
  WriteFile(work + "/build/gen.c", "// TODO: generated\n");
  WriteFile(work + "/.gitignore", "build/\n");

  auto results = RunBatch({
      {"r1", "read_file", R"({"path":"notes.txt","offset":2,"limit":1})"},
      {"r2", "read_file", R"({"path":"missing.txt"})"},
      {"w1", "write_file", R"({"path":"out/new.txt","content":"hello\n"})"},
      {"w2", "write_file", R"({"path":"src","content":"x"})"},
      {"e1", "edit_file", R"({"path":"src/main.c","old_string":"int x = 1;","new_string":"int x = 2;"})"},
      {"e2", "edit_file", R"({"path":"src/main.c","old_string":"int ","new_string":"long "})"},
      {"e3", "edit_file", R"({"path":"src/main.c","old_string":"absent","new_string":"z"})"},
      {"g1", "glob", R"({"pattern":"**/*.c"})"},
      {"g2", "glob", R"({"pattern":"*","path":"no_such_dir"})"},
      {"s1", "grep", R"({"pattern":"TODO"})"},
      {"s2", "grep", R"({"pattern":"(unclosed"})"},
      {"l1", "list_dir", R"({"path":"src"})"},
      {"l2", "list_dir", R"({"path":"notes.txt"})"},
      {"b1", "bash", R"({"command":"echo out; echo err >&2"})"},
      {"b2", "bash", R"({"command":"exit 3"})"},
  });
  ASSERT_EQ(results.size(), 15u);
  auto check = [&](size_t i, raw::v1::ToolResultStatus status, const std::string& needle) {
    EXPECT_EQ(results[i].status(), status) << i << ": " << results[i].content();
    EXPECT_THAT(results[i].content(), HasSubstr(needle)) << i;
  };
  check(0, kOk, "beta");
  EXPECT_THAT(results[0].content(), Not(HasSubstr("alpha")));
  EXPECT_THAT(results[0].content(), Not(HasSubstr("gamma")));
  check(1, kError, "missing.txt");
  check(2, kOk, "new.txt");
  EXPECT_EQ(ReadFile(work + "/out/new.txt"), "hello\n");
  check(3, kError, "directory");
  check(4, kOk, "main.c");
  // "int " occurs twice: refused without replace_all, nothing written.
  check(5, kError, "occurs 2 times");
  EXPECT_THAT(results[5].content(), HasSubstr("replace_all"));
  check(6, kError, "was not found");
  EXPECT_EQ(ReadFile(work + "/src/main.c"), "int x = 2;\nint y = 1;\n");
  // glob and grep honour .gitignore: build/ is left out.
  check(7, kOk, "src/main.c");
  EXPECT_THAT(results[7].content(), HasSubstr("src/util.c"));
  EXPECT_THAT(results[7].content(), Not(HasSubstr("gen.c")));
  check(8, kError, "no_such_dir");
  check(9, kOk, "src/util.c");
  EXPECT_THAT(results[9].content(), Not(HasSubstr("gen.c")));
  check(10, kError, "(unclosed");
  check(11, kOk, "main.c");
  EXPECT_THAT(results[11].content(), HasSubstr("util.c"));
  check(12, kError, "not a directory");
  check(13, kOk, "out");
  EXPECT_THAT(results[13].content(), HasSubstr("err"));
  check(14, kError, "exit code 3");

  // The model reads every result, failures included, in the next request.
  auto body = fake_.requests().back().BodyJson();
  ASSERT_TRUE(body.ok()) << body.status();
  int tool_messages = 0;
  for (const auto& m : (*body)["messages"]) {
    if (m["role"] == "tool") ++tool_messages;
  }
  EXPECT_EQ(tool_messages, 15);
}

TEST_F(BuiltinToolsTest, WebFetchReducesHtmlToTextAndRefusesWhatItMustNotFetch) {
  StartDaemon(R"("approval_mode": "allow_all", "allow_private_addresses": true)");
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  testing::ScriptedResponse page;
  page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  page.chunks = {
      "<html><head><title>Release notes</title><script>var hidden = 1;</script></head>"
      "<body><h1>Raw 1.2</h1><p>Compaction keeps the task.</p></body></html>"};
  site.Enqueue(page);
  testing::ScriptedResponse missing;
  missing.status = 404;
  missing.headers = {{"Content-Type", "text/plain"}};
  missing.chunks = {"no such page"};
  site.Enqueue(missing);
  const std::string base = "http://127.0.0.1:" + std::to_string(site.port());

  auto results = RunBatch({
      {"f1", "web_fetch", R"({"url":")" + base + R"(/notes"})"},
      {"f2", "web_fetch", R"({"url":")" + base + R"(/gone"})"},
      {"f3", "web_fetch", R"({"url":"ftp://127.0.0.1/file"})"},
      {"f4", "web_fetch",
       R"({"url":"http://user:secret@127.0.0.1:)" + std::to_string(site.port()) + R"(/x"})"},
  });
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status(), kOk) << results[0].content();
  EXPECT_THAT(results[0].content(), HasSubstr("Raw 1.2"));
  EXPECT_THAT(results[0].content(), HasSubstr("Compaction keeps the task."));
  EXPECT_THAT(results[0].content(), Not(HasSubstr("<p>")));
  EXPECT_THAT(results[0].content(), Not(HasSubstr("hidden")));
  EXPECT_EQ(results[1].status(), kError) << results[1].content();
  EXPECT_THAT(results[1].content(), HasSubstr("404"));
  EXPECT_EQ(results[2].status(), kError) << results[2].content();
  EXPECT_THAT(results[2].content(), HasSubstr("ftp"));
  EXPECT_EQ(results[3].status(), kError) << results[3].content();
  EXPECT_THAT(results[3].content(), HasSubstr("credentials"));
  EXPECT_THAT(results[3].content(), Not(HasSubstr("secret")));
  // Only the two http URLs reached the network.
  EXPECT_EQ(site.requests().size(), 2u);
}

}  // namespace
}  // namespace raw::e2e
