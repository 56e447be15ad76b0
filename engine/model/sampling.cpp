// Temperature, top-k, top-p and the seeded draw; see sampling.hpp.
#include "engine/model/sampling.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace attnlab::model {

namespace {

// A logit as the ranking and the softmax read it: NaN (a broken file) is −∞.
float clean(float l) { return std::isnan(l) ? -INFINITY : l; }

// The ids [0, V) whose first `count` are the most probable, in order.
std::vector<int> ranked_prefix(const std::vector<float>& logits, std::size_t count) {
  std::vector<int> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  count = std::min(count, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count), ids.end(), [&](int a, int b) {
    const float la = clean(logits[static_cast<std::size_t>(a)]), lb = clean(logits[static_cast<std::size_t>(b)]);
    return la != lb ? la > lb : a < b;
  });
  ids.resize(count);
  return ids;
}

// e^((l − mx)/t) for every token, and their sum.
double exponentials(const std::vector<float>& logits, float mx, double t, std::vector<double>& out) {
  out.resize(logits.size());
  double sum = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) sum += out[i] = std::exp((static_cast<double>(clean(logits[i])) - mx) / t);
  return sum;
}

void normalize(std::vector<double>& p, double sum) {
  for (double& x : p) x /= sum;
}

// The kept set of top-k, then top-p over what top-k kept, as a ranked prefix of the tokens; empty
// when every token stays. `w` holds the tempered exponentials.
std::vector<int> kept_tokens(const std::vector<float>& logits, const std::vector<double>& w, const SamplingOptions& s) {
  const std::size_t V = logits.size();
  const std::size_t k = s.top_k > 0 ? std::min<std::size_t>(static_cast<std::size_t>(s.top_k), V) : V;
  if (s.top_p >= 1.0) return k < V ? ranked_prefix(logits, k) : std::vector<int>{};
  double total = 0;  // the tempered mass top-k keeps, which top-p's threshold is a share of
  if (k == V) {
    total = std::accumulate(w.begin(), w.end(), 0.0);
  } else {
    for (int id : ranked_prefix(logits, k)) total += w[static_cast<std::size_t>(id)];
  }
  // Rank a few at a time: top-p usually keeps far fewer tokens than the vocabulary holds.
  for (std::size_t count = std::min<std::size_t>(64, k);; count = std::min(count * 4, k)) {
    std::vector<int> ranked = ranked_prefix(logits, count);
    double sum = 0;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      sum += w[static_cast<std::size_t>(ranked[i])];
      if (sum >= s.top_p * total) {
        ranked.resize(i + 1);
        return ranked;
      }
    }
    if (count == k) return ranked;  // rounding left the sum a hair below: every token top-k kept
  }
}

}  // namespace

void check_sampling(const SamplingOptions& s) {
  if (!(s.temperature >= 0) || !std::isfinite(s.temperature)) {
    throw InputError("--temperature " + double_json(s.temperature) + ": give T ≥ 0 (0 takes the most probable token every time)");
  }
  if (s.top_k < 0) throw InputError("--top-k " + std::to_string(s.top_k) + ": give K ≥ 0 (0 keeps every token)");
  if (!(s.top_p > 0 && s.top_p <= 1)) throw InputError("--top-p " + double_json(s.top_p) + ": give P in (0, 1] (1 keeps every token)");
}

std::vector<int> top_ids(const std::vector<float>& logits, int count) {
  return ranked_prefix(logits, static_cast<std::size_t>(std::max(count, 0)));
}

TokenDistribution next_distribution(const std::vector<float>& logits, const SamplingOptions& s) {
  TokenDistribution d;
  const std::size_t V = logits.size();
  if (V == 0) return d;
  const int best = ranked_prefix(logits, 1).front();
  const float mx = clean(logits[static_cast<std::size_t>(best)]);
  if (!std::isfinite(mx)) {
    // No finite logit to measure the others from (a broken file): the ranking's first, alone.
    d.model.assign(V, 0.0);
    d.model[static_cast<std::size_t>(best)] = 1;
    d.drawn = d.model;
    d.ranked = {best};
    return d;
  }
  normalize(d.model, exponentials(logits, mx, 1.0, d.model));
  if (s.temperature == 0) {
    d.drawn.assign(V, 0.0);
    d.drawn[static_cast<std::size_t>(best)] = 1;
    d.ranked = {best};
    return d;
  }
  std::vector<double> w;
  if (s.temperature == 1) w = d.model;
  else exponentials(logits, mx, s.temperature, w);
  d.ranked = kept_tokens(logits, w, s);
  if (d.ranked.empty()) {
    d.drawn = std::move(w);
    normalize(d.drawn, std::accumulate(d.drawn.begin(), d.drawn.end(), 0.0));
  } else {
    d.drawn.assign(V, 0.0);
    double sum = 0;
    for (int id : d.ranked) sum += d.drawn[static_cast<std::size_t>(id)] = w[static_cast<std::size_t>(id)];
    normalize(d.drawn, sum);
  }
  return d;
}

int Sampler::draw(const TokenDistribution& d) {
  if (d.ranked.size() == 1) return d.ranked.front();
  // u in [0, 1) from the top 53 bits.
  const double u = static_cast<double>(rng_() >> 11) * 0x1p-53;
  std::vector<int> order = d.ranked;
  if (order.empty()) {
    order.resize(d.drawn.size());
    std::iota(order.begin(), order.end(), 0);
  } else {
    std::sort(order.begin(), order.end());
  }
  double acc = 0;
  int last = order.front();
  for (int id : order) {
    const double p = d.drawn[static_cast<std::size_t>(id)];
    if (p <= 0) continue;
    acc += p;
    last = id;
    if (u < acc) return id;
  }
  return last;  // u beyond a sum that rounding left below 1: the last token with any probability
}

DrawnToken Sampler::next(const std::vector<float>& logits, const SamplingOptions& s, int candidates) {
  const TokenDistribution d = next_distribution(logits, s);
  DrawnToken t;
  t.id = draw(d);
  t.prob = d.drawn[static_cast<std::size_t>(t.id)];
  t.model_prob = d.model[static_cast<std::size_t>(t.id)];
  for (int id : top_ids(logits, candidates)) t.candidates.push_back({id, d.drawn[static_cast<std::size_t>(id)], d.model[static_cast<std::size_t>(id)]});
  return t;
}

}  // namespace attnlab::model
