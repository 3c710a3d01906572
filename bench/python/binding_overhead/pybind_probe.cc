// The two probe calls through pybind11 (see capi_probe.cc).
#include <pybind11/pybind11.h>
#include <cstdint>

namespace {
struct Handle {
  void* graph;
  unsigned index;
  std::uint32_t epoch;
  std::uint64_t id;
};
}  // namespace

PYBIND11_MODULE(pybind_probe, m) {
  pybind11::class_<Handle>(m, "Handle");
  m.def("make", [] { return Handle{nullptr, 0, 0, 1}; });
  m.def("unary", [](const Handle& a) {
    Handle h = a;
    ++h.index;
    return h;
  });
  m.def("binary", [](const Handle& a, const Handle& b) {
    Handle h = a;
    h.index += b.index;
    return h;
  });
}
