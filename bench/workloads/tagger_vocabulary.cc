#include "workloads/tagger_vocabulary.h"

namespace bench {

using dynet::WordCounter;

namespace {
const char* const kUnknown = "<unk>";
}

TaggerVocabulary::TaggerVocabulary(const std::vector<examples::TaggedSentence>& train, unsigned min_count, bool spell)
    : spell_rare(spell) {
  WordCounter counter;
  for (const examples::TaggedSentence& s : train) {
    counter.add_all(s.words);
    for (const std::string& t : s.tags) tags.convert(t);
    for (const std::string& w : s.words)
      for (char c : w) chars.convert(std::string(1, c));
  }
  words = counter.frequent(min_count, kUnknown);
  tags.freeze();
  chars.set_unk(kUnknown);
  chars.freeze();
}

EncodedSentence TaggerVocabulary::encode(const examples::TaggedSentence& s) {
  EncodedSentence e;
  for (std::size_t i = 0; i < s.words.size(); ++i) {
    const std::string& w = s.words[i];
    const bool known = words.contains(w);
    e.words.push_back(static_cast<unsigned>(words.convert(w)));
    std::vector<unsigned> spelling;
    if (spell_rare && !known)
      for (char c : w) spelling.push_back(static_cast<unsigned>(chars.convert(std::string(1, c))));
    e.spellings.push_back(std::move(spelling));
    e.tags.push_back(tags.contains(s.tags[i]) ? tags.convert(s.tags[i]) : -1);
  }
  return e;
}

}  // namespace bench
