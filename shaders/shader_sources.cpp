// Embedded shader lookup with #include expansion.
#include "shaders/shader_sources.hpp"

#include <map>
#include <stdexcept>

namespace attnlab_shaders {
const std::map<std::string, std::string_view>& files();
}

namespace attnlab {

namespace {

// Calls `line` with each line of `text`, without its '\n'.
template <class F>
void for_each_line(std::string_view text, F&& line) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    line(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
}

std::string expand(std::string_view name, int depth) {
  const auto& files = attnlab_shaders::files();
  const auto it = files.find(std::string(name));
  if (it == files.end()) throw std::runtime_error("shader " + std::string(name) + " is not embedded in this build");
  if (depth > 8) throw std::runtime_error("shader " + std::string(name) + ": #include nested too deeply");
  const std::string_view text = it->second;
  std::string out;
  for_each_line(text, [&](std::string_view line) {
    const size_t inc = line.find("#include");
    const size_t q1 = line.find('"');
    const size_t q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
    if (inc != std::string_view::npos && line.find_first_not_of(" \t") == inc && q2 != std::string_view::npos) {
      out += "// begin " + std::string(line.substr(q1 + 1, q2 - q1 - 1)) + "\n";
      out += expand(line.substr(q1 + 1, q2 - q1 - 1), depth + 1);
      out += "\n// end include\n";
    } else {
      out.append(line);
      out += '\n';
    }
  });
  return out;
}

}  // namespace

std::string shader_source(std::string_view file_name) { return expand(file_name, 0); }

std::string glsl_es_variant(std::string_view desktop_source) {
  std::string out = "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n";
  for_each_line(desktop_source, [&](std::string_view line) {
    const size_t first = line.find_first_not_of(" \t");
    // The desktop's version line stays as a comment, so the compiler's line numbers still match.
    if (first != std::string_view::npos && line.substr(first).starts_with("#version")) out += "// ";
    out.append(line);
    out += '\n';
  });
  return out;
}

}  // namespace attnlab
