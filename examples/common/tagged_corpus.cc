#include "examples/common/tagged_corpus.h"

#include <sstream>
#include <stdexcept>

#include "examples/common/data_file.h"

namespace examples {

std::vector<TaggedSentence> read_tagged_sentences(const std::string& path) {
  std::ifstream in = open_data_file(path, "tagged corpus");
  std::vector<TaggedSentence> sentences;
  std::string line, token;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    std::istringstream tokens(line);
    TaggedSentence s;
    while (tokens >> token) {
      const std::size_t bar = token.rfind('|');
      if (bar == std::string::npos || bar == 0 || bar + 1 == token.size())
        throw std::runtime_error(path + ":" + std::to_string(n) + ": the token '" + token + "' is not word|TAG");
      s.words.push_back(token.substr(0, bar));
      s.tags.push_back(token.substr(bar + 1));
    }
    if (!s.words.empty()) sentences.push_back(std::move(s));
  }
  return sentences;
}

}  // namespace examples
