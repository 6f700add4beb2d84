// Citations: the `[@source-id]` tokens and raw URLs of an Artifact, their
// validation against a Task's Sources, and the rendering of an Artifact for
// people — tokens become Markdown links built from Source records, followed
// by a Sources list and a Claim trace with contested and Source-family
// annotations.
//
// Code (CommonMark fenced blocks and inline `code` spans, as artifact_scan.h
// reads them) is neither scanned nor rendered: a URL or token shown as code
// is an example, not a citation. A token in raw HTML a reader does not see
// as text (a comment, a tag, what an element that hides its content may
// hold) neither cites nor is rendered.
// Every text taken from a record (titles, locators, Claim text) is escaped
// for Markdown and HTML (EscapeInline), and a link destination is
// percent-escaped, so no record can inject markup or a link. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "daemon/raven/domain.h"

namespace raw::raven {

// What a validation found wrong, naming the field the caller must change.
struct Issue {
  std::string field;
  std::string message;
  bool operator==(const Issue&) const = default;
};

// The ids of the `[@id]` tokens of `artifact`, in order of first use.
std::vector<std::string> CitedIds(std::string_view artifact);

// The ids of the registered Sources whose URL `artifact` links as a plain
// URL or link (LinkedUrls, matched as ValidateCitations matches them), in
// order of first link. Such a Source is held to the rules of a cited one.
std::vector<std::string> LinkedSourceIds(std::string_view artifact,
                                         const std::vector<Source>& sources);

// Unknown token ids, external URLs a reader could open (LinkedUrls) that
// are not registered Source URLs (or not valid URLs), and material
// supported/qualified external Claims none of whose Sources is cited by a
// visible token. A scheme-relative URL, or a "www." one, is registered when
// it is in either scheme. `field` is used in each Issue.
std::vector<Issue> ValidateCitations(std::string_view artifact, const std::vector<Source>& sources,
                                     const std::vector<Claim>& claims, const std::string& field);

// Markdown- and HTML-safe inline text: & < > " ' become entities, Markdown
// punctuation is backslash-escaped, white space runs become one space.
std::string EscapeInline(std::string_view text);
// A link destination: ( ) < > and white space percent-escaped.
std::string EscapeUrl(std::string_view url);

// The Artifact with tokens rendered, then "## Sources" (the cited Sources)
// and "## Claim trace" (material supported/qualified Claims), each section
// only when non-empty. A reachable Source renders as [title](url), any
// other as "[title — <status>]" without a link; an unknown id stays as is.
std::string RenderArtifact(const TaskState& state, std::string_view artifact);

}  // namespace raw::raven
