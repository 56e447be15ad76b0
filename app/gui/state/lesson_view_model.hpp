// What the lesson views draw, derived from the document: each variant of it a view shows (another
// mask, normalizer, temperature, scaling) is computed once per change of the document, on the
// chosen backend, and kept here; the views' draw functions only read it.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/lessons/multihead.hpp"
#include "engine/lessons/online_softmax_lesson.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace attnlab::gui {

struct AppState;
struct Services;

// One variant of the document, computed.
struct ViewResult {
  Options options;     // the variant's options (its mask, normalizer, temperature, scaling)
  Result result;
  BlockGrid blocked;   // n × m, the variant's mask
  std::string error;   // the sentence why it could not be computed; result is empty then
  bool ok() const { return error.empty(); }
};

// The curves of the temperature view: the mean over rows of the largest weight and of the entropy
// at each temperature of the sweep.
struct TemperatureCurves {
  std::vector<double> taus;
  std::vector<float> max_weight, entropy;
  std::string error;
};

// The multi-head view's heads: the document's Q as X through LessonUi's weights.
struct MultiHeadView {
  std::uint64_t doc_version = UINT64_MAX, weights_version = UINT64_MAX;  // what it was computed from
  MultiHeadResult result;
  std::string error;  // the sentence why it could not be computed
};

// The online-softmax view's steps (engine/lessons/online_softmax_lesson.hpp) for the document and
// the result shown beside them.
struct OnlineSoftmaxModel {
  OnlineSoftmaxLesson lesson;
  std::string error;  // why the online softmax cannot run on this document; lesson is empty then
  bool ok() const { return error.empty(); }
};

// Everything above for one version of the document (AppState::lesson_model).
struct LessonViewModel {
  std::uint64_t doc_version = UINT64_MAX;
  struct Variant {
    double param = 0;
    ViewResult value;
  };
  std::map<std::string, Variant> variants;
  TemperatureCurves curves;
  bool has_curves = false;
  MultiHeadView multihead;
  OnlineSoftmaxModel online;
  std::uint64_t online_result_version = UINT64_MAX;  // the result the online steps were set beside
};

// The variant `name` of the document: its problem with `change` applied, computed through
// services.backend. Recomputed only when the document (AppState::doc_version) or `param` (the one
// number a variant may vary by, such as τ) differs from the kept one.
const ViewResult& view_result(AppState& state, Services& services, const std::string& name, double param,
                              const std::function<void(Problem&)>& change);

// The temperature view's curves over `count` temperatures spaced on a log scale from the lesson's
// τ_min to τ_max, once per document.
const TemperatureCurves& temperature_curves(AppState& state, Services& services, int count);

// The multi-head view's heads, recomputed only when the document or the weights changed.
const MultiHeadView& multihead_view(AppState& state);

// The online-softmax steps of the document, tile by tile (the lesson's "tile" keys each), with the
// current result's output as the dense one; once per document and result.
const OnlineSoftmaxModel& online_softmax_model(AppState& state);

// Sets up LessonUi from the document's lesson (heads, seed, τ, ...) when another lesson was opened.
void sync_lesson_ui(AppState& state);

}  // namespace attnlab::gui
