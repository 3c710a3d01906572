#include "examples/common/progress_bar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace examples {

namespace {
constexpr int kBarWidth = 24;
constexpr double kRedrawSeconds = 0.1;
constexpr double kLogLineSeconds = 10.0;
}  // namespace

ProgressBar::ProgressBar(std::string label, std::size_t total, std::string unit)
    : ProgressBar(std::move(label), total, std::move(unit), std::cerr, isatty(fileno(stderr)) != 0,
                  isatty(fileno(stderr)) != 0 ? kRedrawSeconds : kLogLineSeconds) {}

ProgressBar::ProgressBar(std::string label, std::size_t total, std::string unit, std::ostream& out, bool interactive,
                         double period_seconds)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      out_(out),
      interactive_(interactive),
      period_(period_seconds),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

double ProgressBar::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double ProgressBar::rate() const {
  const double s = seconds();
  return s > 0 ? done_ / s : 0.0;
}

void ProgressBar::advance(std::size_t n, const std::string& status) {
  done_ += n;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_draw_).count() < period_) return;
  last_draw_ = now;
  draw(status);
}

void ProgressBar::draw(const std::string& status) {
  const double fraction = total_ ? std::min(1.0, double(done_) / total_) : 1.0;
  const double r = rate();
  const std::string eta = r > 0 ? format_duration((total_ > done_ ? total_ - done_ : 0) / r) : "?";
  std::ostringstream line;
  line << label_;
  if (interactive_) {
    const int filled = static_cast<int>(std::lround(fraction * kBarWidth));
    line << " [" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "]";
  } else {
    line << ":";
  }
  line << ' ' << std::setw(3) << static_cast<int>(fraction * 100) << "% " << done_ << '/' << total_ << ' ' << unit_
       << ", " << std::fixed << std::setprecision(1) << r << ' ' << unit_ << "/s, ETA " << eta;
  if (!status.empty()) line << ", " << status;
  if (interactive_)
    out_ << '\r' << line.str() << "\033[K" << std::flush;
  else
    out_ << line.str() << '\n' << std::flush;
}

void ProgressBar::finish(const std::string& status) {
  std::ostringstream line;
  line << label_ << ": " << done_ << ' ' << unit_ << " in " << std::fixed << std::setprecision(1) << seconds() << " s ("
       << rate() << ' ' << unit_ << "/s)";
  if (!status.empty()) line << ", " << status;
  if (interactive_) out_ << '\r' << "\033[K";
  out_ << line.str() << '\n' << std::flush;
}

std::string format_duration(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  const long h = total / 3600, m = (total / 60) % 60, s = total % 60;
  char text[32];
  if (h > 0)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", h, m, s);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", m, s);
  return text;
}

}  // namespace examples
