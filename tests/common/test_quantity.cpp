// Kubernetes quantity grammar: what the API server accepts for requests/limits and PVC sizes.
#include <catch2/catch.hpp>

#include <string>

#include "common/quantity.h"

TEST_CASE("is_quantity accepts the Kubernetes quantity grammar", "[common][fast]") {
  for (const char* q : {"1", "0", "100Gi", "1.5Gi", "500m", "2G", "2Gi", "1Ki", "3Ei", "4E", "1e3", "1E-2", "2e+3",
                        "+1", "-1", ".5", "5.", "0.25", "250n", "10u", "7k", "1M", "1T", "1P", "1Pi", "1Ti"})
    CHECK(lane::is_quantity(q));
}

TEST_CASE("is_quantity refuses what the API server refuses", "[common][fast]") {
  for (const char* q : {"", "lots", "2GB", "2gi", "1 Gi", " 1", "1 ", "Gi", "1.2.3", ".", "+", "1e", "1e1.5", "1K",
                        "1mi", "1Gib", "--1", "1,5", "0x10", "1Mi1", "e3"})
    CHECK_FALSE(lane::is_quantity(q));
}

TEST_CASE("parse_quantity gives base units", "[common][fast]") {
  CHECK(*lane::parse_quantity("500m") == Approx(0.5));
  CHECK(*lane::parse_quantity("2") == Approx(2));
  CHECK(*lane::parse_quantity("1Ki") == Approx(1024));
  CHECK(*lane::parse_quantity("1.5Gi") == Approx(1.5 * 1024 * 1024 * 1024));
  CHECK(*lane::parse_quantity("2G") == Approx(2e9));
  CHECK(*lane::parse_quantity("1e3") == Approx(1000));
  CHECK(*lane::parse_quantity("-1k") == Approx(-1000));
  CHECK(*lane::parse_quantity("250n") == Approx(250e-9));
  CHECK_FALSE(lane::parse_quantity("2GB"));
  CHECK_FALSE(lane::parse_quantity("1e999"));  // not finite
}

TEST_CASE("parse_quantity_bytes rounds up and refuses negative sizes", "[common][fast]") {
  CHECK(*lane::parse_quantity_bytes("100Gi") == 100ull << 30);
  CHECK(*lane::parse_quantity_bytes("3G") == 3000000000ull);
  CHECK(*lane::parse_quantity_bytes("500m") == 1);
  CHECK(*lane::parse_quantity_bytes("1024") == 1024);
  CHECK_FALSE(lane::parse_quantity_bytes("-1Gi"));
  CHECK_FALSE(lane::parse_quantity_bytes("2GB"));
  CHECK_FALSE(lane::parse_quantity_bytes("9Ei"));  // above 9e18
}
