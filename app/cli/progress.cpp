// Progress lines on stderr for long streaming runs.
#include "cli/progress.hpp"

#include "engine/text/text_format.hpp"

#include <unistd.h>

#include <iostream>

namespace attnlab::cli {

StderrProgress::StderrProgress(std::string what)
    : what_(std::move(what)), start_(std::chrono::steady_clock::now()), last_(start_), tty_(isatty(2) != 0) {}

std::function<void(double)> StderrProgress::callback() {
  return [this](double fraction) {
    const auto now = std::chrono::steady_clock::now();
    // Once a second on a terminal (rewritten in place); every 5 s in logs.
    const auto every = std::chrono::seconds(tty_ ? 1 : 5);
    if (now - start_ < std::chrono::seconds(1) || now - last_ < every || fraction >= 1.0) return;
    last_ = now;
    shown_ = true;
    std::cerr << (tty_ ? "\r" : "") << "attnlab: " << what_ << ": " << percent(100.0 * fraction, 0, 3) << (tty_ ? "" : "\n")
              << std::flush;
  };
}

void StderrProgress::done() {
  if (!shown_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::cerr << (tty_ ? "\r" : "") << "attnlab: " << what_ << ": 100% in " << fixed_decimals(s, 1) << " s\n" << std::flush;
}

}  // namespace attnlab::cli
