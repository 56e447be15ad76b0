// Progress lines on stderr for long streaming runs.
#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
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
    char pct[32];
    std::snprintf(pct, sizeof pct, "%3.0f%%", 100.0 * fraction);
    std::cerr << (tty_ ? "\r" : "") << "attnlab: " << what_ << ": " << pct << (tty_ ? "" : "\n") << std::flush;
  };
}

void StderrProgress::done() {
  if (!shown_) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char buf[48];
  std::snprintf(buf, sizeof buf, "100%% in %.1f s", s);
  std::cerr << (tty_ ? "\r" : "") << "attnlab: " << what_ << ": " << buf << "\n" << std::flush;
}

}  // namespace attnlab::cli
