#include "builders/frequency_classes.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dynet {

ClassFactoredSoftmaxBuilder::WordClasses frequency_classes(const Dict& words, const std::vector<std::size_t>& counts,
                                                           unsigned classes) {
  if (classes == 0) throw std::invalid_argument("frequency_classes: at least one class is needed, got 0");
  auto count = [&](unsigned id) { return id < counts.size() ? counts[id] : std::size_t(0); };
  std::vector<unsigned> ids(words.size());
  std::iota(ids.begin(), ids.end(), 0u);
  std::stable_sort(ids.begin(), ids.end(), [&](unsigned a, unsigned b) { return count(a) > count(b); });
  const double total = std::max<double>(1.0, std::accumulate(counts.begin(), counts.end(), 0.0));
  ClassFactoredSoftmaxBuilder::WordClasses result;
  double seen = 0;
  for (unsigned id : ids) {
    // A word's class is where the middle of its share of the text falls.
    const double middle = (seen + count(id) / 2.0) / total;
    const unsigned c = std::min(classes - 1, static_cast<unsigned>(middle * classes));
    result.emplace_back(std::to_string(c), words.get_words()[id]);
    seen += count(id);
  }
  return result;
}

}  // namespace dynet
