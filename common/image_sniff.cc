#include "common/image_sniff.h"

namespace raw {
namespace {

uint32_t Byte(std::string_view b, size_t i) { return static_cast<unsigned char>(b[i]); }
uint32_t Be16(std::string_view b, size_t i) { return Byte(b, i) << 8 | Byte(b, i + 1); }
uint32_t Le16(std::string_view b, size_t i) { return Byte(b, i) | Byte(b, i + 1) << 8; }
uint32_t Le24(std::string_view b, size_t i) { return Le16(b, i) | Byte(b, i + 2) << 16; }
uint32_t Be32(std::string_view b, size_t i) { return Be16(b, i) << 16 | Be16(b, i + 2); }

ImageFacts Png(std::string_view b) {
  ImageFacts facts{.mime_type = "image/png"};
  // The first chunk is IHDR: width and height, big-endian.
  if (b.size() >= 24 && b.substr(12, 4) == "IHDR") {
    facts.width = Be32(b, 16);
    facts.height = Be32(b, 20);
  }
  return facts;
}

ImageFacts Gif(std::string_view b) {
  ImageFacts facts{.mime_type = "image/gif"};
  if (b.size() >= 10) {
    facts.width = Le16(b, 6);
    facts.height = Le16(b, 8);
  }
  return facts;
}

ImageFacts Webp(std::string_view b) {
  ImageFacts facts{.mime_type = "image/webp"};
  if (b.size() < 30) return facts;
  std::string_view chunk = b.substr(12, 4);
  if (chunk == "VP8X") {  // extended: canvas size minus one, 24-bit
    facts.width = Le24(b, 24) + 1;
    facts.height = Le24(b, 27) + 1;
  } else if (chunk == "VP8L" && Byte(b, 20) == 0x2f) {  // lossless: 14-bit fields minus one
    const uint32_t bits = Byte(b, 21) | Byte(b, 22) << 8 | Byte(b, 23) << 16 | Byte(b, 24) << 24;
    facts.width = (bits & 0x3fff) + 1;
    facts.height = ((bits >> 14) & 0x3fff) + 1;
  } else if (chunk == "VP8 " && Byte(b, 23) == 0x9d && Byte(b, 24) == 0x01 &&
             Byte(b, 25) == 0x2a) {  // lossy: after the key frame's start code
    facts.width = Le16(b, 26) & 0x3fff;
    facts.height = Le16(b, 28) & 0x3fff;
  }
  return facts;
}

// Walks the marker segments up to the first start-of-frame, which holds the
// size. Bounded by the bytes: every step moves forward.
ImageFacts Jpeg(std::string_view b) {
  ImageFacts facts{.mime_type = "image/jpeg"};
  size_t i = 2;
  while (i + 4 <= b.size()) {
    if (Byte(b, i) != 0xff) return facts;
    const uint32_t marker = Byte(b, i + 1);
    if (marker == 0xff) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {  // no length
      i += 2;
      continue;
    }
    const uint32_t length = Be16(b, i + 2);
    if (length < 2) return facts;
    const bool frame =
        marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
    if (frame) {
      if (i + 9 <= b.size()) {
        facts.height = Be16(b, i + 5);
        facts.width = Be16(b, i + 7);
      }
      return facts;
    }
    i += 2 + length;
  }
  return facts;
}

}  // namespace

std::optional<ImageFacts> SniffImage(std::string_view b) {
  if (b.size() >= 8 && b.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return Png(b);
  if (b.size() >= 3 && Byte(b, 0) == 0xff && Byte(b, 1) == 0xd8 && Byte(b, 2) == 0xff) {
    return Jpeg(b);
  }
  if (b.size() >= 6 && (b.substr(0, 6) == "GIF87a" || b.substr(0, 6) == "GIF89a")) return Gif(b);
  if (b.size() >= 12 && b.substr(0, 4) == "RIFF" && b.substr(8, 4) == "WEBP") return Webp(b);
  return std::nullopt;
}

}  // namespace raw
