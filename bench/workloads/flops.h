#pragma once
// Floating-point operations of the benchmark models, counted the same way for dybatch and its
// peers: the products only (elementwise work is a few percent), forward plus backward, where
// backward costs two products per forward one (the weight gradient and the input gradient).

#include <cstddef>

#include "autobatch/random_trees.h"

namespace bench {

/// Forward and backward of products worth `forward` flops.
inline double with_backward(double forward) { return 3 * forward; }

/// One LSTM step: the gates (4h) over input and state.
inline double lstm_step_flops(unsigned input, unsigned hidden) { return 2.0 * 4 * hidden * (input + hidden); }

/// One predicted word of an LSTM language model with a full softmax.
inline double language_model_word_flops(unsigned embedding, unsigned hidden, unsigned vocabulary) {
  return with_backward(lstm_step_flops(embedding, hidden) + 2.0 * vocabulary * hidden);
}

/// One word of the BiLSTM tagger (each direction `hidden`), without any character model.
inline double tagger_word_flops(unsigned embedding, unsigned hidden, unsigned mlp, unsigned tags) {
  return with_backward(2 * lstm_step_flops(embedding, hidden) + 2.0 * mlp * 2 * hidden + 2.0 * tags * mlp);
}

/// One character of a spelled word: a BiLSTM whose two directions together give `word_embedding`.
inline double char_flops(unsigned char_embedding, unsigned word_embedding) {
  return with_backward(2 * lstm_step_flops(char_embedding, word_embedding / 2));
}

/// A binary TreeLSTM over `t` (leaf: 3h x e, internal node: 5h x 2h) with a 5-way output layer at
/// every node or at the root only.
inline double tree_lstm_flops(const Tree& t, unsigned embedding, unsigned hidden, bool every_node) {
  double forward = 0;
  for (const TreeNode& n : t.nodes)
    forward += n.left < 0 ? 2.0 * 3 * hidden * embedding : 2.0 * 5 * hidden * 2 * hidden;
  forward += 2.0 * 5 * hidden * (every_node ? t.nodes.size() : 1);
  return with_backward(forward);
}

/// A fully connected cell (h x 2h) at every internal node of `t`, a 5-way output at the root.
inline double tree_fc_flops(const Tree& t, unsigned hidden) {
  double forward = 2.0 * 5 * hidden;
  for (const TreeNode& n : t.nodes)
    if (n.left >= 0) forward += 2.0 * hidden * 2 * hidden;
  return with_backward(forward);
}

/// One pair of the attention encoder-decoder (workloads/seq2seq_model.h): a BiLSTM (`hidden` each
/// way) over `source` tokens, the attention's source half once (hidden x 2 hidden a token), then at
/// each of `target` steps the decoder LSTM over [embedding; context], the query (hidden x hidden),
/// the scores and the context over every source token, and the output layer over [state; context].
inline double seq2seq_pair_flops(std::size_t source, std::size_t target, unsigned embedding, unsigned hidden,
                                 unsigned vocabulary) {
  const double encoder = source * (2 * lstm_step_flops(embedding, hidden) + 2.0 * hidden * 2 * hidden);
  const double step = lstm_step_flops(embedding + 2 * hidden, hidden) + 2.0 * hidden * hidden +
                      2.0 * source * (hidden + 2 * hidden) + 2.0 * vocabulary * 3 * hidden;
  return with_backward(encoder + target * step);
}

}  // namespace bench
