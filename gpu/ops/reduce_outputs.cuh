#pragma once
// Reductions whose output element o is the sum of len terms, terms(o, k) for k < len (a sum over
// dimensions, a dot product, a loss summed over a batch element), without atomics: every sum is
// taken by one team of threads in a fixed order, so that a program gives the same numbers on
// every run, as the CPU does.

#include <cstddef>

#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

/// y[i] = the sum of terms(o, k) over piece p of output o's terms, i = o pieces + p; a piece holds
/// piece_len consecutive terms (the last one the rest).
template <class Team, class Terms>
__global__ void reduce_pieces_kernel(Terms terms, std::size_t outputs, std::size_t len, std::size_t pieces,
                                     std::size_t piece_len, float* y) {
  const Team t;
  for (std::size_t i = t.first(); i < outputs * pieces; i += t.stride()) {
    const std::size_t o = i / pieces, from = (i % pieces) * piece_len;
    const std::size_t to = from + piece_len < len ? from + piece_len : len;
    float s = 0.f;
    for (std::size_t k = from + t.rank(); k < to; k += t.size()) s += terms(o, k);
    s = t.reduce(s, Sum());
    if (t.rank() == 0) y[i] = s;
  }
}

/// The pieces of output o, as terms of the second pass.
struct PieceTerms {
  const float* partial;
  std::size_t pieces;
  __device__ float operator()(std::size_t o, std::size_t k) const { return partial[o * pieces + k]; }
};

/// Terms per block of a first pass before it is worth splitting an output.
constexpr std::size_t kPieceTerms = 4096;
/// Blocks the first pass aims at: a few per multiprocessor of a large GPU.
constexpr std::size_t kPieceBlocks = 1024;

/// y[o] = sum of terms(o, k), k < len, for every o < outputs (overwriting y). Many outputs: a team
/// each (launch_teams). Few long ones (a sum of a whole tensor) would leave the GPU idle: each is
/// split into pieces of at least kPieceTerms terms, a block sums each piece into scratch, and a
/// second pass sums each output's pieces in order. The split depends on the shape only.
template <class Terms>
void reduce_outputs(const OpCall& c, const char* what, const Terms& terms, std::size_t outputs, std::size_t len,
                    float* y) {
  if (outputs == 0) return;
  std::size_t pieces = len / kPieceTerms;
  if (pieces > kPieceBlocks / outputs) pieces = kPieceBlocks / outputs;
  if (pieces < 2) {
    launch_teams(what, outputs, len, stream_of(c), reduce_pieces_kernel<WarpTeam, Terms>,
                 reduce_pieces_kernel<BlockTeam, Terms>, terms, outputs, len, std::size_t(1), len, y);
    return;
  }
  const std::size_t piece_len = (len + pieces - 1) / pieces;
  float* partial = c.scratch_floats(outputs * pieces);
  launch_teams(what, outputs * pieces, piece_len, stream_of(c), reduce_pieces_kernel<WarpTeam, Terms>,
               reduce_pieces_kernel<BlockTeam, Terms>, terms, outputs, len, pieces, piece_len, partial);
  launch_teams(what, outputs, pieces, stream_of(c), reduce_pieces_kernel<WarpTeam, PieceTerms>,
               reduce_pieces_kernel<BlockTeam, PieceTerms>, PieceTerms{partial, pieces}, outputs, pieces,
               std::size_t(1), pieces, y);
}

}  // namespace gpu
}  // namespace dynet
