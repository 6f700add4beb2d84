#include "clients/tui/agent_picker.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

v1::AgentInfo Agent(const std::string& name, const std::string& model, bool is_default,
                    std::vector<std::string> tools = {}) {
  v1::AgentInfo a;
  a.set_name(name);
  a.set_model(model);
  a.set_is_default(is_default);
  for (const std::string& t : tools) a.add_tools(t);
  return a;
}

std::vector<v1::AgentInfo> Agents() {
  return {Agent("coder", "gpt", /*is_default=*/true, {"builtin/*"}),
          Agent("planner", "", /*is_default=*/false),
          Agent("reviewer", "claude", /*is_default=*/false, {"builtin/read_file"})};
}

InputEvent KeyOf(Key k) {
  InputEvent e;
  e.key = k;
  return e;
}

std::string RowOf(const Lines& lines, const std::string& name) {
  for (const StyledLine& l : lines) {
    std::string text = l.PlainText();
    if (text.find(" " + name + " ") != std::string::npos) return text;
  }
  return "";
}

TEST(AgentPickerTest, ListsEveryAgentMarkingTheDefaultAndTheCurrentOne) {
  AgentPicker picker;
  picker.Open(Agents(), "reviewer");
  Lines lines = picker.Render(100, 20, Glyphs::Unicode());
  EXPECT_EQ(lines[0].PlainText(), "Start a new session with an agent");
  std::string coder = RowOf(lines, "coder");
  std::string planner = RowOf(lines, "planner");
  std::string reviewer = RowOf(lines, "reviewer");
  EXPECT_NE(coder.find("model gpt"), std::string::npos) << coder;
  EXPECT_NE(coder.find("default"), std::string::npos) << coder;
  EXPECT_EQ(coder.find("current"), std::string::npos) << coder;
  EXPECT_NE(coder.find("tools builtin/*"), std::string::npos) << coder;
  EXPECT_NE(planner.find("model (automatic)"), std::string::npos) << planner;
  EXPECT_EQ(planner.find("default"), std::string::npos) << planner;
  EXPECT_NE(reviewer.find("current"), std::string::npos) << reviewer;
  EXPECT_EQ(reviewer.find("default"), std::string::npos) << reviewer;
  // The current agent is selected at first.
  EXPECT_EQ(reviewer.rfind("› reviewer", 0), 0u) << reviewer;
  EXPECT_EQ(coder.rfind("  coder", 0), 0u) << coder;
  // Plain mode marks with ASCII.
  lines = picker.Render(100, 20, Glyphs::Ascii());
  EXPECT_EQ(RowOf(lines, "reviewer").rfind("> reviewer", 0), 0u);
}

TEST(AgentPickerTest, SelectsTheDefaultWithoutACurrentAgentAndChoosesWithEnter) {
  AgentPicker picker;
  picker.Open(Agents(), "");
  ASSERT_TRUE(picker.open());
  ASSERT_NE(picker.chosen(), nullptr);
  EXPECT_EQ(picker.chosen()->name(), "coder");
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kDown), 5), AgentPicker::Outcome::kNone);
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kDown), 5), AgentPicker::Outcome::kNone);
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kDown), 5), AgentPicker::Outcome::kNone);  // stays last
  EXPECT_EQ(picker.chosen()->name(), "reviewer");
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kUp), 5), AgentPicker::Outcome::kNone);
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kEnter), 5), AgentPicker::Outcome::kChosen);
  EXPECT_EQ(picker.chosen()->name(), "planner");
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kEscape), 5), AgentPicker::Outcome::kCancelled);
}

TEST(AgentPickerTest, AnEmptyListChoosesNothing) {
  AgentPicker picker;
  picker.Open({}, "coder");
  EXPECT_EQ(picker.chosen(), nullptr);
  EXPECT_EQ(picker.HandleKey(KeyOf(Key::kEnter), 5), AgentPicker::Outcome::kNone);
  Lines lines = picker.Render(80, 10, Glyphs::Unicode());
  EXPECT_EQ(lines.back().PlainText(), "The daemon's config defines no agents.");
}

TEST(AgentPickerTest, MarksAreJoinedWithTheSeparator) {
  v1::AgentInfo coder = Agent("coder", "gpt", /*is_default=*/true);
  EXPECT_EQ(AgentMarks(coder, "coder", " · "), "default · current");
  EXPECT_EQ(AgentMarks(coder, "other", ", "), "default");
  EXPECT_EQ(AgentMarks(Agent("x", "", false), "coder", ", "), "");
}

}  // namespace
}  // namespace raw::tui
