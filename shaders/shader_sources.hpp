// Access to the GLSL files embedded from shaders/ at build time.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

// The text of shaders/<file_name> ("scores.comp"), with every `#include "x.glsl"` line replaced
// by that embedded file's text (one level deep is enough for our kernels, but nesting works).
// Throws std::runtime_error naming the file when it is not embedded.
std::string shader_source(std::string_view file_name);

// The GLSL ES 3.00 variant (WebGL2) of a desktop render shader's text: its `#version 330 core` line
// replaced by `#version 300 es` as the very first line (WebGL accepts nothing before it) and
// high-precision defaults, which ES requires and the desktop has anyway. One source for both.
std::string glsl_es_variant(std::string_view desktop_source);

}  // namespace attnlab
