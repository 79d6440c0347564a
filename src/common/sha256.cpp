#include "common/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace lane {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw Error("cannot initialise SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::update(const void* data, size_t size) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size);
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest, &len);
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data.data(), data.size());
  return h.hex_digest();
}

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read '{}' to hash it", path.string()));
  Sha256 h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  return h.hex_digest();
}

}  // namespace lane
