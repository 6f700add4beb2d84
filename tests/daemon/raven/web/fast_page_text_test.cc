#include "daemon/raven/web/fast_page_text.h"

#include "daemon/raven/web/html_references.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::raven::web {
namespace {

// The fast parser either gives up or gives exactly gumbo's result.
void ExpectSameAsGumbo(const std::string& html, bool must_be_fast) {
  std::optional<PageText> fast = FastPageText(html);
  absl::StatusOr<PageText> slow = GumboPageText(html);
  ASSERT_TRUE(slow.ok()) << slow.status();
  if (must_be_fast) {
    ASSERT_TRUE(fast.has_value()) << "left to gumbo: " << html;
  }
  if (!fast.has_value()) return;
  EXPECT_EQ(fast->text, slow->text) << html;
  ASSERT_EQ(fast->segments.size(), slow->segments.size()) << html;
  for (size_t i = 0; i < fast->segments.size(); ++i) {
    EXPECT_EQ(fast->segments[i].text_offset, slow->segments[i].text_offset) << i << " " << html;
    EXPECT_EQ(fast->segments[i].page_offset, slow->segments[i].page_offset) << i << " " << html;
  }
}

TEST(FastPageTextTest, ArticlePagesTakeTheFastPathAndMatchGumbo) {
  const std::vector<std::string> pages = {
      "<!DOCTYPE html><html><head><meta charset=utf-8><title>T &amp; U</title>"
      "<link rel=stylesheet href=/a.css><style>p { color: red }</style>"
      "<script>if (a < b && c > d) { x = '</p>'; }</script></head>"
      "<body class=x><header><nav><ul><li><a href=/>Home</a><li><a href=/b>B</a></ul></nav></header>"
      "<main><article><h1>Title</h1><p>The <em>committee</em> found that "
      "<a href='/r'>re<b>spon</b>sible</a> disclosure cut incidents by 40&nbsp;% &mdash; "
      "in \u201Cmost\u201D cases.<p>Second paragraph<br>with a break.</article></main>"
      "<footer><p>&copy; 2024</footer></body></html>",
      "<p>No html, head or body at all.</p>  \n<p>Second</p>",
      "Bare text with <b>bold</b> and no tags around it",
      "<html>\n<head>\n<title>x</title>\n</head>\n<body>\n<p>a</p>\n</body>\n</html>\n",
      "<!-- a comment --><!DOCTYPE html><p>after</p><!-- c --> tail <!---->x<!--->y",
      "<table><tr><td>a</td><td>b</td></tr><tr><th>c<td>d</table>",
      "<table>\n <thead><tr><th>H</th></tr></thead>\n <tbody>\n  <tr><td>1</td></tr>\n </tbody>"
      "<caption>Cap</caption><colgroup><col><col></colgroup></table>after",
      "<table><tr><td><table><tr><td>nested</td></tr></table>outer cell</td></tr></table>",
      "<ul><li>one<li>two<ul><li>inner</ul><li>three</ul><dl><dt>t<dd>d<dt>t2</dl>",
      "<p>para <div>div closes p</div> tail</p>",
      "<pre>\nfirst line kept\n  indented</pre><pre>\r\nwindows</pre><listing>\nl</listing>",
      "<textarea>\n  kept  text &lt;b&gt;</textarea><xmp><b>raw</b></xmp>",
      "<p hidden>no</p><div style='DISPLAY : none'>no</div><span aria-hidden=' True '>no</span>"
      "<p style=\"visibility:hidden\">no</p><p aria-hidden=false>yes</p><br hidden><hr hidden>",
      "<form action=/s><input name=q><button>Go</button></form>after form",
      "<form><p>in form</form>tail after form",
      "<h1>a<h2>b</h2>c</h1>",
      "<b>bold <i>both</i> bold</b> plain <a href=1>one</a><a href=2>two</a>",
      "<p><b>bold across</p><p>paragraphs</b></p>",
      "a &#65; &#x42; &#0; &#128; &#x9F; &#xD800; &#1114112; &#10 &#x; &# &; & b &1 &&",
      "<p>CR\r\nLF\rCR</p><pre>a\r\nb\rc</pre>",
      "<p>a</p></body>\n<!-- after body --> more text</html>\n<!-- end --> ",
      "<span>a</span></span>b</i>c</p>d",
      "</br><p>x</br>y",
      "<p>a<span></>counted from the dropped tag</span></></>\r\nb</p>",
      "<option>o1<option>o2<optgroup>g</optgroup>",
      "<img src=x alt=picture><wbr><input type=hidden>text",
      "<iframe><p>not parsed</p></iframe><noembed>shown?</noembed><noscript>no</noscript>",
      "<title>in body &amp; shown</title>",
      "<custom-element>custom</custom-element><x-a>a</x-b>b</x-a>",
      "<a href='x'>1<a href='y'>2</a>",
      "<nobr>a<nobr>b</nobr>",
      "<html hidden><p>none</p></html>",
      "<body hidden><p>none</p></body>",
      "<div>\u6771\u4EAC<span>\u90FD</span>\u00A0\u2028</div>",
      // SVG and MathML are dropped; only where they end matters.
      "<p>icon <svg viewBox='0 0 8 8'><title>Search</title><path d='M0 0'/><g><circle r=1 />"
      "</g><style>.a{}</style><text>label</text></svg> after</p>",
      "<a href=x><svg><use href='#i'></use></svg>Link</a> <svg/> tail",
      "<p>x<svg><foreignObject><!-- c --></foreignObject><![CDATA[a<b>c]]><desc>d</desc></SVG>y",
      "<p><math><mi>x</mi><mo>=</mo><mn>2</mn></math> is the answer</p>",
      "<svg><svg><rect/></svg></svg><p>after nested svg</p><svg><path>",
      // A <select> is dropped too.
      "<p>Pick <select name=s><option>One<option selected>Two<optgroup label=g><option>Three"
      "</optgroup></select> then text</p>",
      "<select><option>a</option><b>ignored</b><script>x()</script></select><input>after",
      "<select><option>a<textarea>closes the select</textarea>b",
      "<select><select>second closes the first</select>tail",
      // A <noscript> in the head holds head elements; text ends it and the head.
      "<html><head><noscript><link rel=stylesheet href=a.css><style>p{}</style></noscript>"
      "<title>t</title></head><body><p>body</p></body></html>",
      "<head><noscript>text in a head noscript</noscript></head><p>x</p>",
      // A second <html> or <body> only lends the attributes the element lacks.
      "<p>one</p><body class=late><html lang=en>two</body></html><html>three",
  };
  for (const std::string& page : pages) ExpectSameAsGumbo(page, /*must_be_fast=*/true);
}

TEST(FastPageTextTest, ConstructsThatMoveNodesAreLeftToGumbo) {
  const std::vector<std::string> pages = {
      "<table>text moved before the table<tr><td>x</td></tr></table>",
      "<table><div>foster</div></table>",
      "<b>1<p>2</b>3</p>",  // a furthest block
      "<svg><p>breaks out of SVG</p></svg>",
      "<svg><foreignObject><div>HTML inside</div></foreignObject></svg>",
      "<div><svg><g></div>an end tag that reaches HTML</g></svg>",
      // gumbo compares all of an end tag's text with the open SVG elements' names.
      "<x-a><svg><g></g ></svg>text</x-a>",
      "<x-a><svg><y</td></y</td></svg>text",
      "<table><tr><td><select><option>a</select></td></tr></table>",
      "<template><p>t</p></template>",
      "<frameset><frame></frameset>",
      "<p>a</p><body hidden>hides the body that was already there",
      "<p>&notin; &copyx &amp</p>",  // rare names and legacy forms
      std::string("nul \0 byte", 10),
      "bad utf-8 \xC3\x28",
      "c1 control \xC2\x85",
      "<script><!-- document.write('</script>') --></script>",
      "<plaintext><p>all text",
      "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><p>a<table><tr><td>b</table>",
  };
  for (const std::string& page : pages) {
    EXPECT_FALSE(FastPageText(page).has_value()) << page;
    ExpectSameAsGumbo(page, /*must_be_fast=*/false);
  }
}

TEST(FastPageTextTest, EachNamedReferenceDecodesAsGumboDoes) {
  ASSERT_GT(html::NamedReferences().size(), 140u);
  for (const html::NamedReference& r : html::NamedReferences()) {
    ExpectSameAsGumbo(absl::StrCat("<p>a&", std::string(r.name), ";b</p>"), /*must_be_fast=*/true);
  }
}

TEST(FastPageTextTest, EveryNumericReferenceBelowTheC1RangeAndAroundIt) {
  for (int v = 1; v < 0x120; ++v) {
    ExpectSameAsGumbo(absl::StrCat("<p>x&#", v, ";y&#x", absl::Hex(v), "z</p>"),
                      /*must_be_fast=*/true);
  }
}

TEST(FastPageTextTest, CommentEndsAsGumboReadsThem) {
  for (const char* comment : {"<!-->", "<!--->", "<!---->", "<!-- a -->", "<!-- a --->",
                              "<!-- a --!>", "<!-- a --!-->", "<!-- a -- b -->", "<!--a-->",
                              "<!-- a --! b -->", "<!-- unterminated", "<!-- a -", "<!",
                              "<!x>", "<?php x ?>", "</ bogus>", "</>"}) {
    ExpectSameAsGumbo(absl::StrCat("<p>before", comment, "after</p>more"), /*must_be_fast=*/false);
    ExpectSameAsGumbo(absl::StrCat("<p>before", comment), /*must_be_fast=*/false);
  }
}

TEST(FastPageTextTest, TagsAndAttributesEndWhereGumboEndsThem) {
  for (const char* tag : {"<p a=\"x>y\">", "<p a='x>y'>", "<p a=x/>", "<p/>", "<p a b=c d>",
                          "<p =x>", "<p a=\"1\"b=2>", "<p\nclass=x\r\n>", "<P CLASS=X>",
                          "<p hidden hidden=no>", "<p style=display:none style=x>",
                          "<p aria-hidden=\"&#116;rue\">", "<span/ hidden>", "<br/>",
                          // gumbo keeps a repeated name without a value in its buffer, so it
                          // prefixes the next name ("bstyle"): the style below does not hide.
                          "<p b b style=display:none>", "<p b b=1 style=display:none>",
                          "<p b b b style=display:none>"}) {
    ExpectSameAsGumbo(absl::StrCat("a", tag, "text</p>z"), /*must_be_fast=*/false);
  }
}

}  // namespace
}  // namespace raw::raven::web
