#include "dynet_core/host_random.h"

#include <stdexcept>
#include <string>

namespace dynet {

namespace {
std::mt19937 host_engine;
}  // namespace

std::mt19937* rndeng = &host_engine;

float rand01() { return std::uniform_real_distribution<float>(0.f, 1.f)(*rndeng); }

int rand0n(int n) {
  if (n <= 0) throw std::invalid_argument("rand0n: n = " + std::to_string(n) + "; expected n > 0");
  return std::uniform_int_distribution<int>(0, n - 1)(*rndeng);
}

float rand_normal() { return std::normal_distribution<float>(0.f, 1.f)(*rndeng); }

int draw_random_seed() { return std::uniform_int_distribution<int>(1, 2147483646)(*rndeng); }

}  // namespace dynet
