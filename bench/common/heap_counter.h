#pragma once
// Counts heap allocations made by the whole process (malloc, operator new, aligned_alloc...)
// while counting is switched on. Linking heap_counter.cc into a program interposes the C
// allocator, so this covers the library and the C++ runtime too.

#include <cstddef>

namespace bench {

struct HeapCount {
  std::size_t calls = 0;
  std::size_t bytes = 0;
};

void start_heap_count();
HeapCount stop_heap_count();

}  // namespace bench
