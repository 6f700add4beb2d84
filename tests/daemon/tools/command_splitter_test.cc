#include "daemon/tools/policy/command_splitter.h"

#include <string>
#include <vector>

#include "daemon/tools/policy/shell_words.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools::policy {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Split(const std::string& command) {
  auto parts = SplitShellCommand(command);
  EXPECT_TRUE(parts.ok()) << command << ": " << parts.status();
  return parts.ok() ? *parts : std::vector<std::string>{"<error>"};
}

ShellLine Parse(const std::string& command) {
  auto line = ParseShellLine(command);
  EXPECT_TRUE(line.ok()) << command << ": " << line.status();
  return line.ok() ? *std::move(line) : ShellLine{};
}

std::string Error(const std::string& command) {
  auto parts = SplitShellCommand(command);
  EXPECT_FALSE(parts.ok()) << command << " split into " << parts->size() << " parts";
  if (parts.ok()) return "";
  EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parts.status().message());
}

TEST(CommandSplitterTest, SimpleCommandIsTrimmedAndBlanksCollapsed) {
  EXPECT_THAT(Split("git status"), ElementsAre("git status"));
  EXPECT_THAT(Split("  git   status\t-s  "), ElementsAre("git status -s"));
  EXPECT_THAT(Split(""), IsEmpty());
  EXPECT_THAT(Split("   "), IsEmpty());
}

TEST(CommandSplitterTest, EachOperatorSeparatesCommands) {
  EXPECT_THAT(Split("git status && rm -rf x"), ElementsAre("git status", "rm -rf x"));
  EXPECT_THAT(Split("a || b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a; b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a | b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a |& b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a & b"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a\nb"), ElementsAre("a", "b"));
  EXPECT_THAT(Split("a&&b||c;d|e&f"), ElementsAre("a", "b", "c", "d", "e", "f"));
  EXPECT_THAT(Split("sleep 1 &"), ElementsAre("sleep 1"));
}

TEST(CommandSplitterTest, RedirectionsStayWithTheirCommand) {
  EXPECT_THAT(Split("echo hi > f"), ElementsAre("echo hi > f"));
  EXPECT_THAT(Split("make 2>&1 | tee log"), ElementsAre("make 2>&1", "tee log"));
  EXPECT_THAT(Split("make &> log && echo ok"), ElementsAre("make &> log", "echo ok"));
  EXPECT_THAT(Split("echo x >&2"), ElementsAre("echo x >&2"));
  EXPECT_THAT(Split("echo x >| f | cat"), ElementsAre("echo x >| f", "cat"));
  EXPECT_THAT(Split("cat <<< 'a && b'"), ElementsAre("cat <<< 'a && b'"));
}

TEST(CommandSplitterTest, ARedirectionOperatorStartsAWord) {
  // As in bash: "rm>/dev/null f" runs rm with the argument f.
  EXPECT_THAT(Split("rm>/dev/null f"), ElementsAre("rm >/dev/null f"));
  EXPECT_THAT(Split("echo a>b c"), ElementsAre("echo a >b c"));
  EXPECT_THAT(Split("cat<in>>out 2>&1"), ElementsAre("cat <in >>out 2>&1"));
  EXPECT_THAT(Split("make&>log"), ElementsAre("make &>log"));
  EXPECT_THAT(Split("cat<<<x"), ElementsAre("cat <<<x"));
  EXPECT_THAT(Split("diff a<(ls)"), ElementsAre("ls", "diff a<(ls)"));
  EXPECT_THAT(Split("echo 'a>b' a\\>b"), ElementsAre("echo 'a>b' a\\>b"));
}

TEST(CommandSplitterTest, ATestIsOneCommand) {
  EXPECT_THAT(Split("[[ -f x && ( -d y || -z $z ) ]] && ls"),
              ElementsAre("[[ -f x && ( -d y || -z $z ) ]]", "ls"));
  EXPECT_THAT(Split("if [[ a < b ]]; then ls; fi"), ElementsAre("[[ a < b ]]", "ls"));
  EXPECT_THAT(Split("[[ $(rm x) ]] || y"), ElementsAre("rm x", "[[ $(rm x) ]]", "y"));
}

TEST(CommandSplitterTest, WordsAreAlsoGivenAfterQuoteRemoval) {
  ShellLine line =
      Parse("FOO=1 \\rm 'a b' \"c $d\" $'\\x41\\n' r''m *.o {a,b} -I{} a[1] $(ls) ~/x");
  ASSERT_EQ(line.commands.size(), 2u);
  const std::vector<ShellWord>& w = line.commands[1].words;
  ASSERT_EQ(w.size(), 12u);
  EXPECT_EQ(w[0], (ShellWord{"FOO=1", "FOO=1", true}));
  EXPECT_EQ(w[1], (ShellWord{"\\rm", "rm", true}));
  EXPECT_EQ(w[2], (ShellWord{"'a b'", "a b", true}));
  EXPECT_EQ(w[3], (ShellWord{"\"c $d\"", "c $d", false}));
  EXPECT_EQ(w[4], (ShellWord{"$'\\x41\\n'", "A\n", true}));
  EXPECT_EQ(w[5], (ShellWord{"r''m", "rm", true}));
  EXPECT_EQ(w[6], (ShellWord{"*.o", "*.o", false}));      // a glob
  EXPECT_EQ(w[7], (ShellWord{"{a,b}", "{a,b}", false}));  // brace expansion
  EXPECT_EQ(w[8], (ShellWord{"-I{}", "-I{}", true}));
  EXPECT_EQ(w[9], (ShellWord{"a[1]", "a[1]", false}));
  EXPECT_EQ(w[10], (ShellWord{"$(ls)", "$(ls)", false}));
  EXPECT_EQ(w[11], (ShellWord{"~/x", "~/x", true}));
  EXPECT_EQ(line.commands[1].Text(), Split("FOO=1 \\rm 'a b' \"c $d\" $'\\x41\\n' r''m *.o "
                                           "{a,b} -I{} a[1] $(ls) ~/x")[1]);
  // Inside double quotes only \$ \` \" \\ and a newline are escaped.
  EXPECT_EQ(Parse("echo \"a\\$b\\x\"").commands[0].words[1].value, "a$b\\x");
  EXPECT_EQ(Parse("echo $'\\u00e9\\101\\cA\\q'").commands[0].words[1].value, "\u00e9A\x01\\q");
}

// Bash evaluates array subscripts in arithmetic and in variable names given
// as text: echo $(( ${y:-'a[$(cmd)]'} )) runs cmd.
TEST(CommandSplitterTest, TextBashMayEvaluateLaterIsNoted) {
  for (const char* command :
       {"echo '$(date)'", "echo 'a[`id`]'", "echo \"\\$(id)\"", "echo \\${x}", "x='$''(id)'",
        "echo $'\\x24(id)'", "echo $'\\u0060id\\u0060'", "echo ${y:-'a[$(id)]'}"}) {
    EXPECT_THAT(Parse(command).hidden, ElementsAre(kHiddenInQuotes)) << command;
  }
  for (const char* command : {"echo $((x))", "echo $(( $n + 1 ))", "(( i++ ))", "echo $[1]",
                              "echo ${s:x}", "echo ${a[i]}", "echo ${#a[$i]}"}) {
    EXPECT_THAT(Parse(command).hidden, ElementsAre(kHiddenInArithmetic)) << command;
  }
  EXPECT_THAT(Parse("echo ${!x}").hidden, ElementsAre(kHiddenInName));
  EXPECT_THAT(Parse("echo \"${x@P}\"").hidden, ElementsAre(kHiddenInPrompt));
  EXPECT_THAT(Parse("echo $(( ${y:-'a[$(id)]'} ))").hidden,
              ElementsAre(kHiddenInQuotes, kHiddenInArithmetic));
  for (const char* command :
       {"echo \"a b\"", "awk '{print $1}' f", "grep 'x$' f", "echo 'a$' \"$\" $", "echo $$ $? $#",
        "echo $((1 + (2 * 3)))", "echo ${a[0]} ${a[@]} ${#a[*]}",
        "echo ${x:-y} ${x: -1:2} ${x:+'z'}", "echo $((ls x) | cat)", "git commit -m 'fix: x'"}) {
    EXPECT_THAT(Parse(command).hidden, IsEmpty()) << command;
  }
}

TEST(CommandSplitterTest, QuotedOperatorsDoNotSplit) {
  EXPECT_THAT(Split("echo 'a && b; c | d'"), ElementsAre("echo 'a && b; c | d'"));
  EXPECT_THAT(Split("echo \"a && b\" && ls"), ElementsAre("echo \"a && b\"", "ls"));
  EXPECT_THAT(Split("echo a\\;b\\&\\&c"), ElementsAre("echo a\\;b\\&\\&c"));
  EXPECT_THAT(Split("echo \"say \\\"hi\\\" ; ok\""), ElementsAre("echo \"say \\\"hi\\\" ; ok\""));
  EXPECT_THAT(Split("echo $'a\\' ; b'"), ElementsAre("echo $'a\\' ; b'"));
  // Quotes are kept as written, blanks inside them too.
  EXPECT_THAT(Split("grep  'a  b'   file"), ElementsAre("grep 'a  b' file"));
}

TEST(CommandSplitterTest, SubshellsAndGroups) {
  EXPECT_THAT(Split("(cd a; make) | tee log"), ElementsAre("cd a", "make", "tee log"));
  EXPECT_THAT(Split("{ a; b; } && c"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Split("((a && (b; c)) || d)"), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Split("(a) > out"), ElementsAre("a", "> out"));
  EXPECT_THAT(Split("echo {a,b} }"), ElementsAre("echo {a,b} }"));
}

TEST(CommandSplitterTest, SubstitutionsYieldTheirCommandsAndTheOuterOne) {
  EXPECT_THAT(Split("echo $(rm -rf x)"), ElementsAre("rm -rf x", "echo $(rm -rf x)"));
  EXPECT_THAT(Split("echo \"today: $(date; rm y)\""),
              ElementsAre("date", "rm y", "echo \"today: $(date; rm y)\""));
  EXPECT_THAT(Split("echo `rm -rf x`"), ElementsAre("rm -rf x", "echo `rm -rf x`"));
  EXPECT_THAT(Split("echo \"`whoami`\""), ElementsAre("whoami", "echo \"`whoami`\""));
  EXPECT_THAT(Split("diff <(ls a) >(tee b)"),
              ElementsAre("ls a", "tee b", "diff <(ls a) >(tee b)"));
  // Nested: a substitution inside a substitution inside a subshell.
  EXPECT_THAT(Split("(echo $(cat $(ls)))"), ElementsAre("ls", "cat $(ls)", "echo $(cat $(ls))"));
  // Inside a substitution, the text is kept as written.
  EXPECT_THAT(Split("x=$(ls   -l)"), ElementsAre("ls -l", "x=$(ls   -l)"));
  // Backquotes nest with escapes.
  EXPECT_THAT(Split("echo `echo \\`id\\``"),
              ElementsAre("id", "echo `id`", "echo `echo \\`id\\``"));
}

TEST(CommandSplitterTest, ExpansionsThatRunCommandsAreSeen) {
  EXPECT_THAT(Split("echo ${x:-$(rm y)}"), ElementsAre("rm y", "echo ${x:-$(rm y)}"));
  // In double quotes a single quote does not protect a substitution.
  EXPECT_THAT(Split("echo \"${x:-'$(rm y)'}\""), ElementsAre("rm y", "echo \"${x:-'$(rm y)'}\""));
  EXPECT_THAT(Split("echo ${x:-'$(rm y)'}"), ElementsAre("echo ${x:-'$(rm y)'}"));
  EXPECT_THAT(Split("echo $((1 + (2 * 3)))"), ElementsAre("echo $((1 + (2 * 3)))"));
  EXPECT_THAT(Split("echo $(( $(rm y) + 1 ))"), ElementsAre("rm y", "echo $(( $(rm y) + 1 ))"));
  // "$((" that does not close with "))" is a substitution starting with a subshell.
  EXPECT_THAT(Split("echo $((rm -rf x) | cat)"),
              ElementsAre("rm -rf x", "cat", "echo $((rm -rf x) | cat)"));
}

TEST(CommandSplitterTest, CommentsAndCompoundKeywords) {
  EXPECT_THAT(Split("ls # && rm -rf x"), ElementsAre("ls"));
  EXPECT_THAT(Split("# only a comment\nls"), ElementsAre("ls"));
  EXPECT_THAT(Split("echo a#b"), ElementsAre("echo a#b"));
  EXPECT_THAT(Split("if git diff --quiet; then rm x; else make; fi"),
              ElementsAre("git diff --quiet", "rm x", "make"));
  EXPECT_THAT(Split("while true; do rm x; done"), ElementsAre("true", "rm x"));
  EXPECT_THAT(Split("! grep -q x f"), ElementsAre("grep -q x f"));
  EXPECT_THAT(Split("echo if then"), ElementsAre("echo if then"));
}

TEST(CommandSplitterTest, LineContinuationJoinsWords) {
  EXPECT_THAT(Split("make \\\n  -j2 && ls"), ElementsAre("make -j2", "ls"));
}

TEST(CommandSplitterTest, MalformedCommandsFail) {
  EXPECT_THAT(Error("echo 'unterminated"), HasSubstr("unterminated single quote"));
  EXPECT_THAT(Error("echo \"unterminated"), HasSubstr("unterminated double quote"));
  EXPECT_THAT(Error("echo $(ls"), HasSubstr("unterminated command substitution"));
  EXPECT_THAT(Error("echo `ls"), HasSubstr("unterminated backquote"));
  EXPECT_THAT(Error("(a; b"), HasSubstr("unterminated subshell"));
  EXPECT_THAT(Error("a; b)"), HasSubstr("unbalanced \")\" at offset 4"));
  EXPECT_THAT(Error("{ a; b"), HasSubstr("unterminated group"));
  EXPECT_THAT(Error("a; }"), HasSubstr("unbalanced \"}\""));
  EXPECT_THAT(Error("echo ${x"), HasSubstr("unterminated parameter expansion"));
  EXPECT_THAT(Error("f() { rm -rf x; }"), HasSubstr("unexpected \"(\""));
  EXPECT_THAT(Error("echo $'abc"), HasSubstr("unterminated quote"));
}

TEST(CommandSplitterTest, HereDocumentsAreRefused) {
  EXPECT_THAT(Error("cat <<EOF\nrm -rf x\nEOF"), HasSubstr("here-documents"));
  EXPECT_THAT(Error("cat <<-'EOF' > f\nhello\nEOF"), HasSubstr("here-documents"));
  EXPECT_THAT(Error("echo $(cat <<EOF\nx\nEOF\n)"), HasSubstr("here-documents"));
}

TEST(CommandSplitterTest, DeepNestingFailsInsteadOfOverflowing) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "$(";
  EXPECT_THAT(Error(deep), HasSubstr("levels deep"));
  std::string parens(10000, '(');
  EXPECT_THAT(Error(parens), HasSubstr("levels deep"));
  std::string quotes;
  for (int i = 0; i < 10000; ++i) quotes += "\"${x:-";
  EXPECT_THAT(Error(quotes), HasSubstr("levels deep"));
}

// "$((" that does not close as arithmetic is read again as a command
// substitution. Nested, each level would read its inner levels twice (2^depth
// steps, refused as too complex); remembered, the line is judged.
TEST(CommandSplitterTest, NestedSubstitutionsOpeningWithASubshellAreJudged) {
  std::string nested = "make";
  for (int i = 0; i < 25; ++i) nested = "$((cd a; " + nested + ") | tee log)";
  ShellLine line = Parse("echo " + nested);
  int cds = 0, tees = 0, makes = 0;
  for (const SimpleCommand& command : line.commands) {
    std::string text = command.Text();
    cds += text == "cd a";
    tees += text == "tee log";
    makes += text == "make";
  }
  EXPECT_EQ(cds, 25);
  EXPECT_EQ(tees, 25);
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(line.commands.back().Text(), "echo " + nested);
}

// The same for backquoted commands, parsed again from their unescaped text
// whenever the "$((" around them is read again: without remembering what
// each parsed to, the levels inside them multiply.
TEST(CommandSplitterTest, BackquotesInsideUnclosedArithmeticAreJudged) {
  auto escape = [](const std::string& text) {
    std::string escaped;
    for (char c : text) {
      if (c == '\\' || c == '`') escaped += '\\';
      escaped += c;
    }
    return escaped;
  };
  std::string nested = "make";
  for (int quotes = 0; quotes < 3; ++quotes) {
    if (quotes > 0) nested = "`" + escape(nested) + "`";
    for (int i = 0; i < 10; ++i) nested = "$((cd a; " + nested + ") | tee log)";
  }
  ShellLine line = Parse("echo " + nested);
  int cds = 0, makes = 0;
  for (const SimpleCommand& command : line.commands) {
    cds += command.Text() == "cd a";
    makes += command.Text() == "make";
  }
  EXPECT_EQ(cds, 30);
  EXPECT_EQ(makes, 1);
}

TEST(CommandSplitterTest, TrailingBackslashIsKept) {
  EXPECT_THAT(Split("echo a\\"), ElementsAre("echo a\\"));
}

}  // namespace
}  // namespace raw::tools::policy
