// GL side of big heatmaps: value textures, colormap lookup textures, one framebuffer per slot.
#include "gui/widgets/heatmap_renderer.hpp"

#include "shaders/shader_sources.hpp"

#include "gui/base/gl_api.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

namespace attnlab::gui {

namespace {

// A GL name with its deleter: move-only.
template <void (*Delete)(GLuint)>
class GlName {
public:
  GlName() = default;
  explicit GlName(GLuint id) : id_(id) {}
  GlName(GlName&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  ~GlName() { reset(); }
  GLuint get() const { return id_; }
  void reset() {
    if (id_) Delete(id_);
    id_ = 0;
  }

private:
  GLuint id_ = 0;
};

void delete_texture(GLuint id) { glDeleteTextures(1, &id); }
void delete_framebuffer(GLuint id) { glDeleteFramebuffers(1, &id); }
void delete_program(GLuint id) { glDeleteProgram(id); }
void delete_shader(GLuint id) { glDeleteShader(id); }
void delete_vertex_array(GLuint id) { glDeleteVertexArrays(1, &id); }

using Texture = GlName<delete_texture>;
using Framebuffer = GlName<delete_framebuffer>;
using Program = GlName<delete_program>;
using Shader = GlName<delete_shader>;
using VertexArray = GlName<delete_vertex_array>;

Texture new_texture() {
  GLuint id = 0;
  glGenTextures(1, &id);
  return Texture(id);
}

// `gles`: OpenGL ES (WebGL2), whose shaders need the ES variant of the source.
Shader compile(GLenum type, const char* file_name, bool gles) {
  const std::string src = gles ? attnlab::glsl_es_variant(attnlab::shader_source(file_name)) : attnlab::shader_source(file_name);
  Shader s(glCreateShader(type));
  const char* text = src.c_str();
  glShaderSource(s.get(), 1, &text, nullptr);
  glCompileShader(s.get());
  GLint ok = 0;
  glGetShaderiv(s.get(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetShaderiv(s.get(), GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetShaderInfoLog(s.get(), len, nullptr, log.data());
    throw std::runtime_error(std::string(file_name) + " does not compile: " + log);
  }
  return s;
}

struct Slot {
  Texture values;
  Texture color;
  Framebuffer fbo;
  int tex_cols = 0, tex_rows = 0;
  int width = 0, height = 0;
  std::uint64_t version = ~std::uint64_t{0};
  const Matrix* values_ptr = nullptr;
  // What the color texture currently shows.
  std::string map_name;
  double lo = 0, hi = 0;
  bool diverging = false;
  HeatmapView view{-1, -1, -1, -1};
  bool drawn = false;
};

// The GL state ImGui's backend expects back after a heatmap drew into its own framebuffer: kept on
// construction, restored on destruction.
class KeepGlState {
public:
  KeepGlState() {
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fbo_);
    glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao_);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active_);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &tex_);
    glGetIntegerv(GL_VIEWPORT, viewport_);
  }
  ~KeepGlState() {
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(fbo_));
    glUseProgram(static_cast<GLuint>(program_));
    glBindVertexArray(static_cast<GLuint>(vao_));
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(tex_));
    glActiveTexture(static_cast<GLenum>(active_));
    glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  }
  KeepGlState(const KeepGlState&) = delete;
  KeepGlState& operator=(const KeepGlState&) = delete;

private:
  GLint fbo_ = 0, program_ = 0, vao_ = 0, tex_ = 0, active_ = 0;
  GLint viewport_[4] = {0, 0, 0, 0};
};

// The request's values into the slot's value texture when they changed; true when they did.
// Blocked cells travel as a sentinel the shader hatches.
bool upload_values(Slot& slot, const HeatmapRequest& rq) {
  const Matrix& M = *rq.values;
  const int rows = static_cast<int>(M.rows()), cols = static_cast<int>(M.cols());
  if (slot.version == rq.version && slot.values_ptr == rq.values && slot.tex_rows == rows && slot.tex_cols == cols) return false;
  std::vector<float> data(static_cast<size_t>(rows) * static_cast<size_t>(cols));
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      const float v = M(i, j);
      const bool blocked = (rq.blocked && (*rq.blocked)(i, j)) || !std::isfinite(v);
      data[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)] = blocked ? 2.0e30f : v;
    }
  }
  if (!slot.values.get()) slot.values = new_texture();
  fill_clamped_texture(slot.values.get(), GL_NEAREST, GL_R32F, cols, rows, GL_RED, GL_FLOAT, data.data(), 4);
  slot.version = rq.version;
  slot.values_ptr = rq.values;
  slot.tex_rows = rows;
  slot.tex_cols = cols;
  return true;
}

// The slot's colour texture and framebuffer at w × h; true when they were (re)made.
bool size_target(Slot& slot, int w, int h) {
  if (slot.width == w && slot.height == h && slot.color.get()) return false;
  if (!slot.color.get()) slot.color = new_texture();
  glBindTexture(GL_TEXTURE_2D, slot.color.get());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  if (!slot.fbo.get()) {
    GLuint f = 0;
    glGenFramebuffers(1, &f);
    slot.fbo = Framebuffer(f);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, slot.fbo.get());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, slot.color.get(), 0);
  slot.width = w;
  slot.height = h;
  return true;
}

// Whether the colour texture shows something other than the request's map, range and view.
bool shows_other(const Slot& slot, const HeatmapRequest& rq) {
  const HeatmapView& v = rq.view;
  return slot.map_name != rq.map->name || slot.lo != rq.lo || slot.hi != rq.hi || slot.diverging != rq.diverging ||
         slot.view.x0 != v.x0 || slot.view.y0 != v.y0 || slot.view.x1 != v.x1 || slot.view.y1 != v.y1;
}

}  // namespace

struct HeatmapRenderer::Impl {
  Program program;
  VertexArray vao;
  std::map<std::string, Texture> luts;
  std::map<ImGuiID, Slot> slots;
  GLint u_values = -1, u_lut = -1, u_view = -1, u_cells = -1, u_target = -1, u_lo = -1, u_hi = -1, u_div = -1,
        u_hatch_a = -1, u_hatch_b = -1;

  GLuint lut(const Colormap& map) {
    auto it = luts.find(map.name);
    if (it != luts.end()) return it->second.get();
    Texture t = new_texture();
    std::vector<unsigned char> rgba(256 * 4);
    for (int k = 0; k < 256; ++k) {
      rgba[static_cast<size_t>(k) * 4 + 0] = map.table[static_cast<size_t>(k)].r;
      rgba[static_cast<size_t>(k) * 4 + 1] = map.table[static_cast<size_t>(k)].g;
      rgba[static_cast<size_t>(k) * 4 + 2] = map.table[static_cast<size_t>(k)].b;
      rgba[static_cast<size_t>(k) * 4 + 3] = 255;
    }
    glBindTexture(GL_TEXTURE_2D, t.get());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    const GLuint id = t.get();
    luts.emplace(map.name, std::move(t));
    return id;
  }

  // The request drawn into the slot's colour texture: the value texture through the colormap's
  // lookup texture, with blending and scissoring off for the pass.
  void draw(Slot& slot, const HeatmapRequest& rq) {
    const HeatmapView& v = rq.view;
    const GLuint lut_id = lut(*rq.map);
    glBindFramebuffer(GL_FRAMEBUFFER, slot.fbo.get());
    glViewport(0, 0, slot.width, slot.height);
    GLboolean blend = glIsEnabled(GL_BLEND), scissor = glIsEnabled(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glUseProgram(program.get());
    glBindVertexArray(vao.get());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, slot.values.get());
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, lut_id);
    glUniform1i(u_values, 0);
    glUniform1i(u_lut, 1);
    glUniform4f(u_view, v.x0, v.y0, v.x1, v.y1);
    glUniform2f(u_cells, static_cast<float>(slot.tex_cols), static_cast<float>(slot.tex_rows));
    glUniform2f(u_target, static_cast<float>(slot.width), static_cast<float>(slot.height));
    glUniform1f(u_lo, static_cast<float>(rq.lo));
    glUniform1f(u_hi, static_cast<float>(rq.hi));
    glUniform1i(u_div, rq.diverging ? 1 : 0);
    glUniform3f(u_hatch_a, rq.hatch_a.r / 255.0f, rq.hatch_a.g / 255.0f, rq.hatch_a.b / 255.0f);
    glUniform3f(u_hatch_b, rq.hatch_b.r / 255.0f, rq.hatch_b.g / 255.0f, rq.hatch_b.b / 255.0f);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (blend) glEnable(GL_BLEND);
    if (scissor) glEnable(GL_SCISSOR_TEST);
    slot.map_name = rq.map->name;
    slot.lo = rq.lo;
    slot.hi = rq.hi;
    slot.diverging = rq.diverging;
    slot.view = v;
    slot.drawn = true;
  }
};

HeatmapRenderer::HeatmapRenderer(bool gles) : impl_(std::make_unique<Impl>()) {
  Shader vs = compile(GL_VERTEX_SHADER, "heatmap.vert", gles);
  Shader fs = compile(GL_FRAGMENT_SHADER, "heatmap.frag", gles);
  impl_->program = Program(glCreateProgram());
  const GLuint p = impl_->program.get();
  glAttachShader(p, vs.get());
  glAttachShader(p, fs.get());
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    GLint len = 0;
    glGetProgramiv(p, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<size_t>(std::max(len, 1)), '\0');
    glGetProgramInfoLog(p, len, nullptr, log.data());
    throw std::runtime_error("heatmap.vert + heatmap.frag do not link: " + log);
  }
  impl_->u_values = glGetUniformLocation(p, "u_values");
  impl_->u_lut = glGetUniformLocation(p, "u_lut");
  impl_->u_view = glGetUniformLocation(p, "u_view");
  impl_->u_cells = glGetUniformLocation(p, "u_cells");
  impl_->u_target = glGetUniformLocation(p, "u_target");
  impl_->u_lo = glGetUniformLocation(p, "u_lo");
  impl_->u_hi = glGetUniformLocation(p, "u_hi");
  impl_->u_div = glGetUniformLocation(p, "u_diverging");
  impl_->u_hatch_a = glGetUniformLocation(p, "u_hatch_a");
  impl_->u_hatch_b = glGetUniformLocation(p, "u_hatch_b");
  GLuint vao = 0;
  glGenVertexArrays(1, &vao);
  impl_->vao = VertexArray(vao);
}

HeatmapRenderer::~HeatmapRenderer() = default;

ImTextureID HeatmapRenderer::render(ImGuiID slot_id, const HeatmapRequest& rq) {
  Slot& slot = impl_->slots[slot_id];
  const KeepGlState keep;
  // Both steps always run: new values and a new size each need their own upload.
  const bool values_changed = upload_values(slot, rq);
  const bool target_changed = size_target(slot, std::max(1, rq.width), std::max(1, rq.height));
  if (!slot.drawn || values_changed || target_changed || shows_other(slot, rq)) impl_->draw(slot, rq);
  return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(slot.color.get()));
}

}  // namespace attnlab::gui
