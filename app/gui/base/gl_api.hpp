// OpenGL for the GUI: include this, not a GL header, so that the desktop (libepoxy) and the browser
// (WebGL2 as OpenGL ES 3.0) see one API. Which header that is, is the platform's: CMake puts the
// desktop's platform_gl.hpp (app/gui/shell/desktop/) or the browser's (web/) on the include path.
#pragma once

#include "platform_gl.hpp"
// GLFW never pulls in a GL header of its own: the GUI's targets define GLFW_INCLUDE_NONE
// (app/gui/CMakeLists.txt).
