#include "examples/common/sentiment_treebank.h"

#include <cctype>
#include <stdexcept>

#include "examples/common/data_file.h"

namespace examples {

namespace {

class TreeParser {
 public:
  explicit TreeParser(const std::string& text) : text_(text) {}

  LabeledTree parse() {
    LabeledTree tree;
    node(tree);
    skip_blanks();
    if (pos_ != text_.size()) fail("text after the end of the tree");
    return tree;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at character " + std::to_string(pos_ + 1));
  }
  void skip_blanks() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_blanks();
    if (pos_ >= text_.size() || text_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string atom() {
    skip_blanks();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) && text_[pos_] != '(' &&
           text_[pos_] != ')')
      ++pos_;
    if (pos_ == start) fail("expected a label or a word");
    return text_.substr(start, pos_ - start);
  }

  /// Parses "(label word)" or "(label child...)"; returns the node's index.
  int node(LabeledTree& tree) {
    expect('(');
    const std::string label = atom();
    if (label.size() != 1 || label[0] < '0' || label[0] > '4') fail("the label '" + label + "' is not 0-4");
    LabeledTree::Node n;
    n.label = label[0] - '0';
    skip_blanks();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      while (skip_blanks(), pos_ < text_.size() && text_[pos_] == '(') n.children.push_back(node(tree));
    } else {
      n.word = atom();
    }
    expect(')');
    tree.nodes.push_back(std::move(n));
    return static_cast<int>(tree.nodes.size()) - 1;
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

}  // namespace

LabeledTree parse_sentiment_tree(const std::string& text) { return TreeParser(text).parse(); }

std::vector<LabeledTree> read_sentiment_trees(const std::string& path) {
  std::ifstream in = open_data_file(path, "treebank");
  std::vector<LabeledTree> trees;
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      trees.push_back(parse_sentiment_tree(line));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  return trees;
}

}  // namespace examples
