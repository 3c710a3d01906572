#include "dynet_core/timing.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <utility>
#include <vector>

namespace dynet {

Timer::Timer(const std::string& m) : msg(m), start(std::chrono::high_resolution_clock::now()) {}

Timer::~Timer() {
  const auto elapsed = std::chrono::high_resolution_clock::now() - start;
  std::cerr << '[' << msg << ' ' << std::chrono::duration<double, std::milli>(elapsed).count() << " ms]\n";
}

double Timing::stop() const {
  return std::chrono::duration<double, std::milli>(std::chrono::high_resolution_clock::now() - _start).count();
}

NamedTimer::~NamedTimer() {
  if (cumtimes.empty()) return;
  std::cout << "Timing Info:" << std::endl;
  show();
}

void NamedTimer::show() const {
  std::vector<std::pair<double, std::string>> rows;
  double total = 0.0;
  for (const auto& [name, ms] : cumtimes) {
    rows.emplace_back(ms, name);
    total += ms;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [ms, name] : rows)
    std::cout << std::setprecision(4) << std::setw(11) << ms << '\t' << (100.0 * ms / total) << "%\t" << name
              << std::endl;
  std::cout << std::setprecision(4) << std::setw(11) << total << "\t100%\t(total time)" << std::endl;
}

}  // namespace dynet
