// The URL side of the Artifact scan (artifact_scan.h): the external URLs a
// reader could open from a run of an Artifact, read as a Markdown renderer
// or a browser reads them. Pure; internal to the engine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace raw::raven::artifact_urls {

// `s` as a renderer or a browser may decode it for a link: numeric
// character references with any number of digits, with or without ';', the
// named ones that spell URL punctuation or white space, and, when
// `escapes`, a backslash before ASCII punctuation as a Markdown escape.
// Only ASCII results are decoded.
std::string Decoded(std::string_view s, bool escapes);

// Appends the URLs a reader could open from `prose` (decoded Markdown text,
// outside code and raw HTML) to `out`.
void TextUrls(std::string_view prose, std::vector<std::string>& out);

// Appends every URL-like substring of the raw HTML `html` to `out`, counted
// as a link whatever attribute or text holds it. With `joined`, tabs and
// line breaks are removed first, as a browser removes them from an
// attribute's URL; otherwise they end a URL.
void RawHtmlUrls(std::string_view html, bool joined, std::vector<std::string>& out);

}  // namespace raw::raven::artifact_urls
