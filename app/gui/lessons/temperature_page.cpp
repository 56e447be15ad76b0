// Temperature ("The Query-Key-Value framework"): τ → 0 gives one-hot rows, τ → ∞ uniform ones.
// A log slider, an animation that sweeps τ back and forth, curves of the largest weight and the entropy against τ, and the
// sweep written as numbered PNG frames.
#include "gui/lessons/temperature_page.hpp"

#include "engine/lessons/lesson_export.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

constexpr double kSweepSeconds = 6.0;  // one way, τ_min → τ_max

// Play/Pause and the log slider for τ in [lo, hi]: the animation sweeps it there and back.
void draw_tau_controls(TemperatureUi& ui, double lo, double hi, const char* tau) {
  if (ui.playing) {
    ui.play_time += ImGui::GetIO().DeltaTime;
    const double phase = std::fmod(ui.play_time / kSweepSeconds, 2.0);
    const double x = phase < 1 ? phase : 2 - phase;  // there and back
    ui.tau = std::exp(std::log(lo) + x * (std::log(hi) - std::log(lo)));
  }
  if (ImGui::Button(ui.playing ? "Pause" : "Play")) {
    ui.playing = !ui.playing;
    // Start the animation from where the slider is.
    const double x = (std::log(std::clamp(ui.tau, lo, hi)) - std::log(lo)) / (std::log(hi) - std::log(lo));
    ui.play_time = x * kSweepSeconds;
  }
  ImGui::SameLine();
  float t = static_cast<float>(std::clamp(ui.tau, lo, hi));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  const std::string label = std::string(tau) + "##tau";
  if (ImGui::SliderFloat(label.c_str(), &t, static_cast<float>(lo), static_cast<float>(hi), widget_decimals(3).c_str(),
                         ImGuiSliderFlags_Logarithmic)) {
    ui.tau = t;
    ui.playing = false;
  }
}

// The shown scenario at the slider's τ, computed when τ or the result changed since the last time.
const LessonVariant& at_temperature(TemperatureUi& ui, const ViewContext& ctx) {
  if (ui.at_tau_for != ui.tau || ui.at_tau_result != ctx.results.result_version) {
    ui.at_tau_for = ui.tau;
    ui.at_tau_result = ctx.results.result_version;
    try {
      Problem p = ctx.shown().problem();
      p.options.temperature = ui.tau;
      ui.at_tau = compute_variant(*ctx.services.backend, p);
    } catch (const InputError& e) {
      ui.at_tau = LessonVariant{};
      ui.at_tau.error = e.what();
    }
  }
  return ui.at_tau;
}

// "Write the sweep as PNG frames": the folder, overwrite, the button and what it did.
void draw_frames_export(TemperatureUi& ui, const Scenario& s, float fs) {
  ImGui::SetNextItemWidth(fs * 14);
  char folder[512];
  std::snprintf(folder, sizeof folder, "%s", ui.frames_folder.c_str());
  if (ImGui::InputText("folder", folder, sizeof folder)) ui.frames_folder = folder;
  ImGui::Checkbox("overwrite", &ui.frames_overwrite);
  ImGui::SameLine();
  if (ImGui::Button("Write the sweep as PNG frames")) {
    try {
      ExportOptions o;
      o.force = ui.frames_overwrite;
      o.target_name = "frame";
      o.overwrite_hint = "tick \"overwrite\" to replace the frames";
      const auto written = export_temperature_sequence(s, ui.frames_folder, o);
      ui.frames_status = "wrote " + std::to_string(written.size()) + " frames: " + written.front().string() + " …";
    } catch (const InputError& e) {
      ui.frames_status = e.what();
    }
  }
  if (!ui.frames_status.empty()) text_wrapped("%s", ui.frames_status.c_str());
}

}  // namespace

void draw_temperature_page(const PageInputs& in, const TemperatureNumbers* numbers, TemperatureUi& ui, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const ViewContext& ctx = in.ctx;
  const Glyphs& g = ctx.services.glyphs;
  const Scenario& s = ctx.shown();
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  const double lo = numbers->params.tau_min, hi = numbers->params.tau_max;
  const char* tau = g.tau;

  draw_tau_controls(ui, lo, hi, tau);
  const LessonVariant& v = at_temperature(ui, ctx);
  if (!v.ok()) {
    error_text(pal.error, v.error);
    return;
  }
  const Result& r = v.result;
  ImGui::SameLine();
  ImGui::Text("s%s%s = %s", g.dot, tau, fixed_decimals(r.effective_temperature, 3).c_str());

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float left_w = avail.x * 0.5f;
  const auto ql = display_tokens(s.query_tokens, r.n), kl = display_tokens(s.key_tokens, r.m);
  ImGui::BeginGroup();
  const std::string title = std::string("weights at ") + tau + " = " + fixed_decimals(ui.tau, 3);
  draw_lesson_matrix(in.canvas(out), "tau_weights", title, Stage::Weights, r.weights, &v.blocked, ql, kl,
                     ImVec2(left_w - fs, avail.y * 0.62f));
  std::vector<double> mx;
  for (const auto& d : r.rows) mx.push_back(d.max_weight);
  lesson_numbers_line("largest weight per row:", mx);
  ImGui::EndGroup();

  // The curves over the whole sweep, with the current τ marked.
  const std::vector<float>&maxw = numbers->curve_max_weight, &ent = numbers->curve_entropy;
  double max_entropy = std::log(static_cast<double>(std::max<Eigen::Index>(r.m, 2)));
  ImGui::SetCursorScreenPos(ImVec2(top.x + left_w, top.y));
  ImGui::BeginGroup();
  // The two curves share what the text and the export rows under them leave (about 6.5 rows), so
  // that the view fits without scrolling in presenter mode at 1280×720.
  const float rows_below = ImGui::GetFrameHeightWithSpacing() * 6.5f;
  const float pw = avail.x - left_w, ph = std::min(avail.y * 0.3f, std::max(fs * 3.0f, (avail.y - rows_below) * 0.5f));
  ImGui::PlotLines("##maxw", maxw.data(), static_cast<int>(maxw.size()), 0, "mean largest weight (1 = one-hot)", 0.0f, 1.0f,
                   ImVec2(pw, ph));
  const ImVec2 a0 = ImGui::GetItemRectMin(), a1 = ImGui::GetItemRectMax();
  ImGui::PlotLines("##ent", ent.data(), static_cast<int>(ent.size()), 0, "mean entropy (nats; ln m = uniform)", 0.0f,
                   static_cast<float>(max_entropy), ImVec2(pw, ph));
  const ImVec2 b1 = ImGui::GetItemRectMax();
  const double x = (std::log(ui.tau) - std::log(lo)) / (std::log(hi) - std::log(lo));
  const float mxp = a0.x + static_cast<float>(x) * (a1.x - a0.x);
  ImGui::GetWindowDrawList()->AddLine(ImVec2(mxp, a0.y), ImVec2(mxp, b1.y), pal.accent, 2.0f);
  ImGui::TextDisabled("%s from %s (left) to %s (right), log scale", tau, significant(lo, 2).c_str(), significant(hi, 2).c_str());
  // No-break spaces (U+00A0) keep "τ → 0" and "τ → ∞" on one line: wrapping split "τ →" from "∞".
  text_wrapped("%s\u00a0%s\u00a00: each row %s one-hot on its largest score.  %s\u00a0%s\u00a0%s: every weight %s 1/%lld = %s.",
                     tau, g.arrow, g.arrow, tau, g.arrow, g.infinity, g.arrow, static_cast<long long>(r.m),
                     fixed_decimals(1.0 / static_cast<double>(r.m), 3).c_str());
  ImGui::Separator();
  draw_frames_export(ui, s, fs);
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
