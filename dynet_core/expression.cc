#include "dynet_core/expression.h"

#include <stdexcept>

#include "dynet_core/device/device.h"
#include "dynet_core/graph.h"
#include "dynet_core/live_graphs.h"

namespace dynet {

namespace {
ComputationGraph& checked_graph(const Expression& e, const char* where) {
  if (!e.pg) throw std::runtime_error(std::string(where) + ": " + kEmptyExpressionUsed);
  if (!live_graphs::alive(e.graph_id)) throw_stale_graph(where);
  e.pg->check_expression(e, where);
  return *e.pg;
}
}  // namespace

Expression::Expression(ComputationGraph* g, VariableIndex index) : pg(g), graph_id(g->id()) {
  set_index(index, g->epoch());
}

const Dim& Expression::dim() const { return checked_graph(*this, "Expression::dim").node(i).dim; }

Tensor Expression::value() const { return checked_graph(*this, "Expression::value").get_value(i); }

Tensor Expression::gradient() const { return checked_graph(*this, "Expression::gradient").get_gradient(i); }

std::string Expression::get_device_name() const {
  return checked_graph(*this, "Expression::get_device_name").device()->name;
}

bool Expression::is_stale() const {
  return !pg || !live_graphs::alive(graph_id) || i >= pg->size() || pg->node(i).epoch != epoch;
}

}  // namespace dynet
