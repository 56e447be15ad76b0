// Small file helpers the tests share.
#pragma once

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

}  // namespace attnlab
