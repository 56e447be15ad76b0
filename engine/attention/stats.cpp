// The global statistics of scores and logits, once for every backend (attention/stats.hpp).
#include "engine/attention/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab {

void ScoreMoments::add(const float* s, std::int64_t len) {
  // Chunks of the CPU kernels' length: per chunk the mean, then the squared deviations from it.
  constexpr std::int64_t kChunk = 1024;
  for (std::int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const std::int64_t c1 = std::min(len, c0 + kChunk);
    ScoreMoments chunk;
    double sum = 0;
    for (std::int64_t j = c0; j < c1; ++j) {
      const float v = s[j];
      chunk.nan = chunk.nan || v != v;
      sum += static_cast<double>(v);
      chunk.min = std::min(chunk.min, v);
      chunk.max = std::max(chunk.max, v);
    }
    chunk.count = c1 - c0;
    chunk.mean = sum / static_cast<double>(chunk.count);
    for (std::int64_t j = c0; j < c1; ++j) {
      const double d = static_cast<double>(s[j]) - chunk.mean;
      chunk.m2 += d * d;
    }
    merge(chunk);
  }
}

Stats stats_from_moments(const ScoreMoments& all, const ScoreMoments& visible, double divisor) {
  Stats st;
  const auto fill = [](MomentStats& out, const ScoreMoments& in, double d) {
    out.count = in.count;
    if (in.count == 0) return;
    out.min = in.min / d;
    out.max = in.max / d;
    out.mean = in.mean / d;  // +inf and -inf cells together: NaN, a mean that does not exist
    // A cell at ±∞ (float32 overflow) makes the spread unbounded, however the m2 arithmetic ends.
    out.std = !std::isfinite(in.mean) || !std::isfinite(in.m2)
                  ? std::numeric_limits<double>::infinity()
                  : std::sqrt(std::max(0.0, in.m2 / static_cast<double>(in.count))) / d;
  };
  fill(st.scores, all, 1.0);
  fill(st.logits, visible, divisor);
  st.scores.range_count = st.scores.count;
  st.logits.range_count = st.logits.count;
  return st;
}

Stats streamed_stats(const ScoreMoments& all, const ScoreMoments& visible, double divisor) {
  Stats st = stats_from_moments(all, visible, divisor);
  st.scores.min = visible.count > 0 ? visible.min : 0.0;
  st.scores.max = visible.count > 0 ? visible.max : 0.0;
  st.scores.range_count = visible.count;
  return st;
}

std::string score_range_note(const Result& r) {
  const MomentStats& s = r.stats.scores;
  if (s.range_count == s.count) return "";
  if (s.range_count == 0) {
    return "Every cell is blocked, so the scores' min and max are not computed (0 here): the streaming path "
           "multiplies only the cells the mask leaves visible; their mean and std are over all " +
           std::to_string(s.count) + " cells.";
  }
  return "The scores' min and max are over the " + std::to_string(s.range_count) +
         " cells the mask leaves visible, the only ones the streaming path multiplies; their mean and std are over "
         "all " + std::to_string(s.count) + " cells.";
}

namespace {

// Column means of M (rows × d) in double, a block of rows at a time.
Eigen::RowVectorXd column_means(const Matrix& M) {
  Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(M.cols());
  constexpr Eigen::Index kBlock = 4096;
  for (Eigen::Index r0 = 0; r0 < M.rows(); r0 += kBlock) {
    const Eigen::Index rows = std::min(kBlock, M.rows() - r0);
    mean += M.middleRows(r0, rows).cast<double>().colwise().sum();
  }
  return M.rows() > 0 ? Eigen::RowVectorXd(mean / static_cast<double>(M.rows())) : mean;
}

// M̃ᵀM̃ (d × d) for the rows of M less `mean`, in double, a block of rows at a time.
Eigen::MatrixXd centered_gram(const Matrix& M, const Eigen::RowVectorXd& mean) {
  const Eigen::Index d = M.cols();
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(d, d);
  constexpr Eigen::Index kBlock = 4096;
  Eigen::MatrixXd centered;
  for (Eigen::Index r0 = 0; r0 < M.rows(); r0 += kBlock) {
    const Eigen::Index rows = std::min(kBlock, M.rows() - r0);
    centered = M.middleRows(r0, rows).cast<double>().rowwise() - mean;
    gram.selfadjointView<Eigen::Lower>().rankUpdate(centered.transpose());
  }
  return gram.selfadjointView<Eigen::Lower>();
}

}  // namespace

ScoreMoments all_score_moments(const Matrix& Q, const Matrix& K) {
  ScoreMoments out;
  const Eigen::Index n = Q.rows(), m = K.rows();
  out.count = static_cast<long long>(n) * static_cast<long long>(m);
  if (out.count == 0) return out;
  // Q's and K's side by side (each thread one of them): at n = m = 100 000, d = 64 they are most of
  // what a streamed compute does after its pass.
  Eigen::RowVectorXd q_mean, k_mean;
  Eigen::MatrixXd q_gram, k_gram;
#pragma omp parallel sections num_threads(2)
  {
#pragma omp section
    {
      q_mean = column_means(Q);
      q_gram = centered_gram(Q, q_mean);
    }
#pragma omp section
    {
      k_mean = column_means(K);
      k_gram = centered_gram(K, k_mean);
    }
  }
  out.mean = q_mean.dot(k_mean);
  const double key_terms = (k_mean * q_gram * k_mean.transpose())(0, 0);
  const double query_terms = (q_mean * k_gram * q_mean.transpose())(0, 0);
  out.m2 = static_cast<double>(m) * key_terms + static_cast<double>(n) * query_terms + q_gram.cwiseProduct(k_gram).sum();
  return out;
}

AllScores all_scores_source(const Problem& p, float c, bool scores_may_overflow) {
  if (p.options.normalizer != Normalizer::Softmax || c == 0 || scores_may_overflow) return AllScores::Tiles;
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  const double cells = static_cast<double>(n) * static_cast<double>(m);
  const double blocked = cells - static_cast<double>(p.options.mask.visible_cells(n, m));
  if (blocked == 0) return AllScores::Visible;
  return 2.0 * static_cast<double>(n + m) * static_cast<double>(p.Q.cols()) < blocked ? AllScores::Gram
                                                                                          : AllScores::Tiles;
}

Stats dense_score_stats(const Matrix& scores, const Mask& mask, double divisor) {
  ScoreMoments all, visible;
  std::vector<float> run;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const float* s = scores.row(i).data();
    all.add(s, scores.cols());
    run.clear();
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      if (!mask.is_blocked(i, j)) run.push_back(s[j]);
    }
    visible.add(run.data(), static_cast<std::int64_t>(run.size()));
  }
  return stats_from_moments(all, visible, divisor);
}

}  // namespace attnlab
