#pragma once
// DyNet's host-side random helpers, for programs that shuffle data or sample on the host. They
// draw from `rndeng`, a std::mt19937 seeded by initialize() from --dynet-seed (the seed in use),
// separate from the engine that initializers, dropout and noise draw from (random_engine.h).

#include <random>

namespace dynet {

extern std::mt19937* rndeng;

/// Uniform in [0, 1).
float rand01();
/// Uniform in {0, ..., n-1}; throws std::invalid_argument unless n > 0.
int rand0n(int n);
/// Standard normal.
float rand_normal();
/// A fresh seed drawn from rndeng.
int draw_random_seed();

}  // namespace dynet
