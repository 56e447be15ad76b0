// The browser's OpenGL: WebGL2 as OpenGL ES 3.0 (base/gl_api.hpp includes this).
#pragma once

#include <GLES3/gl3.h>
