// Runs with __EGL_VENDOR_LIBRARY_FILENAMES pointing at a missing file, so EGL has no driver:
// the GPU backend must refuse with a sentence (not abort inside libepoxy), and auto must fall back.
#include "cli/backend_select.hpp"
#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace attnlab {
namespace {

TEST(GpuFallback, HeadlessContextIsUnavailableWithASentence) {
  std::string why;
  EXPECT_FALSE(gpu::headless_gl_available(&why));
  EXPECT_NE(why.find("no GPU backend"), std::string::npos) << why;
  EXPECT_THROW(make_gpu_backend_headless(), BackendUnavailable);
}

TEST(GpuFallback, AutoAnswersOnTheCpuWithOneNoticeLine) {
  std::ostringstream notice;
  auto backend = cli::select_backend("auto", notice);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "cpu");
  const std::string text = notice.str();
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
}

TEST(GpuFallback, GpuRequestIsBackendUnavailable) {
  std::ostringstream notice;
  try {
    cli::select_backend("gpu", notice);
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("--backend gpu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace attnlab
