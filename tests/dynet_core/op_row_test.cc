// A row's setters each write the field they are named after: every field gets a value no other
// field has, so a setter writing the wrong field leaves one field at its default or swaps two.
#include <catch2/catch.hpp>

#include <string>

#include "dynet_core/expression.h"
#include "dynet_core/op_def.h"

using namespace dynet;

namespace {

Dim infer_first(const DimArgs& xs, const void*) { return xs[0]; }
void forward_a(const OpCall&) {}
void backward_a(const OpCall&, unsigned) {}
void leaf_backward_a(const OpCall& c) { (void)c.nodes; }
Expression build_a(CheckCase&) { return Expression(); }
float* value_alias_a(const void*) { return nullptr; }
float* grad_alias_a(const void* p) { return static_cast<float*>(const_cast<void*>(p)); }
bool span_a(const void*, const Dim&, unsigned&, unsigned&) { return true; }
void run_a(const void*, const float* const*, unsigned, float*, std::size_t) {}
void run_gradient_a(const void*, unsigned, const float* const*, unsigned, const float*, const float*, float*,
                    std::size_t, bool) {}

// constexpr: a row is constant-initialised data, never code run before registration.
constexpr OpDef kEveryField = OpRow("every_field")
                                  .arity(-1)
                                  .infer(infer_first)
                                  .forward(forward_a)
                                  .backward(backward_a)
                                  .saves(kSavesOutput)
                                  .batch(ConcatBatch().shared(5u).shared_odd().sig_bytes(12).broadcasts(6u))
                                  .check(build_a)
                                  .check_tolerance(0.125f)
                                  .value_alias(value_alias_a)
                                  .grad_alias(grad_alias_a)
                                  .leaf_backward(leaf_backward_a)
                                  .backward_overwrites()
                                  .argument_span(span_a)
                                  .elementwise(ElementwiseRule(ElementwiseOp::cube, run_a, run_gradient_a));
constexpr OpDef kNameOnly = OpRow("name_only");

}  // namespace

TEST_CASE("each OpRow setter writes the field it names", "[ops][op_row]") {
  const OpDef& op = kEveryField;
  CHECK(std::string(op.name) == "every_field");
  CHECK(op.arity == -1);
  CHECK(op.infer_dim == &infer_first);
  CHECK(op.forward == &forward_a);
  CHECK(op.backward == &backward_a);
  CHECK(op.saves == kSavesOutput);
  CHECK(op.check.build == &build_a);
  CHECK(op.check.tolerance == 0.125f);
  CHECK(op.check.skip_reason == nullptr);
  CHECK(op.value_alias == &value_alias_a);
  CHECK(op.grad_alias == &grad_alias_a);
  CHECK(op.leaf_backward == &leaf_backward_a);
  CHECK(op.backward_overwrites);
  CHECK(op.argument_span == &span_a);
  CHECK(op.elementwise.f == &run_a);
  CHECK(op.elementwise.df == &run_gradient_a);
  CHECK(op.elementwise.op == ElementwiseOp::cube);
  CHECK(op.id == OpDef::kUnregistered);
}

TEST_CASE("each ConcatBatch setter writes the trait it names", "[ops][op_row]") {
  const BatchTraits& b = kEveryField.batch;
  CHECK(b.rule == BatchRule::Concat);
  CHECK(b.shared == 5u);
  CHECK(b.shared_odd);
  CHECK(b.sig_bytes == 12);
  CHECK(b.broadcasts == 6u);
  const BatchTraits all = ConcatBatch().broadcasts_all();
  CHECK(all.broadcasts == BatchTraits::kAllArguments);
  CHECK(all.shared == 0u);
  CHECK_FALSE(all.shared_odd);
  CHECK(all.sig_bytes == 0);
}

TEST_CASE("a row keeps the defaults of the fields it does not name", "[ops][op_row]") {
  const OpDef& op = kNameOnly;
  CHECK(std::string(op.name) == "name_only");
  CHECK(op.arity == 0);
  CHECK(op.infer_dim == nullptr);
  CHECK(op.forward == nullptr);
  CHECK(op.backward == nullptr);
  CHECK(op.saves == kSavesNothing);
  CHECK(op.batch.rule == BatchRule::None);
  CHECK(op.batch.broadcasts == 0u);
  CHECK(op.check.build == nullptr);
  CHECK(op.check.tolerance == GradCheck().tolerance);
  CHECK(op.value_alias == nullptr);
  CHECK(op.grad_alias == nullptr);
  CHECK(op.leaf_backward == nullptr);
  CHECK_FALSE(op.backward_overwrites);
  CHECK(op.argument_span == nullptr);
  CHECK(op.elementwise.f == nullptr);
  CHECK(op.elementwise.df == nullptr);
  const OpDef skipped = OpRow("skipped").no_gradcheck("no numeric gradient");
  CHECK(std::string(skipped.check.skip_reason) == "no numeric gradient");
  CHECK(skipped.check.build == nullptr);
}
