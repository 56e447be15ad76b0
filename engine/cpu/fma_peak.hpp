// This machine's FP32 FMA peak, measured at run time, so that `attnlab bench` can say how far each
// stage is from what the CPU can do at all (machines of one kind differ by 1.6× in FMA speed, so
// milliseconds alone do not compare from one machine or day to the next).
#pragma once

#include "engine/attention/bench.hpp"

namespace attnlab {

// Measures the peak now: every thread runs independent multiply-add chains on vector registers
// (no memory traffic) at the same time, in `repetitions` rounds of about `round_ms` of CPU time
// each. Each thread is timed on its own CPU time (CLOCK_THREAD_CPUTIME_ID), so that other
// processes on a shared host do not lower the figure: it is what the cores do while they run the
// threads, and load shows up in a bench's fraction instead. The fastest round counts. The
// instruction set is the best this CPU has (kernels::table()). Takes about repetitions × round_ms
// on an idle machine.
FmaPeak measure_fma_peak(int threads, int repetitions = 5, double round_ms = 10);

// measure_fma_peak on OpenMP's thread count (the threads the CPU paths use), measured on the
// first call and kept for the life of the process. Not kept across processes (a file per boot):
// the probe costs ~0.05 s, and a virtual machine's cores change speed within minutes (1.6× between
// hosts of one kind, and twofold on one), so a stored figure could belong to another minute.
const FmaPeak& machine_fma_peak();

}  // namespace attnlab
