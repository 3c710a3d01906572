#include "dynet_core/gemm/column_dots.h"

#include <cstddef>

#include <Eigen/Core>

namespace dynet {

namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr unsigned kWidth = Eigen::internal::packet_traits<float>::size;
// Eigen's packet traits take the vector type as their argument, whose alignment attribute GCC
// warns it drops there; the traits read nothing of it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
using PacketTraits = Eigen::internal::unpacket_traits<Packet>;
#pragma GCC diagnostic pop

/// A block is kBlockA columns of a by kBlockB of b, one accumulator an output: 16 of them where
/// the ISA has 32 vector registers (AVX-512), 8 where it has 16, beside the operands of a pass.
constexpr unsigned kBlockA = 4;
constexpr unsigned kBlockB = kWidth >= 16 ? 4 : 2;

// The last part of k, short of a vector, is read with masked loads where the ISA has them
// (AVX, AVX-512), which read nothing past the end; elsewhere it is added one by one.
constexpr bool kMaskedTail = PacketTraits::masked_load_available;

/// Acc += a * b over the vectors at offset r of the columns of a and b of an A x B block; the
/// first `mask` lanes only where mask is given.
template <unsigned A, unsigned B, class... Mask>
inline void dot_step(Packet (&acc)[A][B], const float* a, unsigned lda, const float* b, unsigned ldb, unsigned r,
                     Mask... mask) {
  using namespace Eigen::internal;
  Packet bv[B];
  _Pragma("GCC unroll 4") for (unsigned j = 0; j < B; ++j) bv[j] = ploadu<Packet>(b + std::size_t(j) * ldb + r, mask...);
  _Pragma("GCC unroll 4") for (unsigned i = 0; i < A; ++i) {
    const Packet av = ploadu<Packet>(a + std::size_t(i) * lda + r, mask...);
    _Pragma("GCC unroll 4") for (unsigned j = 0; j < B; ++j) acc[i][j] = pmadd(av, bv[j], acc[i][j]);
  }
}

/// The A x B outputs of columns [0, A) of a and [0, B) of b. One accumulator an output, added to
/// once per vector of k in order (the last one masked), then reduced: the same sums in every
/// block shape. The unroll pragmas keep the accumulators in registers (without them GCC 12
/// stores every accumulator on each pass of the k loop).
template <unsigned A, unsigned B, class Traits = PacketTraits>
void dot_block(const float* a, unsigned lda, const float* b, unsigned ldb, unsigned k, float* y, unsigned ldy,
               bool accumulate) {
  using namespace Eigen::internal;
  Packet acc[A][B];
  _Pragma("GCC unroll 4") for (unsigned i = 0; i < A; ++i)
    _Pragma("GCC unroll 4") for (unsigned j = 0; j < B; ++j) acc[i][j] = pset1<Packet>(0.f);
  unsigned r = 0;
  for (; r + kWidth <= k; r += kWidth) dot_step(acc, a, lda, b, ldb, r);
  if constexpr (kMaskedTail) {
    using Mask = typename Traits::mask_t;  // Traits, not PacketTraits: looked up only where masked loads exist
    if (r < k) dot_step(acc, a, lda, b, ldb, r, static_cast<Mask>((1u << (k - r)) - 1));
    r = k;
  }
  _Pragma("GCC unroll 4") for (unsigned i = 0; i < A; ++i)
    _Pragma("GCC unroll 4") for (unsigned j = 0; j < B; ++j) {
      float s = predux(acc[i][j]);
      for (unsigned t = r; t < k; ++t) s += a[std::size_t(i) * lda + t] * b[std::size_t(j) * ldb + t];
      float& out = y[std::size_t(j) * ldy + i];
      out = accumulate ? out + s : s;
    }
}

/// Columns [0, A) of a against every column of b: kBlockB at a time, then two, then one.
template <unsigned A>
void dot_rows(const float* a, unsigned lda, const float* b, unsigned ldb, unsigned k, unsigned n, float* y,
              unsigned ldy, bool accumulate) {
  unsigned j = 0;
  for (; j + kBlockB <= n; j += kBlockB)
    dot_block<A, kBlockB>(a, lda, b + std::size_t(j) * ldb, ldb, k, y + std::size_t(j) * ldy, ldy, accumulate);
  if (j + 2 <= n) {
    dot_block<A, 2>(a, lda, b + std::size_t(j) * ldb, ldb, k, y + std::size_t(j) * ldy, ldy, accumulate);
    j += 2;
  }
  if (j < n) dot_block<A, 1>(a, lda, b + std::size_t(j) * ldb, ldb, k, y + std::size_t(j) * ldy, ldy, accumulate);
}

}  // namespace

void column_dots(unsigned m, unsigned n, unsigned k, const float* a, unsigned lda, const float* b, unsigned ldb,
                 float* y, unsigned ldy, bool accumulate) {
  unsigned i = 0;
  for (; i + kBlockA <= m; i += kBlockA)
    dot_rows<kBlockA>(a + std::size_t(i) * lda, lda, b, ldb, k, n, y + i, ldy, accumulate);
  for (; i < m; ++i) dot_rows<1>(a + std::size_t(i) * lda, lda, b, ldb, k, n, y + i, ldy, accumulate);
}

}  // namespace dynet
