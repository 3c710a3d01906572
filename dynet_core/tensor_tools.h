#pragma once
// DyNet's TensorTools: element access and fills of a tensor from host code (slow: element by
// element; for inspection, tests and initialization, never inside a model's step).

#include <utility>
#include <vector>

#include "dynet_core/index_tensor.h"
#include "dynet_core/tensor.h"

namespace dynet {

struct TensorTools {
  /// v.v[index]; throws std::out_of_range outside the tensor.
  static float access_element(const Tensor& v, int index);
  /// The element at (row index[0], column index[1]) of a matrix (a column vector: index[1] = 0).
  static float access_element(const Tensor& v, const Dim& index);
  static void set_element(const Tensor& v, int index, float value);
  static void copy_element(const Tensor& l, int lindex, Tensor& r, int rindex);
  /// Copies `vec` into v; throws std::invalid_argument when the sizes differ.
  static void set_elements(const Tensor& v, const std::vector<float>& vec);
  static void copy_elements(Tensor& v, const Tensor& v_src);
  /// v += v_src.
  static void accumulate(Tensor& v, const Tensor& v_src);
  static void zero(Tensor& d);
  static void constant(Tensor& d, float c);
  static void clip(Tensor& d, float left, float right);
  /// A square matrix's identity.
  static void identity(Tensor& val);
  /// Draws from the engine of --dynet-seed, like the initializers.
  static void randomize_uniform(Tensor& val, real left = 0.0f, real right = 1.0f);
  static void randomize_normal(Tensor& val, real mean = 0.0f, real stddev = 1.0f);
  static void randomize_bernoulli(Tensor& val, real p, real scale = 1.0f);
  /// Per line along `dim` (batch elements apart), the indices of its `num` largest values, largest
  /// first (the lower index first among equals): an IndexTensor of its own with v's shape and size
  /// num along dim. DyNet has num = 1 only; std::invalid_argument for num 0 or past the line.
  static IndexTensor argmax(const Tensor& v, unsigned dim = 0, unsigned num = 1);
  /// Per line along `dim`, its `num` largest values, largest first, and their indices (argmax's):
  /// values shaped as the indices, in memory of v's device that the returned IndexTensor (and its
  /// copies) owns; keep it while the values are read.
  static std::pair<Tensor, IndexTensor> topk(const Tensor& v, unsigned dim = 0, unsigned num = 1);
  /// The same shape of indices, each drawn from the categorical distribution whose log
  /// probabilities are v's line along dim (the Gumbel-max trick, with the --dynet-seed engine).
  static IndexTensor categorical_sample_log_prob(const Tensor& v, unsigned dim = 0, unsigned num = 1);
};

}  // namespace dynet
