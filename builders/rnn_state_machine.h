#pragma once
// DyNet's RNNStateMachine: the order in which a recurrent builder may be driven (a graph, then a
// sequence, then inputs), for code that checks its own builders' use the way DyNet's did. dybatch's
// builders check their use themselves, with messages naming what was missing.
//
// state          | operation          | next state
// CREATED        | new_graph          | GRAPH_READY
// GRAPH_READY    | new_graph          | GRAPH_READY
// GRAPH_READY    | start_new_sequence | READING_INPUT
// READING_INPUT  | add_input          | READING_INPUT
// READING_INPUT  | start_new_sequence | READING_INPUT
// READING_INPUT  | new_graph          | GRAPH_READY

#include <stdexcept>
#include <string>

namespace dynet {

enum RNNState { CREATED, GRAPH_READY, READING_INPUT };
enum RNNOp { new_graph, start_new_sequence, add_input };

class RNNStateMachine {
 public:
  /// Moves to the next state; throws std::runtime_error, as DyNet, for an operation the current
  /// state does not allow, and then stays where it was.
  void transition(RNNOp op) {
    if (op == new_graph) {
      q_ = GRAPH_READY;
      return;
    }
    if (op == start_new_sequence && q_ != CREATED) {
      q_ = READING_INPUT;
      return;
    }
    if (op == add_input && q_ == READING_INPUT) return;
    failure(op);
  }
  RNNState state() const { return q_; }

 private:
  [[noreturn]] void failure(RNNOp op) const {
    static const char* const states[] = {"CREATED", "GRAPH_READY", "READING_INPUT"};
    static const char* const ops[] = {"new_graph", "start_new_sequence", "add_input"};
    throw std::runtime_error(std::string("RNNStateMachine: ") + ops[op] + " is not allowed in state " + states[q_] +
                             (q_ == CREATED ? " (call new_graph first)" : " (call start_new_sequence first)"));
  }

  RNNState q_ = CREATED;
};

}  // namespace dynet
