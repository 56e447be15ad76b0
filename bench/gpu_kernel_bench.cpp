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
#include "engine/text/text_format.hpp"

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

namespace {

struct Options {
  std::string path, layout = "rows";
  size_t n = 1024, m = 1024, dk = 4096, lx = 8, ly = 8, tr = 4, tk = 4;
  int runs = 3;
  double warm_s = 0.0;
  size_t dk4() const { return (dk + 3) / 4 * 4; }
  size_t m_pad() const { return (m + 63) / 64 * 64; }
  size_t n_pad() const { return (n + 63) / 64 * 64; }
};

Options parse(int argc, char** argv) {
  auto arg = [&](int i, long def) {
    return static_cast<size_t>(argc > i ? std::atol(argv[i]) : def);
  };
  Options o;
  o.path = argv[1];
  o.n = arg(2, 1024);
  o.m = arg(3, 1024);
  o.dk = arg(4, 4096);
  o.lx = arg(5, 8);
  o.ly = arg(6, 8);
  o.tr = arg(7, 4);
  o.tk = arg(8, 4);
  if (argc > 9) o.layout = argv[9];
  o.runs = static_cast<int>(arg(10, 3));
  o.warm_s = argc > 11 ? std::atof(argv[11]) : 0.0;
  return o;
}

// The file, with `#include "x.glsl"` lines replaced by x.glsl from the same folder (one level).
std::string kernel_source(const std::string& path) {
  const std::string folder = path.substr(0, path.find_last_of('/') + 1);
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
  return text.str();
}

// The driver's binary of the kernel, to a file named by ATTNLAB_KERNEL_BINARY (NVIDIA's carries
// its assembly as text): what the compiler made of the kernel.
void dump_binary(const gpu::ComputeProgram& program) {
  const char* dump = std::getenv("ATTNLAB_KERNEL_BINARY");
  if (!dump) return;
  GLint length = 0;
  glGetProgramiv(program.id(), GL_PROGRAM_BINARY_LENGTH, &length);
  std::vector<char> bytes(static_cast<size_t>(std::max(length, 0)));
  GLenum format = 0;
  if (length > 0) glGetProgramBinary(program.id(), length, nullptr, &format, bytes.data());
  std::ofstream(dump, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Q and K of standard normals, zero-padded; kl is K in the kernel's layout.
struct Operands {
  std::vector<float> q, k, kl;
};

Operands random_operands(const Options& o) {
  const size_t dk4 = o.dk4(), m_pad = o.m_pad();
  std::mt19937 rng(1);
  std::normal_distribution<float> dist;
  Operands x{std::vector<float>(o.n_pad() * dk4, 0.0f), std::vector<float>(m_pad * dk4, 0.0f), {}};
  for (size_t i = 0; i < o.n; ++i)
    for (size_t d = 0; d < o.dk; ++d) x.q[i * dk4 + d] = dist(rng);
  for (size_t j = 0; j < o.m; ++j)
    for (size_t d = 0; d < o.dk; ++d) x.k[j * dk4 + d] = dist(rng);
  if (o.layout == "interleaved") {
    x.kl.assign(m_pad * dk4, 0.0f);
    for (size_t j = 0; j < m_pad; ++j)
      for (size_t d = 0; d < dk4; ++d) x.kl[(d / 4) * m_pad * 4 + j * 4 + d % 4] = x.k[j * dk4 + d];
  } else {
    x.kl = x.k;
  }
  return x;
}

// Dispatches for warm_s seconds, then the median of `runs` timed ones (after one untimed), ms.
double median_dispatch_ms(GLuint gx, GLuint gy, int runs, double warm_s) {
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
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// S's squared error against double-precision dot products, over about 61 of its rows, relative to
// their squared norm.
double normalized_error(const Options& o, const Operands& x, const std::vector<float>& s) {
  const size_t dk4 = o.dk4(), m_pad = o.m_pad();
  double err = 0, ref2 = 0;
  for (size_t i = 0; i < o.n; i += std::max<size_t>(1, o.n / 61)) {
    for (size_t j = 0; j < o.m; ++j) {
      double acc = 0;
      for (size_t d = 0; d < o.dk; ++d) acc += static_cast<double>(x.q[i * dk4 + d]) * x.k[j * dk4 + d];
      err += (acc - s[i * m_pad + j]) * (acc - s[i * m_pad + j]);
      ref2 += acc * acc;
    }
  }
  return err / ref2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.comp [n m dk lx ly rows keys layout runs warm_s]\n", argv[0]);
    return 2;
  }
  const Options o = parse(argc, argv);
  gpu::HeadlessContext context;
  gpu::ComputeProgram program(o.path, kernel_source(o.path), "");
  dump_binary(program);

  const Operands x = random_operands(o);
  gpu::Buffer qb(x.q.size() * 4, x.q.data()), kb(x.kl.size() * 4, x.kl.data()), sb(o.n_pad() * o.m_pad() * 4);
  program.use();
  qb.bind(0);
  kb.bind(1);
  sb.bind(2);
  // The same Q and K as RGBA32F buffer textures on units 0 and 1 (samplers q_tex, k_tex), for
  // kernels that read through texelFetch instead of storage-buffer loads.
  const gpu::BufferTexture q_tex(qb), k_tex(kb);
  q_tex.bind(0);
  k_tex.bind(1);
  program.set("q_tex", GLint{0});
  program.set("k_tex", GLint{1});
  program.set("rows", static_cast<GLuint>(o.n));
  program.set("keys", static_cast<GLuint>(o.m));
  program.set("dk_vec4", static_cast<GLuint>(o.dk4() / 4));
  program.set("s_stride", static_cast<GLuint>(o.m_pad()));
  program.set("k_stride", static_cast<GLuint>(o.m_pad()));
  const GLuint gx = static_cast<GLuint>((o.m + o.lx * o.tk - 1) / (o.lx * o.tk));
  const GLuint gy = static_cast<GLuint>((o.n + o.ly * o.tr - 1) / (o.ly * o.tr));
  const double med = median_dispatch_ms(gx, gy, o.runs, o.warm_s);

  std::vector<float> s(o.n_pad() * o.m_pad());
  sb.download(s.data(), s.size() * 4);
  const double nmse = normalized_error(o, x, s);
  std::printf("%s n=%zu m=%zu dk=%zu local=%zux%zu tile=%zux%zu %s: %s ms, %s GFLOP/s, nmse %s\n", o.path.c_str(), o.n, o.m,
              o.dk, o.lx, o.ly, o.tr, o.tk, o.layout.c_str(), attnlab::fixed_decimals(med, 1).c_str(),
              attnlab::fixed_decimals(2.0 * o.n * o.m * o.dk / med / 1e6, 2).c_str(), attnlab::scientific(nmse, 1).c_str());
  return nmse < 1e-8 ? 0 : 1;
}
