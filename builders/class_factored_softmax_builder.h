#pragma once
// A class-factored softmax (Goodman, 2001; as DyNet's ClassFactoredSoftmaxBuilder): every word
// belongs to one class, and p(w | rep) = p(class(w) | rep) p(w | class(w), rep). A step costs
// O(classes + words in one class) instead of O(vocabulary).
//
// The word -> class map is a text file with one word a line: "class word [anything else]",
// separated by blanks (the format of Brown-cluster files). Its words are added to the word
// dictionary (a frozen dictionary must already hold them, or map them to its unknown word).
// Parameters: class scores W_c {classes, rep_dim}, b_c {classes}; for every class of more than
// one word, word scores W_k {words in k, rep_dim}, b_k {words in k}. Biases start at zero.

#include <string>
#include <utility>
#include <vector>

#include "builders/softmax_builder.h"
#include "dynet_core/io/dict.h"

namespace dynet {

class ClassFactoredSoftmaxBuilder : public SoftmaxBuilder {
 public:
  /// (class, word) pairs: the word -> class map given in memory rather than as a file.
  using WordClasses = std::vector<std::pair<std::string, std::string>>;

  /// Throws std::runtime_error when the file cannot be read or a line is malformed (naming the
  /// file and line), or a word is listed twice; neither the dictionary nor the model is changed then.
  ClassFactoredSoftmaxBuilder(unsigned rep_dim, const std::string& cluster_file, Dict& word_dict,
                              ParameterCollection& model, bool bias = true);
  /// The same from (class, word) pairs, in the order a file would list them.
  ClassFactoredSoftmaxBuilder(unsigned rep_dim, const WordClasses& word_classes, Dict& word_dict,
                              ParameterCollection& model, bool bias = true);

  void new_graph(ComputationGraph& cg, bool update = true) override;
  /// Throws std::invalid_argument for a word in no class.
  Expression neg_log_softmax(const Expression& rep, unsigned word) override;
  Expression neg_log_softmax(const Expression& rep, const std::vector<unsigned>& words) override;
  unsigned sample(const Expression& rep) override;
  /// log p(w | rep) for every word id up to the largest one in a class (each must be in a class).
  Expression full_log_distribution(const Expression& rep) override;
  /// log p(class | rep) and the class scores b_c + W_c rep, {classes}.
  Expression class_log_distribution(const Expression& rep);
  Expression class_logits(const Expression& rep);
  /// log p(word | class c, rep) and the word scores of class c, {words in c}; throws
  /// std::invalid_argument for a class out of range or of one word (it has no scores).
  Expression subclass_log_distribution(const Expression& rep, unsigned c);
  Expression subclass_logits(const Expression& rep, unsigned c);
  /// Puts the word parameters of every class in the graph now rather than at first use.
  void initialize_expressions();
  std::unique_ptr<SoftmaxBuilder> clone() const override {
    return std::make_unique<ClassFactoredSoftmaxBuilder>(*this);
  }

  unsigned num_classes() const { return class_dict_.size(); }
  /// The class of `word`; throws std::invalid_argument for a word in no class.
  unsigned class_of(unsigned word) const;
  /// The words of class `c`, in the file's order.
  const std::vector<unsigned>& class_words(unsigned c) const { return class_words_.at(c); }

 private:
  struct Entry {
    std::string cls, word;
    std::string where;  ///< "file:line" or "entry k", for messages
  };
  ClassFactoredSoftmaxBuilder(unsigned rep_dim, const std::vector<Entry>& entries, Dict& word_dict,
                              ParameterCollection& model, bool bias);
  static std::vector<Entry> read_cluster_file(const std::string& path);
  static std::vector<Entry> entries_of(const WordClasses& word_classes);
  Expression class_scores(const Expression& rep);
  /// Scores of the words of class c (of more than one word); its parameters enter the graph on first use.
  Expression word_scores(unsigned c, const Expression& rep);
  void bind_word_parameters(unsigned c);
  Expression parameter_expression(const Parameter& p);

  const Dict* word_dict_;
  Dict class_dict_;
  std::vector<int> word_class_;          ///< per word id: its class, or -1
  std::vector<unsigned> word_position_;  ///< per word id: its row in its class
  std::vector<std::vector<unsigned>> class_words_;
  bool bias_;
  Parameter p_class_w_, p_class_b_;
  std::vector<Parameter> p_word_w_, p_word_b_;  ///< per class; unset for one-word classes

  bool update_ = true;
  Expression class_w_, class_b_;
  std::vector<Expression> word_w_, word_b_;  ///< per class, made on first use in a graph
};

}  // namespace dynet
