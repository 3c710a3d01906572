#include "dynet_core/tensor_tools.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "dynet_core/device/device.h"
#include "dynet_core/random_engine.h"

namespace dynet {

namespace {

std::size_t checked(const Tensor& v, long index, const char* who) {
  if (!v.v) throw std::invalid_argument(std::string("TensorTools::") + who + ": the tensor has no memory");
  if (index < 0 || static_cast<std::size_t>(index) >= v.d.size())
    throw std::out_of_range(std::string("TensorTools::") + who + ": index " + std::to_string(index) +
                            " is outside a tensor of dim " + to_string(v.d) + " (" + std::to_string(v.d.size()) +
                            " elements)");
  return static_cast<std::size_t>(index);
}

void check_same_size(const Tensor& a, const Tensor& b, const char* who) {
  if (a.d.size() != b.d.size())
    throw std::invalid_argument(std::string("TensorTools::") + who + ": dims " + to_string(a.d) + " and " +
                                to_string(b.d) + " differ in size");
}

// Tensors are device memory: each tool reads what it needs to the host, works there and writes back.

template <class Distribution>
void fill_random(Tensor& val, Distribution dist) {
  std::vector<float> host(val.d.size());
  random_engine().with([&](std::mt19937_64& e) { std::generate(host.begin(), host.end(), [&] { return dist(e); }); });
  set_from_host(val, host.data());
}

float element(const Tensor& v, std::size_t i) { return as_vector(Tensor(Dim({1}), v.v + i, v.device))[0]; }
void set_element_at(const Tensor& v, std::size_t i, float x) { set_from_host(Tensor(Dim({1}), v.v + i, v.device), &x); }

/// For each line of v along dim, the indices j of the `num` largest score(line value j), largest
/// first (the lower index first among equals); `num` > 1 only where `many` allows it.
template <class Score>
IndexTensor best_along(const Tensor& v, unsigned dim, unsigned num, bool many, const char* who, Score&& score) {
  // Messages only: built where one is thrown.
  const auto name = [who] { return std::string("TensorTools::") + who; };
  if (num != 1 && !many)
    throw std::runtime_error(name() + ": only num = 1 is supported (as in DyNet), got " + std::to_string(num));
  if (!v.v) throw std::invalid_argument(name() + ": the tensor has no memory");
  if (dim >= Dim::kMaxDims)
    throw std::invalid_argument(name() + ": dim " + std::to_string(dim) + " is not below " +
                                std::to_string(Dim::kMaxDims));
  const std::size_t n = v.d[dim];
  if (num == 0 || num > n)
    throw std::invalid_argument(name() + ": num = " + std::to_string(num) + " is not between 1 and the " +
                                std::to_string(n) + " values along dim " + std::to_string(dim) + " of " +
                                to_string(v.d));
  std::size_t stride = 1;
  for (unsigned k = 0; k < dim; ++k) stride *= v.d[k];
  Dim ids_dim = v.d;
  if (dim < ids_dim.ndims()) ids_dim.set(dim, num);
  IndexTensor ids(ids_dim, v.device);
  const std::vector<float> host = as_vector(v);
  const std::size_t outer = v.d.size() / (stride * n);
  std::vector<float> scores(n);
  std::vector<std::size_t> order(n);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t s = 0; s < stride; ++s) {
      const float* line = host.data() + o * stride * n + s;
      std::ptrdiff_t* out = ids.v + o * stride * num + s;
      for (std::size_t j = 0; j < n; ++j) scores[j] = score(line[j * stride]), order[j] = j;
      std::partial_sort(order.begin(), order.begin() + num, order.end(), [&](std::size_t a, std::size_t b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
      });
      for (unsigned r = 0; r < num; ++r) out[r * stride] = static_cast<std::ptrdiff_t>(order[r]);
    }
  return ids;
}

}  // namespace

IndexTensor TensorTools::argmax(const Tensor& v, unsigned dim, unsigned num) {
  return best_along(v, dim, num, true, "argmax", [](float x) { return x; });
}

std::pair<Tensor, IndexTensor> TensorTools::topk(const Tensor& v, unsigned dim, unsigned num) {
  IndexTensor ids = argmax(v, dim, num);
  const std::vector<float> host = as_vector(v);
  std::size_t stride = 1;
  for (unsigned k = 0; k < dim; ++k) stride *= v.d[k];
  const std::size_t n = v.d[dim], outer = v.d.size() / (stride * n);
  std::vector<float> top(ids.d.size());
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t r = 0; r < num; ++r)
      for (std::size_t s = 0; s < stride; ++s) {
        const std::size_t at = (o * num + r) * stride + s;
        top[at] = host[o * stride * n + std::size_t(ids.v[at]) * stride + s];
      }
  // On v's device, or on the host for a tensor of host memory (no device).
  Device* device = v.device;
  // Blocks come in whole alignment units, as the pools ask for them.
  const std::size_t align = AlignedMemoryPool::kAlign;
  const std::size_t bytes = (top.size() * sizeof(float) + align - 1) / align * align;
  void* block = device ? device->allocate_block(bytes) : std::malloc(bytes);
  if (!block)
    throw std::runtime_error("TensorTools::topk: no memory for " + std::to_string(bytes) + " bytes of values");
  ids.hold(std::shared_ptr<void>(block, [device, bytes](void* p) {
    if (device)
      device->free_block(p, bytes);
    else
      std::free(p);
  }));
  Tensor values(ids.d, static_cast<float*>(block), device);
  set_from_host(values, top.data());
  return {values, ids};
}

IndexTensor TensorTools::categorical_sample_log_prob(const Tensor& v, unsigned dim, unsigned num) {
  IndexTensor ids;
  random_engine().with([&](std::mt19937_64& e) {
    // Open at 0, so that neither logarithm meets 0.
    std::uniform_real_distribution<float> open01(std::numeric_limits<float>::min(), 1.f);
    ids = best_along(v, dim, num, false, "categorical_sample_log_prob",
                     [&](float log_p) { return log_p - std::log(-std::log(open01(e))); });
  });
  return ids;
}

float TensorTools::access_element(const Tensor& v, int index) {
  return element(v, checked(v, index, "access_element"));
}

float TensorTools::access_element(const Tensor& v, const Dim& index) {
  const long row = index[0], col = index.ndims() > 1 ? index[1] : 0;
  if (row >= v.d.rows() || col >= v.d.cols())
    throw std::out_of_range("TensorTools::access_element: (" + std::to_string(row) + ", " + std::to_string(col) +
                            ") is outside a tensor of dim " + to_string(v.d));
  return element(v, checked(v, col * v.d.rows() + row, "access_element"));
}

void TensorTools::set_element(const Tensor& v, int index, float value) {
  set_element_at(v, checked(v, index, "set_element"), value);
}

void TensorTools::copy_element(const Tensor& l, int lindex, Tensor& r, int rindex) {
  const std::size_t to = checked(r, rindex, "copy_element");
  set_element_at(r, to, element(l, checked(l, lindex, "copy_element")));
}

void TensorTools::set_elements(const Tensor& v, const std::vector<float>& vec) {
  // DyNet copies vec.size() values: fewer set the tensor's first elements, more would write past it.
  if (vec.size() > v.d.size())
    throw std::invalid_argument("TensorTools::set_elements: " + std::to_string(vec.size()) +
                                " values for a tensor of dim " + to_string(v.d) + " (" + std::to_string(v.d.size()) +
                                " elements)");
  if (!vec.empty()) set_from_host(Tensor(Dim({static_cast<unsigned>(vec.size())}), v.v, v.device), vec.data());
}

void TensorTools::copy_elements(Tensor& v, const Tensor& v_src) {
  check_same_size(v, v_src, "copy_elements");
  set_from_host(v, as_vector(v_src).data());
}

void TensorTools::accumulate(Tensor& v, const Tensor& v_src) {
  check_same_size(v, v_src, "accumulate");
  std::vector<float> sum = as_vector(v);
  const std::vector<float> add = as_vector(v_src);
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += add[i];
  set_from_host(v, sum.data());
}

void TensorTools::zero(Tensor& d) { constant(d, 0.f); }

void TensorTools::constant(Tensor& d, float c) { set_from_host(d, std::vector<float>(d.d.size(), c).data()); }

void TensorTools::clip(Tensor& d, float left, float right) {
  std::vector<float> host = as_vector(d);
  for (float& x : host) x = std::min(right, std::max(left, x));
  set_from_host(d, host.data());
}

void TensorTools::identity(Tensor& val) {
  // std::runtime_error, as DyNet's.
  if (val.d.ndims() != 2 || val.d.rows() != val.d.cols())
    throw std::runtime_error("TensorTools::identity: dim " + to_string(val.d) + " is not a square matrix");
  // Every batch element (DyNet's sets the first and leaves the others as they were).
  const unsigned n = val.d.rows();
  std::vector<float> host(val.d.size(), 0.f);
  for (unsigned b = 0; b < val.d.bd; ++b)
    for (unsigned i = 0; i < n; ++i) host[(std::size_t(b) * n + i) * n + i] = 1.f;
  set_from_host(val, host.data());
}

void TensorTools::randomize_uniform(Tensor& val, real left, real right) {
  fill_random(val, std::uniform_real_distribution<float>(left, right));
}

void TensorTools::randomize_normal(Tensor& val, real mean, real stddev) {
  fill_random(val, std::normal_distribution<float>(mean, stddev));
}

void TensorTools::randomize_bernoulli(Tensor& val, real p, real scale) {
  std::bernoulli_distribution coin(p);
  fill_random(val, [&](std::mt19937_64& e) { return coin(e) ? scale : 0.f; });
}

}  // namespace dynet
