#include "autobatch/random_graph.h"

#include <algorithm>
#include <string>

#include "dynet_core/vertex_scope.h"

#include "support/device_values.h"

namespace dynet_test {

using namespace dynet;

RandomModel::RandomModel(unsigned h, unsigned v, unsigned c, Device* device) : hidden(h), vocab(v), classes(c) {
  W = pc.add_parameters({h, h}, 0.f, "W", device);
  U = pc.add_parameters({h, h}, 0.f, "U", device);
  V = pc.add_parameters({h, h}, 0.f, "V", device);
  b = pc.add_parameters({h}, ParameterInitUniform(-0.5f, 0.5f), "b", device);
  out = pc.add_parameters({c, h}, 0.f, "out", device);
  out_b = pc.add_parameters({c}, ParameterInitUniform(-0.5f, 0.5f), "out_b", device);
  wide = pc.add_parameters({2 * h, 2 * h}, 0.f, "wide", device);
  emb = pc.add_lookup_parameters(v, {h}, ParameterInitUniform(-1.f, 1.f), "emb", device);
  weights = pc.add_lookup_parameters(3, {h, h}, ParameterInitUniform(-0.5f, 0.5f), "weights", device);
}

void RandomModel::zero_gradients() { pc.reset_gradient(); }

std::vector<float> RandomModel::gradients() const {
  std::vector<float> g;
  for (const auto& p : pc.parameters_list()) append_values(g, p->g);
  for (const auto& p : pc.lookup_parameters_list()) append_values(g, p->all_grads);
  return g;
}

namespace {

class Builder {
 public:
  Builder(ComputationGraph& cg, RandomModel& m, std::uint64_t seed, const RandomGraphOptions& o)
      : cg_(cg), m_(m), rng_(seed), o_(o) {
    if (!o_.parameter_per_use)
      for (const Parameter* p : {&m.W, &m.U, &m.V, &m.b, &m.out, &m.out_b, &m.wide}) once_.push_back(parameter(cg, *p));
    std::vector<float> mask(m.hidden * m.hidden);
    for (std::size_t k = 0; k < mask.size(); ++k) mask[k] = float(k % 2);
    masked_W_ = cmult(W(), input(cg, Dim({m.hidden, m.hidden}), mask));
  }

  RandomGraph build() {
    RandomGraph g;
    std::vector<Expression> losses;
    const unsigned structures = pick(1, 5);
    for (unsigned s = 0; s < structures; ++s) {
      const unsigned bd = pick(1, 4);
      std::vector<Expression> states = structure(bd);
      for (const Expression& h : states)
        if (pick(0, 2) > 0) losses.push_back(sum_batches(vertex_loss(h, bd)));
      if (o_.read_mid_graph && pick(0, 2) == 0) {
        const std::vector<float> v = as_vector(cg_.incremental_forward(states[pick(0, states.size() - 1)]));
        g.mid_values.insert(g.mid_values.end(), v.begin(), v.end());
        if (pick(0, 1)) as_vector(cg_.incremental_forward(states.back()));  // a value asked for again
      }
    }
    if (losses.empty()) losses.push_back(sum_batches(squared_norm(leaf(1))));
    g.loss = sum(losses);
    return g;
  }

 private:
  unsigned pick(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng_); }
  float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }

  Expression param(unsigned which) {
    static const Parameter RandomModel::*const kParams[] = {&RandomModel::W,   &RandomModel::U,   &RandomModel::V,
                                                            &RandomModel::b,   &RandomModel::out, &RandomModel::out_b,
                                                            &RandomModel::wide};
    if (!o_.parameter_per_use) return once_[which];
    return parameter(cg_, m_.*kParams[which]);
  }
  Expression W() { return param(0); }
  Expression U() { return param(1); }
  Expression b() { return param(3); }

  Expression leaf(unsigned bd) {
    if (pick(0, 2) > 0) {
      std::vector<unsigned> idx(bd);
      for (unsigned& i : idx) i = pick(0, m_.vocab - 1);
      if (pick(0, 5) == 0) return const_lookup(cg_, m_.emb, idx);
      return bd == 1 && pick(0, 1) ? lookup(cg_, m_.emb, idx[0]) : lookup(cg_, m_.emb, idx);
    }
    std::vector<float> v(m_.hidden * bd);
    for (float& x : v) x = real(-1, 1);
    return input(cg_, Dim({m_.hidden}, bd), v);
  }

  static constexpr unsigned kAnyCell = 17;

  /// A vertex's state from its input and its children's states (all of dim {hidden} x bd): cell
  /// `kind`, or a random one.
  Expression cell(const Expression& x, const std::vector<Expression>& children, unsigned kind) {
    if (kind == kAnyCell) kind = pick(0, kAnyCell - 1);
    if (!o_.vertex_scopes) return cell_of_kind(x, children, kind);
    const VertexScope scope(cg_, "random-cell-" + std::to_string(kind));
    return cell_of_kind(x, children, kind);
  }

  Expression cell_of_kind(const Expression& x, const std::vector<Expression>& children, unsigned kind) {
    const Expression c0 = children.empty() ? x : children[0];
    const Expression c1 = children.size() > 1 ? children[1] : x;
    switch (kind) {
      case 0:
        return tanh(affine_transform({b(), W(), x, U(), c0}));
      case 1:
        return cmult(logistic(W() * c0 + b()), tanh(U() * c1));
      case 2: {
        Expression both = concatenate({c0, c1});
        Expression mixed = rectify(param(6) * both);
        return cmult(pick_range(mixed, 0, m_.hidden), pick_range(mixed, m_.hidden, 2 * m_.hidden)) + c0;
      }
      case 3:
        return dropout(average({x, c0, c1}), 0.3f);
      case 4:
        return cmult(softmax(W() * c0), c1) * 2.f;
      case 5:
        return tanh(const_parameter(cg_, m_.V) * c0 + x);
      case 6:
        return elu(U() * nobackprop(c0) + c1);
      case 7:
        return softsign(sum({max(c0, c1), min(x, c1), x}));
      case 8:
        return cdiv(c0, exp(c1) + 1.f) - square(x) * 0.5f;
      case 9:
        return logistic(transpose(transpose(W() * x)) + noise(c0, 0.1f));
      case 10:
        return pick_range(selu(reshape(concatenate_cols({c0, c1}), Dim({2 * m_.hidden}))), 0, m_.hidden) +
               pick_range(concatenate({x, c1}), m_.hidden, 2 * m_.hidden);
      case 11:
        return tanh(sum({W() * c0, U() * c1, V_or_const() * x, b()}));
      case 12:
        return tanh(affine_transform({b(), masked_W_, x, U(), c0}));
      case 13:  // a weight that is a row of a lookup table, whose gradient its own backward scatters
        return tanh(affine_transform({b(), parameter(cg_, m_.weights, pick(0, 2)), x, U(), c0}));
      case 14:  // one weight, or one input, in both products
        return pick(0, 1) ? tanh(affine_transform({b(), W(), x, W(), c0}))
                          : tanh(affine_transform({b(), W(), x, U(), x}));
      case 15: {  // through the batch dimension: two states as one batch, the second half picked
                  // back; or a sum over the batch, broadcast back over it
        if (pick(0, 1)) return tanh(c0 + sum_batches(c1) * 0.25f);
        const unsigned bd = c0.dim().bd;
        std::vector<unsigned> second(bd);
        for (unsigned k = 0; k < bd; ++k) second[k] = bd + k;
        return pick_batch_elems(concatenate_to_batch({c0, tanh(c1 + x)}), second);
      }
      default:  // one node twice in one op's arguments
        return tanh(cmult(c0, c0) - pick_range(concatenate({x, c1, x}), m_.hidden, 2 * m_.hidden) + (c1 + c1) * 0.25f);
    }
  }
  Expression V_or_const() { return pick(0, 1) ? param(2) : const_parameter(cg_, m_.V); }

  Expression vertex_loss(const Expression& h, unsigned bd) {
    Expression scores = affine_transform({param(5), param(4), h});
    std::vector<unsigned> labels(bd);
    for (unsigned& l : labels) l = pick(0, m_.classes - 1);
    switch (pick(0, 4)) {
      case 0:
        return pickneglogsoftmax(scores, labels);
      case 1:
        return bd == 1 ? pickneglogsoftmax(scores, labels[0]) : hinge(scores, labels, 0.5f);
      case 2:
        return squared_distance(h, leaf(bd));
      case 3:
        return sum_elems(cmult(log_softmax(scores), scores));
      default:
        return dot_product(h, tanh(W() * h)) + logsumexp({sum_elems(h), sum_elems(scores)});
    }
  }

  std::vector<Expression> structure(unsigned bd) {
    std::vector<Expression> states;
    const unsigned kind = pick(0, 2), size = pick(1, 8);
    const unsigned cell_kind = o_.repeated_cells ? pick(0, kAnyCell - 1) : kAnyCell;
    for (unsigned v = 0; v < size; ++v) {
      std::vector<Expression> children;
      if (kind == 0 && v > 0) {
        children.push_back(states[v - 1]);  // chain
      } else if (kind == 1 && v > 0) {
        children.push_back(states[v - 1]);  // tree-like: the previous vertex and an older one
        if (v > 1 && pick(0, 1)) children.push_back(states[pick(0, v - 2)]);
      } else if (kind == 2 && v > 0) {
        for (unsigned c = pick(1, 2); c-- > 0;) children.push_back(states[pick(0, v - 1)]);  // DAG
      }
      states.push_back(cell(leaf(bd), children, cell_kind));
    }
    return states;
  }

  ComputationGraph& cg_;
  RandomModel& m_;
  std::mt19937_64 rng_;
  RandomGraphOptions o_;
  std::vector<Expression> once_;
  // W with every other weight held at zero, made before any structure: a weight computed from a
  // parameter, as a pruned or scaled one is, whose gradient reaches W through the node computing it.
  Expression masked_W_;
};

}  // namespace

RandomGraph build_random_graph(ComputationGraph& cg, RandomModel& m, std::uint64_t seed,
                               const RandomGraphOptions& options) {
  return Builder(cg, m, seed, options).build();
}

}  // namespace dynet_test
