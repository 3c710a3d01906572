#include "dynet_core/ops/shape.h"

#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/registry.h"

namespace dynet {

namespace {

Dim infer_reshape(const DimArgs& xs, const void* data) {
  const Dim& to = *static_cast<const Dim*>(data);
  const Dim& x = xs[0];
  if (to.size() == x.size()) return to;
  if (to.bd == 1 && to.batch_size() == x.batch_size()) return to.with_batch(x.bd);
  dims::fail("the new shape " + to_string(to) + " holds " + std::to_string(to.size()) + " values; it must hold " +
             std::to_string(x.size()) + ", or " + std::to_string(x.batch_size()) + " per batch element");
}
void copy_forward(const OpCall& c) { std::memcpy(c.y.v, c.xs[0].v, c.y.d.size() * sizeof(float)); }
void add_backward(const OpCall& c, unsigned) { accumulate(c.dx.v, c.dy.v, c.y.d.size()); }
OpDef ReshapeOp = OpRow("reshape")
                      .arity(1)
                      .infer(infer_reshape)
                      .forward(copy_forward)
                      .backward(add_backward)
                      .saves(kSavesNothing)
                      .batch(ConcatBatch())
                      .check([](CheckCase& c) {
                        const unsigned r = c.uniform(1, 3), k = c.uniform(1, 3), bd = c.batch();
                        const Expression x = c.input(Dim({r * k}, bd));
                        return c.uniform(0, 1) ? reshape(x, Dim({k, r})) : reshape(x, Dim({r, k}, bd));
                      });

Dim infer_concatenate(const DimArgs& xs, const void* data) {
  const unsigned d = *static_cast<const unsigned*>(data);
  dims::require_dim_index(d);
  Dim y = xs[0];
  std::uint64_t total = 0;
  for (unsigned k = 0; k < xs.size(); ++k) {
    for (unsigned j = 0; j < Dim::kMaxDims; ++j)
      if (j != d && xs[k][j] != xs[0][j])
        dims::fail("argument " + std::to_string(k) + " differs from argument 0 in dimension " + std::to_string(j) +
                   " (only dimension " + std::to_string(d) + " may differ)");
    total += xs[k][d];
  }
  dims::require_size(total, "the concatenated dimension");
  y.set(d, static_cast<unsigned>(total));
  y.bd = dims::batch(xs);
  return y;
}

void concatenate_forward(const OpCall& c) {
  for_each_concat_block(c, [&](unsigned k, unsigned iy, std::size_t ix, unsigned n) {
    std::memcpy(c.y.v + iy, c.xs[k].v + ix, n * sizeof(float));
  });
}
void concatenate_backward(const OpCall& c, unsigned i) {
  // A broadcast argument sums the gradients of every batch element.
  const bool overwrite = c.overwrite && c.dx.d.bd == c.y.d.bd;
  if (c.overwrite && !overwrite) std::memset(c.dx.v, 0, c.dx.d.size() * sizeof(float));
  for_each_concat_block(c, [&](unsigned k, unsigned iy, std::size_t ix, unsigned n) {
    if (k == i) accumulate(c.dx.v + ix, c.dy.v + iy, n, overwrite);
  });
}
OpDef ConcatenateOp = OpRow("concatenate")
                          .arity(-1)
                          .infer(infer_concatenate)
                          .forward(concatenate_forward)
                          .backward(concatenate_backward)
                          .saves(kSavesNothing)
                          .batch(ConcatBatch().sig_bytes(sizeof(unsigned)).broadcasts_all())
                          .check([](CheckCase& c) {
                            const unsigned d = c.uniform(0, 2), bd = c.batch();
                            Dim base = c.shape(2, 3);
                            std::vector<Expression> xs(c.uniform(2, 3));
                            for (Expression& x : xs) {
                              Dim xd = base;
                              xd.set(d, c.uniform(1, 3));
                              x = c.input(xd.with_batch(c.uniform(0, 1) ? bd : 1));
                            }
                            return concatenate(xs, d);
                          })
                          .backward_overwrites();

Dim infer_concatenate_to_batch(const DimArgs& xs, const void*) {
  std::uint64_t bd = 0;
  for (unsigned k = 0; k < xs.size(); ++k) {
    if (!xs[k].same_shape(xs[0]))
      dims::fail("argument " + std::to_string(k) + " has shape " + to_string(xs[k].single_batch()) +
                 ", argument 0 has " + to_string(xs[0].single_batch()));
    bd += xs[k].bd;
  }
  dims::require_size(bd, "the batch size");
  return xs[0].with_batch(static_cast<unsigned>(bd));
}
void concatenate_to_batch_forward(const OpCall& c) {
  float* y = c.y.v;
  for (unsigned k = 0; k < c.nargs; ++k) {
    std::memcpy(y, c.xs[k].v, c.xs[k].d.size() * sizeof(float));
    y += c.xs[k].d.size();
  }
}
void concatenate_to_batch_backward(const OpCall& c, unsigned i) {
  std::size_t offset = 0;
  for (unsigned k = 0; k < i; ++k) offset += c.xs[k].d.size();
  accumulate(c.dx.v, c.dy.v + offset, c.dx.d.size());
}
OpDef ConcatenateToBatchOp = OpRow("concatenate_to_batch")
                                 .arity(-1)
                                 .infer(infer_concatenate_to_batch)
                                 .forward(concatenate_to_batch_forward)
                                 .backward(concatenate_to_batch_backward)
                                 .saves(kSavesNothing)
                                 .check([](CheckCase& c) {
                                   const Dim d = c.shape(0, 2);
                                   std::vector<Expression> xs(c.uniform(2, 3));
                                   for (Expression& x : xs) x = c.input(d.with_batch(c.batch()));
                                   return concatenate_to_batch(xs);
                                 });

}  // namespace

Expression reshape(const Expression& x, const Dim& d) {
  ComputationGraph& g = graph_of(x, "reshape");
  return g.append(ReshapeOp, {x}, g.store(d));
}

Expression concatenate(ExpressionSpan xs, unsigned d) {
  if (xs.empty()) throw std::invalid_argument("concatenate: needs at least one expression");
  // One expression is itself, unless d is past its dimensions: DyNet's concatenate_cols of one
  // vector is a matrix of one column.
  if (xs.size() == 1 && d < xs[0].dim().ndims()) return xs[0];
  ComputationGraph& g = graph_of(xs[0], "concatenate");
  return g.append(ConcatenateOp, xs.data(), static_cast<unsigned>(xs.size()), g.store(d));
}
Expression concatenate_cols(ExpressionSpan xs) {
  return called_as("concatenate_cols", [&] { return concatenate(xs, 1); });
}
Expression concatenate_to_batch(ExpressionSpan xs) {
  if (xs.empty()) throw std::invalid_argument("concatenate_to_batch: needs at least one expression");
  if (xs.size() == 1) return xs[0];
  return graph_of(xs[0], "concatenate_to_batch")
      .append(ConcatenateToBatchOp, xs.data(), static_cast<unsigned>(xs.size()), nullptr);
}

void register_shape_ops() { register_ops({&ReshapeOp, &ConcatenateOp, &ConcatenateToBatchOp}); }

}  // namespace dynet
