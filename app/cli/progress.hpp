// Progress of long engine runs on stderr: silent for the first second, then a percentage once a
// second rewritten in place on a terminal, or a line every 5 s when stderr is a file.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace attnlab::cli {

class StderrProgress {
public:
  explicit StderrProgress(std::string what);
  // The callback to hand to the engine (fraction of the work done, 0..1).
  std::function<void(double)> callback();
  // Ends the line on a terminal when anything was shown.
  void done();

private:
  std::string what_;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false;
  bool tty_ = false;
};

}  // namespace attnlab::cli
