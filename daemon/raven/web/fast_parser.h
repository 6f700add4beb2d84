// The streaming HTML parser behind FastPageText (fast_page_text.h): a
// tokenizer (fast_parser_tokenizer.cc) and the tree construction of gumbo
// for the subset it reads (fast_parser_tree.cc for the stack of open
// elements and the active formatting elements, fast_parser_modes.cc and
// fast_parser_body.cc for the insertion modes). There is no tree: each
// element's opening and closing, and each text node when gumbo would make
// it, go straight to a PageTextBuilder in the order the walk over gumbo's
// tree would visit them. Anything outside the subset sets ok_ to false and
// the page goes to gumbo.
#pragma once

#include <gumbo.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/raven/web/html_input.h"
#include "daemon/raven/web/html_tags.h"
#include "daemon/raven/web/page_text_rules.h"

namespace raw::raven::web::html {

// A start or end tag as the tree construction needs it.
struct TagToken {
  GumboTag tag = GUMBO_TAG_UNKNOWN;
  std::string_view name;  // as written in the page
  // An end tag's whole text between "</" and ">", attributes included: what
  // gumbo compares with the names of open SVG and MathML elements.
  std::string_view end_text;
  bool start = true;
  bool self_closing = false;
  bool hidden = false;  // Hidden() of its attributes
  bool font_attributes = false;  // color, face or size: a <font> that leaves SVG and MathML
};

// gumbo's insertion modes, less those this parser leaves to gumbo (text
// modes are handled by the tokenizer, which reads a raw text element whole).
enum class Mode : uint8_t {
  kInitial, kBeforeHtml, kBeforeHead, kInHead, kInHeadNoscript, kAfterHead, kInBody, kInTable, kInTableBody,
  kInRow, kInCell, kInCaption, kInColumnGroup, kInSelect, kAfterBody, kAfterAfterBody,
};

// The doctype's quirks mode: only whether <table> closes an open <p>
// depends on it; kUnknown (a doctype with identifiers) gives that case up.
enum class Quirks : uint8_t { kNo, kYes, kUnknown };

// How the content of the element just opened is tokenized.
enum class RawText : uint8_t { kNone, kRawText, kRcData, kScript };

enum class Namespace : uint8_t { kHtml, kSvg, kMathMl };

// An open element; `id` tells apart elements of the same tag.
struct Element {
  GumboTag tag;
  uint32_t id;
  bool suppressed;  // dropped or hidden, itself or an ancestor
  bool pre;
  Namespace ns = Namespace::kHtml;
  std::string_view name;  // foreign elements: the name as written (end tags match it)
};

// An entry of the list of active formatting elements.
struct Formatting {
  GumboTag tag;   // GUMBO_TAG_LAST for a scope marker
  uint32_t id;
  bool hidden;
};

class FastParser {
 public:
  // Writes into `out`; its result is meaningful only when Run() is true.
  FastParser(std::string_view html, PageText& out)
      : s_(html), out_(out, html.size()), page_has_cr_(html.find('\r') != std::string_view::npos) {}

  // Parses the whole page: false when it gave up.
  bool Run();

 private:
  // Tokenizer.
  void Markup(size_t& i);
  enum class Ref : uint8_t { kLiteral, kDecoded, kBail };
  Ref DecodeReference(size_t i, std::string& decoded, size_t& next) const;
  void Reference(size_t& i);
  bool ParseTag(size_t& i, TagToken& token);
  size_t CommentEnd(size_t from) const;
  void ConsumeRawText(size_t& i);

  // Tree construction: each handler returns true to reprocess the token.
  void Characters(std::string_view text, size_t offset, bool from_reference);
  void Process(const TagToken& t);
  bool Dispatch(const TagToken& t);
  bool BeforeBody(const TagToken& t);
  bool InHead(const TagToken& t);
  bool InHeadNoscript(const TagToken& t);
  bool MergeAttributes(const TagToken& t);
  bool InBodyStart(const TagToken& t);
  bool InBodyEnd(const TagToken& t);
  bool InTable(const TagToken& t);
  bool InTableBody(const TagToken& t);
  bool InRow(const TagToken& t);
  bool InCell(const TagToken& t);
  bool InCaption(const TagToken& t);
  bool InColumnGroup(const TagToken& t);
  bool InSelect(const TagToken& t);
  bool InSelectScope() const;
  void CloseSelect();
  void Comment() { Flush(); }
  // SVG and MathML content (fast_parser_foreign.cc).
  void OpenForeign(const TagToken& t, Namespace ns);
  void ForeignTag(const TagToken& t);
  void ForeignCharacters(std::string_view text, size_t offset, bool from_reference);
  bool IntegrationPoint() const;
  void Eof();

  // Stack of open elements and the output events of the walk.
  void Push(GumboTag tag, bool hidden, bool flush = true, Namespace ns = Namespace::kHtml,
            std::string_view name = {});
  void Pop();
  void Flush();
  bool PendingEmpty() const { return pending_.empty() && pending_view_.empty(); }
  void AppendPending(std::string_view text, size_t offset, bool from_reference);
  GumboTag Current() const { return stack_.empty() ? GUMBO_TAG_LAST : stack_.back().tag; }
  bool InScope(GumboTag tag) const;
  bool InButtonScope(GumboTag tag) const;
  bool InListScope(GumboTag tag) const;
  bool InTableScope(GumboTag tag) const;
  bool IsOpen(uint32_t id) const;
  void GenerateImpliedEndTags(GumboTag except);
  // Pops elements until one of `tag` has been popped.
  void PopThrough(GumboTag tag);
  void ImplicitlyClose(GumboTag tag);
  void ClosePInButtonScope();
  void ClearStackBackTo(std::initializer_list<GumboTag> context);
  void ResetMode();
  void RawTextElement(const TagToken& t, RawText kind);
  void CloseCell(GumboTag cell);

  // Active formatting elements.
  void Reconstruct();
  void AddFormatting(const TagToken& t);
  void AddMarker() { formatting_.push_back({GUMBO_TAG_LAST, 0, false}); }
  void ClearToMarker();
  void AdoptionAgency(GumboTag subject);

  void Bail() { ok_ = false; }
  // gumbo's tag for a name as written (ASCII letters fold to lower case).
  // Names of up to eight bytes are remembered in a small direct-mapped
  // table: a page uses a few dozen names many thousand times.
  // `key` holds the name's first eight bytes, lower-cased.
  GumboTag TagNamed(std::string_view name, uint64_t key) {
    if (name.size() > 8) {
      name_.assign(name);
      for (char& ch : name_) ch = Lower(ch);
      return gumbo_tagn_enum(name_.data(), static_cast<unsigned>(name_.size()));
    }
    const size_t slot = ((key * 0x9E3779B97F4A7C15ULL) >> 58) ^ name.size();
    TagCacheEntry& e = tag_cache_[slot & (kTagCacheSize - 1)];
    if (e.length == name.size() && e.key == key) return e.tag;
    char lower[8];
    std::memcpy(lower, &key, 8);
    e = {key, static_cast<uint8_t>(name.size()),
         gumbo_tagn_enum(lower, static_cast<unsigned>(name.size()))};
    return e.tag;
  }

  std::string_view s_;
  PageTextBuilder out_;
  bool ok_ = true;
  Mode mode_ = Mode::kInitial;
  Quirks quirks_ = Quirks::kYes;
  std::vector<Element> stack_;
  std::vector<Formatting> formatting_;
  uint32_t next_id_ = 1;
  size_t foreign_open_ = 0;  // SVG and MathML elements on the stack
  uint32_t form_ = 0;  // the form element pointer (an element id), 0 for none
  bool ignore_lf_ = false;
  RawText raw_ = RawText::kNone;
  GumboTag raw_tag_ = GUMBO_TAG_UNKNOWN;
  // The text node buffer: a view of the page while it is one plain run,
  // else a copy.
  std::string pending_;
  std::string_view pending_view_;
  size_t pending_offset_ = 0;
  std::string name_;     // scratch for tag and attribute names
  std::string attribute_buffer_;                         // of the tag being read
  std::vector<std::pair<size_t, size_t>> attribute_names_;  // in attribute_buffer_
  struct TagCacheEntry {
    uint64_t key = 0;
    uint8_t length = 0;  // 0: empty
    GumboTag tag = GUMBO_TAG_UNKNOWN;
  };
  static constexpr size_t kTagCacheSize = 64;
  std::array<TagCacheEntry, kTagCacheSize> tag_cache_{};
  bool page_has_cr_ = true;
  // After "</>", the token that starts at carried_for_ counts from
  // carried_start_.
  size_t carried_for_ = std::string_view::npos;
  size_t carried_start_ = 0;
  const std::array<uint8_t, GUMBO_TAG_LAST + 1>& walk_ = WalkFlags();
  std::string scratch_;  // a decoded character reference
};

}  // namespace raw::raven::web::html
