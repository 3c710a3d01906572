#pragma once
// The state one layer of a recurrent or tree cell hands on: its output h and, for LSTMs, its
// memory cell c (an empty Expression for cells without memory).

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

struct CellState {
  Expression h;
  Expression c;
};

/// The outputs of a stack of layer states.
inline std::vector<Expression> outputs_of(const std::vector<CellState>& layers) {
  std::vector<Expression> h;
  for (const CellState& s : layers) h.push_back(s.h);
  return h;
}

/// DyNet's layout of a full state: with cells, the cell of every layer first, then the outputs.
inline std::vector<Expression> full_state_of(const std::vector<CellState>& layers, bool with_cells) {
  std::vector<Expression> s;
  if (with_cells)
    for (const CellState& st : layers) s.push_back(st.c);
  for (const CellState& st : layers) s.push_back(st.h);
  return s;
}

}  // namespace dynet
