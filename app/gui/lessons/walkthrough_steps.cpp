// The walk-through's steps: scores → ÷√d_k → mask → softmax → ·V, each with what changed.
#include "gui/lessons/walkthrough_steps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

std::vector<std::string> dims(const char* prefix, Eigen::Index count) {
  std::vector<std::string> out;
  for (Eigen::Index c = 0; c < count; ++c) out.push_back(prefix + std::to_string(c + 1));
  return out;
}

// "an 8×8", "an 11×11", "a 6×6": the article as the number is read aloud.
std::string article(Eigen::Index n) {
  const std::string digits = std::to_string(n);
  const bool vowel = digits[0] == '8' || (digits.size() % 3 == 2 && (digits.rfind("11", 0) == 0 || digits.rfind("18", 0) == 0));
  return vowel ? "an " : "a ";
}

BlockGrid all_cells(Eigen::Index rows, Eigen::Index cols) { return BlockGrid::Ones(rows, cols); }

}  // namespace

const char* walk_step_name(int step) {
  static const char* const names[kWalkSteps] = {"inputs", "scores", "÷ √d_k", "mask", "softmax", "· V"};
  return names[std::clamp(step, 0, kWalkSteps - 1)];
}

WalkFrame walk_frame(const Scenario& s, const Result& r, int step, const Glyphs& g) {
  step = std::clamp(step, 0, kWalkSteps - 1);
  const Options& o = s.options;
  const auto ql = display_tokens(s.query_tokens, r.n), kl = display_tokens(s.key_tokens, r.m);
  const BlockGrid blocked = mask_grid(o.mask, r.n, r.m);
  auto input = [&](const char* name, const Matrix& M, const std::vector<std::string>& rows) {
    return WalkMatrix{name, Stage::Scores, M, BlockGrid(), rows, dims(std::string(name) == "V" ? "v" : "d", M.cols())};
  };
  const WalkMatrix Q = input("Q", s.Q, ql), K = input("K", s.K, kl), V = input("V", s.V, kl);
  WalkMatrix scores{"scores", Stage::Scores, r.scores, BlockGrid(), ql, kl};
  // The logits before the mask: every score divided by s·T.
  Matrix scaled = r.scores / static_cast<float>(r.effective_temperature);
  WalkMatrix scaled_m{"scores ÷ s", Stage::Logits, scaled, BlockGrid(), ql, kl};
  WalkMatrix logits{"logits", Stage::Logits, r.logits, blocked, ql, kl};
  WalkMatrix weights{"weights", Stage::Weights, r.weights, blocked, ql, kl};
  WalkMatrix output{"output", Stage::Output, r.output, BlockGrid(), ql, dims("v", r.d_v)};

  WalkFrame f;
  f.step = step;
  f.title = "Step " + std::to_string(step + 1) + " of " + std::to_string(kWalkSteps) + ": " + walk_step_name(step);
  const std::string root = std::string(g.sqrt) + std::to_string(r.d_k);
  switch (static_cast<WalkStep>(step)) {
    case WalkStep::Inputs:
      f.formula = "Q: " + std::to_string(r.n) + g.times + std::to_string(r.d_k) + ",  K: " + std::to_string(r.m) + g.times +
                  std::to_string(r.d_k) + ",  V: " + std::to_string(r.m) + g.times + std::to_string(r.d_v);
      f.what = "One row per token. The query asks \"what am I looking for?\", the key answers \"what do I contain?\", "
               "the value says \"what should I pass forward?\"";
      f.now = Q;
      f.also = {K, V};
      f.changed = all_cells(Q.values.rows(), Q.values.cols());
      break;
    case WalkStep::Scores:
      f.formula = std::string("S = Q K") + g.transpose + ":  S_ij = q_i " + g.dot + " k_j, summed over d_k = " + std::to_string(r.d_k);
      f.what = "Every query meets every key: " + article(r.n) + std::to_string(r.n) + g.times + std::to_string(r.m) +
               " matrix of dot products. A large score means the query and the key point the same way.";
      f.before = {Q, K};
      f.now = scores;
      f.changed = all_cells(r.n, r.m);
      break;
    case WalkStep::Scale: {
      if (o.scale) {
        f.formula = std::string("S ") + g.divide + " " + root + " = S " + g.divide + " " + trimmed_decimals(r.scale_divisor, 3);
      } else {
        f.formula = std::string("scaling is off: S ") + g.divide + " 1";
      }
      if (o.temperature != 1) f.formula += std::string(", then ") + g.divide + " T = " + trimmed_decimals(o.temperature, 3);
      f.what = o.scale ? "Every score shrinks by the same factor, so no row is reordered: the softmax will be softer, "
                         "as if its temperature were " + trimmed_decimals(r.effective_temperature, 3) + "."
                       : "Without ÷ √d_k large scores go straight into the softmax and saturate it.";
      f.before = {scores};
      f.now = scaled_m;
      f.changed = BlockGrid::Zero(r.n, r.m);
      for (Eigen::Index i = 0; i < r.n; ++i)
        for (Eigen::Index j = 0; j < r.m; ++j) f.changed(i, j) = scaled(i, j) != r.scores(i, j);
      break;
    }
    case WalkStep::Mask: {
      const std::string kind(mask_kind_name(o.mask.kind));
      f.formula = o.mask.kind == MaskKind::None ? std::string("no mask: every key stays visible")
                                                : "mask = " + mask_spec(o.mask) + ": blocked cells " + g.arrow + " " + g.minus + g.infinity;
      f.what = o.mask.kind == MaskKind::None ? "Bidirectional attention (BERT): nothing is blocked, nothing changes."
               : o.mask.kind == MaskKind::Causal ? "Causal (GPT): query i must not see keys j > i, so the upper triangle becomes −∞ and will get weight exactly 0."
                                                  : "Blocked cells become −∞ and will get weight exactly 0.";
      f.before = {scaled_m};
      f.now = logits;
      f.changed = blocked;
      break;
    }
    case WalkStep::Softmax:
      f.formula = o.normalizer == Normalizer::Softmax
                      ? std::string("a_ij = e^L_ij ") + g.divide + " " + g.sum + "_k e^L_ik   (row by row; e^" + g.minus + g.infinity + " = 0)"
                      : std::string(normalizer_name(o.normalizer)) + " of each row";
      f.what = "Each row becomes a probability distribution over the keys: non-negative weights that sum to 1.";
      f.before = {logits};
      f.now = weights;
      f.changed = all_cells(r.n, r.m);
      break;
    case WalkStep::Output:
      f.formula = std::string("O = A V:  o_i = ") + g.sum + "_j a_ij v_j";
      f.what = "Each output row is a weighted average of the value rows, so it lies inside their convex hull.";
      f.before = {weights, V};
      f.now = output;
      f.changed = all_cells(r.n, r.d_v);
      break;
  }
  f.changed_count = f.changed.size() ? static_cast<long long>(f.changed.cast<long long>().sum()) : 0;
  return f;
}

Commands walk_start(WalkthroughUi& walk) {
  walk.active = true;
  walk.step = 0;
  return {ShowWindow{"Lesson view"}};
}

void walk_stop(WalkthroughUi& walk) { walk.active = false; }

void walk_forward(WalkthroughUi& walk) { walk.step = std::min(walk.step + 1, kWalkSteps - 1); }

void walk_back(WalkthroughUi& walk) { walk.step = std::max(walk.step - 1, 0); }

}  // namespace attnlab::gui
