#include "gpu/element_chain.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "dynet_core/ops/registry.h"

namespace dynet {
namespace gpu {

namespace {

/// Op data bytes each rule reads, by rule code (the op's ElementwiseOp).
constexpr std::array<std::size_t, element::kRuleCount> kRuleDataBytes = std::apply(
    [](auto... entries) {
      return std::array<std::size_t, element::kRuleCount>{decltype(entries)::rule::data_bytes...};
    },
    element::kRules);

/// The rule code of an op: its identity, which is element::kRuleCount for an op without a rule.
unsigned rule_code(const OpDef& op) { return static_cast<unsigned>(op.elementwise.op); }

/// Where each array of a packed chain starts, in bytes from the block's start, and how many
/// argument slots its steps use.
struct Layout {
  std::size_t steps, slots, maps, data, reads, writes, read_grads, write_grads, fresh_reads, fresh_writes, shared_grads,
      bytes, slot_count;
};

constexpr std::size_t kAlign = 16;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

std::size_t data_bytes(const ChainStep& s) {
  const unsigned code = rule_code(*s.op);
  return code < element::kRuleCount ? aligned(kRuleDataBytes[code]) : 0;
}

Layout layout_of(const ChainProgram& c) {
  std::size_t slots = 0, data = 0;
  for (unsigned s = 0; s < c.step_count; ++s) {
    slots = std::max<std::size_t>(slots, c.steps[s].first_arg + c.steps[s].nargs);
    data += data_bytes(c.steps[s]);
  }
  Layout l{};
  std::size_t at = 0;
  auto place = [&](std::size_t& field, std::size_t bytes) {
    field = at;
    at += aligned(bytes);
  };
  place(l.steps, c.step_count * sizeof(ElementStep));
  place(l.slots, slots * sizeof(unsigned));
  place(l.maps, c.read_count * sizeof(OperandMap));
  place(l.data, data);
  place(l.reads, c.read_count * sizeof(float*));
  place(l.writes, c.write_count * sizeof(float*));
  place(l.read_grads, c.read_count * sizeof(float*));
  place(l.write_grads, c.write_count * sizeof(float*));
  place(l.fresh_reads, c.read_count);
  place(l.fresh_writes, c.write_count);
  place(l.shared_grads, c.read_count);
  l.bytes = at;
  l.slot_count = slots;
  return l;
}

template <class T>
T* at(unsigned char* block, std::size_t offset) {
  return reinterpret_cast<T*>(block + offset);
}
template <class T>
T at(std::uintptr_t base, std::size_t offset) {
  return reinterpret_cast<T>(base + offset);
}

}  // namespace

std::size_t element_chain_bytes(const ChainProgram& chain) { return layout_of(chain).bytes; }

ElementChain pack_element_chain(const ChainProgram& c, const ChainRun& run, unsigned char* block, std::uintptr_t base) {
  const Layout l = layout_of(c);
  ElementStep* steps = at<ElementStep>(block, l.steps);
  std::size_t data = 0;
  for (unsigned s = 0; s < c.step_count; ++s) {
    const ChainStep& cs = c.steps[s];
    const unsigned code = rule_code(*cs.op);
    if (code == element::kRuleCount)
      throw std::logic_error(std::string("fused chain kernel: op '") + cs.op->name + "' has no element rule");
    steps[s] = ElementStep{code, cs.nargs, cs.first_arg, cs.write, unsigned(data), cs.op->elementwise.df != nullptr};
    const std::size_t bytes = kRuleDataBytes[code];
    if (bytes) std::memcpy(block + l.data + data, run.data ? run.data[s] : cs.data, bytes);
    data += aligned(bytes);
  }
  std::copy(c.slots, c.slots + l.slot_count, at<unsigned>(block, l.slots));
  std::copy(c.reads, c.reads + c.read_count, at<OperandMap>(block, l.maps));
  for (unsigned r = 0; r < c.read_count; ++r) {
    at<const float*>(block, l.reads)[r] = run.reads[r];
    at<float*>(block, l.read_grads)[r] = run.read_grads ? run.read_grads[r] : nullptr;
    const bool fresh = run.fresh_reads && run.fresh_reads[r];
    at<std::uint8_t>(block, l.fresh_reads)[r] = fresh;
    // Elements of a broadcast read add into one gradient element; so do those of two reads whose
    // gradient blocks overlap (one producer's outputs read twice). The engine hands over fresh
    // blocks only where neither holds.
    bool shared = !c.reads[r].in_place();
    const std::size_t n = std::size_t(run.instances) * c.size;
    for (unsigned q = 0; q < c.read_count && run.read_grads && !shared && !fresh; ++q) {
      const float *a = run.read_grads[r], *b = run.read_grads[q];
      shared = q != r && a && b && a < b + n && b < a + n;
    }
    at<std::uint8_t>(block, l.shared_grads)[r] = shared;
  }
  for (unsigned w = 0; w < c.write_count; ++w) {
    at<float*>(block, l.writes)[w] = run.writes[w];
    at<float*>(block, l.write_grads)[w] = run.write_grads ? run.write_grads[w] : nullptr;
    at<std::uint8_t>(block, l.fresh_writes)[w] = run.fresh_writes && run.fresh_writes[w];
  }
  ElementChain e;
  e.steps = at<const ElementStep*>(base, l.steps);
  e.step_count = c.step_count;
  e.slots = at<const unsigned*>(base, l.slots);
  e.maps = at<const OperandMap*>(base, l.maps);
  e.read_count = c.read_count;
  e.data = at<const unsigned char*>(base, l.data);
  e.reads = at<const float* const*>(base, l.reads);
  e.writes = at<float* const*>(base, l.writes);
  e.read_grads = at<float* const*>(base, l.read_grads);
  e.write_grads = at<float* const*>(base, l.write_grads);
  e.fresh_reads = at<const std::uint8_t*>(base, l.fresh_reads);
  e.fresh_writes = at<const std::uint8_t*>(base, l.fresh_writes);
  e.shared_grads = at<const std::uint8_t*>(base, l.shared_grads);
  e.total = std::size_t(run.instances) * c.size;
  return e;
}

}  // namespace gpu
}  // namespace dynet
