// OpenGL for the GUI: include this, not a GL header, so that the desktop (libepoxy) and the browser
// (WebGL2 as OpenGL ES 3.0) see one API. Which header that is, is the platform's: its GL target
// names it in ATTNLAB_GL_HEADER (attnlab_gl_desktop: <epoxy/gl.h>, app/gui/shell/desktop/;
// attnlab_gl_web: <GLES3/gl3.h>, web/), and attnlab_gui links the one of its build (attnlab_gl).
#pragma once

#ifndef ATTNLAB_GL_HEADER
#error "ATTNLAB_GL_HEADER is defined by the platform's GL target: link attnlab_gl (app/gui/CMakeLists.txt)"
#endif
#include ATTNLAB_GL_HEADER
// GLFW never pulls in a GL header of its own: the GUI's targets define GLFW_INCLUDE_NONE
// (app/gui/CMakeLists.txt).
