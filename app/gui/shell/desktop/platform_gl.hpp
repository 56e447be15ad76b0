// The desktop's OpenGL: every GL entry point through libepoxy (base/gl_api.hpp includes this).
#pragma once

#include <epoxy/gl.h>
