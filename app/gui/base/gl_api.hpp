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

namespace attnlab::gui {

// Fills the 2-D texture `id` with `w` × `h` texels from `pixels` (laid out as `format` and `type`,
// rows aligned to `alignment` bytes) stored as `internal`, sampled with `filter` and clamped at its
// edges; leaves no texture bound.
inline void fill_clamped_texture(GLuint id, GLint filter, GLint internal, int w, int h, GLenum format, GLenum type,
                                 const void* pixels, GLint alignment) {
  glBindTexture(GL_TEXTURE_2D, id);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
  glTexImage2D(GL_TEXTURE_2D, 0, internal, w, h, 0, format, type, pixels);
  glBindTexture(GL_TEXTURE_2D, 0);
}

}  // namespace attnlab::gui
