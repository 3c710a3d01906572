// An attention encoder-decoder written one example at a time, as a newcomer writes it (the model
// of examples/attention), under every --dynet-vertex mode: each op of the decoder's steps must run
// once per step over the examples alive at that step, and the graph's values and gradients must
// equal the sequential engine's. The decoder's ops are told apart by their shapes, which the sizes
// below make unique to them.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "builders/vanilla_lstm_builder.h"
#include "dybatch.h"
#include "dynet_core/profiler.h"
#include "dynet_core/random_engine.h"

using namespace dynet;

namespace {

constexpr unsigned kExamples = 32, kVocabulary = 12;
// Sizes no other op shares: the decoder's state, its gates, the attention layer, the source
// states' rows (two directions of kEncoder), and the two concatenations the decoder reads.
constexpr unsigned kEmbedding = 3, kEncoder = 5, kDecoder = 6, kAttention = 7;

struct Model {
  explicit Model(ParameterCollection& pc)
      : embeddings(pc.add_lookup_parameters(kVocabulary, {kEmbedding})),
        left_to_right(1, kEmbedding, kEncoder, pc),
        right_to_left(1, kEmbedding, kEncoder, pc),
        decoder(1, kEmbedding + 2 * kEncoder, kDecoder, pc),
        w1(pc.add_parameters({kAttention, 2 * kEncoder})),
        w2(pc.add_parameters({kAttention, kDecoder})),
        v(pc.add_parameters({1, kAttention})),
        out_w(pc.add_parameters({kVocabulary, kDecoder + 2 * kEncoder})),
        out_b(pc.add_parameters({kVocabulary})) {}

  LookupParameter embeddings;
  VanillaLSTMBuilder left_to_right, right_to_left, decoder;
  Parameter w1, w2, v, out_w, out_b;
};

/// The summed loss of reversing each source, every example written whole before the next.
Expression attention_loss(ComputationGraph& cg, Model& m, const std::vector<std::vector<unsigned>>& sources) {
  m.left_to_right.new_graph(cg);
  m.right_to_left.new_graph(cg);
  m.decoder.new_graph(cg);
  m.decoder.start_new_sequence();
  const Expression w1 = parameter(cg, m.w1), w2 = parameter(cg, m.w2), v = parameter(cg, m.v);
  const Expression out_w = parameter(cg, m.out_w), out_b = parameter(cg, m.out_b);
  std::vector<Expression> losses;
  for (const std::vector<unsigned>& source : sources) {
    std::vector<Expression> x, forward, backward(source.size()), columns;
    for (unsigned t : source) x.push_back(lookup(cg, m.embeddings, t));
    m.left_to_right.start_new_sequence();
    for (const Expression& e : x) forward.push_back(m.left_to_right.add_input(e));
    m.right_to_left.start_new_sequence();
    for (std::size_t i = x.size(); i-- > 0;) backward[i] = m.right_to_left.add_input(x[i]);
    for (std::size_t i = 0; i < x.size(); ++i) columns.push_back(concatenate({forward[i], backward[i]}));
    const Expression states = concatenate_cols(columns), scored = w1 * states;
    Expression context = zeros(cg, {2 * kEncoder});
    RNNPointer at = -1;
    unsigned previous = 10;
    for (std::size_t t = 0; t <= source.size(); ++t) {
      const unsigned target = t < source.size() ? source[source.size() - 1 - t] : 11;
      const Expression h = m.decoder.add_input(at, concatenate({lookup(cg, m.embeddings, previous), context}));
      at = m.decoder.state();
      const Expression weights = softmax(transpose(v * tanh(colwise_add(scored, w2 * h))));
      context = states * weights;
      losses.push_back(pickneglogsoftmax(affine_transform({out_b, out_w, concatenate({h, context})}), target));
      previous = target;
    }
  }
  return sum(losses);
}

std::vector<std::vector<unsigned>> random_sources(unsigned min_length, unsigned max_length) {
  std::mt19937 rng(min_length * 31 + max_length);
  std::uniform_int_distribution<unsigned> length(min_length, max_length), digit(0, 9);
  std::vector<std::vector<unsigned>> sources(kExamples);
  for (std::vector<unsigned>& s : sources) {
    s.resize(length(rng));
    for (unsigned& d : s) d = digit(rng);
  }
  return sources;
}

/// The context product H * weights.
bool context_row(const std::string& name) { return name.rfind("matmul {10}", 0) == 0; }

struct Result {
  float loss = 0;
  std::vector<std::vector<float>> gradients;  ///< of every parameter and lookup parameter
  std::vector<profile::KernelStats> kernels;  ///< forward calls per signature
};

/// Profiling on for one run (its kernel rows tell the batches), off again afterwards.
struct ProfilingOn {
  ProfilingOn() { set(2); }
  ~ProfilingOn() { set(0); }
  static void set(int level) {
    DynetParams p = current_params();
    p.profiling = level;
    initialize(p);
    profile::reset();
  }
};

Result run(int autobatch, int vertex, const std::vector<std::vector<unsigned>>& sources) {
  ParameterCollection pc;
  random_engine().seed(11);
  Model m(pc);
  Result r;
  ProfilingOn profiling;
  {
    ComputationGraph cg;
    cg.set_autobatch(autobatch);
    cg.set_vertex(vertex);
    const Expression loss = attention_loss(cg, m, sources);
    r.loss = as_scalar(cg.forward(loss));
    cg.backward(loss);
  }
  for (const auto& p : pc.parameters_list()) r.gradients.push_back(as_vector(p->g));
  for (const auto& p : pc.lookup_parameters_list()) r.gradients.push_back(as_vector(p->all_grads));
  r.kernels = profile::snapshot().kernels;
  return r;
}

/// Whether a kernel row is one of the decoder's steps: its op runs once per step and example on
/// a shape no other op has (the encoder's concatenated columns are {10} too, but no product).
bool decoder_row(const std::string& name) {
  for (const char* shape : {" {6}", " {24}", " {7}", " {13}", " {16}", " {12}"})
    if (name.find(shape) != std::string::npos) return true;
  return context_row(name);
}

/// The decoder's rows: each op of a step in at least `least_mean_batch` nodes a call on average;
/// the context product, whose signature holds the source length (H's columns, which examples of
/// different lengths cannot share), once per step for each of the sources' `lengths`.
void check_batches(const Result& r, double least_mean_batch, unsigned steps, unsigned lengths) {
  unsigned rows = 0;
  std::uint64_t context_calls = 0;
  for (const profile::KernelStats& k : r.kernels) {
    if (k.calls == 0 || !decoder_row(k.name)) continue;  // no calls: views, which copy nothing
    ++rows;
    INFO(k.name << ": " << k.nodes << " nodes in " << k.calls << " calls");
    if (context_row(k.name))
      context_calls += k.calls;
    else
      CHECK(double(k.nodes) / double(k.calls) >= least_mean_batch);
  }
  CHECK(context_calls <= steps * lengths);
  // The products never fuse into a chain: the gates, W2 h, the context and the output at least.
  CHECK(rows >= 4);
}

void check_agreement(const Result& sequential, const Result& batched) {
  CHECK(batched.loss == Approx(sequential.loss).epsilon(1e-5));
  REQUIRE(batched.gradients.size() == sequential.gradients.size());
  for (std::size_t p = 0; p < sequential.gradients.size(); ++p)
    for (std::size_t e = 0; e < sequential.gradients[p].size(); ++e)
      CHECK(batched.gradients[p][e] == Approx(sequential.gradients[p][e]).margin(1e-5).epsilon(1e-4));
}

}  // namespace

TEST_CASE("an attention decoder's steps run once per step over every example", "[autobatch][attention]") {
  const int vertex = GENERATE(0, 1, 2);
  SECTION("all of one length, under both policies") {
    const int autobatch = GENERATE(1, 2);
    INFO("--dynet-autobatch " << autobatch << " --dynet-vertex " << vertex);
    const std::vector<std::vector<unsigned>> sources = random_sources(8, 8);
    const Result batched = run(autobatch, vertex, sources);
    check_batches(batched, 24, 9, 1);
    check_agreement(run(0, 0, sources), batched);
  }
  SECTION("lengths 3 to 8 under the agenda: the examples alive at each step") {
    // The depth policy groups by depth, which the encoders' lengths shift: it cannot line up
    // decoders of sources of different lengths.
    INFO("--dynet-autobatch 1 --dynet-vertex " << vertex);
    const std::vector<std::vector<unsigned>> sources = random_sources(3, 8);
    const Result batched = run(1, vertex, sources);
    check_batches(batched, 12, 9, 6);
    check_agreement(run(0, 0, sources), batched);
  }
}
