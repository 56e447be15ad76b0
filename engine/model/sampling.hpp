// Drawing the next token from a model's output logits (docs/MODELS.md, "Generation"): temperature
// T (T = 0 is greedy), then top-k, then top-p, as Hugging Face's samplers apply them, and a seeded
// draw, so that the same seed writes the same text on every machine.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace attnlab::model {

struct SamplingOptions {
  double temperature = 1.0;  // T ≥ 0: the logits are divided by T; 0 always takes the most probable token
  int top_k = 0;             // keep the k most probable tokens (0: every token)
  double top_p = 1.0;        // then keep the fewest most probable tokens whose probability reaches p, in (0, 1]
  std::uint64_t seed = 0;    // the draws' generator
};

// Throws InputError naming the flag: T < 0 or not a number, top-k < 0, top-p outside (0, 1].
void check_sampling(const SamplingOptions& s);

// The next-token distribution a draw is made from, over the whole vocabulary (V = logits.size()).
struct TokenDistribution {
  std::vector<double> model;  // softmax(logits): the model's own distribution (T = 1, nothing left out)
  // After temperature, top-k and top-p, renormalized; 0 outside the kept set. T = 0: 1 on the most
  // probable token (the lowest id among equal logits).
  std::vector<double> drawn;
  std::vector<int> ranked;  // the kept tokens, most probable first (equal logits: the lower id first)
};

// Builds the distribution from one position's logits (V floats). NaN logits count as −∞ (a broken
// file must not break the ranking); if no logit is finite, the lowest id is taken as T = 0 would.
TokenDistribution next_distribution(const std::vector<float>& logits, const SamplingOptions& s);

// The `count` most probable token ids by logit (equal logits: the lower id first), for the
// candidates a draw is shown with.
std::vector<int> top_ids(const std::vector<float>& logits, int count);

// One candidate of a draw: its probability in the distribution drawn from and in the model's own.
struct Candidate {
  int id = 0;
  double prob = 0, model_prob = 0;
};

// A drawn token with the distribution it came from: `prob` its probability there (1 for greedy),
// `model_prob` the model's own (T = 1), `candidates` the most probable tokens (by logit).
struct DrawnToken {
  int id = 0;
  double prob = 0, model_prob = 0;
  std::vector<Candidate> candidates;
};

// Draws tokens with one generator seeded once: draw i of a seed is the same on every machine
// (integer arithmetic only, no std:: distributions, whose output differs between libraries).
class Sampler {
public:
  explicit Sampler(std::uint64_t seed) : rng_(seed) {}
  // A token from `d`: the kept tokens are walked in id order, each taking its share of [0, 1);
  // greedy (a distribution with a single token at 1) takes that token and draws nothing.
  int draw(const TokenDistribution& d);
  // `logits` → distribution → draw, with the `candidates` most probable listed.
  DrawnToken next(const std::vector<float>& logits, const SamplingOptions& s, int candidates = 10);

private:
  std::mt19937_64 rng_;
};

}  // namespace attnlab::model
