// Plain-text helpers shared by every client surface: UTF-8 aware
// shortening, first lines, excerpts, local times, expiry and durations.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "raw/v1/event.pb.h"

namespace raw::present {

// At most `max_chars` code points of `text`, with "..." replacing the rest.
// Never splits a UTF-8 sequence.
std::string Truncate(const std::string& text, size_t max_chars);

// The first non-blank line of `text`, without surrounding whitespace; the
// result is marked with " ..." when more lines follow.
std::string FirstLine(const std::string& text);

// Up to `max_lines` lines of `text`, each shortened to `max_line_chars`,
// with a final "..." line when something was left out.
std::string Excerpt(const std::string& text, int max_lines, size_t max_line_chars);

// `text` on one line: newlines and tabs become spaces, runs of blanks
// collapse to one.
std::string OneLine(const std::string& text);

// "2024-05-01 14:03" in the local time zone; "-" for 0.
std::string FormatLocalTime(int64_t unix_ms);

// When a session expiring at `expires_at_unix_ms` goes, seen at `now_unix_ms`:
// "never" for 0 (expiry off), "due" once the time has passed (the daemon
// removes it at its next purge), else "in 40 min", "in 5 h", "in 12 days"
// (whole units, rounded down).
std::string FormatExpiry(int64_t expires_at_unix_ms, int64_t now_unix_ms);

// "[image: PNG, 800x600, 34 KB]" for an image of a prompt: its type (the
// mime type's subtype in capitals), its size in pixels when known (width
// and height > 0) and its bytes.
std::string ImageLabel(const std::string& mime_type, int64_t width, int64_t height, size_t bytes);
// ImageLabel of each image of `message`, one per line ("" without images).
std::string ImageLines(const v1::UserMessage& message);

// "850 ms", "2.4 s", "3 min 5 s".
std::string FormatDurationMs(int64_t ms);

}  // namespace raw::present
