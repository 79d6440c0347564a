// SHA-256 against the FIPS 180-2 test vectors, for the backend this build uses (libcrypto by
// default, Nettle in the trainer-only build: src/common/sha256.cpp), in one call and in pieces.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/sha256.h"

TEST_CASE("sha256 matches the FIPS 180-2 test vectors", "[common][fast]") {
  CHECK(lane::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(lane::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(lane::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("sha256 of a million 'a' fed in pieces and read from a file", "[common][fast]") {
  const std::string million(1000000, 'a');
  const std::string expect = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  lane::Sha256 h;
  for (size_t at = 0; at < million.size(); at += 4093) h.update(million.data() + at, std::min<size_t>(4093, million.size() - at));
  CHECK(h.hex_digest() == expect);
  const std::string path = "/tmp/lane_sha256_" + std::to_string(::getpid());
  std::ofstream(path, std::ios::binary) << million;
  CHECK(lane::sha256_file_hex(path) == expect);
  std::remove(path.c_str());
}
