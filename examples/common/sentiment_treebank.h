#pragma once
// The Stanford Sentiment Treebank's trees: PTB brackets with a label 0-4 on every node, one tree
// a line, as in `(3 (2 (2 The) (2 Rock)) (4 (3 is) (4 great)))`.

#include <string>
#include <vector>

#include "examples/common/labeled_tree.h"

namespace examples {

/// Parses one tree (tokens only: vocabulary ids are left at -1); throws std::runtime_error with
/// the offending position when the text is not a bracketed tree.
LabeledTree parse_sentiment_tree(const std::string& text);
/// Every tree of the file; errors name the file and line.
std::vector<LabeledTree> read_sentiment_trees(const std::string& path);

}  // namespace examples
