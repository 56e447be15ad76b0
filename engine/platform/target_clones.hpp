// ATTNLAB_TARGET_CLONES before a function: the function compiled for AVX-512 and AVX2 besides the
// baseline, the variant chosen once when the program loads (GCC's and clang's target_clones, an
// ifunc). x86-64 only: the browser's WebAssembly has one instruction set, and there it is nothing.
// The one place the engine asks which machine it is built for (docs/ARCHITECTURE.md, "Floors").
#pragma once

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
#define ATTNLAB_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ATTNLAB_TARGET_CLONES
#endif
