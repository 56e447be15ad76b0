// GPT-2's forward and backward passes for training, in pairs (llm.c's train_gpt2.c is the model):
// encoder, layernorm, matmul (Conv1D), attention, GELU, and the tied output with cross-entropy.
// Every product is an OpenBLAS gemm on a block of rows or columns owned by one OpenMP thread, and
// every sum over rows runs in a fixed order, so a step gives the same numbers on every run.
// Shapes: B sequences of T tokens, N = B·T rows; C = d_model, H heads of d = C/H, V symbols.
//
// [SECTION] helpers: thread blocks
// [SECTION] encoder: wte[ids] + wpe
// [SECTION] layernorm
// [SECTION] matmul: Conv1D, y = x·W + b
// [SECTION] attention: causal, per sequence and head
// [SECTION] gelu: the tanh GELU
// [SECTION] output: tied wte, softmax, cross-entropy
// [SECTION] the model: forward and backward over the layers
#include "engine/model/gpt2_train.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/model/gelu.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace attnlab::model {

namespace {

using I = std::int64_t;

// -------------------------------------------------------------------------------------------------
// [SECTION] helpers: thread blocks
// -------------------------------------------------------------------------------------------------

// Calls f(begin, end) on consecutive blocks of [0, n), one block per OpenMP thread (static, so
// the same thread count always gives the same blocks).
template <class F>
void blocks(I n, F f) {
  const I parts = std::max<I>(1, std::min<I>(omp_get_max_threads(), n));
  const I size = (n + parts - 1) / parts;
#pragma omp parallel for schedule(static)
  for (I p = 0; p < parts; ++p) {
    const I begin = p * size, end = std::min(n, begin + size);
    if (begin < end) f(begin, end);
  }
}

template <class S>
void resize(std::vector<S>& v, I n) {
  v.assign(static_cast<std::size_t>(n), S(0));
}

// -------------------------------------------------------------------------------------------------
// [SECTION] encoder: wte[ids] + wpe
// -------------------------------------------------------------------------------------------------

// out (N × C) = wte[ids[b, t]] + wpe[pos[b, t]]; ids, pos B × T.
template <class S>
void encoder_forward(S* out, const int* ids, const int* pos, const S* wte, const S* wpe, I B, I T, I C) {
  for (I b = 0; b < B; ++b) {
    for (I t = 0; t < T; ++t) {
      S* o = out + (b * T + t) * C;
      const S* e = wte + ids[b * T + t] * C;
      const S* p = wpe + I{pos[b * T + t]} * C;
      for (I c = 0; c < C; ++c) o[c] = e[c] + p[c];
    }
  }
}

// dwte (V × C) += dout at each token's row, dwpe (P × C) += dout at each position's; dout N × C.
// Serial: rows of wte are shared by every position holding the same token, and a fixed order keeps
// their sums the same on every run.
template <class S>
void encoder_backward(S* dwte, S* dwpe, const S* dout, const int* ids, const int* pos, I B, I T, I C) {
  for (I b = 0; b < B; ++b) {
    for (I t = 0; t < T; ++t) {
      const S* d = dout + (b * T + t) * C;
      S* e = dwte + ids[b * T + t] * C;
      S* p = dwpe + I{pos[b * T + t]} * C;
      for (I c = 0; c < C; ++c) {
        e[c] += d[c];
        p[c] += d[c];
      }
    }
  }
}

// -------------------------------------------------------------------------------------------------
// [SECTION] layernorm
// -------------------------------------------------------------------------------------------------

// out (N × C) = (inp − mean) · rstd · w + b per row, with mean and rstd (N each) kept; the mean and
// the biased variance accumulate in double, as the inference forward's (decoder_blocks.cpp).
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* w, const S* b, I N, I C, double eps) {
  blocks(N, [&](I r0, I r1) {
    for (I i = r0; i < r1; ++i) {
      const S* x = inp + i * C;
      double m = 0, v = 0;
      for (I c = 0; c < C; ++c) m += x[c];
      m /= static_cast<double>(C);
      for (I c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
      const double r = 1.0 / std::sqrt(v / static_cast<double>(C) + eps);
      S* y = out + i * C;
      for (I c = 0; c < C; ++c) y[c] = static_cast<S>((x[c] - m) * r) * w[c] + b[c];
      mean[i] = static_cast<S>(m);
      rstd[i] = static_cast<S>(r);
    }
  });
}

// dinp (N × C) += the gradient through the normalization; dw, db (C) += Σ_rows dout·norm, dout.
template <class S>
void layernorm_backward(S* dinp, S* dw, S* db, const S* dout, const S* inp, const S* mean, const S* rstd, const S* w, I N, I C) {
  blocks(N, [&](I r0, I r1) {
    for (I i = r0; i < r1; ++i) {
      const S* x = inp + i * C;
      const S* d = dout + i * C;
      double dnorm_mean = 0, dnorm_norm_mean = 0;
      for (I c = 0; c < C; ++c) {
        const double norm = (x[c] - mean[i]) * rstd[i];
        const double dnorm = static_cast<double>(w[c]) * d[c];
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * norm;
      }
      dnorm_mean /= static_cast<double>(C);
      dnorm_norm_mean /= static_cast<double>(C);
      S* dx = dinp + i * C;
      for (I c = 0; c < C; ++c) {
        const double norm = (x[c] - mean[i]) * rstd[i];
        const double dnorm = static_cast<double>(w[c]) * d[c];
        dx[c] += static_cast<S>((dnorm - dnorm_mean - norm * dnorm_norm_mean) * rstd[i]);
      }
    }
  });
  // The weight and bias sums run down the rows in order, a block of columns per thread.
  blocks(C, [&](I c0, I c1) {
    for (I i = 0; i < N; ++i) {
      const S* x = inp + i * C;
      const S* d = dout + i * C;
      for (I c = c0; c < c1; ++c) {
        dw[c] += (x[c] - mean[i]) * rstd[i] * d[c];
        db[c] += d[c];
      }
    }
  });
}

// -------------------------------------------------------------------------------------------------
// [SECTION] matmul: Conv1D, y = x·W + b
// -------------------------------------------------------------------------------------------------

// out (N × OC) = inp (N × C) · W (C × OC) + b (OC), a block of rows per thread.
template <class S>
void matmul_forward(S* out, const S* inp, const S* W, const S* b, I N, I C, I OC) {
  blocks(N, [&](I r0, I r1) {
    blas::gemm(false, false, r1 - r0, OC, C, inp + r0 * C, C, W, OC, S(0), out + r0 * OC, OC);
    for (I i = r0; i < r1; ++i) {
      S* o = out + i * OC;
      for (I c = 0; c < OC; ++c) o[c] += b[c];
    }
  });
}

// dinp (N × C) += dout · Wᵀ (skipped when null), dW (C × OC) += inpᵀ · dout, db (OC) += Σ_rows dout.
template <class S>
void matmul_backward(S* dinp, S* dW, S* db, const S* dout, const S* inp, const S* W, I N, I C, I OC) {
  if (dinp) {
    blocks(N, [&](I r0, I r1) { blas::gemm(false, true, r1 - r0, C, OC, dout + r0 * OC, OC, W, OC, S(1), dinp + r0 * C, C); });
  }
  blocks(OC, [&](I c0, I c1) {
    blas::gemm(true, false, C, c1 - c0, N, inp, C, dout + c0, OC, S(1), dW + c0, OC);
    for (I i = 0; i < N; ++i) {
      const S* d = dout + i * OC;
      for (I c = c0; c < c1; ++c) db[c] += d[c];
    }
  });
}

// -------------------------------------------------------------------------------------------------
// [SECTION] attention: causal, per sequence and head
// -------------------------------------------------------------------------------------------------

// qkv (N × 3C): each row is q, k, v side by side, head h's d columns at h·d within each.
// att (B × H × T × T) = the causal softmax of q kᵀ / √d; atty (N × C) = att · v, head h at column h·d.
template <class S>
void attention_forward(S* atty, S* att, const S* qkv, I B, I T, I C, I H) {
  const I d = C / H, C3 = 3 * C;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
#pragma omp parallel for schedule(static)
  for (I bh = 0; bh < B * H; ++bh) {
    const I b = bh / H, h = bh % H;
    const S* q = qkv + b * T * C3 + h * d;
    const S* k = q + C;
    const S* v = q + 2 * C;
    S* A = att + bh * T * T;
    blas::gemm(false, true, T, T, d, q, C3, k, C3, S(0), A, T);
    for (I i = 0; i < T; ++i) {
      S* a = A + i * T;
      S mx = a[0];
      for (I j = 1; j <= i; ++j) mx = std::max(mx, a[j]);
      double sum = 0;
      for (I j = 0; j <= i; ++j) {
        a[j] = static_cast<S>(std::exp((a[j] - mx) * scale));
        sum += a[j];
      }
      const S inv = static_cast<S>(1.0 / sum);
      for (I j = 0; j <= i; ++j) a[j] *= inv;
      std::fill(a + i + 1, a + T, S(0));
    }
    blas::gemm(false, false, T, d, T, A, T, v, C3, S(0), atty + b * T * C + h * d, C);
  }
}

// dqkv (N × 3C) = the gradients of q, k, v (written); datty N × C; att as the forward kept it.
// scratch: T × T per thread.
template <class S>
void attention_backward(S* dqkv, const S* datty, const S* qkv, const S* att, I B, I T, I C, I H) {
  const I d = C / H, C3 = 3 * C;
  const S scale = static_cast<S>(1.0 / std::sqrt(static_cast<double>(d)));
#pragma omp parallel
  {
    std::vector<S> D(static_cast<std::size_t>(T * T));
#pragma omp for schedule(static)
    for (I bh = 0; bh < B * H; ++bh) {
      const I b = bh / H, h = bh % H;
      const S* q = qkv + b * T * C3 + h * d;
      const S* k = q + C;
      const S* v = q + 2 * C;
      S* dq = dqkv + b * T * C3 + h * d;
      S* dk = dq + C;
      S* dv = dq + 2 * C;
      const S* A = att + bh * T * T;
      const S* dy = datty + b * T * C + h * d;
      // datt = dy vᵀ; dv = attᵀ dy.
      blas::gemm(false, true, T, T, d, dy, C, v, C3, S(0), D.data(), T);
      blas::gemm(true, false, T, d, T, A, T, dy, C, S(0), dv, C3);
      // Through the softmax: dlogit_ij = a_ij (datt_ij − Σ_k a_ik datt_ik), then the 1/√d.
      for (I i = 0; i < T; ++i) {
        const S* a = A + i * T;
        S* g = D.data() + i * T;
        double dot = 0;
        for (I j = 0; j <= i; ++j) dot += static_cast<double>(a[j]) * g[j];
        for (I j = 0; j <= i; ++j) g[j] = a[j] * (g[j] - static_cast<S>(dot)) * scale;
        std::fill(g + i + 1, g + T, S(0));
      }
      // dq = dS k; dk = dSᵀ q.
      blas::gemm(false, false, T, d, T, D.data(), T, k, C3, S(0), dq, C3);
      blas::gemm(true, false, T, d, T, D.data(), T, q, C3, S(0), dk, C3);
    }
  }
}

// -------------------------------------------------------------------------------------------------
// [SECTION] gelu: the tanh GELU
// -------------------------------------------------------------------------------------------------

// out = gelu(inp), elementwise over n (engine/model/gelu.hpp).
template <class S>
void gelu_forward(S* out, const S* inp, I n) {
  blocks(n, [&](I i0, I i1) {
#pragma omp simd
    for (I i = i0; i < i1; ++i) out[i] = gelu::value(inp[i]);
  });
}

// dinp = dout · gelu′(inp) (written), elementwise over n.
template <class S>
void gelu_backward(S* dinp, const S* inp, const S* dout, I n) {
  blocks(n, [&](I i0, I i1) {
#pragma omp simd
    for (I i = i0; i < i1; ++i) dinp[i] = dout[i] * gelu::derivative(inp[i]);
  });
}

// -------------------------------------------------------------------------------------------------
// [SECTION] output: tied wte, softmax, cross-entropy
// -------------------------------------------------------------------------------------------------

// probs (N × V) = softmax(inp (N × C) · wteᵀ); returns the summed −log p[target] over rows whose
// target is not −1 (a row's loss in double, the rows summed in order).
template <class S>
double output_forward(S* probs, const S* inp, const S* wte, const int* targets, I N, I C, I V) {
  std::vector<double> row_loss(static_cast<std::size_t>(N), 0.0);
  blocks(N, [&](I r0, I r1) {
    blas::gemm(false, true, r1 - r0, V, C, inp + r0 * C, C, wte, C, S(0), probs + r0 * V, V);
    for (I i = r0; i < r1; ++i) {
      S* p = probs + i * V;
      const S mx = *std::max_element(p, p + V);
      double sum = 0;
      for (I v = 0; v < V; ++v) sum += std::exp(static_cast<double>(p[v] - mx));
      const int t = targets[i];
      if (t >= 0) row_loss[static_cast<std::size_t>(i)] = std::log(sum) - static_cast<double>(p[t] - mx);
      for (I v = 0; v < V; ++v) p[v] = static_cast<S>(std::exp(static_cast<double>(p[v] - mx)) / sum);
    }
  });
  double loss = 0;
  for (double l : row_loss) loss += l;
  return loss;
}

// From the probabilities: dlogits = (p − onehot(target)) / counted on rows in the loss, else 0
// (in place), then dinp (N × C) = dlogits · wte (written) and dwte (V × C) += dlogitsᵀ · inp.
template <class S>
void output_backward(S* dinp, S* dwte, S* probs, const S* inp, const S* wte, const int* targets, int counted, I N, I C, I V) {
  const S inv = counted > 0 ? static_cast<S>(1.0 / counted) : S(0);
  blocks(N, [&](I r0, I r1) {
    for (I i = r0; i < r1; ++i) {
      S* p = probs + i * V;
      const int t = targets[i];
      if (t < 0) {
        std::fill(p, p + V, S(0));
        continue;
      }
      for (I v = 0; v < V; ++v) p[v] *= inv;
      p[t] -= inv;
    }
    blas::gemm(false, false, r1 - r0, C, V, probs + r0 * V, V, wte, C, S(0), dinp + r0 * C, C);
  });
  blocks(C, [&](I c0, I c1) { blas::gemm(true, false, V, c1 - c0, N, probs, V, inp + c0, C, S(1), dwte + c0, C); });
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// [SECTION] the model: forward and backward over the layers
// -------------------------------------------------------------------------------------------------

template <class S>
Gpt2Weights<S>::Gpt2Weights(const Gpt2Dims& dims) {
  const I C = dims.d_model;
  resize(wte, I{dims.vocab} * C);
  resize(wpe, I{dims.positions} * C);
  layers.resize(static_cast<std::size_t>(dims.n_layer));
  for (Layer& l : layers) {
    resize(l.ln_1_w, C), resize(l.ln_1_b, C), resize(l.c_attn_w, C * 3 * C), resize(l.c_attn_b, 3 * C);
    resize(l.attn_proj_w, C * C), resize(l.attn_proj_b, C), resize(l.ln_2_w, C), resize(l.ln_2_b, C);
    resize(l.c_fc_w, C * 4 * C), resize(l.c_fc_b, 4 * C), resize(l.mlp_proj_w, 4 * C * C), resize(l.mlp_proj_b, C);
  }
  resize(ln_f_w, C);
  resize(ln_f_b, C);
}

template <class S>
std::vector<typename Gpt2Weights<S>::Tensor> Gpt2Weights<S>::tensors() {
  const I C = ln_f_w.empty() ? 0 : static_cast<I>(ln_f_w.size());
  const I V = C ? static_cast<I>(wte.size()) / C : 0, P = C ? static_cast<I>(wpe.size()) / C : 0;
  std::vector<Tensor> out = {{"wte.weight", {V, C}, &wte}, {"wpe.weight", {P, C}, &wpe}};
  for (std::size_t n = 0; n < layers.size(); ++n) {
    Layer& l = layers[n];
    const std::string h = "h." + std::to_string(n) + ".";
    out.push_back({h + "ln_1.weight", {C}, &l.ln_1_w});
    out.push_back({h + "ln_1.bias", {C}, &l.ln_1_b});
    out.push_back({h + "attn.c_attn.weight", {C, 3 * C}, &l.c_attn_w});
    out.push_back({h + "attn.c_attn.bias", {3 * C}, &l.c_attn_b});
    out.push_back({h + "attn.c_proj.weight", {C, C}, &l.attn_proj_w});
    out.push_back({h + "attn.c_proj.bias", {C}, &l.attn_proj_b});
    out.push_back({h + "ln_2.weight", {C}, &l.ln_2_w});
    out.push_back({h + "ln_2.bias", {C}, &l.ln_2_b});
    out.push_back({h + "mlp.c_fc.weight", {C, 4 * C}, &l.c_fc_w});
    out.push_back({h + "mlp.c_fc.bias", {4 * C}, &l.c_fc_b});
    out.push_back({h + "mlp.c_proj.weight", {4 * C, C}, &l.mlp_proj_w});
    out.push_back({h + "mlp.c_proj.bias", {C}, &l.mlp_proj_b});
  }
  out.push_back({"ln_f.weight", {C}, &ln_f_w});
  out.push_back({"ln_f.bias", {C}, &ln_f_b});
  return out;
}

std::int64_t gpt2_parameter_count(const Gpt2Dims& dims) {
  const I C = dims.d_model;
  return (I{dims.vocab} + dims.positions) * C + 2 * C + I{dims.n_layer} * (12 * C * C + 13 * C);
}

std::int64_t gpt2_activation_bytes(const Gpt2Dims& dims, std::int64_t B, std::int64_t T) {
  const I N = B * T, C = dims.d_model;
  const I per_layer = N * (16 * C + 4) + B * dims.n_head * T * T;
  const I floats = I{dims.n_layer} * per_layer + N * (2 * C + 2) + N * dims.vocab + N * 14 * C + 8 * T * T;
  return floats * static_cast<I>(sizeof(float)) + N * static_cast<I>(sizeof(int));
}

template <class S>
Gpt2Loss gpt2_train_forward(const Gpt2Dims& dims, const Gpt2Weights<S>& w, const int* ids, const int* targets, int B_, int T_,
                            Gpt2Activations<S>& a, const int* positions) {
  const I B = B_, T = T_, N = B * T, C = dims.d_model, H = dims.n_head, V = dims.vocab;
  if (a.B != B_ || a.T != T_ || a.layers.size() != static_cast<std::size_t>(dims.n_layer)) {
    a.B = B_, a.T = T_;
    resize(a.encoded, N * C);
    a.layers.assign(static_cast<std::size_t>(dims.n_layer), {});
    for (auto& l : a.layers) {
      resize(l.ln_1, N * C), resize(l.ln_1_mean, N), resize(l.ln_1_rstd, N), resize(l.qkv, N * 3 * C), resize(l.att, B * H * T * T);
      resize(l.atty, N * C), resize(l.residual_2, N * C), resize(l.ln_2, N * C), resize(l.ln_2_mean, N), resize(l.ln_2_rstd, N);
      resize(l.fch, N * 4 * C), resize(l.fch_gelu, N * 4 * C), resize(l.residual_3, N * C);
    }
    resize(a.ln_f, N * C), resize(a.ln_f_mean, N), resize(a.ln_f_rstd, N), resize(a.logits, N * V);
    resize(a.d_residual, N * C), resize(a.d_ln, N * C), resize(a.d_qkv, N * 3 * C), resize(a.d_atty, N * C);
    resize(a.d_fch, N * 4 * C), resize(a.d_fch_gelu, N * 4 * C);
  }
  a.targets.assign(targets, targets + N);
  a.positions.resize(static_cast<std::size_t>(N));
  for (I i = 0; i < N; ++i) a.positions[static_cast<std::size_t>(i)] = positions ? positions[i] : static_cast<int>(i % T);
  a.counted = static_cast<int>(std::count_if(targets, targets + N, [](int t) { return t >= 0; }));

  encoder_forward(a.encoded.data(), ids, a.positions.data(), w.wte.data(), w.wpe.data(), B, T, C);
  const S* x = a.encoded.data();
  for (std::size_t n = 0; n < a.layers.size(); ++n) {
    const auto& lw = w.layers[n];
    auto& l = a.layers[n];
    layernorm_forward(l.ln_1.data(), l.ln_1_mean.data(), l.ln_1_rstd.data(), x, lw.ln_1_w.data(), lw.ln_1_b.data(), N, C, dims.eps);
    matmul_forward(l.qkv.data(), l.ln_1.data(), lw.c_attn_w.data(), lw.c_attn_b.data(), N, C, 3 * C);
    attention_forward(l.atty.data(), l.att.data(), l.qkv.data(), B, T, C, H);
    matmul_forward(l.residual_2.data(), l.atty.data(), lw.attn_proj_w.data(), lw.attn_proj_b.data(), N, C, C);
    for (I i = 0; i < N * C; ++i) l.residual_2[static_cast<std::size_t>(i)] += x[i];
    layernorm_forward(l.ln_2.data(), l.ln_2_mean.data(), l.ln_2_rstd.data(), l.residual_2.data(), lw.ln_2_w.data(), lw.ln_2_b.data(), N, C,
                      dims.eps);
    matmul_forward(l.fch.data(), l.ln_2.data(), lw.c_fc_w.data(), lw.c_fc_b.data(), N, C, 4 * C);
    gelu_forward(l.fch_gelu.data(), l.fch.data(), N * 4 * C);
    matmul_forward(l.residual_3.data(), l.fch_gelu.data(), lw.mlp_proj_w.data(), lw.mlp_proj_b.data(), N, 4 * C, C);
    for (I i = 0; i < N * C; ++i) l.residual_3[static_cast<std::size_t>(i)] += l.residual_2[static_cast<std::size_t>(i)];
    x = l.residual_3.data();
  }
  layernorm_forward(a.ln_f.data(), a.ln_f_mean.data(), a.ln_f_rstd.data(), x, w.ln_f_w.data(), w.ln_f_b.data(), N, C, dims.eps);
  const double total = output_forward(a.logits.data(), a.ln_f.data(), w.wte.data(), targets, N, C, V);
  return {a.counted > 0 ? total / a.counted : 0.0, a.counted};
}

template <class S>
void gpt2_train_backward(const Gpt2Dims& dims, const Gpt2Weights<S>& w, const int* ids, Gpt2Activations<S>& a, Gpt2Weights<S>& g) {
  const I B = a.B, T = a.T, N = B * T, C = dims.d_model, H = dims.n_head, V = dims.vocab;
  for (auto& t : g.tensors()) std::fill(t.values->begin(), t.values->end(), S(0));
  S* dres = a.d_residual.data();
  const S* x_last = a.layers.empty() ? a.encoded.data() : a.layers.back().residual_3.data();

  // The output: dln_f into d_ln, then through ln_f into the residual stream.
  output_backward(a.d_ln.data(), g.wte.data(), a.logits.data(), a.ln_f.data(), w.wte.data(), a.targets.data(), a.counted, N, C, V);
  std::fill(a.d_residual.begin(), a.d_residual.end(), S(0));
  layernorm_backward(dres, g.ln_f_w.data(), g.ln_f_b.data(), a.d_ln.data(), x_last, a.ln_f_mean.data(), a.ln_f_rstd.data(), w.ln_f_w.data(),
                     N, C);

  for (std::size_t n = a.layers.size(); n-- > 0;) {
    const auto& lw = w.layers[n];
    auto& lg = g.layers[n];
    auto& l = a.layers[n];
    const S* x_in = n == 0 ? a.encoded.data() : a.layers[n - 1].residual_3.data();
    // MLP block: dres is the gradient of residual_3, and (through the skip) of residual_2.
    std::fill(a.d_fch_gelu.begin(), a.d_fch_gelu.end(), S(0));
    matmul_backward(a.d_fch_gelu.data(), lg.mlp_proj_w.data(), lg.mlp_proj_b.data(), dres, l.fch_gelu.data(), lw.mlp_proj_w.data(), N, 4 * C,
                    C);
    gelu_backward(a.d_fch.data(), l.fch.data(), a.d_fch_gelu.data(), N * 4 * C);
    std::fill(a.d_ln.begin(), a.d_ln.end(), S(0));
    matmul_backward(a.d_ln.data(), lg.c_fc_w.data(), lg.c_fc_b.data(), a.d_fch.data(), l.ln_2.data(), lw.c_fc_w.data(), N, C, 4 * C);
    layernorm_backward(dres, lg.ln_2_w.data(), lg.ln_2_b.data(), a.d_ln.data(), l.residual_2.data(), l.ln_2_mean.data(), l.ln_2_rstd.data(),
                       lw.ln_2_w.data(), N, C);
    // Attention block: dres is now the gradient of residual_2, and (through the skip) of x_in.
    std::fill(a.d_atty.begin(), a.d_atty.end(), S(0));
    matmul_backward(a.d_atty.data(), lg.attn_proj_w.data(), lg.attn_proj_b.data(), dres, l.atty.data(), lw.attn_proj_w.data(), N, C, C);
    attention_backward(a.d_qkv.data(), a.d_atty.data(), l.qkv.data(), l.att.data(), B, T, C, H);
    std::fill(a.d_ln.begin(), a.d_ln.end(), S(0));
    matmul_backward(a.d_ln.data(), lg.c_attn_w.data(), lg.c_attn_b.data(), a.d_qkv.data(), l.ln_1.data(), lw.c_attn_w.data(), N, C, 3 * C);
    layernorm_backward(dres, lg.ln_1_w.data(), lg.ln_1_b.data(), a.d_ln.data(), x_in, l.ln_1_mean.data(), l.ln_1_rstd.data(), lw.ln_1_w.data(),
                       N, C);
  }
  encoder_backward(g.wte.data(), g.wpe.data(), dres, ids, a.positions.data(), B, T, C);
}

template struct Gpt2Weights<float>;
template struct Gpt2Weights<double>;
template Gpt2Loss gpt2_train_forward(const Gpt2Dims&, const Gpt2Weights<float>&, const int*, const int*, int, int, Gpt2Activations<float>&,
                                     const int*);
template Gpt2Loss gpt2_train_forward(const Gpt2Dims&, const Gpt2Weights<double>&, const int*, const int*, int, int, Gpt2Activations<double>&,
                                     const int*);
template void gpt2_train_backward(const Gpt2Dims&, const Gpt2Weights<float>&, const int*, Gpt2Activations<float>&, Gpt2Weights<float>&);
template void gpt2_train_backward(const Gpt2Dims&, const Gpt2Weights<double>&, const int*, Gpt2Activations<double>&, Gpt2Weights<double>&);

}  // namespace attnlab::model
