// What one build of the engine lacks, for the few tests that need it: the browser build
// (ATTNLAB_CAIRO=OFF, docs/WEB.md) draws no PNG or PDF itself, and says so, which
// figure_text_stb_test checks instead; it runs no programs and has no pipes (node's file system,
// under the unit tests), which a test skips with `#ifndef ATTNLAB_TEST_ON_DESKTOP`.
// tests/unit/CMakeLists.txt defines ATTNLAB_TEST_HAS_CAIRO and ATTNLAB_TEST_ON_DESKTOP, so no test
// asks the compiler which platform it is built for.
#pragma once

#include <gtest/gtest.h>

#ifdef ATTNLAB_TEST_HAS_CAIRO
#define ATTNLAB_NEEDS_CAIRO() (void)0
#else
#define ATTNLAB_NEEDS_CAIRO() GTEST_SKIP() << "this build has no Cairo: PNG and PDF are desktop-only (docs/WEB.md)"
#endif
