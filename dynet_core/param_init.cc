#include "dynet_core/param_init.h"

#include <Eigen/QR>
#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>

#include "dynet_core/device/device.h"
#include "dynet_core/random_engine.h"

namespace dynet {

// Values are drawn on the host, in the order the random engine always gave them, and then
// transferred, so that a model initialises alike on every device.
namespace {
template <class Dist>
void fill_random(Tensor& t, Dist dist) {
  std::vector<float> host(t.d.size());
  random_engine().with([&](std::mt19937_64& g) {
    for (float& x : host) x = dist(g);
  });
  t.device->to_device(t.v, host.data(), host.size());
}
}  // namespace

ParameterInitNormal::ParameterInitNormal(float m, float v) : mean_(m), variance_(v) {
  if (!(v >= 0)) throw std::invalid_argument("ParameterInitNormal: variance " + std::to_string(v) + " must be >= 0");
}

void ParameterInitNormal::initialize_params(Tensor& values) const {
  fill_random(values, std::normal_distribution<float>(mean_, std::sqrt(variance_)));
}

ParameterInitUniform::ParameterInitUniform(float left, float right) : left_(left), right_(right) {
  if (!(left < right))
    throw std::invalid_argument("ParameterInitUniform: the range [" + std::to_string(left) + ", " +
                                std::to_string(right) + "] is empty");
}

void ParameterInitUniform::initialize_params(Tensor& values) const {
  fill_random(values, std::uniform_real_distribution<float>(left_, right_));
}

void ParameterInitConst::initialize_params(Tensor& values) const {
  values.device->fill(values.v, c_, values.d.size());
}

void ParameterInitIdentity::initialize_params(Tensor& values) const {
  if (values.d.ndims() != 2 || values.d.rows() != values.d.cols())
    throw std::invalid_argument("ParameterInitIdentity: the parameter must be a square matrix, got " +
                                to_string(values.d));
  const unsigned n = values.d.rows();
  std::vector<float> host(std::size_t(n) * n, 0.f);
  for (unsigned i = 0; i < n; ++i) host[std::size_t(i) * n + i] = 1.f;
  values.device->to_device(values.v, host.data(), host.size());
}

void ParameterInitGlorot::initialize_params(Tensor& values) const {
  const Dim& d = values.d;
  // A lookup table's last dimension counts its rows, which are no fan; a 4-d tensor is a bank of
  // filters (height, width, channels in, channels out), whose fans count every filter position.
  // Otherwise the bound is DyNet's sqrt(3 n / sum of the n dims): sqrt(6 / (rows + cols)) for a
  // matrix, sqrt(3 / size) for a vector (a bias, a row of a table).
  const unsigned n = d.ndims() - (lookup_ && d.ndims() > 1 ? 1 : 0);
  unsigned fans = 0;
  if (n == 4)
    fans = (d[2] + d[3]) * d[0] * d[1];
  else
    for (unsigned k = 0; k < n; ++k) fans += d[k];
  if (fans == 0) fans = 1;
  const float spread = n == 4 ? 6.f : 3.f * static_cast<float>(n);
  const float scale = gain_ * std::sqrt(spread / static_cast<float>(fans));
  fill_random(values, std::uniform_real_distribution<float>(-scale, scale));
}

void ParameterInitSaxe::initialize_params(Tensor& values) const {
  if (values.d.ndims() > 2)
    throw std::invalid_argument("ParameterInitSaxe: needs a vector or matrix, got " + to_string(values.d));
  const unsigned r = values.d.rows(), c = values.d.cols();
  const unsigned n = std::max(r, c);
  Eigen::MatrixXf a(n, n);
  random_engine().with([&](std::mt19937_64& g) {
    std::normal_distribution<float> dist(0.f, 1.f);
    for (unsigned k = 0; k < n * n; ++k) a.data()[k] = dist(g);
  });
  Eigen::HouseholderQR<Eigen::MatrixXf> qr(a);
  Eigen::MatrixXf q = qr.householderQ();
  const Eigen::MatrixXf host = gain_ * q.topLeftCorner(r, c);
  values.device->to_device(values.v, host.data(), host.size());
}

void ParameterInitFromVector::initialize_params(Tensor& values) const {
  if (v_.size() != values.d.size())
    throw std::invalid_argument("ParameterInitFromVector: the parameter has dim " + to_string(values.d) + " (" +
                                std::to_string(values.d.size()) + " values), the vector has " +
                                std::to_string(v_.size()));
  values.device->to_device(values.v, v_.data(), v_.size());
}

void ParameterInitFromFile::initialize_params(Tensor& values) const {
  std::ifstream in(path_);
  if (!in) throw std::runtime_error("ParameterInitFromFile: cannot open '" + path_ + "'");
  std::vector<float> v;
  float x;
  while (in >> x) v.push_back(x);
  if (!in.eof())
    throw std::invalid_argument("ParameterInitFromFile: '" + path_ + "' holds something that is not a number after " +
                                std::to_string(v.size()) + " values");
  ParameterInitFromVector(std::move(v)).initialize_params(values);
}

}  // namespace dynet
