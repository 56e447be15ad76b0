// The edit catalogue: every named, undoable change to the document, each one call to apply().
#include "gui/state/edits.hpp"

#include "gui/state/compute_job.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace attnlab::gui {

namespace {

void resize_matrix(Matrix& M, Eigen::Index rows, Eigen::Index cols) {
  Matrix out = Matrix::Zero(rows, cols);
  const Eigen::Index r = std::min(rows, M.rows()), c = std::min(cols, M.cols());
  out.topLeftCorner(r, c) = M.topLeftCorner(r, c);
  M = std::move(out);
}

void resize_tokens(std::vector<std::string>& tokens, Eigen::Index count) {
  if (tokens.empty()) return;  // display_tokens() makes t1, t2, ... for an empty list
  const size_t old = tokens.size();
  tokens.resize(static_cast<size_t>(count));
  for (size_t k = old; k < tokens.size(); ++k) tokens[k] = "t" + std::to_string(k + 1);
}

// Keeps the mask valid for n × m: custom grids keep their cells, parameters are clamped.
void fit_mask(Mask& mask, Eigen::Index n, Eigen::Index m) {
  if (mask.kind == MaskKind::Custom) {
    BlockGrid g = BlockGrid::Zero(n, m);
    const Eigen::Index r = std::min(n, mask.blocked.rows()), c = std::min(m, mask.blocked.cols());
    g.topLeftCorner(r, c) = mask.blocked.topLeftCorner(r, c);
    mask.blocked = std::move(g);
  } else if (mask.kind == MaskKind::Padding || mask.kind == MaskKind::Prefix) {
    mask.param = static_cast<int>(std::min<Eigen::Index>(mask.param, m));
  } else if (mask.kind == MaskKind::Window) {
    mask.param = static_cast<int>(std::min<Eigen::Index>(mask.param, std::max(n, m)));
  }
}

// Keeps explicit rotary positions one per row: a longer list goes on counting from its last
// position, a shorter one is cut.
void fit_positions(std::vector<std::int64_t>& positions, Eigen::Index count) {
  if (positions.empty()) return;  // 0 … count − 1
  while (static_cast<Eigen::Index>(positions.size()) < count) positions.push_back(positions.back() + 1);
  positions.resize(static_cast<size_t>(count));
}

void fit_rope(Document& d) {
  const Scenario& s = d.scenario;
  for (std::optional<RopeSettings>* rope : {&d.scenario.options.rope, &d.rope_when_off}) {
    if (!*rope) continue;
    fit_positions((*rope)->query_positions, s.Q.rows());
    fit_positions((*rope)->key_positions, s.K.rows());
  }
}

void set_rows_n(Document& d, Eigen::Index n) {
  Scenario& s = d.scenario;
  resize_matrix(s.Q, n, s.Q.cols());
  resize_tokens(s.query_tokens, n);
}

void set_rows_m(Document& d, Eigen::Index m) {
  Scenario& s = d.scenario;
  resize_matrix(s.K, m, s.K.cols());
  resize_matrix(s.V, m, s.V.cols());
  resize_tokens(s.key_tokens, m);
}

// Self-attention: key tokens are the query tokens.
void link_tokens(Document& d) {
  if (d.self_attention) d.scenario.key_tokens = d.scenario.query_tokens;
}

// Names query (Which::Q) or key (Which::K) token k; the unnamed ones keep showing as t1, t2, ….
// Under self-attention the other list follows.
void rename_token(Document& d, Which which, int k, const std::string& text) {
  Scenario& sc = d.scenario;
  const bool query = which == Which::Q;
  auto& t = query ? sc.query_tokens : sc.key_tokens;
  t = display_tokens(t, query ? sc.Q.rows() : sc.K.rows());
  if (k < 0 || k >= static_cast<int>(t.size())) {
    throw InputError(std::string("there is no ") + (query ? "query" : "key") + " token " + std::to_string(k + 1));
  }
  t[static_cast<size_t>(k)] = text;
  if (d.self_attention) (query ? sc.key_tokens : sc.query_tokens) = t;
}

void apply_dim(Document& d, Dim dim, int value) {
  Scenario& s = d.scenario;
  if (value < 1) throw InputError(std::string(dim_name(dim)) + " must be at least 1");
  const bool tokens = dim == Dim::N || dim == Dim::M;
  if (value > (tokens ? kMaxTokens : kMaxDim)) {
    throw InputError(std::string(dim_name(dim)) + " must be at most " + std::to_string(tokens ? kMaxTokens : kMaxDim));
  }
  switch (dim) {
    case Dim::N:
      set_rows_n(d, value);
      if (d.self_attention) set_rows_m(d, value);
      break;
    case Dim::M:
      set_rows_m(d, value);
      if (d.self_attention) set_rows_n(d, value);
      break;
    case Dim::Dk:
      resize_matrix(s.Q, s.Q.rows(), value);
      resize_matrix(s.K, s.K.rows(), value);
      break;
    case Dim::Dv: resize_matrix(s.V, s.V.rows(), value); break;
  }
  link_tokens(d);
  fit_mask(s.options.mask, s.Q.rows(), s.K.rows());
  fit_rope(d);
}

struct Sizes {
  Eigen::Index n, m, dk, dv;
};

// The document's sizes after `dim` becomes `value` (n and m move together under self-attention).
Sizes resized(const Document& doc, Dim dim, int value) {
  Sizes z{dim_value(doc, Dim::N), dim_value(doc, Dim::M), dim_value(doc, Dim::Dk), dim_value(doc, Dim::Dv)};
  if (dim == Dim::N) z.n = value;
  if (dim == Dim::M) z.m = value;
  if (doc.self_attention && (dim == Dim::N || dim == Dim::M)) z.n = z.m = value;
  if (dim == Dim::Dk) z.dk = value;
  if (dim == Dim::Dv) z.dv = value;
  return z;
}

}  // namespace

namespace edits {

namespace {

Edit refusal(std::string sentence) {
  Edit e;
  e.refused = std::move(sentence);
  return e;
}

}  // namespace

Edit set_scale(bool on) {
  return {on ? "scale by √d_k" : "no √d_k scaling", [on](Document& d) { d.scenario.options.scale = on; }};
}

Edit toggle_scale(const Document& d) { return set_scale(!d.scenario.options.scale); }

Edit set_temperature(double t) {
  if (!std::isfinite(t)) return refusal("the temperature must be a finite number between 0.05 and 20");
  t = std::clamp(t, 0.05, 20.0);
  return {"set temperature", [t](Document& d) { d.scenario.options.temperature = t; }, "temperature"};
}

Edit set_rope(const Document& doc, bool on) {
  if (on == doc.scenario.options.rope.has_value()) return {};
  const int dk = dim_value(doc, Dim::Dk);
  if (on && dk % 2) {
    return refusal("RoPE turns the components of each query and key in pairs (t, t + d_k/2): d_k = " + std::to_string(dk) +
                   " is odd; make d_k even to turn it on");
  }
  return {on ? "RoPE on" : "RoPE off", [on](Document& d) {
            std::optional<RopeSettings>& rope = d.scenario.options.rope;
            if (on) {
              rope = d.rope_when_off ? *d.rope_when_off : RopeSettings{};
            } else {
              d.rope_when_off = rope;
              rope.reset();
            }
            fit_rope(d);
          }};
}

Edit toggle_rope(const Document& d) { return set_rope(d, !d.scenario.options.rope); }

Edit set_rope_theta(const Document& doc, double theta) {
  if (!doc.scenario.options.rope) return {};
  if (!std::isfinite(theta)) return refusal("RoPE's base θ must be a finite number between 1 and 10000000");
  theta = std::clamp(theta, 1.0, 1e7);
  return {"set RoPE θ", [theta](Document& d) { d.scenario.options.rope->theta = theta; }, "rope theta"};
}

Edit set_rope_position(const Document& doc, Which w, int row, long long position) {
  if (!doc.scenario.options.rope || w == Which::V) return {};
  if (position < 0 || position > kMaxPosition) {
    return refusal("a position must be a whole number from 0 to " + std::to_string(kMaxPosition));
  }
  return {"set a position", [w, row, position](Document& d) {
            RopeSettings& rope = *d.scenario.options.rope;
            const bool query = w == Which::Q;
            std::vector<std::int64_t>& list = query ? rope.query_positions : rope.key_positions;
            const Eigen::Index count = query ? d.scenario.Q.rows() : d.scenario.K.rows();
            if (row < 0 || row >= count) throw InputError("there is no row " + std::to_string(row + 1) + " to place");
            list = rope_positions(list, count);
            list[static_cast<size_t>(row)] = position;
          },
          "rope position"};
}

Edit shift_rope_positions(const Document& doc, long long delta) {
  if (!doc.scenario.options.rope || delta == 0) return {};
  return {"shift the positions", [delta](Document& d) {
            RopeSettings& rope = *d.scenario.options.rope;
            rope.query_positions = rope_positions(rope.query_positions, d.scenario.Q.rows());
            rope.key_positions = rope_positions(rope.key_positions, d.scenario.K.rows());
            std::int64_t lowest = kMaxPosition;
            for (const auto* list : {&rope.query_positions, &rope.key_positions})
              for (std::int64_t p : *list) lowest = std::min(lowest, p);
            const std::int64_t by = std::max<std::int64_t>(delta, -lowest);
            for (auto* list : {&rope.query_positions, &rope.key_positions}) {
              for (std::int64_t& p : *list) {
                if (p + by > kMaxPosition) throw InputError("a position would pass " + std::to_string(kMaxPosition));
                p += by;
              }
            }
          },
          "rope shift"};
}

Edit set_normalizer(Normalizer n) {
  return {std::string("normalizer ") + std::string(normalizer_name(n)), [n](Document& d) { d.scenario.options.normalizer = n; }};
}

Edit set_mask_kind(MaskKind kind) {
  return {std::string("mask ") + std::string(mask_kind_name(kind)), [kind](Document& d) {
            Mask& mask = d.scenario.options.mask;
            const Eigen::Index n = d.scenario.Q.rows(), m = d.scenario.K.rows();
            if (kind == MaskKind::Custom) {
              // Start from what the user sees, so "custom" means "edit this mask".
              mask.blocked = mask_grid(mask, n, m);
            } else {
              mask.blocked.resize(0, 0);
              switch (kind) {
                case MaskKind::Padding: mask.param = static_cast<int>(std::max<Eigen::Index>(1, m - 1)); break;
                case MaskKind::Prefix: mask.param = static_cast<int>(std::min<Eigen::Index>(2, m)); break;
                case MaskKind::Window: mask.param = static_cast<int>(std::min<Eigen::Index>(2, std::max(n, m))); break;
                default: mask.param = 0; break;
              }
            }
            mask.kind = kind;
          }};
}

Edit set_mask_param(int value) {
  return {"mask parameter", [value](Document& d) { d.scenario.options.mask.param = value; }, "mask parameter"};
}

Edit cycle_mask(const Document& d) {
  // The order of "The Query-Key-Value framework"'s mask family, then custom.
  const MaskKind order[] = {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Prefix, MaskKind::Window,
                            MaskKind::Custom};
  const MaskKind cur = d.scenario.options.mask.kind;
  size_t k = 0;
  while (k < std::size(order) && order[k] != cur) ++k;
  return set_mask_kind(order[(k + 1) % std::size(order)]);
}

Edit toggle_blocked(int i, int j) {
  return {"block/unblock a cell", [i, j](Document& d) {
            Mask& mask = d.scenario.options.mask;
            const Eigen::Index n = d.scenario.Q.rows(), m = d.scenario.K.rows();
            if (i < 0 || j < 0 || i >= n || j >= m)
              throw InputError("cell [" + std::to_string(i) + "][" + std::to_string(j) + "] is outside the scores");
            if (mask.kind != MaskKind::Custom) {
              mask.blocked = mask_grid(mask, n, m);
              mask.kind = MaskKind::Custom;
              mask.param = 0;
            }
            mask.blocked(i, j) = mask.blocked(i, j) ? 0 : 1;
          }};
}

Edit set_cell(Which w, int row, int col, float value) {
  const std::string at = std::string(which_name(w)) + "[" + std::to_string(row) + "][" + std::to_string(col) + "]";
  if (!std::isfinite(value)) return refusal(at + " must be a finite number");
  const std::string key = std::string("cell ") + which_name(w) + " " + std::to_string(row) + " " + std::to_string(col);
  return {"edit " + at,
          [=](Document& d) {
            Matrix& M = w == Which::Q ? d.scenario.Q : w == Which::K ? d.scenario.K : d.scenario.V;
            if (row < 0 || col < 0 || row >= M.rows() || col >= M.cols()) throw InputError("that cell is outside the matrix");
            M(row, col) = value;
          },
          key};
}

Edit resize(const Document& doc, Dim dim, int value) {
  if (value == dim_value(doc, dim)) return {};
  if (value >= 1) {
    const auto [n, m, dk, dv] = resized(doc, dim, value);
    if (std::string why = inputs_refusal(n, m, dk, dv, std::string(dim_name(dim)) + " = " + std::to_string(value)); !why.empty())
      return refusal(std::move(why));
  }
  return {std::string("set ") + dim_name(dim) + " = " + std::to_string(value), [dim, value](Document& d) { apply_dim(d, dim, value); }};
}

Edit set_self_attention(bool on) {
  return {on ? "self-attention" : "cross-attention", [on](Document& d) {
            d.self_attention = on;
            if (on) {
              set_rows_m(d, d.scenario.Q.rows());
              if (d.scenario.query_tokens.empty() != d.scenario.key_tokens.empty() && d.scenario.query_tokens.empty())
                d.scenario.query_tokens = display_tokens({}, d.scenario.Q.rows());
              link_tokens(d);
              fit_mask(d.scenario.options.mask, d.scenario.Q.rows(), d.scenario.K.rows());
            }
          }};
}

Edit fill(FillTarget target, Fill kind, float sigma, int seed) {
  const char* what = kind == Fill::Random ? "random" : kind == Fill::Identity ? "identity" : "zeros";
  const std::string target_name = target == FillTarget::All ? "Q, K, V" : which_name(static_cast<Which>(target));
  if (kind == Fill::Random && !(sigma > 0 && std::isfinite(sigma))) return refusal("σ must be a positive number");
  return {std::string("fill ") + target_name + " with " + what, [=](Document& d) {
            std::mt19937 rng(static_cast<std::uint32_t>(seed));
            std::normal_distribution<float> normal(0.0f, sigma);
            Matrix* mats[] = {&d.scenario.Q, &d.scenario.K, &d.scenario.V};
            for (int w = 0; w < 3; ++w) {
              if (target != FillTarget::All && target != static_cast<FillTarget>(w)) continue;
              Matrix& M = *mats[w];
              switch (kind) {
                case Fill::Random:
                  for (Eigen::Index i = 0; i < M.rows(); ++i)
                    for (Eigen::Index j = 0; j < M.cols(); ++j) M(i, j) = normal(rng);
                  break;
                case Fill::Identity: M.setIdentity(); break;
                case Fill::Zeros: M.setZero(); break;
              }
            }
          }};
}

Edit set_query_token(int i, const std::string& text) {
  return {"rename a query token", [=](Document& d) { rename_token(d, Which::Q, i, text); }, "query token " + std::to_string(i)};
}

Edit set_key_token(int j, const std::string& text) {
  return {"rename a key token", [=](Document& d) { rename_token(d, Which::K, j, text); }, "key token " + std::to_string(j)};
}

Edit tokens_from_sentence(const Document& doc, const std::string& sentence) {
  std::istringstream in(sentence);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) return refusal("the sentence has no words to use as tokens");
  const auto count = static_cast<Eigen::Index>(words.size());
  const double bytes = dense_bytes(count, doc.self_attention ? count : doc.scenario.K.rows());
  if (bytes > kConfirmBytes) {
    return refusal("that sentence has " + std::to_string(words.size()) + " tokens; its stages would need " + human_bytes(bytes) +
                   " (set n with the size controls instead)");
  }
  return {"tokens from a sentence", [words](Document& d) {
            const auto n = static_cast<Eigen::Index>(words.size());
            set_rows_n(d, n);
            d.scenario.query_tokens = words;
            if (d.self_attention) set_rows_m(d, n);
            link_tokens(d);
            fit_mask(d.scenario.options.mask, d.scenario.Q.rows(), d.scenario.K.rows());
          }};
}

Edit load_scenario(const Scenario& scenario, const std::string& name) {
  return {name, [scenario](Document& d) {
            d.scenario = scenario;
            const Scenario& sc = d.scenario;
            d.self_attention = sc.Q.rows() == sc.K.rows() &&
                               display_tokens(sc.query_tokens, sc.Q.rows()) == display_tokens(sc.key_tokens, sc.K.rows());
          }};
}

Edit load_matrix(const Document& doc, Which w, Matrix M, const std::string& file_name) {
  if (M.rows() < 1 || M.cols() < 1) return refusal(file_name + ": the matrix is empty");
  Eigen::Index n = doc.scenario.Q.rows(), m = doc.scenario.K.rows();
  if (w == Which::Q) n = M.rows();
  else m = M.rows();
  if (doc.self_attention) n = m = M.rows();
  if (M.rows() > kMaxTokens || M.cols() > kMaxDim) {
    return refusal(file_name + ": a " + std::to_string(M.rows()) + " × " + std::to_string(M.cols()) +
                   " matrix is larger than the editor's " + std::to_string(kMaxTokens) + " rows × " + std::to_string(kMaxDim) +
                   " columns");
  }
  const Eigen::Index dk = w == Which::V ? doc.scenario.Q.cols() : M.cols();
  const Eigen::Index dv = w == Which::V ? M.cols() : doc.scenario.V.cols();
  if (std::string why = inputs_refusal(n, m, dk, dv, file_name + " (" + std::to_string(M.rows()) + " rows)"); !why.empty())
    return refusal(std::move(why));
  return {std::string("load ") + which_name(w) + " from " + file_name, [w, M = std::move(M)](Document& d) {
            Scenario& sc = d.scenario;
            switch (w) {
              case Which::Q:
                apply_dim(d, Dim::N, static_cast<int>(M.rows()));
                apply_dim(d, Dim::Dk, static_cast<int>(M.cols()));
                sc.Q = M;
                break;
              case Which::K:
                apply_dim(d, Dim::M, static_cast<int>(M.rows()));
                apply_dim(d, Dim::Dk, static_cast<int>(M.cols()));
                sc.K = M;
                break;
              case Which::V:
                apply_dim(d, Dim::M, static_cast<int>(M.rows()));
                apply_dim(d, Dim::Dv, static_cast<int>(M.cols()));
                sc.V = M;
                break;
            }
          }};
}

}  // namespace edits

std::string inputs_refusal(Eigen::Index n, Eigen::Index m, Eigen::Index d_k, Eigen::Index d_v, const std::string& what) {
  const double bytes = input_bytes(n, m, d_k, d_v);
  if (bytes <= max_input_bytes()) return {};
  return what + " makes Q, K and V need " + human_bytes(bytes) + ", more than the " + human_bytes(max_input_bytes()) +
         " the editor allows itself on this machine";
}

std::optional<PendingResize> resize_question(const Document& doc, Dim dim, int value) {
  if (value == dim_value(doc, dim) || value < 1) return std::nullopt;
  const auto [n, m, dk, dv] = resized(doc, dim, value);
  if (!inputs_refusal(n, m, dk, dv, "").empty()) return std::nullopt;  // refused, not asked
  const double bytes = dense_bytes(n, m);
  const bool streams = gui_streams(n, m);
  if (bytes > kConfirmBytes || (streams && !gui_streams(dim_value(doc, Dim::N), dim_value(doc, Dim::M))))
    return PendingResize{true, dim, value, bytes, streams};
  return std::nullopt;
}


}  // namespace attnlab::gui
