#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/device/device.h"

using namespace dynet;

TEST_CASE("pool allocations are aligned and bump-allocated", "[pool]") {
  AlignedMemoryPool pool("test", 1024);
  char* a = static_cast<char*>(pool.allocate(10));
  char* b = static_cast<char*>(pool.allocate(100));
  CHECK(reinterpret_cast<std::uintptr_t>(a) % AlignedMemoryPool::kAlign == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b) % AlignedMemoryPool::kAlign == 0);
  CHECK(b == a + AlignedMemoryPool::kAlign);
  CHECK(pool.used() == 64 + 128);
}

TEST_CASE("pool growth adds blocks without moving live data, reset coalesces", "[pool]") {
  AlignedMemoryPool pool("forward", 256);
  float* first = pool.allocate_array<float>(32);
  for (int k = 0; k < 32; ++k) first[k] = static_cast<float>(k);
  float* big = pool.allocate_array<float>(4096);  // does not fit: a new block
  CHECK(pool.blocks() == 2);
  std::memset(big, 0, 4096 * sizeof(float));
  for (int k = 0; k < 32; ++k) REQUIRE(first[k] == static_cast<float>(k));
  const std::size_t used = pool.used();
  CHECK(pool.high_water() >= used);
  pool.reset();
  CHECK(pool.used() == 0);
  CHECK(pool.blocks() == 1);
  CHECK(pool.capacity() >= used);
  CHECK(pool.high_water() >= used);
  // After coalescing, the same work fits in the one block.
  pool.allocate_array<float>(32);
  pool.allocate_array<float>(4096);
  CHECK(pool.blocks() == 1);
}

TEST_CASE("pool marks revert allocations across blocks", "[pool]") {
  AlignedMemoryPool pool("scratch", 256);
  pool.allocate(64);
  const auto m = pool.mark();
  pool.allocate(1000);
  pool.allocate(5000);
  pool.revert(m);
  CHECK(pool.used() == 64);
  CHECK_THROWS_AS(pool.revert({9, 0}), std::invalid_argument);
}

TEST_CASE("a revert to the top frees nothing, and nested reverts keep the high water", "[pool]") {
  AlignedMemoryPool pool("scratch", 4096);
  pool.allocate(64);
  const auto outer = pool.mark();
  pool.revert(outer);  // nothing allocated since the mark
  CHECK(pool.used() == 64);
  const auto inner = pool.mark();
  pool.allocate(640);
  pool.revert(inner);
  pool.revert(outer);  // back at the mark: the inner revert noted the 640 bytes
  CHECK(pool.used() == 64);
  CHECK(pool.high_water() == 64 + 640);
  pool.allocate(128);  // on the same block as the mark, past it
  pool.revert(outer);
  CHECK(pool.used() == 64);
  CHECK(pool.high_water() == 64 + 640);
}

TEST_CASE("running out of memory names the pool and the request", "[pool][errors]") {
  AlignedMemoryPool pool("backward (DEDFS)", 256);
  pool.allocate(64);
  const std::size_t huge = std::size_t(1) << 60;
  try {
    pool.allocate(huge);
    FAIL("an impossible allocation succeeded");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("backward (DEDFS)") && Catch::Contains(std::to_string(huge)));
  }
  CHECK(pool.used() == 64);  // the failed request changed nothing
  CHECK(pool.allocate(64) != nullptr);
}

TEST_CASE("debug pools fill allocations with NaN and detect overruns", "[pool]") {
  AlignedMemoryPool pool("debug", 4096);
  pool.set_debug(true);
  float* p = pool.allocate_array<float>(5);
  for (int k = 0; k < 5; ++k) CHECK(p[k] != p[k]);
  CHECK(pool.guard_intact(p, 5 * sizeof(float)));
  p[5] = 1.f;  // one past the end
  CHECK_FALSE(pool.guard_intact(p, 5 * sizeof(float)));
}

TEST_CASE("memory descriptors of --dynet-mem", "[pool][flags]") {
  const std::size_t MB = std::size_t(1) << 20;
  const MemorySizes one = parse_memory_descriptor("512");
  CHECK(one.forward == 128 * MB);
  CHECK(one.scratch == 128 * MB);
  const MemorySizes three = parse_memory_descriptor("256,128,64");
  CHECK(three.forward == 256 * MB);
  CHECK(three.backward == 128 * MB);
  CHECK(three.parameters == 64 * MB);
  const MemorySizes four = parse_memory_descriptor("1,2,3,4");
  CHECK(four.scratch == 4 * MB);
  CHECK_THROWS_WITH(parse_memory_descriptor("12x"), Catch::Contains("--dynet-mem") && Catch::Contains("12x"));
  CHECK_THROWS_AS(parse_memory_descriptor("1,2"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_descriptor("-5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_memory_descriptor(""), std::invalid_argument);
}
