#include <catch2/catch.hpp>

#include <vector>

#include "autobatch/gradient_coverage.h"
#include "dynet_core/init.h"
#include "support/host_device.h"

using namespace dynet;

namespace {

constexpr float kWritten = 7.f;

/// A block of `floats` values that a kernel "wrote": what complete() must keep.
std::vector<float> written_block(std::size_t floats) { return std::vector<float>(floats, kWritten); }

}  // namespace

TEST_CASE("gradient coverage: whole nodes may be overwritten once, the rest is zeroed", "[autobatch][coverage]") {
  GradientCoverage c;
  c.add_block(4, Dim({2}));  // 4 nodes of 2 floats
  CHECK(c.untouched(0));
  CHECK(c.claim_nodes(0, 1, 2));
  CHECK(!c.untouched(0));
  CHECK(!c.whole(0));
  CHECK(!c.claim_nodes(0, 2, 1));  // node 2 holds a gradient: must be added to
  std::vector<float> block = written_block(8);
  c.complete(0, block.data(), test_support::host_device());
  CHECK(block == std::vector<float>{0, 0, kWritten, kWritten, kWritten, kWritten, 0, 0});
  CHECK(c.whole(0));
  CHECK(!c.claim_nodes(0, 0, 1));

  c.clear();
  c.add_block(2, Dim({3}));
  c.add_block(3, Dim({1}));
  CHECK(c.claim_nodes(1, 0, 1));
  CHECK(c.claim_nodes(1, 1, 2));
  CHECK(c.whole(1));  // every node written: nothing to zero
  CHECK(c.untouched(0));
  block = written_block(6);
  c.complete(0, block.data(), test_support::host_device());  // never written: all zero
  CHECK(block == std::vector<float>(6, 0.f));
}

TEST_CASE("gradient coverage: spans of every batch element, their gaps zeroed", "[autobatch][coverage]") {
  GradientCoverage c;
  c.add_block(2, Dim({5}, 2));  // 2 nodes of batch 2, 5 floats per batch element
  CHECK(c.claim_span(0, 3, 5));
  CHECK(c.claim_span(0, 0, 1));
  CHECK(!c.claim_span(0, 4, 5));   // overlaps [3, 5)
  CHECK(!c.claim_nodes(0, 0, 1));  // the kinds never mix
  std::vector<float> block = written_block(20);
  c.complete(0, block.data(), test_support::host_device());
  const std::vector<float> element{kWritten, 0, 0, kWritten, kWritten};
  for (unsigned e = 0; e < 4; ++e)
    CHECK(std::vector<float>(block.begin() + 5 * e, block.begin() + 5 * e + 5) == element);

  c.clear();
  c.add_block(1, Dim({4}));
  CHECK(c.claim_span(0, 1, 2));
  block = written_block(4);
  c.complete(0, block.data(), test_support::host_device());
  CHECK(block == std::vector<float>{0, kWritten, 0, 0});

  c.clear();
  c.add_block(1, Dim({4}));
  CHECK(c.claim_span(0, 2, 4));
  CHECK(c.claim_span(0, 0, 2));
  CHECK(c.whole(0));  // the spans cover every element
  c.clear();
  c.add_block(2, Dim({4}));
  CHECK(c.claim_nodes(0, 0, 1));
  CHECK(!c.claim_span(0, 0, 2));
}
