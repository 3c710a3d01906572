#pragma once
// Progress of a training or evaluation loop: units done, rate and time left. On a terminal the
// bar is redrawn in place; otherwise (a log file, a pipe) a plain line is written periodically,
// so that logs stay readable.

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace examples {

class ProgressBar {
 public:
  /// Reports to std::cerr: a bar when it is a terminal, else a line every 10 seconds.
  ProgressBar(std::string label, std::size_t total, std::string unit);
  /// Reports to `out`, as a bar when `interactive`, else as lines; at most every `period_seconds`.
  ProgressBar(std::string label, std::size_t total, std::string unit, std::ostream& out, bool interactive,
              double period_seconds);

  /// `n` more units are done; `status` (such as "loss 1.23") ends the line.
  void advance(std::size_t n, const std::string& status = "");
  /// Writes the closing line: units done, time, rate and `status`.
  void finish(const std::string& status = "");

  std::size_t done() const { return done_; }
  double seconds() const;
  /// Units per second so far.
  double rate() const;

 private:
  void draw(const std::string& status);

  std::string label_, unit_;
  std::size_t total_, done_ = 0;
  std::ostream& out_;
  bool interactive_;
  double period_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// "0:07", "12:30" or "1:02:03".
std::string format_duration(double seconds);

}  // namespace examples
