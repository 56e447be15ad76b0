// A built-in lesson with its CPU result: what figure and export tests draw and write.
#pragma once

#include "engine/cpu/dense.hpp"
#include "engine/lessons/presets.hpp"

namespace attnlab::test {

struct ComputedPreset {
  Scenario s;
  Result r;
};

inline ComputedPreset computed_preset(const char* name) {
  ComputedPreset c{load_preset(name), {}};
  c.r = compute_cpu(c.s.problem());
  return c;
}

}  // namespace attnlab::test
