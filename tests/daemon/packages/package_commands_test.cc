// The files a package's hooks and MCP servers name stay inside the package:
// the manifest check refuses ".." and a hook's absolute program path, and
// keeps allowing bare program names found on PATH.
#include "daemon/packages/package_commands.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "daemon/packages/manifest.h"
#include "daemon/packages/package_ops.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/packages/package_test_support.h"

namespace raw::packages {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// The problems of a manifest named "kit" whose exports are `exports`.
std::string CommandProblems(const std::string& exports) {
  absl::StatusOr<Manifest> m = ParseManifest(
      absl::StrCat(R"({"name": "kit", "version": "1", "description": "d", "exports": )", exports,
                   "}"),
      std::set<std::string>{kManifestFile});
  return m.ok() ? "" : std::string(m.status().message());
}

std::string Hook(const std::string& command) {
  return absl::StrCat(R"({"hooks": {"audit": {"event": "turn_end", "command": )", command, "}}}");
}

std::string Server(const std::string& command, const std::string& env = "{}") {
  return absl::StrCat(R"({"mcp": {"notes": {"command": )", command, R"(, "env": )", env, "}}}");
}

// A package's server or model naming one of the user's variables would
// send that secret wherever the package says: refused, naming the field.
TEST(PackageCommandsTest, AnExportMayNotUseTheUsersVariables) {
  EXPECT_THAT(
      CommandProblems(
          R"({"mcp": {"notes": {"url": "http://127.0.0.1:1/mcp",
                                "headers": {"X-Trace": "${OPENAI_KEY}"}}}})"),
      HasSubstr("exports.mcp.notes.headers.X-Trace: uses the variable ${OPENAI_KEY}; a package "
                "cannot read your variables"));
  EXPECT_THAT(CommandProblems(Server(R"(["${package}/bin/s"])", R"({"TOKEN": "t-${GH_TOKEN}"})")),
              HasSubstr("exports.mcp.notes.env.TOKEN: uses the variable ${GH_TOKEN}"));
  EXPECT_THAT(CommandProblems(
                  R"({"models": {"m": {"api": "openai_chat", "model_id": "x",
                               "base_url": "https://example.com/v1", "api_key": "${KEY}"}}})"),
              HasSubstr("exports.models.m.api_key: uses the variable ${KEY}"));
  // The package's own directory is no variable of the user's.
  EXPECT_EQ(CommandProblems(Server(R"(["${package}/bin/s"])", R"({"PATH": "${package}/bin"})")),
            "");
}

// A server name holding "__" or ending in "_" would make two tools share
// a model-facing name: refused in a package as in a config.
TEST(PackageCommandsTest, AnAmbiguousServerNameIsRefused) {
  EXPECT_THAT(CommandProblems(R"({"mcp": {"a__b": {"command": ["${package}/bin/s"]}}})"),
              HasSubstr("exports.mcp.a__b: a server name may not contain \"__\""));
  EXPECT_THAT(CommandProblems(R"({"mcp": {"c_": {"command": ["${package}/bin/s"]}}})"),
              HasSubstr("exports.mcp.c_: a server name may not end with \"_\""));
}

TEST(PackageCommandsTest, AHookProgramPathMayNotLeaveThePackage) {
  std::string up = CommandProblems(Hook(R"(["../../bin/x", "--flag"])"));
  EXPECT_THAT(up, HasSubstr("exports.hooks.audit.command[0]: package \"kit\", hook \"audit\": "
                            "\"../../bin/x\" has a \"..\" component, which leads outside the "
                            "package"));
  EXPECT_THAT(CommandProblems(Hook(R"(["bin/../../x"])")), HasSubstr("\"bin/../../x\" has a"));

  std::string absolute = CommandProblems(Hook(R"(["/usr/local/bin/x"])"));
  EXPECT_THAT(absolute, HasSubstr("exports.hooks.audit.command[0]: package \"kit\", hook "
                                  "\"audit\": \"/usr/local/bin/x\" is an absolute path"));

  std::string variable = CommandProblems(Hook(R"(["${package}/../other/bin/x"])"));
  EXPECT_THAT(variable, HasSubstr("exports.hooks.audit.command[0]: package \"kit\", hook "
                                  "\"audit\": \"${package}/../other/bin/x\" has a \"..\""));
  // An argument naming a file of the package, too.
  std::string argument = CommandProblems(Hook(R"(["python3", "${package}/../../secrets.py"])"));
  EXPECT_THAT(argument, HasSubstr("exports.hooks.audit.command[1]: package \"kit\", hook "
                                  "\"audit\": \"${package}/../../secrets.py\""));
}

// An interpreter's script is a file of the package, as a program path is.
TEST(PackageCommandsTest, AHookScriptMayNotLeaveThePackage) {
  EXPECT_THAT(CommandProblems(Hook(R"(["sh", "/etc/x.sh"])")),
              HasSubstr("exports.hooks.audit.command[1]: package \"kit\", hook \"audit\": "
                        "\"/etc/x.sh\" is an absolute path; a hook's script names a file of the "
                        "package"));
  EXPECT_THAT(CommandProblems(Hook(R"(["python3", "-u", "../x.py"])")),
              HasSubstr("exports.hooks.audit.command[2]: package \"kit\", hook \"audit\": "
                        "\"../x.py\" has a \"..\" component"));
  EXPECT_EQ(CommandProblems(Hook(R"(["sh", "bin/audit.sh", "/etc/passwd"])")), "");
}

// Behind a wrapper the script is found as without one; where the command
// cannot be taken apart, a relative script is refused, ${package}/... not.
TEST(PackageCommandsTest, AHookScriptBehindAWrapperIsAFileOfThePackage) {
  EXPECT_THAT(CommandProblems(Hook(R"(["timeout", "5", "sh", "/etc/x.sh"])")),
              HasSubstr("exports.hooks.audit.command[3]: package \"kit\", hook \"audit\": "
                        "\"/etc/x.sh\" is an absolute path"));
  EXPECT_EQ(CommandProblems(Hook(R"(["nice", "-n", "5", "sh", "bin/audit.sh"])")), "");
  EXPECT_THAT(CommandProblems(Hook(R"(["xargs", "sh", "bin/audit.sh"])")),
              HasSubstr("exports.hooks.audit.command[2]: package \"kit\", hook \"audit\": "
                        "\"bin/audit.sh\" is a relative path after xargs"));
  EXPECT_THAT(CommandProblems(Hook(R"(["env", "-S", "sh bin/audit.sh"])")),
              HasSubstr("exports.hooks.audit.command[2]: package \"kit\", hook \"audit\": "
                        "\"sh bin/audit.sh\" is a relative path in the string of env -S"));
  EXPECT_EQ(CommandProblems(Hook(R"(["xargs", "sh", "${package}/bin/audit.sh"])")), "");
  EXPECT_EQ(CommandProblems(Hook(R"(["env", "-S", "sh ${package}/bin/audit.sh"])")), "");
}

TEST(PackageCommandsTest, PackageFilesAndProgramsOnPathAreAllowed) {
  for (const char* command :
       {R"(["bin/audit.sh", "../not-a-path-of-the-package"])", R"(["./bin/audit.sh"])",
        R"(["${package}/bin/audit.sh"])", R"(["sh", "-c", "exit 0"])",
        R"(["python3", "${package}/bin/audit.py"])"}) {
    EXPECT_EQ(CommandProblems(Hook(command)), "") << command;
  }
  for (const char* command : {R"(["${package}/bin/server"])", R"(["python3", "${package}/s.py"])",
                              R"(["/usr/bin/python3", "${package}/s.py"])", R"(["npx", "-y"])"}) {
    EXPECT_EQ(CommandProblems(Server(command, R"({"PATH": "${package}/bin:/usr/bin"})")), "")
        << command;
  }
}

TEST(PackageCommandsTest, AServerCommandAndEnvMayNotLeaveThePackage) {
  std::string relative = CommandProblems(Server(R"(["../../bin/x"])"));
  EXPECT_THAT(relative, HasSubstr("exports.mcp.notes.command[0]: package \"kit\", MCP server "
                                  "\"notes\": \"../../bin/x\" is a relative path"));
  EXPECT_THAT(CommandProblems(Server(R"(["bin/server"])")), HasSubstr("\"bin/server\" is a "
                                                                      "relative path"));
  std::string variable = CommandProblems(Server(R"(["${package}/../x"])"));
  EXPECT_THAT(variable, HasSubstr("exports.mcp.notes.command[0]: package \"kit\", MCP server "
                                  "\"notes\": \"${package}/../x\" has a \"..\" component"));
  std::string env = CommandProblems(
      Server(R"(["python3"])", R"({"PYTHONPATH": "${package}/lib:${package}/.."})"));
  EXPECT_THAT(env, HasSubstr("exports.mcp.notes.env.PYTHONPATH: package \"kit\", MCP server "
                             "\"notes\": \"${package}/lib:${package}/..\" has a \"..\""));
}

// Install and inspect refuse such a package, naming the package, the hook and
// the path; nothing is stored.
TEST(PackageCommandsTest, InstallRefusesAHookThatLeavesThePackage) {
  testing::TempDir tmp;
  PackageStore store(tmp.File("data/packages"));
  testing::WriteFile(tmp.File("src/bin/x"), "#!/bin/sh\n", 0755);
  testing::WriteFile(tmp.File("src/raw-package.json"),
                     absl::StrCat(R"({"name": "kit", "version": "1", "description": "d",
                                     "exports": )",
                                  Hook(R"(["../../bin/x"])"), "}"));
  PackageContext ctx{store, tmp.File("cfg/config.json"), nullptr};
  for (bool install : {false, true}) {
    absl::Status status = install ? Install(ctx, tmp.File("src"), std::nullopt).status()
                                  : Inspect(ctx, tmp.File("src")).status();
    ASSERT_FALSE(status.ok()) << (install ? "install" : "inspect");
    EXPECT_THAT(status.message(), HasSubstr("package \"kit\", hook \"audit\": \"../../bin/x\""));
  }
  absl::StatusOr<std::vector<std::string>> hashes = store.Hashes();
  ASSERT_TRUE(hashes.ok()) << hashes.status();
  EXPECT_THAT(*hashes, IsEmpty());
  EXPECT_THAT(CommandProblems(Hook(R"(["bin/x"])")), Not(HasSubstr("bin/x")));
}

}  // namespace
}  // namespace raw::packages
