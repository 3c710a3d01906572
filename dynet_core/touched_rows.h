#pragma once
// The rows of a lookup table that received a gradient since its last update: DyNet's
// LookupParameterStorage::non_zero_grads (an unordered_set there), with the set operations
// DyNet code uses on it. Kept as a list in the order the rows were first reached plus a mask of
// the table's rows, so that backward marks a row without hashing or allocating (the list grows
// to its largest size once) and a sparse update walks the rows as one array.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dynet {

class TouchedRows {
 public:
  /// No rows marked, for a table of `rows` rows.
  explicit TouchedRows(unsigned rows = 0) : mask_(rows, 0) {}

  /// Marks row i; throws std::invalid_argument when the table has no row i.
  void insert(unsigned i) {
    if (i >= mask_.size())
      throw std::invalid_argument("LookupParameterStorage::non_zero_grads.insert: row " + std::to_string(i) +
                                  " is out of range for a table of " + std::to_string(mask_.size()) + " rows");
    if (!mask_[i]) {
      mask_[i] = 1;
      rows_.push_back(i);
    }
  }
  /// 1 when row i is marked, else 0.
  std::size_t count(unsigned i) const { return i < mask_.size() ? mask_[i] : 0; }
  /// Unmarks every row.
  void clear() {
    for (unsigned i : rows_) mask_[i] = 0;
    rows_.clear();
  }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  /// The marked rows, in the order they were first marked.
  const std::vector<unsigned>& rows() const { return rows_; }
  const unsigned* data() const { return rows_.data(); }
  /// One byte a row of the table, 1 where the row is marked and 0 elsewhere.
  const std::uint8_t* mask() const { return mask_.data(); }
  std::vector<unsigned>::const_iterator begin() const { return rows_.begin(); }
  std::vector<unsigned>::const_iterator end() const { return rows_.end(); }

 private:
  std::vector<unsigned> rows_;
  std::vector<std::uint8_t> mask_;
};

}  // namespace dynet
