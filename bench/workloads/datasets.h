#pragma once
// The benchmark data of ../shared/BENCHMARKS.md as ids, read once and shared by dybatch's
// workloads and the peers, so both train on exactly the same examples: PTB text, WikiNER tagged
// sentences and SST trees from a data folder, or, where the folder lacks a file, generated data of
// the same shape statistics (sentence lengths, vocabulary sizes, tree sizes), said on stderr; and
// the seq2seq workloads' digit strings to reverse, always generated.

#include <string>
#include <vector>

#include "autobatch/random_trees.h"
#include "dynet_core/io/dict.h"
#include "workloads/tagger_vocabulary.h"

namespace bench {

/// Word ids of one sentence, without boundary markers.
using WordIds = std::vector<unsigned>;

/// Sentences of word ids; `words` holds every word and the sentence boundary `boundary`.
struct TextData {
  std::vector<WordIds> sentences;
  dynet::Dict words;
  std::string boundary = "<s>";
  bool generated = false;
};

/// Tagged sentences encoded by the tagger's own vocabularies (rare words spelled when asked).
struct TagData {
  TaggerVocabulary vocabulary;
  std::vector<EncodedSentence> sentences;
  bool generated = false;
};

/// Binary trees, every node labelled 0..4, leaves holding word ids below `vocabulary`.
struct TreeData {
  std::vector<Tree> trees;
  unsigned vocabulary = 0;
  bool generated = false;
};

/// A source sequence and the target sequence a seq2seq model learns to give for it.
struct SequencePair {
  WordIds source, target;
};

/// Sequence pairs to train on and to score the trained model on. Every id is below `vocabulary`;
/// a target ends with `end`, and a decoder starts from `start`, which no sequence holds.
struct PairData {
  std::vector<SequencePair> train, held_out;
  unsigned vocabulary = 0, start = 0, end = 0;
};

/// `dir`/text/train.txt (PTB), or 42,068 generated sentences over 10,000 words.
TextData load_text(const std::string& dir);
/// The PTB training text as one word stream cut into sentences of `length` words.
TextData load_text_chunks(const std::string& dir, unsigned length);
/// The text of language-model task `task`: PTB sentences (rnnlm-batch, var-lstm) or the PTB
/// stream cut into 64-word sentences (fixed-lstm).
TextData load_task_text(const std::string& task, const std::string& dir);
/// `dir`/tags/train.txt (WikiNER); words seen fewer than `min_count` times are unknown, and
/// spelled with `spell_rare`.
TagData load_tags(const std::string& dir, unsigned min_count, bool spell_rare);
/// `dir`/trees/train.txt (SST), or 8,544 generated trees of 2..50 leaves over 16,000 words.
TreeData load_trees(const std::string& dir);
/// `count` complete binary trees of `leaves` leaves (a power of two) over `vocabulary` words.
TreeData complete_trees(unsigned count, unsigned leaves, unsigned vocabulary);

/// The digit reversal task of seq2seq workload `task`: strings of digits (ids 0-9) of lengths
/// uniform in [3, 8] (seq2seq-mixed) or all 8 (seq2seq-equal), each paired with its reverse and
/// then </s> (id 11); <s> (id 10) starts the decoder. 20,000 pairs to train on, 512 held out.
PairData reversal_pairs(const std::string& task);

/// Consecutive minibatches of `batch` items in a fixed shuffled order, cycling forever: the
/// minibatch of step `step` holds items order[(step * batch + k) % n].
class Minibatches {
 public:
  /// With `by_length`, items of similar size share a minibatch (sorted by `sizes`, then the
  /// minibatches shuffled); otherwise the items are shuffled.
  Minibatches(const std::vector<std::size_t>& sizes, unsigned batch, bool by_length);
  std::vector<std::size_t> at(std::size_t step) const;
  /// The steps of the minibatch of most items in all and of the one holding the longest item
  /// (one step when they are the same): between them they reach the memory a program's largest
  /// step needs, whether it grows with the items or with padding to the longest.
  std::vector<std::size_t> largest_steps() const;

 private:
  std::vector<std::size_t> order_;
  std::vector<std::size_t> sizes_;
  unsigned batch_;
};

}  // namespace bench
