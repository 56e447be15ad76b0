// Small file helpers the tests share.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace attnlab {

// The whole file as bytes; empty when it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A folder for the running test alone under the system's temporary folder, named after `prefix`,
// the test and this process (ctest runs several tests at once, each in a process of its own), with
// nothing in it that an earlier run left. Not created: some tests want it missing.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                    std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace attnlab
