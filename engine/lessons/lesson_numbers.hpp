// The numbers behind each lesson's view, computed in one place for both faces: `attnlab lesson NAME
// --format json` writes them (lesson_report.cpp), the lesson's text quotes them (lesson_text.cpp)
// and the GUI's lesson views draw them, once per version of the document.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/gqa_lesson.hpp"
#include "engine/lessons/kv_cache_lesson.hpp"
#include "engine/lessons/lesson_math.hpp"
#include "engine/lessons/multihead.hpp"
#include "engine/lessons/online_softmax_lesson.hpp"
#include "engine/lessons/precision.hpp"
#include "engine/lessons/rope_lesson.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/trainer.hpp"

#include <string>
#include <variant>
#include <vector>

namespace attnlab {

// The document with one change (another mask, normalizer, scaling, temperature), computed.
struct LessonVariant {
  Options options;     // the variant's options
  Result result;
  BlockGrid blocked;   // n × m, the variant's mask
  std::string error;   // why it could not be computed (bad input, a backend failure); result is empty then
  bool ok() const { return error.empty(); }
};

// `p` computed on `backend`, its refusal or failure kept as the variant's sentence.
LessonVariant compute_variant(Backend& backend, const Problem& p);

// The sample standard deviation (divides by count − 1), which the course text prints (torch's .std()).
double sample_std(const MomentStats& m);

// Plain: the document's own weights and output.
struct PlainNumbers {};

// The worked example, by hand: for each query row, each key's lines (explain_weight) and the
// output's (explain_output).
struct WorkedExampleNumbers {
  std::vector<std::vector<std::vector<std::string>>> weight_lines;  // [row][key] lines
  std::vector<std::vector<std::string>> output_lines;                // [row] lines
};

struct CompareScalingNumbers {
  LessonVariant scaled, unscaled;
};

// Exercise 2.3.1: this scenario's own draw both ways, and the exercise's d_k sweep.
struct ScalingLabNumbers {
  LessonVariant scaled, unscaled;
  std::vector<ScalingSweepRow> sweep;  // empty unless complete
  long long sweep_trials = 0;          // the trials the sweep averaged over
};

// Multi-head attention with the lesson's seeded projections, shared or not as the lesson says
// (`this_lesson`) and the other way (`switched`).
struct MultiHeadNumbers {
  MultiHeadWeights this_weights, switched_weights;
  MultiHeadResult this_lesson, switched;
};

struct SelfCrossNumbers {
  Scenario self_twin;          // the keys' sequence attending to itself
  LessonVariant cross, self;   // the document (cross-attention) and its twin
};

struct MaskFamilyNumbers {
  std::vector<std::string> specs;       // the lesson's masks, as written ("causal", "padding:4")
  std::vector<LessonVariant> variants;  // one per spec
};

// Temperature: the lesson's frames from τ_min to τ_max, the limits they approach, and for the
// view's curves the rows' mean largest weight and entropy at `curve_points` temperatures.
struct TemperatureNumbers {
  std::vector<TemperatureFrame> frames;
  Matrix one_hot, uniform;  // n × m
  std::vector<double> curve_taus;
  std::vector<float> curve_max_weight, curve_entropy;
  std::string curve_error;  // why the curves could not be computed (a backend failure)
};

struct NormalizersNumbers {
  std::vector<Normalizer> normalizers;  // softmax, sparsemax, sigmoid, hardmax
  std::vector<LessonVariant> variants;
};

struct PrecisionNumbers {
  std::vector<PrecisionRun> runs;  // the 18 emulated runs; empty unless complete
};

struct GeometryNumbers {
  GeometryView geometry;
};

struct CostNumbers {
  MachineMemory machine;
  std::vector<CostRow> rows;
};

struct OnlineSoftmaxNumbers {
  OnlineSoftmaxLesson lesson;
};

// "What heads do in a trained model": the document's head by the Model window's detector.
struct ModelHeadsNumbers {
  model::HeadVerdict example;
};

// "Watch an induction head form": the same, and the run the GUI trains live.
struct TrainInductionNumbers {
  model::HeadVerdict example;
  model::TrainConfig train;  // resolved: the engine's induction defaults
  std::vector<int> probe;
};

struct RopeNumbers {
  RopeLesson lesson;
};

struct GqaNumbers {
  GqaLesson lesson;
};

// "What the KV cache holds" (kv_cache_lesson.hpp), on the lesson's built-in model: the pipeline's
// last row from the cached K and V alone against the whole computation, then the model's cache.
struct KvCacheNumbers {
  std::string model;            // the built-in model's name
  double last_row_difference = 0;  // the largest |output| difference of the pipeline's last row
  CacheCheck check;
  CacheCost cost;               // measured when the detail asks
  std::vector<CacheSize> sizes; // the lesson's model first, then the lesson's shapes
  ExposureBias exposure;
};

using LessonNumbers =
    std::variant<PlainNumbers, WorkedExampleNumbers, CompareScalingNumbers, ScalingLabNumbers, MultiHeadNumbers,
                 SelfCrossNumbers, MaskFamilyNumbers, TemperatureNumbers, NormalizersNumbers, PrecisionNumbers,
                 GeometryNumbers, CostNumbers, OnlineSoftmaxNumbers, ModelHeadsNumbers, TrainInductionNumbers,
                 RopeNumbers, GqaNumbers, KvCacheNumbers>;

struct LessonDetail {
  // false leaves out the costly parts a lesson's text does not quote: the d_k sweep of a
  // scaling-lab lesson (about half a second) and the precision lesson's 18 emulated runs.
  bool complete = true;
  // The d_k sweep averages over at most this many trials (0: the lesson's own): the GUI keeps it
  // small enough to stay responsive.
  long long max_sweep_trials = 0;
  int curve_points = 81;  // temperatures on the temperature view's curves
  // The kv-cache lesson times a token with and without the cache (a few milliseconds on its
  // built-in model): complete numbers only, since a text's numbers must not change run to run.
  bool measure = true;
};

// The numbers of view `view` for the scenario `s`, whose own result is `r`, with every variant
// computed on `backend`. Throws InputError when the view cannot be computed for these sizes (a
// variant that cannot is kept with its sentence instead).
LessonNumbers compute_lesson(LessonView view, const Scenario& s, const Result& r, Backend& backend,
                             const LessonDetail& detail = {});

// The head verdict of the document's weights with tokens of equal labels sharing an id (the
// detector's input), for the model-heads lessons.
model::HeadVerdict document_head_verdict(const Scenario& s, const Result& r);

}  // namespace attnlab
