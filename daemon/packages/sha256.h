// Sha256: incremental SHA-256 over OpenSSL's libcrypto (EVP), the hash of
// package trees (tree_hash.h). Not thread-safe; one object per digest.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace raw::packages {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // 64 lowercase hex digits; the object is spent afterwards.
  std::string HexDigest();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

}  // namespace raw::packages
