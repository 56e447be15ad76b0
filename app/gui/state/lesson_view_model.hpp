// What the lesson views draw: the engine's numbers of the shown result's lesson view
// (engine/lessons/lesson_registry.hpp, compute_lesson), computed on the chosen backend once per
// result and kept here, so the views' draw functions only read them; and the two things a view
// varies live (the temperature view's τ, the multi-head view's edited projections), recomputed
// only when they change.
#pragma once

#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/lesson_variant.hpp"
#include "engine/lessons/multi_head.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::gui {

struct AppState;
struct Services;

// The multi-head view's heads: the document's Q as X through LessonUi's (editable) weights.
struct MultiHeadView {
  std::uint64_t doc_version = UINT64_MAX, weights_version = UINT64_MAX;  // what it was computed from
  MultiHeadResult result;
  std::string error;  // the sentence why it could not be computed
};

struct LessonViewModel {
  std::uint64_t result_version = UINT64_MAX;  // the result the numbers belong to
  std::shared_ptr<const LessonNumbers> numbers;  // the view's page's own type (lesson_numbers<T>)
  std::string error;  // why the view's numbers cannot be computed for this scenario
  // The temperature view's slider: the shown scenario at τ.
  std::optional<double> tau;
  LessonVariant at_tau;
  MultiHeadView multihead;
};

// The numbers of the shown result's lesson view, as `T` (the view's own struct), computed once per
// result; null when they cannot be computed, with `error` saying why.
template <class T>
const T* lesson_numbers(AppState& state, Services& services, std::string& error);

// The shown scenario at temperature `tau` (the temperature view's slider), once per τ and result.
const LessonVariant& lesson_at_temperature(AppState& state, Services& services, double tau);

// The multi-head view's heads (the engine's multi_head_attention on the chosen backend), recomputed
// only when the document or the weights changed.
const MultiHeadView& multihead_view(AppState& state, Services& services);

// Sets up LessonUi from the document's lesson (heads, seed, τ, ...) when another lesson was opened.
void sync_lesson_ui(AppState& state);

// The untyped form of lesson_numbers: the page's numbers, or null with `error`.
const LessonNumbers* lesson_numbers_any(AppState& state, Services& services, std::string& error);

template <class T>
const T* lesson_numbers(AppState& state, Services& services, std::string& error) {
  const LessonNumbers* n = lesson_numbers_any(state, services, error);
  if (!n) return nullptr;
  if (const T* t = dynamic_cast<const T*>(n)) return t;
  error = "this scenario's lesson shows another view";
  return nullptr;
}

}  // namespace attnlab::gui
