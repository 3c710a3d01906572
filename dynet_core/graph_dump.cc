// ComputationGraph::dump (graph.h): every node with its computed value and gradient, as text, for
// debugging a graph that computes NaNs or wrong values.
#include <cmath>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "dynet_core/graph.h"

namespace dynet {

namespace {

bool all_finite(const std::vector<float>& v) {
  for (const float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

void write_values(std::ostream& os, const char* what, const std::vector<float>& v) {
  os << "  " << what << ':';
  for (const float x : v) os << ' ' << x;
  os << '\n';
}

}  // namespace

void ComputationGraph::write_node(std::ostream& os, VariableIndex i) const {
  const Node& n = node(i);
  os << 'v' << i << " = " << n.op->name << '(';
  for (unsigned k = 0; k < n.nargs; ++k) os << (k ? ", v" : "v") << n.arg(k);
  os << ") " << to_string(n.dim);
}

void ComputationGraph::dump(const std::string& filename, bool show_values, bool show_gradients, bool nan_check_only) {
  std::ofstream file;
  if (!filename.empty()) {
    file.open(filename);
    if (!file) throw std::runtime_error("dump: cannot open '" + filename + "' for writing");
  }
  std::ostream& os = filename.empty() ? std::cerr : file;
  const VariableIndex evaluated = engine().evaluated();
  for (VariableIndex i = 0; i < size_; ++i) {
    const Node& n = node(i);
    // Values are read only where the engine computed them: a node past evaluated() holds none yet.
    std::vector<float> value, gradient;
    if (show_values && i < evaluated && n.value) value = as_vector(Tensor(n.dim, n.value, device_));
    if (show_gradients && engine().has_gradient(i)) gradient = as_vector(Tensor(n.dim, n.grad, device_));
    const bool bad_value = !all_finite(value), bad_gradient = !all_finite(gradient);
    if (nan_check_only && !bad_value && !bad_gradient) continue;
    write_node(os, i);
    os << '\n';
    if (nan_check_only) {
      if (bad_value) os << "  value: NaN or Inf\n";
      if (bad_gradient) os << "  gradient: NaN or Inf\n";
      continue;
    }
    if (!value.empty()) write_values(os, "value", value);
    if (!gradient.empty()) write_values(os, "gradient", gradient);
  }
  if (!os)
    throw std::runtime_error("dump: writing '" + (filename.empty() ? std::string("stderr") : filename) + "' failed");
}

}  // namespace dynet
