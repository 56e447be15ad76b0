// Access to the GLSL files embedded from shaders/ at build time.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

// The text of shaders/<file_name> ("scores.comp"), with every `#include "x.glsl"` line replaced
// by that embedded file's text (one level deep is enough for our kernels, but nesting works).
// Throws std::runtime_error naming the file when it is not embedded.
std::string shader_source(std::string_view file_name);

}  // namespace attnlab
