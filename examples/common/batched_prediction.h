#pragma once
// Evaluation in minibatches: the score vectors of `batch` items share one graph and one forward
// (so an autobatcher sees them all), and every item then gets the argmax of each of its vectors.

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "dynet_core/graph.h"
#include "examples/common/column_argmax.h"

namespace examples {

/// For items in groups of `batch`: new_graph(cg) binds the model to a fresh graph, scores_of(cg,
/// item) builds the item's score vectors, and on_item(item, predicted) receives the argmax of each
/// of them, in order.
template <class Item, class NewGraph, class ScoresOf, class OnItem>
void predict_in_batches(const std::vector<Item>& items, unsigned batch, NewGraph&& new_graph, ScoresOf&& scores_of,
                        OnItem&& on_item) {
  if (batch == 0) throw std::invalid_argument("evaluation: the batch size must be positive");
  for (std::size_t first = 0; first < items.size(); first += batch) {
    const std::size_t last = std::min(items.size(), first + batch);
    dynet::ComputationGraph cg;
    new_graph(cg);
    std::vector<dynet::Expression> scores;
    std::vector<std::size_t> counts;
    for (std::size_t k = first; k < last; ++k) {
      const std::vector<dynet::Expression> s = scores_of(cg, items[k]);
      scores.insert(scores.end(), s.begin(), s.end());
      counts.push_back(s.size());
    }
    const std::vector<unsigned> predicted = column_argmax(cg, scores);
    const unsigned* p = predicted.data();
    for (std::size_t k = first; k < last; ++k) {
      on_item(items[k], std::vector<unsigned>(p, p + counts[k - first]));
      p += counts[k - first];
    }
  }
}

}  // namespace examples
