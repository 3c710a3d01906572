#include "trainers/update_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "dynet_core/device/flush_denormals.h"
#include "dynet_core/device/thread_pool.h"
#include "trainers/deferred_rows.h"

namespace dynet {

namespace {

using update_rules::UpdateCall;

// The rule and the call are copied: stores through the value pointers could alias the caller's
// copies as far as the compiler knows, and it would then reload every setting per value and not
// vectorize the loop (Adam ran scalar, at ten times Eigen's instructions).
template <bool kScaled, bool kZeroGradient, class Rule>
void cpu_update_range(const Rule rule, const UpdateCall c, std::size_t first, std::size_t end) {
  for (std::size_t i = first; i < end; ++i) update_rules::apply_index<kScaled, kZeroGradient>(rule, c, i);
}

// Rows [first_row, end_row) of the call, those a gradient reached, before their step; and the
// rows [first, end) of values it did not reach, stepped with a zero gradient. Only Adam defers
// (below): any other rule runs every step as it comes.
template <class Rule>
void settle_reached_rows(const Rule&, const UpdateCall&, std::size_t, std::size_t) {}

template <bool kScaled, class Rule>
void cpu_zero_gradient_range(const Rule& rule, const UpdateCall& c, std::size_t first, std::size_t end) {
  cpu_update_range<kScaled, true>(rule, c, first, end);
}

// At a zero gradient, Adam leaves the bits of w and m as they are wherever m is +0 and v is not
// NaN: m stays +0, so the step rate * m / (sqrt(v) + epsilon) is +0, and only v decays, to the
// beta_2 * v (+ 0) of the full step. m reaches +0 a few hundred steps after a gradient last reached
// its row (it decays by beta_1 a step, below FLT_MIN, and is flushed), and starts there: in a
// table of embeddings, most rows a sentence does not reach. Such a row's step is counted
// (trainers/deferred_rows.h) and its decays of v run when the row is next reached or its state
// read; a row already counted stays so (m stays +0, a decayed v is no NaN). Through a weight-decay
// factor w would round on the way (w * factor / factor): every step runs there.
bool adam_row_keeps_value(const float* m, const float* v, std::size_t n) {
  std::uint32_t m_bits = 0, nan = 0;
  for (std::size_t j = 0; j < n; ++j) {
    std::uint32_t mb, vb;
    std::memcpy(&mb, m + j, sizeof mb);
    std::memcpy(&vb, v + j, sizeof vb);
    m_bits |= mb;
    nan |= (vb & 0x7fffffffu) > 0x7f800000u;
  }
  return (m_bits | nan) == 0;
}

bool all_zero(const float* v, std::size_t n) {
  std::uint32_t bits = 0;
  for (std::size_t j = 0; j < n; ++j) {
    std::uint32_t b;
    std::memcpy(&b, v + j, sizeof b);
    bits |= b;
  }
  return bits == 0;
}

/// v's part of `steps` zero-gradient steps of Adam, in order; a v of +0 stays so.
void decay_second_moments(float* v, std::size_t n, float beta_2, std::uint32_t steps) {
  for (std::uint32_t s = 0; s < steps; ++s) {
    if (s % 64 == 0 && all_zero(v, n)) return;
    for (std::size_t j = 0; j < n; ++j) v[j] = beta_2 * v[j];
  }
}

/// Runs the counted steps of rows [first_row, end_row), v's rows of `row_size` values, and clears
/// their counts.
void run_counted_steps(float* v, std::uint32_t* steps, std::size_t row_size, float beta_2, std::size_t first_row,
                       std::size_t end_row) {
  for (std::size_t r = first_row; r < end_row; ++r)
    if (steps[r]) {
      decay_second_moments(v + r * row_size, row_size, beta_2, steps[r]);
      steps[r] = 0;
    }
}

bool adam_may_defer(const update_rules::Adam& rule, const UpdateCall& c) {
  return c.reached && c.factor == 1.f && !rule.amsgrad && std::isfinite(rule.rate) && std::isfinite(rule.gscale);
}

template <>
void settle_reached_rows(const update_rules::Adam& rule, const UpdateCall& c, std::size_t first_row,
                         std::size_t end_row) {
  if (c.deferred_steps)
    run_counted_steps(c.state + c.stride, c.deferred_steps, c.row_size, rule.beta_2, first_row, end_row);
}

template <>
void cpu_zero_gradient_range<false, update_rules::Adam>(const update_rules::Adam& rule, const UpdateCall& c,
                                                        std::size_t first, std::size_t end) {
  if (!adam_may_defer(rule, c)) return cpu_update_range<false, true>(rule, c, first, end);
  const float* m = c.state;
  float* v = c.state + c.stride;
  std::size_t full = first;  // the start of the rows waiting for the full step
  for (std::size_t r = first; r < end; r += c.row_size) {
    const std::size_t row = r / c.row_size;
    std::uint32_t* steps = c.deferred_steps ? &c.deferred_steps[row] : nullptr;
    if (steps && *steps) {
      if (*steps == std::numeric_limits<std::uint32_t>::max())
        run_counted_steps(c.state + c.stride, c.deferred_steps, c.row_size, rule.beta_2, row, row + 1);
    } else if (!adam_row_keeps_value(m + r, v + r, c.row_size)) {
      continue;
    }
    cpu_update_range<false, true>(rule, c, full, r);
    full = r + c.row_size;
    if (steps)
      ++*steps;
    else
      decay_second_moments(v + r, c.row_size, rule.beta_2, 1);
  }
  cpu_update_range<false, true>(rule, c, full, end);
}

// Before a call splits over threads: runs every counted step of its table that the call cannot
// go on counting (it is sparse, or scaled, of another beta_2 or denormal mode, or asks for only
// that), and lets it count when it may.
template <class Rule>
void settle_or_defer(const Rule&, UpdateCall&) {}

template <>
void settle_or_defer(const update_rules::Adam& rule, UpdateCall& c) {
  DeferredRows& d = *c.deferred;
  const bool defers = !c.settle_only && adam_may_defer(rule, c);
  if (d.any && (!defers || d.decay != rule.beta_2 || d.flush_denormals != c.flush_denormals)) {
    const FlushDenormals flush(d.flush_denormals);
    run_counted_steps(c.state + c.stride, d.steps.data(), d.row_size, d.decay, 0, d.steps.size());
    d.any = false;
  }
  if (!defers) return;
  d.any = true;
  d.decay = rule.beta_2;
  d.flush_denormals = c.flush_denormals;
  c.deferred_steps = d.steps.data();
}

// A dense update of a lookup table, run by run of rows that a gradient reached or did not: the
// rows it did not reach step with a zero gradient that is not read (for Adam, 24 bytes a value
// moved instead of 28), or not at all when a zero gradient changes nothing. Over a table of
// embeddings that a sentence reaches a few rows of, that is nearly every row.
template <bool kScaled, class Rule>
void cpu_update_rows(const Rule& rule, const UpdateCall& c) {
  const std::size_t rows = c.n / c.row_size;
  for (std::size_t r = 0; r < rows;) {
    std::size_t next;
    if (c.reached[r]) {
      for (next = r + 1; next < rows && c.reached[next]; ++next) {
      }
      settle_reached_rows(rule, c, r, next);
      cpu_update_range<kScaled, false>(rule, c, r * c.row_size, next * c.row_size);
    } else {
      const void* found = std::memchr(c.reached + r, 1, rows - r);
      next = found ? std::size_t(static_cast<const std::uint8_t*>(found) - c.reached) : rows;
      if (kScaled || !Rule::kZeroGradientChangesNothing)
        cpu_zero_gradient_range<kScaled>(rule, c, r * c.row_size, next * c.row_size);
    }
    r = next;
  }
}

template <bool kScaled, class Rule>
void cpu_update_blocks(const Rule& caller_rule, const UpdateCall& caller_call) {
  const Rule rule = caller_rule;
  const UpdateCall c = caller_call;
  if (c.reached) return cpu_update_rows<kScaled>(rule, c);
  for (std::size_t k = 0; k < c.blocks; ++k) cpu_update_range<kScaled, false>(rule, c, c.at(k, 0), c.at(k, 0) + c.n);
}

// Below this many values an update runs on one thread: waking another costs about as much as it
// saves.
constexpr std::size_t kParallelValues = std::size_t(1) << 16;

/// [begin, end) of part p of n items split into `parts` nearly equal ranges.
std::size_t part_begin(std::size_t n, unsigned p, unsigned parts) { return n * p / parts; }

// Part p of `parts` of the call, a call of its own: a share of its blocks (the rows of a sparse
// update), of the rows of a dense update of a table, or of the values of a parameter (whole cache
// lines of them). Every value is stepped by the same rule either way.
UpdateCall part_of(const UpdateCall& c, unsigned p, unsigned parts) {
  UpdateCall part = c;
  if (c.rows) {
    const std::size_t first = part_begin(c.blocks, p, parts);
    part.rows = c.rows + first;
    part.blocks = part_begin(c.blocks, p + 1, parts) - first;
    return part;
  }
  const std::size_t unit = c.reached ? c.row_size : 16, units = (c.n + unit - 1) / unit;
  const std::size_t first = part_begin(units, p, parts) * unit;
  const std::size_t end = std::min(c.n, part_begin(units, p + 1, parts) * unit);
  part.values += first;
  part.grads += first;
  part.state += first;
  part.n = end - first;
  if (c.reached) part.reached += first / unit;
  if (c.deferred_steps) part.deferred_steps += first / unit;
  return part;
}

// Block by block, so that no index needs a division, and without the weight-decay factor's
// multiply and divide per value unless it differs from 1. A large update (a dense one over a
// table) is split over the device's threads (--dynet-threads), as large products are; each part
// sets the flush of denormals on the thread that runs it.
template <class Rule>
void cpu_update(Device& device, const Rule& rule, const UpdateCall& c) {
  device.run_host_kernel("trainer update", [&] {
    UpdateCall whole = c;
    if (whole.deferred) settle_or_defer(rule, whole);
    if (whole.settle_only) return;
    auto run = [&](const UpdateCall& call) {
      const FlushDenormals flush(call.flush_denormals);
      if (call.factor == 1.f)
        cpu_update_blocks<false>(rule, call);
      else
        cpu_update_blocks<true>(rule, call);
    };
    ThreadPool* pool = device.thread_pool();
    if (!pool || pool->threads() < 2 || whole.size() < kParallelValues || ThreadPool::in_task()) return run(whole);
    const unsigned parts = pool->threads();
    auto part = [&](unsigned p) { run(part_of(whole, p, parts)); };
    pool->run(part);
  });
}

// Each block is normalized in the log domain, shifted by its largest value so that exp cannot
// overflow.
void cpu_exponentiated_blocks(const update_rules::ExponentiatedGradient& rule, const UpdateCall& c) {
  for (std::size_t k = 0; k < c.blocks; ++k) {
    const std::size_t base = c.at(k, 0);
    float* w = c.values + base;
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t e = 0; e < c.n; ++e) {
      w[e] = rule(w[e] * c.factor, c.grads[base + e], c.state, base + e);
      top = std::max(top, w[e]);
    }
    double sum = 0;
    for (std::size_t e = 0; e < c.n; ++e) sum += std::exp(w[e] - top);
    const float log_z = top + static_cast<float>(std::log(sum));
    for (std::size_t e = 0; e < c.n; ++e) w[e] = std::exp(w[e] - log_z) / c.factor;
  }
}

void cpu_exponentiated(Device& device, const update_rules::ExponentiatedGradient& rule, const UpdateCall& c) {
  device.run_host_kernel("EG trainer update", [&] { cpu_exponentiated_blocks(rule, c); });
}

UpdateKernels cpu_kernels() {
  return UpdateKernels{cpu_update<update_rules::Sgd>,
                       cpu_update<update_rules::Momentum>,
                       cpu_update<update_rules::Adagrad>,
                       cpu_update<update_rules::Adadelta>,
                       cpu_update<update_rules::RMSProp>,
                       cpu_update<update_rules::Adam>,
                       cpu_exponentiated};
}

}  // namespace

UpdateKernels& update_kernels(DeviceType type) {
  static UpdateKernels cpu = cpu_kernels(), gpu{};
  return type == DeviceType::CPU ? cpu : gpu;
}

void check_update_kernels(DeviceType type, const char* backend) {
  unsigned missing = 0;
  std::apply([&](auto... kernel) { ((missing += kernel == nullptr), ...); }, update_kernels(type));
  if (missing)
    throw std::logic_error(std::string("device backend '") + backend + "' lacks " + std::to_string(missing) + " of " +
                           std::to_string(std::tuple_size<UpdateKernels>::value) + " trainer update kernels");
}

}  // namespace dynet
