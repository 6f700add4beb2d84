#include "common/ids.h"

#include <chrono>
#include <cstdint>
#include <random>

#include "absl/synchronization/mutex.h"

namespace raw {
namespace {

constexpr char kAlphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

uint64_t RandomBits() {
  static absl::Mutex mu(absl::kConstInit);
  static std::mt19937_64* engine = nullptr;
  absl::MutexLock lock(&mu);
  if (engine == nullptr) {
    std::random_device rd;
    engine = new std::mt19937_64((static_cast<uint64_t>(rd()) << 32) ^ rd());
  }
  return (*engine)();
}

}  // namespace

std::string NewId() {
  auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
  std::string out(26, '0');
  for (int i = 9; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kAlphabet[ms & 31];
    ms >>= 5;
  }
  uint64_t r1 = RandomBits(), r2 = RandomBits();
  for (int i = 10; i < 26; ++i) {
    uint64_t& r = i < 18 ? r1 : r2;
    out[static_cast<size_t>(i)] = kAlphabet[r & 31];
    r >>= 5;
  }
  return out;
}

std::string NewId(const std::string& prefix) { return prefix + NewId(); }

bool IsIdOfForm(std::string_view id, std::string_view prefix) {
  constexpr size_t kLength = 26;
  if (id.size() != prefix.size() + kLength || id.substr(0, prefix.size()) != prefix) return false;
  const std::string_view alphabet(kAlphabet, sizeof kAlphabet - 1);
  for (char c : id.substr(prefix.size())) {
    if (alphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace raw
