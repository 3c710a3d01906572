#include "dynet_core/dim.h"

#include <ostream>
#include <sstream>
#include <stdexcept>

namespace dynet {

namespace {

std::string limit_text() {
  return "one tensor holds at most " + std::to_string(Dim::kMaxElements) + " (2^31-1) elements";
}

template <class It>
void fill_dims(Dim& dim, It begin, It end, bool zero_allowed = false) {
  unsigned n = 0;
  for (It it = begin; it != end; ++it, ++n) {
    if (n >= Dim::kMaxDims)
      throw std::invalid_argument("Dim: at most " + std::to_string(Dim::kMaxDims) + " dimensions are supported, got " +
                                  std::to_string(std::distance(begin, end)));
    if (*it < 0 || (*it == 0 && !zero_allowed))
      throw std::invalid_argument("Dim: dimension " + std::to_string(n) + " has size " +
                                  std::to_string(static_cast<long>(*it)) + "; sizes must be >= 1");
    if (static_cast<unsigned long>(*it) > Dim::kMaxElements)
      throw std::invalid_argument("Dim: dimension " + std::to_string(n) + " has size " +
                                  std::to_string(static_cast<unsigned long>(*it)) + "; " + limit_text());
    dim.d[n] = static_cast<unsigned>(*it);
  }
  dim.nd = n;
}

}  // namespace

Dim::Dim(std::initializer_list<unsigned> dims, unsigned batch) : bd(batch) {
  fill_dims(*this, dims.begin(), dims.end());
  if (batch == 0) throw std::invalid_argument("Dim: batch size must be >= 1");
}

Dim::Dim(const std::vector<unsigned>& dims, unsigned batch) : bd(batch) {
  fill_dims(*this, dims.begin(), dims.end());
  if (batch == 0) throw std::invalid_argument("Dim: batch size must be >= 1");
}

Dim::Dim(const std::vector<long>& dims) { fill_dims(*this, dims.begin(), dims.end()); }

Dim Dim::of_parameter(const std::vector<unsigned>& dims) {
  Dim d;
  fill_dims(d, dims.begin(), dims.end(), true);
  return d;
}

void Dim::set(unsigned i, unsigned s) {
  if (i >= kMaxDims)
    throw std::invalid_argument("Dim::set: dimension index " + std::to_string(i) + " is out of range (max " +
                                std::to_string(kMaxDims - 1) + ")");
  if (s == 0) throw std::invalid_argument("Dim::set: sizes must be >= 1");
  while (nd <= i) d[nd++] = 1;
  d[i] = s;
}

void Dim::delete_dim(unsigned i) {
  if (i >= nd) return;
  for (unsigned j = i; j + 1 < nd; ++j) d[j] = d[j + 1];
  d[--nd] = 1;
}

Dim Dim::transpose() const {
  Dim r = *this;
  r.d[0] = cols();
  r.d[1] = rows();
  r.nd = 2;
  return r;
}

std::ostream& operator<<(std::ostream& os, const Dim& d) {
  os << '{';
  for (unsigned i = 0; i < d.nd; ++i) {
    if (i) os << ',';
    os << d.d[i];
  }
  if (d.bd != 1) os << 'X' << d.bd;
  return os << '}';
}

std::string to_string(const Dim& d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

void reject_size(const Dim& d, const std::string& what) {
  std::uint64_t n = d.bd;
  bool exact = true;
  for (unsigned i = 0; i < d.nd; ++i) exact = exact && !__builtin_mul_overflow(n, d.d[i], &n);
  throw std::invalid_argument(what + " " + to_string(d) + " has " + (exact ? std::to_string(n) : "more than 2^64") +
                              " elements; " + limit_text());
}

}  // namespace dynet
