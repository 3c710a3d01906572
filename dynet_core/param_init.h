#pragma once
// Parameter initializers (DyNet's names and conventions).

#include <string>
#include <vector>

#include "dynet_core/tensor.h"

namespace dynet {

class ParameterInit {
 public:
  virtual ~ParameterInit() = default;
  /// Fills `values` (a lookup table's: all its rows, the row count as the last dimension). DyNet's
  /// signature, so that programs' own initializers override it.
  virtual void initialize_params(Tensor& values) const = 0;
};

/// Gaussian with mean m and variance v.
class ParameterInitNormal : public ParameterInit {
 public:
  explicit ParameterInitNormal(float m = 0.f, float v = 1.f);
  void initialize_params(Tensor& values) const override;

 private:
  float mean_, variance_;
};

/// Uniform on [left, right]; one argument means [-scale, scale].
class ParameterInitUniform : public ParameterInit {
 public:
  explicit ParameterInitUniform(float scale) : ParameterInitUniform(-scale, scale) {}
  ParameterInitUniform(float left, float right);
  void initialize_params(Tensor& values) const override;

 private:
  float left_, right_;
};

class ParameterInitConst : public ParameterInit {
 public:
  explicit ParameterInitConst(float c) : c_(c) {}
  void initialize_params(Tensor& values) const override;

 private:
  float c_;
};

/// The identity matrix; the parameter must be square.
class ParameterInitIdentity : public ParameterInit {
 public:
  void initialize_params(Tensor& values) const override;
};

/// Glorot/Xavier as DyNet: uniform on +-gain*sqrt(3 n / sum of dims) over n dims, the last left out
/// with `is_lookup` (DyNet's add_lookup_parameters passes ParameterInitGlorot(true) by default);
/// a 4-d filter bank's bound is gain*sqrt(6 / fans), its fans (in + out channels) times its height
/// and width.
class ParameterInitGlorot : public ParameterInit {
 public:
  explicit ParameterInitGlorot(bool is_lookup = false, float gain = 1.f) : lookup_(is_lookup), gain_(gain) {}
  void initialize_params(Tensor& values) const override;

 private:
  bool lookup_;
  float gain_;
};

/// Saxe et al.: a random orthogonal matrix times gain (square or rectangular matrices).
class ParameterInitSaxe : public ParameterInit {
 public:
  explicit ParameterInitSaxe(float gain = 1.f) : gain_(gain) {}
  void initialize_params(Tensor& values) const override;

 private:
  float gain_;
};

/// Values from a vector, which must have exactly as many elements as the parameter.
class ParameterInitFromVector : public ParameterInit {
 public:
  explicit ParameterInitFromVector(std::vector<float> v) : v_(std::move(v)) {}
  void initialize_params(Tensor& values) const override;

 private:
  std::vector<float> v_;
};

/// Values from a text file of whitespace-separated numbers.
class ParameterInitFromFile : public ParameterInit {
 public:
  explicit ParameterInitFromFile(std::string path) : path_(std::move(path)) {}
  void initialize_params(Tensor& values) const override;

 private:
  std::string path_;
};

}  // namespace dynet
