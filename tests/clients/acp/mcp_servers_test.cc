// AssignServerNames: an ACP client's labels for its MCP servers become
// server names rawd takes (valid, unique, not a configured server's).
#include "clients/acp/mcp_servers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

std::vector<std::string> Assigned(const std::vector<std::string>& labels,
                                  std::set<std::string> taken = {}) {
  std::vector<v1::SessionMcpServer> servers;
  for (const std::string& label : labels) servers.emplace_back().set_name(label);
  AssignServerNames(servers, std::move(taken));
  std::vector<std::string> out;
  for (const auto& s : servers) out.push_back(s.name());
  return out;
}

TEST(AssignServerNamesTest, ValidFreeNamesAreKept) {
  EXPECT_THAT(Assigned({"fs", "my_server-2", "A1"}),
              ::testing::ElementsAre("fs", "my_server-2", "A1"));
}

TEST(AssignServerNamesTest, OtherCharactersBecomeOneDash) {
  EXPECT_THAT(Assigned({"GitHub MCP", "context7.server", "a  .  b", "caf\xc3\xa9", "  x"}),
              ::testing::ElementsAre("GitHub-MCP", "context7-server", "a-b", "caf-", "-x"));
}

TEST(AssignServerNamesTest, NoDoubleOrTrailingUnderscore) {
  EXPECT_THAT(Assigned({"a__b", "a___b_", "x_ _y", "___"}),
              ::testing::ElementsAre("a_b", "a_b-2", "x_-_y", "server"));
}

TEST(AssignServerNamesTest, LongNamesAreCutTo32) {
  std::vector<std::string> names =
      Assigned({std::string(40, 'n'), std::string(31, 'n') + "_x", std::string(33, 'n')});
  EXPECT_EQ(names[0], std::string(32, 'n'));
  // Cut at 32 it would end in '_', which goes too.
  EXPECT_EQ(names[1], std::string(31, 'n'));
  // The same 32 as the first: the suffix takes the end of the name.
  EXPECT_EQ(names[2], std::string(30, 'n') + "-2");
  EXPECT_EQ(Assigned({"", "."})[0], "server");
  EXPECT_EQ(Assigned({"", "."})[1], "-");
}

TEST(AssignServerNamesTest, ClashesWithConfiguredAndEarlierNamesGetASuffix) {
  EXPECT_THAT(Assigned({"fs", "fs", "fs-2", "git"}, {"fs", "git"}),
              ::testing::ElementsAre("fs-2", "fs-3", "fs-2-2", "git-2"));
}

}  // namespace
}  // namespace raw::acp
