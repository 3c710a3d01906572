#pragma once
// Shape of a tensor: up to 7 dimensions plus a batch dimension.
// Layout is column-major (Eigen's default) and the batch dimension is outermost, so one batch
// element is a contiguous block of batch_size() floats and batch elements follow each other.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

namespace dynet {

struct Dim {
  static constexpr unsigned kMaxDims = 7;
  /// The most elements one tensor holds, batch included (2^31 - 1): the GEMM backends (Eigen,
  /// libxsmm, cuBLAS) take int dimensions, and kernels index within a tensor in 32 bits. Every
  /// node, parameter and lookup table is checked against it where it is made.
  static constexpr std::size_t kMaxElements = 0x7FFFFFFF;

  unsigned d[kMaxDims] = {1, 1, 1, 1, 1, 1, 1};
  unsigned nd = 0;  ///< number of dimensions in use (0 for a scalar)
  unsigned bd = 1;  ///< batch size

  Dim() = default;
  /// Dim({3, 4}) is a 3x4 matrix; Dim({3, 4}, 8) a batch of 8 of them. Zero sizes are rejected.
  Dim(std::initializer_list<unsigned> dims, unsigned batch = 1);
  Dim(const std::vector<unsigned>& dims, unsigned batch = 1);
  Dim(const std::vector<long>& dims);  // DyNet accepts {n, m} written with int literals
  /// The shape of a parameter or of a lookup table's rows, where a size may be 0 as in DyNet:
  /// programs make parameters they never use, of a layer whose size an option set to 0. No
  /// expression holds one (parameter and lookup nodes of no values are refused).
  static Dim of_parameter(const std::vector<unsigned>& dims);

  /// All elements, all batches; exact up to 2^64.
  std::size_t size() const { return batch_size() * bd; }
  /// Elements of one batch element.
  std::size_t batch_size() const {
    std::size_t s = 1;
    for (unsigned i = 0; i < nd; ++i) s *= d[i];
    return s;
  }
  /// Whether size() <= kMaxElements, told exactly whatever the sizes.
  bool fits() const {
    unsigned s = bd;
    bool over = false;
    for (unsigned i = 0; i < nd; ++i) over |= __builtin_mul_overflow(s, d[i], &s);
    return !over && s <= kMaxElements;
  }
  unsigned batch_elems() const { return bd; }
  unsigned ndims() const { return nd; }
  unsigned rows() const { return d[0]; }
  unsigned cols() const { return nd > 1 ? d[1] : 1; }
  /// Size of dimension i; dimensions beyond ndims() have size 1.
  unsigned operator[](unsigned i) const { return i < nd ? d[i] : 1; }
  /// DyNet's: how many dimensions have a size other than 1.
  unsigned num_nonone_dims() const {
    unsigned n = 0;
    for (unsigned i = 0; i < nd; ++i) n += d[i] != 1;
    return n;
  }
  unsigned sum_dims() const {
    unsigned s = 0;
    for (unsigned i = 0; i < nd; ++i) s += d[i];
    return s;
  }

  /// Sets dimension i (extending ndims() when i is past the end).
  void set(unsigned i, unsigned s);
  /// Drops trailing dimensions of size 1, keeping at least `keep`.
  Dim truncate(unsigned keep = 1) const {
    Dim r = *this;
    while (r.nd > keep && r.d[r.nd - 1] == 1) --r.nd;
    return r;
  }
  /// The same shape with batch size 1.
  Dim single_batch() const {
    Dim r = *this;
    r.bd = 1;
    return r;
  }
  Dim with_batch(unsigned b) const {
    Dim r = *this;
    r.bd = b;
    return r;
  }
  /// Removes dimension i, shifting later dimensions down.
  void delete_dim(unsigned i);
  Dim transpose() const;

  /// Same shape and batch size; trailing dimensions of size 1 do not count.
  bool operator==(const Dim& o) const { return bd == o.bd && same_shape(o); }
  bool operator!=(const Dim& o) const { return !(*this == o); }
  /// Same shape ignoring the batch size.
  bool same_shape(const Dim& o) const {
    const unsigned n = nd > o.nd ? nd : o.nd;
    for (unsigned i = 0; i < n; ++i)
      if ((*this)[i] != o[i]) return false;
    return true;
  }
};

std::ostream& operator<<(std::ostream& os, const Dim& d);
/// DyNet's notation: {3,4} for a matrix, {3,4X8} for a batch of 8.
std::string to_string(const Dim& d);
/// Throws std::invalid_argument "<what> {shape} has N elements; one tensor holds at most
/// 2147483647 (2^31-1) elements", for a d that does not fit().
[[noreturn]] void reject_size(const Dim& d, const std::string& what);

}  // namespace dynet
