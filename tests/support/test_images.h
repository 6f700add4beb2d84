// Image bytes for tests: the headers of each format Raw takes, with a
// chosen pixel size, as image_sniff.h reads them. Not decodable pictures
// (rawd and the providers' fakes never decode), but byte-exact headers.
#pragma once

#include <cstdint>
#include <string>

namespace raw::test_images {

inline void PutBe32(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
}
inline void PutBe16(std::string& s, uint32_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v));
}
inline void PutLe16(std::string& s, uint32_t v) {
  s.push_back(static_cast<char>(v));
  s.push_back(static_cast<char>(v >> 8));
}
inline void PutLe24(std::string& s, uint32_t v) {
  PutLe16(s, v);
  s.push_back(static_cast<char>(v >> 16));
}

// Signature and IHDR chunk (CRC left zero), then `padding` bytes.
inline std::string PngBytes(uint32_t width, uint32_t height, size_t padding = 16) {
  std::string s("\x89PNG\r\n\x1a\n", 8);
  PutBe32(s, 13);
  s += "IHDR";
  PutBe32(s, width);
  PutBe32(s, height);
  s += std::string("\x08\x06\x00\x00\x00", 5);
  PutBe32(s, 0);
  s += std::string(padding, '\0');
  return s;
}

// SOI, a JFIF APP0 segment, a comment segment, then a baseline SOF0.
inline std::string JpegBytes(uint32_t width, uint32_t height) {
  std::string s("\xff\xd8", 2);
  s += std::string("\xff\xe0", 2);
  PutBe16(s, 16);
  s += std::string("JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00", 14);
  s += std::string("\xff\xfe", 2);
  PutBe16(s, 7);
  s += "hello";
  s += std::string("\xff\xc0", 2);
  PutBe16(s, 17);
  s.push_back(8);
  PutBe16(s, height);
  PutBe16(s, width);
  s += std::string(12, '\x01');
  s += std::string("\xff\xd9", 2);
  return s;
}

inline std::string GifBytes(uint32_t width, uint32_t height) {
  std::string s = "GIF89a";
  PutLe16(s, width);
  PutLe16(s, height);
  s += std::string(8, '\0');
  return s;
}

// RIFF/WEBP with an extended (VP8X) header.
inline std::string WebpBytes(uint32_t width, uint32_t height) {
  std::string body = "WEBPVP8X";
  body += std::string("\x0a\x00\x00\x00", 4);
  body += std::string(4, '\0');  // flags, reserved
  PutLe24(body, width - 1);
  PutLe24(body, height - 1);
  std::string s = "RIFF";
  const auto size = static_cast<uint32_t>(body.size());
  for (int shift = 0; shift < 32; shift += 8) s.push_back(static_cast<char>(size >> shift));
  return s + body;
}

}  // namespace raw::test_images
