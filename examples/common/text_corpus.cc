#include "examples/common/text_corpus.h"

#include <sstream>

#include "examples/common/data_file.h"

namespace examples {

std::vector<Sentence> read_sentences(const std::string& path) {
  std::ifstream in = open_data_file(path, "text file");
  std::vector<Sentence> sentences;
  std::string line, token;
  while (std::getline(in, line)) {
    std::istringstream tokens(line);
    Sentence s;
    while (tokens >> token) s.push_back(token);
    if (!s.empty()) sentences.push_back(std::move(s));
  }
  return sentences;
}

}  // namespace examples
