#pragma once
// SHA-256 through OpenSSL's EVP interface (hex digests, lower case).
#include <filesystem>
#include <string>
#include <string_view>

namespace lane {

std::string sha256_hex(std::string_view data);
std::string sha256_file_hex(const std::filesystem::path& path);

// Incremental hashing for streams (downloads, large files).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  std::string hex_digest();  // finalises; the object cannot be updated afterwards

 private:
  void* ctx_;
};

}  // namespace lane
