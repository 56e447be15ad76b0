// <omp.h> for builds without OpenMP (ATTNLAB_OPENMP=OFF: the browser, which has no threads when a
// page is opened from file://): a team of one thread. With -fopenmp-simd the compiler ignores the
// parallel pragmas, so each parallel region runs once, as thread 0 of 1, and the simd pragmas
// still vectorize.
#pragma once

inline int omp_get_max_threads() { return 1; }
inline int omp_get_num_threads() { return 1; }
inline int omp_get_thread_num() { return 0; }
inline int omp_get_num_procs() { return 1; }
inline int omp_in_parallel() { return 0; }
inline void omp_set_num_threads(int) {}
