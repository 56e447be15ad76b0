// The temperature lesson's page (temperature_page.cpp): τ on a log slider or swept back and forth,
// the weights at τ, curves of the largest weight and the entropy against τ, and the sweep written as
// PNG frames.
#pragma once

#include "engine/lessons/lesson_variant.hpp"
#include "engine/lessons/temperature.hpp"
#include "gui/lessons/lesson_page.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab::gui {

struct TemperatureUi {
  double tau = 1.0;
  bool playing = false;
  double play_time = 0;  // seconds into the back-and-forth sweep
  std::string frames_folder = "attnlab-temperature-frames";
  bool frames_overwrite = false;
  std::string frames_status;  // what the last "Write the sweep" wrote, or why it could not
  // The shown scenario at `at_tau_for` (the slider's τ), computed on the chosen backend once per τ and
  // result (`at_tau_result`).
  std::optional<double> at_tau_for;
  std::uint64_t at_tau_result = UINT64_MAX;
  LessonVariant at_tau;
};

void draw_temperature_page(const PageInputs& in, const TemperatureNumbers* numbers, TemperatureUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the logits and weights of a row at a given T,
// with and without √d_k.

}  // namespace attnlab::gui
