// Small move-only RAII wrappers for the GL objects the compute backend uses (buffers, compute
// programs), and GL error checks that turn driver failures into exceptions.
#pragma once

#include <epoxy/gl.h>

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab::gpu {

// A GL failure (out of memory, invalid operation, shader build). The message says what failed.
class GpuError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Throws GpuError naming `what` when glGetError reports anything (and drains the error queue).
void check_gl(std::string_view what);

// The kinds of GL object the wrappers below own, and how each is deleted.
enum class GlKind { Buffer, Texture, Program };
void delete_gl_object(GlKind kind, GLuint id);

// A GL object's name, deleted when its owner goes: moved, never copied, and a moved-from name
// deletes nothing.
template <GlKind Kind>
class GlName {
public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  ~GlName() { reset(); }
  GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0u)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0u);
    }
    return *this;
  }

  GLuint get() const { return id_; }
  void reset() {
    if (id_ != 0) delete_gl_object(Kind, std::exchange(id_, 0u));
  }

private:
  GLuint id_ = 0;
};

// A shader storage buffer. Move-only; a moved-from buffer holds nothing.
class Buffer {
public:
  Buffer() = default;
  // Allocates `bytes` (at least 4) of GPU memory, filled from `data` when given. Throws GpuError on
  // out-of-memory.
  explicit Buffer(std::size_t bytes, const void* data = nullptr);

  GLuint id() const { return id_.get(); }
  std::size_t bytes() const { return id_.get() != 0 ? bytes_ : 0; }
  void bind(GLuint binding) const { glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id()); }
  void upload(const void* data, std::size_t bytes, std::size_t offset = 0);
  void download(void* data, std::size_t bytes, std::size_t offset = 0) const;
  // Sets every byte to zero.
  void clear();

private:
  GlName<GlKind::Buffer> id_;
  std::size_t bytes_ = 0;
};

// A buffer texture (GL_TEXTURE_BUFFER) viewing a Buffer, so kernels can read it with texelFetch,
// one vec4 (GL_RGBA32F) or one float (GL_R32F) per texel: on llvmpipe a vector gather instead of a
// per-lane loop of storage-buffer loads. Move-only; the viewed Buffer must outlive it.
class BufferTexture {
public:
  BufferTexture() = default;
  explicit BufferTexture(const Buffer& buffer, GLenum format = GL_RGBA32F);

  // Binds the texture to texture unit `unit` (the sampler uniform holds the unit number).
  void bind(GLuint unit) const;

private:
  GlName<GlKind::Texture> id_;
};

// One uniform's value for ComputeProgram::set: unsigned, signed or float, as the shader declares it.
struct Uniform {
  enum class Kind { UInt, Int, Float };
  Uniform(const char* n, GLuint v) : name(n), kind(Kind::UInt), u(v) {}
  Uniform(const char* n, GLint v) : name(n), kind(Kind::Int), i(v) {}
  Uniform(const char* n, float v) : name(n), kind(Kind::Float), f(v) {}
  // A size, count or offset: a uint in the shader (every one the kernels take fits in 32 bits).
  Uniform(const char* n, std::size_t v) : name(n), kind(Kind::UInt), u(static_cast<GLuint>(v)) {}
  const char* name;
  Kind kind;
  GLuint u = 0;
  GLint i = 0;
  float f = 0;
};

// A linked compute program built from one embedded shaders/ file. Move-only.
class ComputeProgram {
public:
  ComputeProgram() = default;
  // Builds shaders/<file_name> with `defines` ("#define X 1\n" lines) inserted after #version.
  // Throws GpuError naming the file and carrying the driver's log when compiling or linking fails.
  explicit ComputeProgram(std::string_view file_name, std::string_view defines = {});
  // Builds from source text directly (tests of the error path); `file_name` names it in errors.
  ComputeProgram(std::string_view file_name, const std::string& source, std::string_view defines);

  GLuint id() const { return id_.get(); }
  void use() const { glUseProgram(id()); }
  // Uniform setters by name (missing uniforms, optimized away, are ignored as GL does).
  void set(const char* name, GLuint v) const { glUniform1ui(glGetUniformLocation(id(), name), v); }
  void set(const char* name, GLint v) const { glUniform1i(glGetUniformLocation(id(), name), v); }
  void set(const char* name, float v) const { glUniform1f(glGetUniformLocation(id(), name), v); }
  void set(const char* name, GLuint x, GLuint y) const { glUniform2ui(glGetUniformLocation(id(), name), x, y); }
  // Several at once, each as its Uniform says: a dispatch's sizes and offsets in one list.
  void set(std::initializer_list<Uniform> uniforms) const;

private:
  void build(std::string_view file_name, const std::string& source, std::string_view defines);
  GlName<GlKind::Program> id_;
};

// Binds buffers[k] to storage-buffer binding point first + k, for the next dispatch.
void bind_buffers(GLuint first, std::initializer_list<const Buffer*> buffers);

// Dispatches and waits for the writes to be visible to later shader reads (storage buffers and
// texel fetches) and buffer downloads.
void dispatch(GLuint groups_x, GLuint groups_y = 1, GLuint groups_z = 1);

// Workgroups for `items` invocations of `per_group` each, and sizes rounded up to whole vec4 texels.
inline GLuint groups(std::size_t items, std::size_t per_group) {
  return static_cast<GLuint>((items + per_group - 1) / per_group);
}
inline std::size_t round4(std::size_t x) { return (x + 3) / 4 * 4; }

}  // namespace attnlab::gpu
