// Elementwise fusion on an LSTM cell's elementwise tail (the gates' four activations, c = i*g +
// f*c_prev, h = o*tanh(c): nine ops, five inputs, two kept outputs) for n instances of width h:
// the fused chain (autobatch/vertex) against the same rows' kernels run op by op over full-size
// intermediate blocks, as the batched engine runs them. The fused chain both keeps the values its
// backward reads and recomputes them. Forward and backward, interleaved repetitions, medians of
// this thread's CPU time (the build machine is shared: wall time would count other processes);
// each variant is validated against op by op first, and must not allocate.
//
//   fusion_bench [--reps R] [--cold]

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "autobatch/vertex/fusion.h"
#include "common/heap_counter.h"
#include "dynet_core/dybatch.h"
#include "dynet_core/ops/registry.h"

using namespace dynet;
using vertex::DagRef;

namespace {

vertex::OpDag lstm_tail(unsigned hidden) {
  vertex::OpDag dag;
  for (unsigned k = 0; k < 5; ++k) dag.inputs.push_back({Dim({hidden}), false});  // 4 gates, c_prev
  auto op = [&](const char* name, std::vector<DagRef> args, bool kept = false) {
    vertex::DagOp o;
    o.op = find_op(name);
    o.dim = Dim({hidden});
    o.args = std::move(args);
    o.read_outside = kept;
    dag.ops.push_back(o);
    return DagRef::op(unsigned(dag.ops.size() - 1));
  };
  const DagRef i = op("logistic", {DagRef::input(0)}), f = op("logistic", {DagRef::input(1)});
  const DagRef o = op("logistic", {DagRef::input(2)}), g = op("tanh", {DagRef::input(3)});
  const DagRef c = op("add", {op("cmult", {i, g}), op("cmult", {f, DagRef::input(4)})}, true);
  op("cmult", {o, op("tanh", {c})}, true);
  return dag;
}

/// The DAG run op by op: every op's kernel over whole blocks, as one autobatched group each.
class OpByOp {
 public:
  OpByOp(const vertex::OpDag& dag, unsigned instances) : dag_(dag), n_(instances) {
    for (const auto& o : dag.ops) {
      values_.emplace_back(o.dim.size() * n_);
      grads_.emplace_back(o.dim.size() * n_);
    }
  }

  void forward(const std::vector<float*>& inputs) {
    for (unsigned k = 0; k < dag_.ops.size(); ++k) {
      Tensor xs[kMaxChainArgs];
      OpCall c = call(k, inputs, xs);
      dag_.ops[k].op->forward(c);
    }
  }

  /// Gradients into input_grads (added), from the kept outputs' gradients in grads_.
  void backward(const std::vector<float*>& inputs, const std::vector<float*>& input_grads) {
    std::vector<bool> written(dag_.ops.size(), false);
    for (unsigned k = 0; k < dag_.ops.size(); ++k) written[k] = dag_.ops[k].read_outside;
    for (unsigned k = unsigned(dag_.ops.size()); k-- > 0;) {
      const auto& o = dag_.ops[k];
      for (unsigned a = 0; a < o.args.size(); ++a) {
        Tensor xs[kMaxChainArgs];
        OpCall c = call(k, inputs, xs);
        const DagRef r = o.args[a];
        c.dx = r.kind == DagRef::kOp ? tensor(grads_[r.index], r) : Tensor(shape(r), input_grads[r.index], nullptr);
        // As the engine does for rows that allow it: the first gradient into a block overwrites.
        c.overwrite = r.kind == DagRef::kOp && !written[r.index];
        if (r.kind == DagRef::kOp) written[r.index] = true;
        o.op->backward(c, a);
      }
    }
  }

  std::vector<float>& value(unsigned op) { return values_[op]; }
  std::vector<float>& grad(unsigned op) { return grads_[op]; }

 private:
  Dim shape(DagRef r) const { return dag_.dim_of(r).with_batch(n_); }
  Tensor tensor(std::vector<float>& v, DagRef r) const { return Tensor(shape(r), v.data(), nullptr); }

  OpCall call(unsigned k, const std::vector<float*>& inputs, Tensor* xs) {
    const auto& o = dag_.ops[k];
    for (unsigned a = 0; a < o.args.size(); ++a) {
      const DagRef r = o.args[a];
      xs[a] = r.kind == DagRef::kOp ? tensor(values_[r.index], r) : Tensor(shape(r), inputs[r.index], nullptr);
    }
    OpCall c;
    c.xs = xs;
    c.nargs = unsigned(o.args.size());
    c.y = tensor(values_[k], DagRef::op(k));
    c.dy = tensor(grads_[k], DagRef::op(k));
    c.data = &no_data_;
    return c;
  }

  const vertex::OpDag& dag_;
  unsigned n_;
  std::vector<std::vector<float>> values_, grads_;
  const void* no_data_ = nullptr;
};

/// The DAG's one chain with its blocks: kept outputs, their gradients, the inputs' gradients.
class Fused {
 public:
  Fused(const vertex::OpDag& dag, unsigned instances, vertex::FusedChain::Values mode,
        std::vector<std::vector<float>>& inputs)
      : plan_(vertex::plan_fusion(dag, mode)), n_(instances) {
    if (plan_.chains.size() != 1 || plan_.chains[0].ops().size() != dag.ops.size()) {
      std::fprintf(stderr, "the LSTM tail did not fuse into one chain\n");
      std::exit(1);
    }
    const vertex::FusedChain& c = chain();
    const std::size_t size = dag.ops[0].dim.size() * n_;
    input_grads_.assign(inputs.size(), std::vector<float>(size, 0.f));
    for (const DagRef& r : c.reads()) {
      reads_.push_back(inputs[r.index].data());
      read_grads_.push_back(input_grads_[r.index].data());
    }
    kept_.assign(c.writes().size(), std::vector<float>(size));
    kept_grads_.assign(c.writes().size(), std::vector<float>(size));
    for (unsigned w = 0; w < c.writes().size(); ++w) {
      writes_.push_back(kept_[w].data());
      write_values_.push_back(kept_[w].data());
      write_grads_.push_back(kept_grads_[w].data());
    }
    scratch_.resize(c.scratch_floats());
  }

  void forward() { chain().run_forward(n_, reads_.data(), writes_.data(), scratch_.data()); }
  /// From the gradients of c and h; the values kept only for backward get none from outside the
  /// chain, so they have no gradient block (their gradients stay in tiles).
  void backward(const std::vector<float>& seed_c, const std::vector<float>& seed_h) {
    for (unsigned w = 0; w < writes_.size(); ++w) {
      const unsigned op = chain().writes()[w];
      write_grads_[w] = op == 6 || op == 8 ? kept_grads_[w].data() : nullptr;
      if (write_grads_[w])
        std::memcpy(write_grads_[w], (op == 6 ? seed_c : seed_h).data(), seed_c.size() * sizeof(float));
    }
    chain().run_backward(n_, reads_.data(), read_grads_.data(), write_values_.data(), write_grads_.data(),
                         scratch_.data());
  }
  double max_difference(unsigned op, const std::vector<float>& expected) const {
    const auto& w = chain().writes();
    const std::vector<float>& v = kept_[std::find(w.begin(), w.end(), op) - w.begin()];
    double d = 0;
    for (std::size_t e = 0; e < v.size(); ++e) d = std::max(d, double(std::fabs(v[e] - expected[e])));
    return d;
  }
  const std::vector<float>& input_grad(unsigned k) const { return input_grads_[k]; }

 private:
  const vertex::FusedChain& chain() const { return plan_.chains[0]; }

  vertex::FusionPlan plan_;
  unsigned n_;
  std::vector<std::vector<float>> input_grads_, kept_, kept_grads_;
  std::vector<const float*> reads_, write_values_;
  std::vector<float*> read_grads_, writes_, write_grads_;
  std::vector<float> scratch_;
};

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

template <class F>
double seconds(F&& f, unsigned iterations) {
  const double t0 = thread_seconds();
  for (unsigned k = 0; k < iterations; ++k) f();
  return (thread_seconds() - t0) / iterations;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One copy of everything a timing touches: inputs, the seeds of c's and h's gradients, and the
/// op-by-op and both fused runs with their blocks.
struct Workload {
  static constexpr unsigned kC = 6, kH = 8;  // c and h, as lstm_tail appends them

  Workload(const vertex::OpDag& dag, unsigned n, std::mt19937& rng)
      : size(dag.ops[0].dim.size() * n),
        in(5, std::vector<float>(size)),
        seed_c(size),
        seed_h(size),
        unfused(dag, n),
        unfused_in_grad(5, std::vector<float>(size, 0.f)),
        kept(dag, n, vertex::FusedChain::Values::kKept, in),
        recomputed(dag, n, vertex::FusedChain::Values::kRecomputed, in) {
    std::uniform_real_distribution<float> unit(-2.f, 2.f);
    for (auto* v : {&in[0], &in[1], &in[2], &in[3], &in[4], &seed_c, &seed_h})
      for (float& x : *v) x = unit(rng);
    for (unsigned k = 0; k < 5; ++k) {
      inputs.push_back(in[k].data());
      input_grads.push_back(unfused_in_grad[k].data());
    }
  }

  void unfused_forward() { unfused.forward(inputs); }
  void unfused_backward() {
    std::memcpy(unfused.grad(kC).data(), seed_c.data(), size * sizeof(float));
    std::memcpy(unfused.grad(kH).data(), seed_h.data(), size * sizeof(float));
    unfused.backward(inputs, input_grads);
  }

  /// Whether both fused runs agree with op by op (after one run of each, from zero gradients),
  /// and run without touching the heap.
  bool validate() {
    unfused_forward();
    unfused_backward();
    for (Fused* f : {&kept, &recomputed}) {
      bench::start_heap_count();
      f->forward();
      f->backward(seed_c, seed_h);
      const bench::HeapCount heap = bench::stop_heap_count();
      if (heap.calls != 0) {
        std::fprintf(stderr, "a fused run allocated on the heap %zu times\n", heap.calls);
        return false;
      }
      const double diff = std::max(f->max_difference(kC, unfused.value(kC)), f->max_difference(kH, unfused.value(kH)));
      double grad_diff = 0;
      for (unsigned k = 0; k < 5; ++k)
        for (std::size_t e = 0; e < size; ++e)
          grad_diff = std::max(grad_diff, double(std::fabs(f->input_grad(k)[e] - unfused_in_grad[k][e])));
      if (diff > 1e-5 || grad_diff > 1e-4) {
        std::fprintf(stderr, "fused and op by op differ by %g (values), %g (gradients)\n", diff, grad_diff);
        return false;
      }
    }
    return true;
  }

  std::size_t size;
  std::vector<std::vector<float>> in;
  std::vector<float> seed_c, seed_h;
  OpByOp unfused;
  std::vector<std::vector<float>> unfused_in_grad;
  std::vector<float*> inputs, input_grads;
  Fused kept, recomputed;
};

}  // namespace

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  unsigned reps = 15;
  bool cold = false;
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) == "--reps" && k + 1 < argc) reps = unsigned(std::atoi(argv[k + 1]));
    if (std::string(argv[k]) == "--cold") cold = true;
  }
  // --cold: successive calls cycle through copies of every block, 64 MiB in all (twice the L3 of
  // the machine this was written on), so each call finds its memory out of cache, as an engine
  // that writes every op's output to fresh pool memory does; otherwise each call reuses its blocks.
  std::printf("%s memory\n\n", cold ? "cold" : "warm");
  std::printf(
      "| h | instances | floats per op | fwd op by op (us) | fwd fused kept | fwd fused recomp. "
      "| bwd op by op (us) | bwd fused kept | bwd fused recomp. | fwd+bwd speedup kept | fwd+bwd speedup recomp. |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::mt19937 rng(1);
  for (unsigned hidden : {128u, 256u, 512u})
    for (unsigned n : {1u, 4u, 16u, 64u, 256u}) {
      const vertex::OpDag dag = lstm_tail(hidden);
      const std::size_t bytes = std::size_t(hidden) * n * sizeof(float) * 40;  // about 40 blocks per copy
      const std::size_t copies = cold ? std::max<std::size_t>(1, (std::size_t(64) << 20) / bytes) : 1;
      std::vector<std::unique_ptr<Workload>> w;
      for (std::size_t k = 0; k < copies; ++k) {
        w.push_back(std::make_unique<Workload>(dag, n, rng));
        if (k == 0 && !w[0]->validate()) return 1;
      }
      std::size_t next = 0;
      auto rotating = [&](auto&& f) { return [&, f] { f(*w[next++ % copies]); }; };
      auto unfused_forward = rotating([](Workload& x) { x.unfused_forward(); });
      auto unfused_backward = rotating([](Workload& x) { x.unfused_backward(); });
      auto kept_forward = rotating([](Workload& x) { x.kept.forward(); });
      auto kept_backward = rotating([](Workload& x) { x.kept.backward(x.seed_c, x.seed_h); });
      auto recomputed_forward = rotating([](Workload& x) { x.recomputed.forward(); });
      auto recomputed_backward = rotating([](Workload& x) { x.recomputed.backward(x.seed_c, x.seed_h); });

      // About 2 ms per timing, so the clock's resolution and the loop are noise.
      const unsigned iterations = std::max(1u, unsigned(2e-3 / std::max(1e-8, seconds(unfused_backward, 3))));
      std::vector<double> t[6];
      for (unsigned r = 0; r < reps; ++r) {
        t[0].push_back(seconds(unfused_forward, iterations));
        t[1].push_back(seconds(kept_forward, iterations));
        t[2].push_back(seconds(recomputed_forward, iterations));
        t[3].push_back(seconds(unfused_backward, iterations));
        t[4].push_back(seconds(kept_backward, iterations));
        t[5].push_back(seconds(recomputed_backward, iterations));
      }
      double m[6];
      for (unsigned k = 0; k < 6; ++k) m[k] = median(t[k]) * 1e6;
      std::printf("| %u | %u | %zu | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n", hidden, n,
                  std::size_t(hidden) * n, m[0], m[1], m[2], m[3], m[4], m[5], (m[0] + m[3]) / (m[1] + m[4]),
                  (m[0] + m[3]) / (m[2] + m[5]));
      std::fflush(stdout);
    }
  return 0;
}
