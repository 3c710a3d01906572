#pragma once
// How tests of damaged files check a loader's promise: the load throws std::runtime_error and the
// model keeps every value and gradient, bit for bit.

#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>
#include <string>

#include "dynet_core/model_of_every_kind.h"

/// The message of the std::runtime_error `load` throws, after checking that `model` kept its
/// values and gradients; empty when it did not throw.
inline std::string load_refusal(const dynet::ParameterCollection& model, const std::function<void()>& load) {
  const auto before = snapshot_with_gradients(model);
  std::string message;
  try {
    load();
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(same_bits(snapshot_with_gradients(model), before));
  return message;
}
