// Times variants of the scores kernel (S = Q Kᵀ) read from .comp files on disk, on a headless GL
// context, and checks each against a double-precision reference: the tool behind the kernel
// choices in docs/PERFORMANCE.md. Not part of the product.
//
// Usage: gpu_kernel_bench FILE.comp [n m dk local_x local_y rows_per_inv keys_per_inv layout runs warm_s]
//   e.g. build/gpu_kernel_bench shaders/scores.comp 1024 1024 4096 8 8 8 8 rows 3
//   layout: rows (K row-major: m × dk/4 vec4) or interleaved (K as dk/4 × m_pad vec4: for each
//   group of four dimensions, every key's four values in a row).
// The kernel gets Q (binding 0, n_pad × dk/4 vec4), K (binding 1), S (binding 2, n × m_pad floats)
// and the uniforms rows, keys, dk_vec4, s_stride (floats), k_stride (m_pad); one invocation
// covers rows_per_inv × keys_per_inv cells; the grid is (m / (local_x·keys), n / (local_y·rows)).
// Before the timed runs, dispatches go on for warm_s seconds (default 0): an idle card raises its
// clock only after a second or so of work, and 21 dispatches of a few milliseconds end before.
#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gl_objects.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace attnlab;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.comp [n m dk lx ly rows keys layout runs]\n", argv[0]);
    return 2;
  }
  auto arg = [&](int i, long def) { return argc > i ? std::atol(argv[i]) : def; };
  const size_t n = static_cast<size_t>(arg(2, 1024)), m = static_cast<size_t>(arg(3, 1024));
  const size_t dk = static_cast<size_t>(arg(4, 4096));
  const size_t lx = static_cast<size_t>(arg(5, 8)), ly = static_cast<size_t>(arg(6, 8));
  const size_t tr = static_cast<size_t>(arg(7, 4)), tk = static_cast<size_t>(arg(8, 4));
  const std::string layout = argc > 9 ? argv[9] : "rows";
  const int runs = static_cast<int>(arg(10, 3));
  const double warm_s = argc > 11 ? std::atof(argv[11]) : 0.0;

  // The file, with `#include "x.glsl"` lines replaced by x.glsl from the same folder (one level).
  const std::string path = argv[1], folder = path.substr(0, path.find_last_of('/') + 1);
  std::ifstream in(path);
  std::stringstream text;
  for (std::string line; std::getline(in, line);) {
    const size_t q = line.find('"');
    if (line.rfind("#include", 0) == 0 && q != std::string::npos) {
      std::ifstream inc(folder + line.substr(q + 1, line.rfind('"') - q - 1));
      text << inc.rdbuf() << "\n";
    } else {
      text << line << "\n";
    }
  }
  gpu::HeadlessContext context;
  gpu::ComputeProgram program(argv[1], text.str(), "");
  // The driver's binary of the kernel, to a file named by ATTNLAB_KERNEL_BINARY (NVIDIA's carries
  // its assembly as text): what the compiler made of the kernel.
  if (const char* dump = std::getenv("ATTNLAB_KERNEL_BINARY")) {
    GLint length = 0;
    glGetProgramiv(program.id(), GL_PROGRAM_BINARY_LENGTH, &length);
    std::vector<char> bytes(static_cast<size_t>(std::max(length, 0)));
    GLenum format = 0;
    if (length > 0) glGetProgramBinary(program.id(), length, nullptr, &format, bytes.data());
    std::ofstream(dump, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  const size_t dk4 = (dk + 3) / 4 * 4, m_pad = (m + 63) / 64 * 64, n_pad = (n + 63) / 64 * 64;
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  std::vector<float> q(n_pad * dk4, 0.0f), k(m_pad * dk4, 0.0f), kl(m_pad * dk4, 0.0f);
  for (size_t i = 0; i < n; ++i)
    for (size_t d = 0; d < dk; ++d) q[i * dk4 + d] = dist(rng);
  for (size_t j = 0; j < m; ++j)
    for (size_t d = 0; d < dk; ++d) k[j * dk4 + d] = dist(rng);
  if (layout == "interleaved") {
    for (size_t j = 0; j < m_pad; ++j)
      for (size_t d = 0; d < dk4; ++d) kl[(d / 4) * m_pad * 4 + j * 4 + d % 4] = k[j * dk4 + d];
  } else {
    kl = k;
  }
  gpu::Buffer qb(q.size() * 4, q.data()), kb(kl.size() * 4, kl.data()), sb(n_pad * m_pad * 4);
  program.use();
  qb.bind(0);
  kb.bind(1);
  sb.bind(2);
  // The same Q and K as RGBA32F buffer textures on units 0 and 1 (samplers q_tex, k_tex), for
  // kernels that read through texelFetch instead of storage-buffer loads.
  GLuint tex[2] = {0, 0};
  glGenTextures(2, tex);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, tex[0]);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, qb.id());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_BUFFER, tex[1]);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, kb.id());
  program.set("q_tex", GLint{0});
  program.set("k_tex", GLint{1});
  program.set("rows", static_cast<GLuint>(n));
  program.set("keys", static_cast<GLuint>(m));
  program.set("dk_vec4", static_cast<GLuint>(dk4 / 4));
  program.set("s_stride", static_cast<GLuint>(m_pad));
  program.set("k_stride", static_cast<GLuint>(m_pad));
  const GLuint gx = static_cast<GLuint>((m + lx * tk - 1) / (lx * tk));
  const GLuint gy = static_cast<GLuint>((n + ly * tr - 1) / (ly * tr));
  const auto warm_start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count() < warm_s) {
    gpu::dispatch(gx, gy);
    glFinish();
  }
  std::vector<double> ms;
  for (int r = 0; r < runs + 1; ++r) {
    glFinish();
    const auto t0 = std::chrono::steady_clock::now();
    gpu::dispatch(gx, gy);
    glFinish();
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  gpu::check_gl("running the kernel");
  std::vector<float> s(n_pad * m_pad);
  sb.download(s.data(), s.size() * 4);
  double err = 0, ref2 = 0;
  for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 61)) {
    for (size_t j = 0; j < m; ++j) {
      double acc = 0;
      for (size_t d = 0; d < dk; ++d) acc += static_cast<double>(q[i * dk4 + d]) * k[j * dk4 + d];
      err += (acc - s[i * m_pad + j]) * (acc - s[i * m_pad + j]);
      ref2 += acc * acc;
    }
  }
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  std::printf("%s n=%zu m=%zu dk=%zu local=%zux%zu tile=%zux%zu %s: %.1f ms, %.2f GFLOP/s, nmse %.1e\n", argv[1], n,
              m, dk, lx, ly, tr, tk, layout.c_str(), med, 2.0 * n * m * dk / med / 1e6, err / ref2);
  return err / ref2 < 1e-8 ? 0 : 1;
}
