#include "examples/common/vocabulary_file.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "examples/common/data_file.h"

namespace examples {

namespace {
const char* const kHeader = "dybatch-vocabularies 1";
}

void save_vocabularies(const std::string& path, const std::vector<NamedDict>& dicts) {
  std::ostringstream text;
  text << kHeader << '\n';
  for (const NamedDict& d : dicts) {
    text << "vocabulary " << d.first << ' ' << d.second->size() << ' ' << d.second->get_unk_id() << '\n';
    for (const std::string& w : d.second->get_words()) {
      if (w.empty() || w.find_first_of(" \t\r\n") != std::string::npos)
        throw std::runtime_error("cannot save the vocabulary '" + d.first + "': the word '" + w +
                                 "' is empty or contains blanks");
      text << w << '\n';
    }
  }
  std::ofstream out(path, std::ios::trunc);
  out << text.str();
  out.flush();
  if (!out) throw std::runtime_error("cannot write the vocabulary file '" + path + "'");
}

void load_vocabularies(const std::string& path, const std::vector<NamedDict>& dicts) {
  std::ifstream in = open_data_file(path, "vocabulary file");
  auto fail = [&](unsigned line, const std::string& what) {
    return std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
  };
  std::string line;
  unsigned n = 1;
  if (!std::getline(in, line) || line != kHeader) throw fail(n, "not a vocabulary file (expected '" + std::string(kHeader) + "')");
  std::map<std::string, dynet::Dict> read;
  while (++n, std::getline(in, line)) {
    std::istringstream fields(line);
    std::string tag, name;
    long size = -1, unk = -2;
    if (!(fields >> tag >> name >> size >> unk) || tag != "vocabulary" || size < 0 || unk < -1 || unk >= size)
      throw fail(n, "expected 'vocabulary NAME SIZE UNK_ID'");
    dynet::Dict& d = read[name];
    for (long k = 0; k < size; ++k) {
      ++n;
      if (!std::getline(in, line) || line.empty()) throw fail(n, "the vocabulary '" + name + "' ends early");
      if (d.convert(line) != k) throw fail(n, "the word '" + line + "' appears twice in '" + name + "'");
    }
    if (unk >= 0) d.set_unk(d.convert(static_cast<int>(unk)));
    d.freeze();
  }
  for (const NamedDict& d : dicts)
    if (!read.count(d.first)) throw std::runtime_error(path + ": no vocabulary named '" + d.first + "'");
  for (const NamedDict& d : dicts) *d.second = read[d.first];
}

}  // namespace examples
