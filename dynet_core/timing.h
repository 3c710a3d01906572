#pragma once
// DyNet's timers for programs: Timer reports its lifetime on std::cerr as "[msg N ms]" when it
// goes out of scope; Timing is a stopwatch; NamedTimer adds up time per name and prints a table.

#include <chrono>
#include <map>
#include <string>

namespace dynet {

struct Timer {
  explicit Timer(const std::string& msg);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  std::string msg;
  std::chrono::high_resolution_clock::time_point start;
};

struct Timing {
  Timing() : _start(std::chrono::high_resolution_clock::now()) {}
  /// Milliseconds since construction or the last start().
  double stop() const;
  void start() { _start = std::chrono::high_resolution_clock::now(); }

  std::chrono::high_resolution_clock::time_point _start;
};

class NamedTimer {
 public:
  /// Prints the table (show()) on std::cout when anything was timed.
  ~NamedTimer();
  void start(const std::string& name) { timers[name].start(); }
  void stop(const std::string& name) { cumtimes[name] += timers[name].stop(); }
  /// One line per name, shortest total first: milliseconds, share of the total, name.
  void show() const;

  std::map<std::string, double> cumtimes;
  std::map<std::string, Timing> timers;
};

}  // namespace dynet
