#pragma once
// The benchmark tagger's vocabularies (words, tags, and the characters rare words are spelled
// with) and sentences encoded by them. Apart from the model so that programs that only read tagged
// data (the peers) need nothing of the library but dynet::Dict.

#include <string>
#include <vector>

#include "dynet_core/io/dict.h"
#include "examples/common/tagged_corpus.h"

namespace bench {

/// A sentence as ids: every word's id (the unknown word for rare ones), the characters of the
/// words to spell (empty for the others), and the tags (-1 for a tag never seen in training).
struct EncodedSentence {
  std::vector<unsigned> words;
  std::vector<std::vector<unsigned>> spellings;
  std::vector<int> tags;
};

/// The tagger's vocabularies, built from the training sentences.
class TaggerVocabulary {
 public:
  TaggerVocabulary() = default;
  /// Words seen at least min_count times get an embedding; the others (and unseen words) share
  /// the unknown word, and are spelled when `spell_rare`.
  TaggerVocabulary(const std::vector<examples::TaggedSentence>& train, unsigned min_count, bool spell_rare);

  /// (Looks words up in the frozen vocabularies, which never changes them.)
  EncodedSentence encode(const examples::TaggedSentence& s);

  dynet::Dict words, tags, chars;
  bool spell_rare = false;
};

}  // namespace bench
