#include "common/sha256.h"

// Two backends of one function: OpenSSL's libcrypto (the default build: the fastest here, and
// lanectl links it anyway for TLS) and Nettle (the trainer-only build, LANE_TRAIN_ONLY: 0.3 MiB
// instead of libcrypto's 4.5 MiB in the trainer's runtime closure; 9% slower on 256 MiB here).
#ifdef LANE_SHA256_NETTLE
#include <nettle/sha2.h>
#else
#include <openssl/evp.h>
#endif

#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace lane {

namespace {

std::string hex(const unsigned char* digest, size_t len) {
  std::string out;
  out.reserve(len * 2);
  for (size_t i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

}  // namespace

#ifdef LANE_SHA256_NETTLE

Sha256::Sha256() : ctx_(new sha256_ctx) { sha256_init(static_cast<sha256_ctx*>(ctx_)); }

Sha256::~Sha256() { delete static_cast<sha256_ctx*>(ctx_); }

void Sha256::update(const void* data, size_t size) {
  sha256_update(static_cast<sha256_ctx*>(ctx_), size, static_cast<const uint8_t*>(data));
}

std::string Sha256::hex_digest() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(static_cast<sha256_ctx*>(ctx_), sizeof digest, digest);
  return hex(digest, sizeof digest);
}

#else

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
  return hex(digest, len);
}

#endif

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
