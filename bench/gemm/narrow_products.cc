// Products over a weight at a few columns, the shapes one example a graph runs: a tree's levels
// (1-4 nodes), a recurrence's steps. For each weight and column count, the microseconds a product
// takes through dynet::gemm, W x and the accumulated W^T dy of backward, the weight cycling among
// five copies so that it comes from L2 as in a pass over a graph. Best of five trials.
//   narrow_products [--columns N | --at N,N,...] [ROWSxCOLS ...]
// (columns 1 to N, default 8, or the counts listed; weights default 128x256 128x128 200x50 200x128)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dynet_core/dybatch.h"
#include "dynet_core/gemm/gemm.h"

using namespace dynet;

namespace {

struct Shape {
  unsigned rows, cols;
};

/// Seconds a call of `product` takes, best of five trials of `reps` calls.
template <class Product>
double best_time(int reps, Product&& product) {
  double best = 1e30;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) product(r);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  std::vector<unsigned> columns;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--columns" && i + 1 < argc) {
      columns.clear();
      for (int n = 1, most = std::atoi(argv[++i]); n <= most; ++n) columns.push_back(unsigned(n));
      continue;
    }
    if (arg == "--at" && i + 1 < argc) {
      columns.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        const long n = std::strtol(p, &end, 10);
        if (end == p || n <= 0) {
          std::fprintf(stderr, "narrow_products: '%s' is not a list of column counts (e.g. 9,16,32)\n", argv[i]);
          return 2;
        }
        columns.push_back(unsigned(n));
        p = *end == ',' ? end + 1 : end;
      }
      continue;
    }
    Shape s{};
    if (std::sscanf(arg.c_str(), "%ux%u", &s.rows, &s.cols) != 2 || s.rows == 0 || s.cols == 0) {
      std::fprintf(stderr, "narrow_products: '%s' is not ROWSxCOLS (e.g. 128x256)\n", arg.c_str());
      return 2;
    }
    shapes.push_back(s);
  }
  if (shapes.empty()) shapes = {{128, 256}, {128, 128}, {200, 50}, {200, 128}};
  if (columns.empty())
    for (unsigned n = 1; n <= 8; ++n) columns.push_back(n);
  Device* dev = default_device();
  constexpr unsigned kCopies = 5;
  std::printf("%-10s %7s %12s %12s\n", "weight", "columns", "W x us", "W^T dy us");
  for (const Shape& s : shapes) {
    std::vector<std::vector<float>> w(kCopies, std::vector<float>(std::size_t(s.rows) * s.cols));
    for (unsigned c = 0; c < kCopies; ++c)
      for (std::size_t e = 0; e < w[c].size(); ++e) w[c][e] = 0.001f * float((e * 7 + c) % 1000) - 0.5f;
    const int reps = std::max(1000, int(2e8 / (double(s.rows) * s.cols)));
    for (const unsigned n : columns) {
      std::vector<float> x(std::size_t(s.cols) * n, 0.25f), y(std::size_t(s.rows) * n);
      std::vector<float> dy(std::size_t(s.rows) * n, 0.125f), dx(std::size_t(s.cols) * n, 0.f);
      const double forward = best_time(reps, [&](int r) {
        gemm(Tensor(Dim({s.rows, n}), y.data(), dev), Tensor(Dim({s.rows, s.cols}), w[r % kCopies].data(), dev), false,
             Tensor(Dim({s.cols, n}), x.data(), dev), false, false);
      });
      const double backward = best_time(reps, [&](int r) {
        gemm(Tensor(Dim({s.cols, n}), dx.data(), dev), Tensor(Dim({s.rows, s.cols}), w[r % kCopies].data(), dev), true,
             Tensor(Dim({s.rows, n}), dy.data(), dev), false, true);
      });
      std::printf("%4ux%-5u %7u %12.3f %12.3f\n", s.rows, s.cols, n, forward * 1e6, backward * 1e6);
    }
  }
  return 0;
}
