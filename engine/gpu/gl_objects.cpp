// GL buffer and program wrappers; shader build errors name the file and carry the driver log.
#include "engine/gpu/gl_objects.hpp"

#include "shaders/shader_sources.hpp"

#include <vector>

namespace attnlab::gpu {

namespace {

const char* error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "an unknown GL error";
  }
}

}  // namespace

void check_gl(std::string_view what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return;
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  if (first == GL_OUT_OF_MEMORY) {
    throw GpuError("GPU out of memory while " + std::string(what) + "; try smaller matrices or --backend cpu");
  }
  throw GpuError("GPU error " + std::string(error_name(first)) + " while " + std::string(what));
}

void delete_gl_object(GlKind kind, GLuint id) {
  switch (kind) {
    case GlKind::Buffer: glDeleteBuffers(1, &id); return;
    case GlKind::Texture: glDeleteTextures(1, &id); return;
    case GlKind::Program: glDeleteProgram(id); return;
  }
}

Buffer::Buffer(std::size_t bytes, const void* data) : bytes_(bytes < 4 ? 4 : bytes) {
  GLuint id = 0;
  glGenBuffers(1, &id);
  id_ = GlName<GlKind::Buffer>(id);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes_), bytes >= bytes_ ? data : nullptr,
               GL_DYNAMIC_COPY);
  check_gl("allocating a " + std::to_string(bytes_) + "-byte buffer");
}

void Buffer::upload(const void* data, std::size_t bytes, std::size_t offset) {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id());
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
  check_gl("uploading to a buffer");
}

void Buffer::download(void* data, std::size_t bytes, std::size_t offset) const {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id());
  glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset), static_cast<GLsizeiptr>(bytes), data);
  check_gl("reading a buffer back");
}

void Buffer::clear() {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id());
  const GLuint zero = 0;
  glClearBufferData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
  check_gl("clearing a buffer");
}

BufferTexture::BufferTexture(const Buffer& buffer, GLenum format) {
  GLuint id = 0;
  glGenTextures(1, &id);
  id_ = GlName<GlKind::Texture>(id);
  glBindTexture(GL_TEXTURE_BUFFER, id);
  glTexBuffer(GL_TEXTURE_BUFFER, format, buffer.id());
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  check_gl("viewing a " + std::to_string(buffer.bytes()) + "-byte buffer as a texture");
}

void BufferTexture::bind(GLuint unit) const {
  glActiveTexture(GL_TEXTURE0 + unit);
  glBindTexture(GL_TEXTURE_BUFFER, id_.get());
  glActiveTexture(GL_TEXTURE0);
}

ComputeProgram::ComputeProgram(std::string_view file_name, std::string_view defines) {
  std::string source;
  try {
    source = shader_source(file_name);
  } catch (const std::exception& e) {
    throw GpuError(e.what());
  }
  build(file_name, source, defines);
}

ComputeProgram::ComputeProgram(std::string_view file_name, const std::string& source, std::string_view defines) {
  build(file_name, source, defines);
}

void ComputeProgram::build(std::string_view file_name, const std::string& source, std::string_view defines) {
  // #version must stay the first line, so the defines go right after it.
  std::string text = source;
  const size_t eol = text.find('\n');
  if (text.rfind("#version", 0) == 0 && eol != std::string::npos) {
    text.insert(eol + 1, std::string(defines) + "#line 2\n");
  } else {
    text.insert(0, defines);
  }
  const std::string where = "shaders/" + std::string(file_name);
  const GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  if (shader == 0) throw GpuError(where + ": the driver could not create a compute shader");
  const char* src = text.c_str();
  glShaderSource(shader, 1, &src, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  auto log_of = [](GLuint object, bool is_program) {
    GLint length = 0;
    if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<size_t>(length > 1 ? length : 1), '\0');
    if (is_program) glGetProgramInfoLog(object, length, nullptr, log.data());
    else glGetShaderInfoLog(object, length, nullptr, log.data());
    return std::string(log.data());
  };
  if (ok != GL_TRUE) {
    const std::string log = log_of(shader, false);
    glDeleteShader(shader);
    throw GpuError(where + " failed to compile:\n" + log);
  }
  id_ = GlName<GlKind::Program>(glCreateProgram());
  glAttachShader(id(), shader);
  glLinkProgram(id());
  glDeleteShader(shader);
  glGetProgramiv(id(), GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    const std::string log = log_of(id(), true);
    id_.reset();
    throw GpuError(where + " failed to link:\n" + log);
  }
  check_gl("building " + where);
}

void ComputeProgram::set(std::initializer_list<Uniform> uniforms) const {
  for (const Uniform& u : uniforms) {
    switch (u.kind) {
      case Uniform::Kind::UInt: set(u.name, u.u); break;
      case Uniform::Kind::Int: set(u.name, u.i); break;
      case Uniform::Kind::Float: set(u.name, u.f); break;
    }
  }
}

void bind_buffers(GLuint first, std::initializer_list<const Buffer*> buffers) {
  for (const Buffer* b : buffers) b->bind(first++);
}

void dispatch(GLuint groups_x, GLuint groups_y, GLuint groups_z) {
  if (groups_x == 0 || groups_y == 0 || groups_z == 0) return;
  glDispatchCompute(groups_x, groups_y, groups_z);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

}  // namespace attnlab::gpu
