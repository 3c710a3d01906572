// Sizes at and past 2^31 and 2^32 elements: exact in 64 bits, and a tensor too large to hold is
// refused where it is asked for, naming the shape. No test allocates more than a few MiB: every
// shape past the limit is refused before any memory is taken.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/dim.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "support/address_space_cap.h"

using namespace dynet;

namespace {

constexpr unsigned k16 = 1u << 16, k20 = 1u << 20, k30 = 1u << 30;
constexpr unsigned kMax = 2147483647u;  // 2^31 - 1

/// The error a tensor past the limit gets: it names where, the shape and the limit.
class TooLarge : public Catch::MatcherBase<std::string> {
 public:
  TooLarge(std::string where, std::string shape) : where_(std::move(where)), shape_(std::move(shape)) {}
  bool match(const std::string& s) const override {
    return s.find(where_) != std::string::npos && s.find(shape_) != std::string::npos &&
           s.find("2147483647") != std::string::npos;
  }
  std::string describe() const override {
    return "names '" + where_ + "', the shape " + shape_ + " and the limit 2147483647";
  }

 private:
  std::string where_, shape_;
};
TooLarge too_large(const std::string& where, const std::string& shape) { return TooLarge(where, shape); }

}  // namespace

TEST_CASE("Dim sizes are exact past 32 bits and fit only up to 2^31-1 elements", "[dim][sizes]") {
  CHECK(Dim({k20, k20}).size() == std::size_t(1) << 40);
  CHECK(Dim({k16, k16 + 1}).size() == std::size_t(k16) * (k16 + 1));
  CHECK(Dim({k16}, k16).size() == std::size_t(1) << 32);
  CHECK(Dim({k16}, k16).batch_size() == k16);
  CHECK(Dim({k16, k16}, 3).size() == std::size_t(3) << 32);

  CHECK(Dim({kMax}).fits());
  CHECK(Dim({1}, kMax).fits());
  CHECK(Dim({46341, 46340}).fits());                                  // 2147441940 elements
  CHECK_FALSE(Dim({k16, k16 / 2}).fits());                            // 2^31
  CHECK_FALSE(Dim({k16 / 2}, k16).fits());                            // 2^31 as batch x size
  CHECK_FALSE(Dim({k16}, k16).fits());                                // 2^32, 0 in 32 bits
  CHECK_FALSE(Dim({k16, k16 + 1}).fits());                            // 2^32 + 2^16, 2^16 in 32 bits
  CHECK_FALSE(Dim({k16, k16, k16, k16, k16, k16, k16}, k16).fits());  // 2^128

  // A dimension no tensor can hold is refused rather than cut to 32 bits.
  CHECK_THROWS_WITH(Dim(std::vector<long>{5000000000L}), Catch::Contains("5000000000"));
  CHECK_THROWS_WITH(Dim({2147483648u}), Catch::Contains("2147483648") && Catch::Contains("2147483647"));
}

TEST_CASE("parameters past 2^31-1 elements are refused at creation, naming the shape", "[parameters][sizes]") {
  ParameterCollection m;
  // The case: {1<<20, 1<<20} had size 0, got no memory, and pick() then divided by zero.
  CHECK_THROWS_WITH(m.add_parameters({k20, k20}), too_large("add_parameters", "{1048576,1048576}"));
  CHECK_THROWS_AS(m.add_parameters({k20, k20}), std::invalid_argument);
  CHECK_THROWS_WITH(m.add_parameters({k16, k16 / 2}), too_large("add_parameters", "{65536,32768}"));
  CHECK_THROWS_WITH(m.add_parameters({k16, k16 + 1}), too_large("add_parameters", "{65536,65537}"));
  CHECK(m.parameters_list().empty());  // nothing was half made
  CHECK(m.add_parameters({2, 3}).dim() == Dim({2, 3}));
}

TEST_CASE("lookup tables past 2^31-1 elements are refused at creation, naming the table", "[parameters][sizes]") {
  ParameterCollection m;
  // The case: 65,536 rows of {65537} took 65,536 floats and crashed at forward.
  CHECK_THROWS_WITH(m.add_lookup_parameters(k16, {k16 + 1}), too_large("add_lookup_parameters", "{65537,65536}"));
  CHECK_THROWS_AS(m.add_lookup_parameters(k16, {k16 + 1}), std::invalid_argument);
  CHECK_THROWS_WITH(m.add_lookup_parameters(k16 / 2, {k16}), too_large("add_lookup_parameters", "{65536,32768}"));
  CHECK_THROWS_WITH(m.add_lookup_parameters(2, {k16, k16 / 2}), too_large("add_lookup_parameters", "{65536,32768}"));
  CHECK(m.lookup_parameters_list().empty());
}

TEST_CASE("batched lookups past 2^31-1 elements are refused at the lookup", "[parameters][sizes]") {
  ParameterCollection m;
  LookupParameter table = m.add_lookup_parameters(2, {k16});
  ComputationGraph cg;
  const std::vector<unsigned> rows_2_32(k16, 1), rows_2_31(k16 / 2, 0), rows_below(k16 / 2 - 1, 0);
  CHECK_THROWS_WITH(lookup(cg, table, rows_2_32), too_large("lookup", "{65536X65536}"));
  CHECK_THROWS_WITH(lookup(cg, table, &rows_2_31), too_large("lookup", "{65536X32768}"));
  CHECK_THROWS_WITH(const_lookup(cg, table, rows_2_31), too_large("lookup", "{65536X32768}"));
  CHECK(cg.size() == 0);
  // One batch element short of 2^31 is a tensor the library can hold (not computed here: 8 GiB).
  const Expression below = lookup(cg, table, rows_below);
  CHECK(below.dim().size() == std::size_t(k16) * (k16 / 2 - 1));
}

TEST_CASE("constants and inputs past 2^31-1 elements are refused at creation", "[graph][sizes]") {
  ComputationGraph cg;
  // The cases: a segmentation fault, and sums of 0 and 65536 instead of 2^40 and 2^32 + 2^16.
  CHECK_THROWS_WITH(constant(cg, Dim({k16}, k16), 1.f), too_large("constant", "{65536X65536}"));
  CHECK_THROWS_WITH(sum_elems(constant(cg, {k20, k20}, 1.f)), too_large("constant", "{1048576,1048576}"));
  CHECK_THROWS_WITH(sum_elems(constant(cg, {k16, k16 + 1}, 1.f)), too_large("constant", "{65536,65537}"));
  CHECK_THROWS_WITH(zeros(cg, Dim({k16 / 2}, k16)), too_large("zeros", "{32768X65536}"));
  CHECK_THROWS_AS(constant(cg, Dim({k16}, k16 / 2), 1.f), std::invalid_argument);
  // A shape whose size was 0 in 32 bits took an empty vector.
  const std::vector<float> none;
  CHECK_THROWS_WITH(input(cg, Dim({k16}, k16), none), too_large("input", "{65536X65536}"));
  CHECK_THROWS_WITH(input(cg, Dim({k16}, k16), &none), too_large("input", "{65536X65536}"));
  CHECK(cg.size() == 0);
  // At the limit itself a constant is made (and not computed here: 8 GiB).
  CHECK(constant(cg, Dim({1}, kMax), 1.f).dim().size() == kMax);
}

TEST_CASE("a node is refused exactly when its shape does not fit", "[graph][sizes]") {
  ComputationGraph cg;
  const Dim shapes[] = {Dim({kMax}),
                        Dim({46341, 46340}),
                        Dim({2, 3}, kMax / 6),
                        Dim({2, 3}, kMax / 6 + 1),
                        Dim({k16, k16 / 2}),
                        Dim({k16, k16 + 1}),
                        Dim({k16, k16, k16, k16, k16, k16, k16}, k16)};
  for (const Dim& d : shapes) {
    INFO("shape " << d);
    if (d.fits())
      CHECK(constant(cg, d, 0.f).dim() == d);
    else
      CHECK_THROWS_WITH(constant(cg, d, 0.f), Catch::Contains("one tensor holds at most"));
  }
}

TEST_CASE("ops whose result would exceed 2^31-1 elements are refused at the node", "[graph][sizes]") {
  ComputationGraph cg;
  const Expression half = constant(cg, {k30}, 1.f);
  CHECK_THROWS_WITH(concatenate({half, half}), too_large("concatenate", "{2147483648}"));
  const Expression most = constant(cg, {kMax}, 1.f);
  // Three dimensions of 2^31-1 sum to more than 2^32, which wrapped to a small size.
  CHECK_THROWS_WITH(concatenate({most, most, most}), Catch::Contains("concatenate") && Catch::Contains("6442450941"));
  const Expression batch_most = constant(cg, Dim({1}, kMax), 1.f);
  CHECK_THROWS_WITH(concatenate_to_batch({batch_most, batch_most}),
                    too_large("concatenate_to_batch", "{1X4294967294}"));
  CHECK_THROWS_WITH(concatenate_to_batch({batch_most, batch_most, batch_most}),
                    Catch::Contains("concatenate_to_batch") && Catch::Contains("6442450941"));
  // Broadcasting in a dimension and in the batch at once.
  const Expression column = constant(cg, {k16}, 1.f), batch = constant(cg, Dim({1}, k16), 1.f);
  CHECK_THROWS_WITH(column + batch, too_large("", "{65536X65536}"));
  CHECK_THROWS_WITH(constant(cg, {k16, 1}, 1.f) * constant(cg, {1, k16}, 1.f), too_large("", "{65536,65536}"));
  const unsigned before = cg.size();
  CHECK_THROWS_AS(column + batch, std::invalid_argument);
  CHECK(cg.size() == before);
}

TEST_CASE("pool requests whose byte count wraps around are out of memory, not small blocks", "[pool][sizes]") {
  AlignedMemoryPool pool("forward (FXS)", 256);
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  CHECK_THROWS_WITH(pool.allocate(max - 8), Catch::Contains("out of memory in the 'forward (FXS)' pool"));
  CHECK_THROWS_WITH(pool.allocate_array<float>((std::size_t(1) << 62) + 1),
                    Catch::Contains("out of memory in the 'forward (FXS)' pool") &&
                        Catch::Contains(std::to_string((std::size_t(1) << 62) + 1)));
  CHECK(pool.used() == 0);
}

TEST_CASE("a parameter below the limit that the system cannot hold is out of memory in PS, with its exact size",
          "[parameters][sizes]") {
  ParameterCollection m;
  std::string what;
  {
    // 2 GiB above what the process uses, so the 8 GiB request is refused.
    const test_support::AddressSpaceCap cap(2ull << 30);
    if (!cap.skipped().empty()) {
      WARN("skipped: " << cap.skipped());
      return;
    }
    try {
      m.add_parameters({46341, 46340});  // 2147441940 floats: 8589767760 bytes
    } catch (const std::exception& e) {
      what = e.what();
    }
  }
  CHECK_THAT(what, Catch::Contains("out of memory in the 'parameters (PS)' pool") && Catch::Contains("8589767760"));
  CHECK(m.parameters_list().empty());
}
