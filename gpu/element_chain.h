#pragma once
// A fused chain (dynet_core/chain/chain_program.h) packed for one run as a kernel runs it: one thread per
// element of the iteration space, each step's value held in the thread's registers or local
// memory, so that only what the chain reads from outside, its writes and its gradients reach
// device memory. Forward and backward of one element are plain functions of the packed chain,
// compiled for the device by fused_chains.cu and for the host by the tests, which run a chain
// element by element against the ops run one by one.
// Values kept whole by forward are read back; the others are computed again by backward, with the
// same rule on the same device, so bit for bit what forward computed.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/chain/chain_program.h"
#include "dynet_core/ops/host_device.h"
#include "gpu/element_rules.h"

namespace dynet {
namespace gpu {

struct ElementStep {
  unsigned code;  ///< its rule in element::kRules
  unsigned nargs;
  unsigned first_arg;  ///< into slots, as ChainStep's
  int write;           ///< as ChainStep's
  unsigned data;       ///< byte offset of its op data in the chain's data block
  bool gradient;       ///< the row has a backward
};

/// Every pointer into one packed block (device memory for a kernel), but the run's tensors.
struct ElementChain {
  const ElementStep* steps;
  unsigned step_count;
  const unsigned* slots;
  const OperandMap* maps;  ///< per read
  unsigned read_count;
  const unsigned char* data;
  const float* const* reads;
  float* const* writes;
  float* const* read_grads;          ///< null entries: none wanted
  float* const* write_grads;         ///< null entries: none from outside
  const std::uint8_t* fresh_reads;   ///< per read: its gradient block holds nothing yet
  const std::uint8_t* fresh_writes;  ///< per write: likewise
  const std::uint8_t* shared_grads;  ///< per read: other elements add into its gradient too
  std::size_t total;                 ///< elements of the space
};

/// Bytes the packed block of `chain` needs.
std::size_t element_chain_bytes(const ChainProgram& chain);
/// Packs `chain` and `run` into `block` (element_chain_bytes long) as an ElementChain whose
/// pointers are right once the block's bytes are at `base`. Throws std::logic_error naming an op
/// of the chain without an element rule.
ElementChain pack_element_chain(const ChainProgram& chain, const ChainRun& run, unsigned char* block,
                                std::uintptr_t base);

/// Adds v into a gradient element that other elements of the space add into too.
DYBATCH_HD void add_shared(float* target, float v) {
#ifdef __CUDA_ARCH__
  atomicAdd(target, v);
#else
  *target += v;
#endif
}

/// Forward at element i: every step's value, the kept ones written out.
DYBATCH_HD void chain_forward_element(const ElementChain& c, std::size_t i) {
  float v[kMaxChainValues];
  float xs[kMaxChainArgs];
  const unsigned reads = c.read_count;
  for (unsigned r = 0; r < reads; ++r) v[r] = c.reads[r][c.maps[r].at(i)];
  for (unsigned s = 0; s < c.step_count; ++s) {
    const ElementStep& st = c.steps[s];
    for (unsigned a = 0; a < st.nargs; ++a) xs[a] = v[c.slots[st.first_arg + a]];
    const float y = element::value(st.code, c.data + st.data, xs, st.nargs);
    v[reads + s] = y;
    if (st.write >= 0) c.writes[st.write][i] = y;
  }
}

/// Backward at element i: the gradient of every step from the later ones, in reverse, as the rows'
/// own backward would pass it; what reaches a write or a read leaves the element.
DYBATCH_HD void chain_backward_element(const ElementChain& c, std::size_t i) {
  float v[kMaxChainValues];
  float g[kMaxChainValues];  // by slot: the reads', then the steps'
  bool has[kMaxChainValues];
  float xs[kMaxChainArgs];
  const unsigned reads = c.read_count;
  for (unsigned r = 0; r < reads; ++r) {
    v[r] = c.reads[r][c.maps[r].at(i)];
    has[r] = false;
  }
  for (unsigned s = 0; s < c.step_count; ++s) {
    const ElementStep& st = c.steps[s];
    const unsigned slot = reads + s;
    has[slot] = false;
    if (st.write >= 0) {
      v[slot] = c.writes[st.write][i];
      if (c.write_grads[st.write] && !c.fresh_writes[st.write]) {
        g[slot] = c.write_grads[st.write][i];
        has[slot] = true;
      }
      continue;
    }
    for (unsigned a = 0; a < st.nargs; ++a) xs[a] = v[c.slots[st.first_arg + a]];
    v[slot] = element::value(st.code, c.data + st.data, xs, st.nargs);
  }
  for (unsigned s = c.step_count; s-- > 0;) {
    const ElementStep& st = c.steps[s];
    const unsigned slot = reads + s;
    if (!has[slot] || !st.gradient) continue;
    for (unsigned a = 0; a < st.nargs; ++a) xs[a] = v[c.slots[st.first_arg + a]];
    for (unsigned a = 0; a < st.nargs; ++a) {
      const unsigned to = c.slots[st.first_arg + a];
      if (to < reads && !c.read_grads[to]) continue;
      const float d = g[slot] * element::derivative(st.code, c.data + st.data, a, xs, st.nargs, v[slot]);
      g[to] = has[to] ? g[to] + d : d;
      has[to] = true;
    }
  }
  for (unsigned s = 0; s < c.step_count; ++s) {
    const ElementStep& st = c.steps[s];
    if (st.write < 0 || !c.write_grads[st.write]) continue;
    if (has[reads + s] || c.fresh_writes[st.write]) c.write_grads[st.write][i] = has[reads + s] ? g[reads + s] : 0.f;
  }
  for (unsigned r = 0; r < reads; ++r) {
    float* grad = c.read_grads[r];
    if (!grad) continue;
    if (c.shared_grads[r]) {
      if (has[r]) add_shared(grad + c.maps[r].at(i), g[r]);
    } else if (c.fresh_reads[r]) {
      grad[i] = has[r] ? g[r] : 0.f;
    } else if (has[r]) {
      grad[i] += g[r];
    }
  }
}

}  // namespace gpu
}  // namespace dynet
