#include "dynet_core/io/pretrained_embeddings.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace dynet {

void save_pretrained_embeddings(const std::string& fname, const Dict& d, const LookupParameter& lp) {
  const LookupParameterStorage& s = lp.get_storage();
  if (d.size() > s.n)
    throw std::invalid_argument("save_pretrained_embeddings: the dictionary has " + std::to_string(d.size()) +
                                " words but the lookup parameter only " + std::to_string(s.n) + " rows");
  std::ofstream out(fname);
  if (!out) throw std::runtime_error("save_pretrained_embeddings: cannot write '" + fname + "'");
  out.precision(9);
  for (unsigned i = 0; i < d.size(); ++i) {
    out << d.convert(static_cast<int>(i));
    for (float v : as_vector(s.values[i])) out << ' ' << v;
    out << '\n';
  }
  if (!out.flush()) throw std::runtime_error("save_pretrained_embeddings: writing '" + fname + "' failed");
}

void read_pretrained_embeddings(const std::string& fname, Dict& d,
                                std::unordered_map<int, std::vector<float>>& vectors) {
  std::ifstream in(fname);
  if (!in) throw std::runtime_error("read_pretrained_embeddings: cannot read '" + fname + "'");
  const int skipped = d.is_frozen() ? d.get_unk_id() : -1;
  std::size_t size = 0;  // the values a line holds, set by the first line
  std::string line, word;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    if (!(fields >> word)) continue;
    std::vector<float> v;
    for (float x; fields >> x;) v.push_back(x);
    const std::string where = "read_pretrained_embeddings: " + fname + ":" + std::to_string(n) + ": ";
    if (!fields.eof()) throw std::runtime_error(where + "a value of '" + word + "' is not a number");
    if (size == 0) size = v.size();
    if (v.empty() || v.size() != size)
      throw std::runtime_error(where + "'" + word + "' has " + std::to_string(v.size()) + " values, expected " +
                               (size ? std::to_string(size) : std::string("at least one")));
    const int id = d.convert(word);
    if (id != skipped) vectors[id] = std::move(v);
  }
}

}  // namespace dynet
