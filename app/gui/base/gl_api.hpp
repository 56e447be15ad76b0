// OpenGL for the GUI: through libepoxy on the desktop, WebGL2 as OpenGL ES 3.0 in the browser
// (emscripten's <GLES3/gl3.h>). Include this, not a GL header, so both builds see one API.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif
// After the GL header: GLFW must not pull in its own.
#ifndef GLFW_INCLUDE_NONE
#define GLFW_INCLUDE_NONE
#endif
