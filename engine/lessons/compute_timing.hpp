// The two computations the browser build is held to (issue 19: within 3× of the native build), timed
// the same way in both: Backend::compute on the CPU engine, all stages and diagnostics, as the GUI's
// recompute runs it. Native: bench/compute_timing_main.cpp; browser: the page's
// attnlab_web_compute_timing (web/web_platform.cpp); bench/web_bench.mjs compares them.
#pragma once

#include "engine/attention/backend.hpp"

#include <string>

namespace attnlab {

// Median milliseconds of one computation of `p`, over `runs` samples (after one untimed warm-up).
// A sample times as many computations as fill 2 ms: a browser's clock is coarsened (to 0.1 ms in
// Chromium without cross-origin isolation), and the default lesson takes microseconds.
double median_compute_ms(Backend& backend, const Problem& p, int runs);

// {"default_lesson_ms": …, "causal_512_64_ms": …}: the default lesson, and n = m = 512, d_k = d_v =
// 64 with a causal mask, Q, K, V drawn from N(0, 1) with seed 1234.
std::string compute_timing_json(int runs);

}  // namespace attnlab
