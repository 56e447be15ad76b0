// The optional "lesson" object of a scenario: which special view a built-in lesson opens and
// its parameters. It never changes the numbers of the plain pipeline, so a build that does not
// know a view or a field ignores it and still computes the scenario exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class LessonView {
  Plain,           // no special view: the ordinary pipeline
  WorkedExample,   // the by-hand arithmetic of the three-token worked examples ("explain a cell")
  CompareScaling,  // the same scenario with and without ÷√d_k, two columns
  ScalingLab,      // Exercise 2.3.1: the d_k sweep
  MultiHead,       // X, per-head W_Q/W_K/W_V, concat-then-W_O and the sum of per-head slabs
  SelfCross,       // square self-attention beside rectangular cross-attention
  MaskFamily,      // "The Query-Key-Value framework"'s masks side by side
  Temperature,     // τ → 0 one-hot, τ → ∞ uniform, animated
  Normalizers,     // softmax, sparsemax, sigmoid, hardmax side by side
  Precision,       // float32/float16/bfloat16, max-subtraction, −∞ vs −1e9 masks
  Geometry,        // d_k = d_v = 2: arrows, value points, outputs in the convex hull
  Cost,            // the n × n score matrix as n grows, against this machine
  OnlineSoftmax,   // FlashAttention's online softmax: a running max and sum, tile by tile of keys
  ModelHeads,      // the heads of a real model (the GUI's Model window; docs/MODELS.md)
  TrainInduction,  // a two-layer model trained live until an induction head forms (the Training window)
  KvCache,         // generation over a KV cache: the same numbers, the cost, the bytes, exposure bias
  Rope,            // rotary positions: scores that see only distances, the frequency pairs, the decay
  GroupedQuery,    // grouped-query attention: H query heads over G shared K/V heads, and the KV cache
};

// A real model's attention shape, for the KV cache's bytes per token (the gqa lesson).
struct KvCacheConfig {
  std::string name;  // "Llama 3.2 1B"
  long long layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
};

// Where a lesson comes from in the course, cited by the course text's own title
// (docs/ARCHITECTURE.md's glossary, "The course texts").
struct LessonSource {
  std::string title;     // "QKV, Scaled Dot-Product & Causal Masking"
  std::string section;   // "2.3", or a section's heading ("Computational cost"), or empty
  std::string exercise;  // "2.3.1", or empty
};
// "QKV, Scaled Dot-Product & Causal Masking", Section 2.3, Exercise 2.3.1; a section named by its
// heading: "13.2 Scaled dot-product attention", section "Computational cost"
std::string source_line(const LessonSource& s);

// A key or mouse action a lesson uses, for its reference card.
struct LessonKey {
  std::string key;   // "S", "Space", "click a cell"
  std::string what;  // "√d_k scaling on/off"
};

// The text a student reads, in four short parts. Its strings are templates (lesson_template.hpp):
// numbers from the scenario are references filled from the current result.
struct LessonText {
  std::string goal;                    // one sentence
  std::vector<std::string> look_at;    // two or three bullets
  std::vector<std::string> try_steps;  // two or three actions, each naming its control or key ("try")
  LessonSource source;
  // Claims about the course text's own printed numbers (its arithmetic slips): true only while
  // the scenario still holds the lesson's original numbers, so shown only then.
  std::vector<std::string> course_notes;
  std::vector<LessonKey> keys;  // "shortcuts" in the file: the keys it uses, for the reference card
  bool present() const { return !goal.empty(); }
};

// A real model's shape as its config.json gives it, as far as its KV cache goes (the kv-cache
// lesson's "shapes").
struct ModelShape {
  std::string name;  // "Llama 3 8B"
  long long layers = 0, heads = 0, kv_heads = 0, d_head = 0, context = 0;
};

struct LessonSpec {
  LessonView view = LessonView::Plain;
  std::string view_name;  // as written in the file ("" when there is no lesson object)
  std::string raw_json;   // the lesson object as read, written back unchanged on save
  LessonText text;        // goal, look_at, try, source (absent in files that have none)

  // ScalingLab
  std::vector<long long> dk{8, 64, 512, 4096};
  long long keys = 10;
  long long trials = 200;
  // ScalingLab and MultiHead: the seed of the random-number generator
  unsigned long long seed = 42;
  // MultiHead
  long long heads = 2;
  bool share_projections = false;
  // MaskFamily: CLI mask specs ("none", "causal", "padding:3", ...)
  std::vector<std::string> masks{"none", "causal", "padding:3", "prefix:2", "window:2"};
  // Temperature: log-spaced sweep from tau_min to tau_max in `frames` steps
  double tau_min = 0.05;
  double tau_max = 20.0;
  long long frames = 41;
  // Cost: sequence lengths and the per-head key dimension used to count FLOPs
  std::vector<long long> cost_n{1024, 8192, 32768, 100000};
  long long cost_d_k = 64;
  // OnlineSoftmax: keys per tile
  long long tile = 4;
  // Rope: positions added to every query and key; the same q and k placed at grid × grid pairs of
  // positions; the head width of the distance decay
  long long shift = 7;
  long long grid = 8;
  long long envelope_d_k = 64;
  // GroupedQuery (with `heads` query heads and `seed`): the K/V head counts side by side, each
  // dividing `heads`; real models' shapes; the context length the cache is sized for
  std::vector<long long> kv_heads{4, 2, 1};
  std::vector<KvCacheConfig> kv_configs;
  long long context = 8192;
  // KvCache: the built-in model it runs on, a text that model knows how to go on with (`ids`, of
  // which the first `prompt` are given and the rest written; `seed` above seeds the draws), the
  // temperature of its exposure-bias draws, and real models' shapes for the cache's bytes.
  std::string cache_model = "induction";
  std::vector<long long> cache_ids;
  long long cache_prompt = 0;
  double sample_temperature = 3.0;
  std::vector<ModelShape> shapes;
};

std::string_view lesson_view_name(LessonView v);
// The view of a name; Plain for names this build does not know (they never change numbers).
LessonView lesson_view_from_name(std::string_view name);
// Every view this build knows, for tests and menus.
std::vector<LessonView> all_lesson_views();

// Parses the JSON text of a "lesson" object. Fields this build does not know are ignored; known
// fields of the wrong type or out of range, and text templates with bad syntax, throw InputError
// naming `source` and the field.
LessonSpec parse_lesson_spec(std::string_view json_text, std::string_view source);

}  // namespace attnlab
