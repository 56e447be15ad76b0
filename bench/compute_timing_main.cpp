// compute_timing: the native side of the browser build's speed comparison (engine/lessons/compute_timing.hpp).
// Usage: compute_timing [RUNS]   prints one JSON line.
#include "engine/lessons/compute_timing.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  std::printf("%s\n", attnlab::compute_timing_json(runs).c_str());
  return 0;
}
