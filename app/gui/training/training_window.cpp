// The Training window (docs/MODELS.md, "The Training window"): a small GPT-2 trained on a task
// while you watch — the form (task, sizes, steps, batch, learning rate, seed; the engine's sentence
// in place for a bad value), Start / Pause / Step / Cancel / Reset, the loss and accuracy curve with
// a marker where a head settles into a kind, and every head's map on the task's probe sequence,
// a few times a second from the training thread. A click on a map pauses and lifts that head into
// the lab; "Save model…" and "Open in the Model window" take the model as it is.
#include "engine/model/training_tasks.hpp"
#include "engine/text/text_format.hpp"
#include "gui/training/training_window.hpp"
#include "gui/base/theme.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/training/training_job.hpp"
#include "gui/training/training_plots.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace attnlab::gui {

namespace {

// An integer field of the form, no +/- buttons (a projector's font makes them wide).
bool int_field(const char* label, int& value, float width) {
  ImGui::SetNextItemWidth(width);
  return ImGui::InputInt(label, &value, 0, 0);
}

void draw_form(const ViewContext& ctx, TrainingUi& t) {
  const float fs = ImGui::GetFontSize();
  const float w = fs * 3.6f;
  model::TrainConfig c = t.config;
  bool changed = false;
  const bool half_length = c.task.kind != model::TaskKind::Sort;
  ImGui::SetNextItemWidth(fs * 6.5f);
  if (ImGui::BeginCombo("task", std::string(model::task_name(c.task.kind)).c_str())) {
    for (const char* name : {"induction", "sort", "grammar"}) {
      if (ImGui::Selectable(name, model::task_name(c.task.kind) == name)) set_training_task(t, name);
    }
    ImGui::EndCombo();
    c = t.config;
  }
  ImGui::SameLine();
  changed |= int_field(half_length ? "half length L" : "length N", c.task.length, w);
  ImGui::SameLine();
  changed |= int_field("symbols V", c.task.symbols, w);
  changed |= int_field("layers", c.n_layer, w);
  ImGui::SameLine();
  changed |= int_field("heads", c.n_head, w);
  ImGui::SameLine();
  changed |= int_field("d_model", c.d_model, w);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w);
  changed |= ImGui::InputScalar("seed", ImGuiDataType_U64, &c.seed);
  changed |= int_field("steps", c.steps, w * 1.2f);
  ImGui::SameLine();
  changed |= int_field("batch", c.batch, w);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 1.3f);
  changed |= ImGui::InputDouble("learning rate", &c.lr, 0, 0, widget_significant(4).c_str());
  if (changed) set_training_config(t, c);
  error_text(palette(ctx.view).error, t.config_error);
}

std::string summary(const model::TrainConfig& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s (%s %d, V %d) · %s × %s · d_model %d · %d steps of %d · lr %s · seed %llu",
                std::string(model::task_name(c.task.kind)).c_str(), c.task.kind != model::TaskKind::Sort ? "L" : "N", c.task.length,
                c.task.symbols, count_of(c.n_layer, "layer").c_str(), count_of(c.n_head, "head").c_str(), c.d_model, c.steps, c.batch,
                three_digits(c.lr).c_str(), static_cast<unsigned long long>(c.seed));
  return buf;
}

// The commands an action returned, handed on.
void append(Commands& out, Commands more) {
  for (Command& c : more) out.push_back(std::move(c));
}

void draw_buttons(TrainingUi& t, bool threaded, Commands& out) {
  const bool running = training_running(t);
  const TrainingPhase p = t.view.phase;
  const bool has_model = static_cast<bool>(t.job) && p != TrainingPhase::Starting && !(p == TrainingPhase::Failed && t.view.maps.empty());
  ImGui::BeginDisabled(running);
  if (ImGui::Button(training_resumable(t) && t.view.step > 0 ? "Resume" : "Start")) {
    start_training(t, threaded);
    t.form_open = false;
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Pause")) pause_training(t);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Step")) step_training(t, threaded);
  ImGui::SameLine();
  ImGui::BeginDisabled(!t.job || p == TrainingPhase::Cancelled || p == TrainingPhase::Finished || p == TrainingPhase::Failed);
  if (ImGui::Button("Cancel")) cancel_training(t);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Reset")) reset_training(t, threaded);
  ImGui::SameLine();
  ImGui::TextDisabled("|");
  ImGui::BeginDisabled(!has_model);
  const char* save = "Save model…";
  same_line_if_fits(button_width(save));
  if (ImGui::Button(save)) out.push_back(ChooseFile{FilePurpose::SaveTrainedModel, ""});
  const char* open = "Open in the Model window";
  same_line_if_fits(button_width(open));
  if (ImGui::Button(open)) append(out, open_trained_in_model_window(t));
  ImGui::EndDisabled();
}

void draw_status(const ViewContext& ctx, const TrainingUi& t) {
  const TrainingView& v = t.view;
  const Palette pal = palette(ctx.view);
  std::string line;
  char buf[160];
  if (!t.job) {
    line = "Not started: Start trains the model above from step 0; Step takes one step at a time.";
  } else {
    const char* phase = v.phase == TrainingPhase::Starting ? "making the model"
                        : v.phase == TrainingPhase::Paused  ? "paused"
                        : v.phase == TrainingPhase::Running ? "running"
                        : v.phase == TrainingPhase::Finished ? "finished"
                        : v.phase == TrainingPhase::Cancelled ? "cancelled"
                                                               : "stopped";
    std::snprintf(buf, sizeof buf, "%s · step %d of %d", phase, v.step, v.steps);
    line = buf;
    if (v.phase == TrainingPhase::Running && v.steps_per_second > 0) line += " · " + fixed_decimals(v.steps_per_second, 0) + " steps/s";
    // The last 20 steps' mean: one batch's loss is noisy.
    const std::size_t n = v.points.size(), k = std::min<std::size_t>(n, 20);
    if (k > 0) {
      double loss = 0, acc = 0;
      for (std::size_t i = n - k; i < n; ++i) loss += v.points[i].loss, acc += v.points[i].accuracy;
      line += " · loss " + fixed_decimals(loss / static_cast<double>(k), 3) + " · accuracy " + fixed_decimals(acc / static_cast<double>(k), 2);
    }
    if (v.evaluation) {
      line += " · on " + std::to_string(v.evaluation->sequences) + " new sequences: loss " + fixed_decimals(v.evaluation->loss, 3) +
              ", accuracy " + fixed_decimals(v.evaluation->accuracy, 3);
    }
    if (t.lift_pending) line += " · lifting the head…";
  }
  text_wrapped_unformatted(line);
  error_text(pal.error, v.error);
  error_text(pal.error, t.error);
  if (!t.notice.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.good);
    text_wrapped_unformatted(t.notice);
    ImGui::PopStyleColor();
  }
}

// The layer whose heads are shown (training_plots.hpp's line of buttons and ↑ ↓).
void choose_layer(TrainingUi& t, int layers) {
  if (const int l = choose_layer_line(t.layer, layers); l != t.layer) choose_training_head(t, l, t.head);
}

}  // namespace

void draw_training_window(const ViewContext& ctx, TrainingUi& t, Commands& out) {
  ensure_training_form(t);
  const float fs = ImGui::GetFontSize();
  if (t.form_open || !t.job) {
    draw_form(ctx, t);
    if (t.job && ImGui::SmallButton("Hide the settings")) t.form_open = false;
  } else {
    const std::string s = summary(t.job->config());
    const char* more = "Settings…";
    ImGui::TextUnformatted(s.c_str());
    same_line_if_fits(button_width(more));
    if (ImGui::Button(more)) t.form_open = true;
  }
  draw_buttons(t, ctx.platform.threads, out);
  draw_status(ctx, t);
  const TrainingView& v = t.view;
  if (v.maps.empty()) return;
  ImGui::Separator();
  // The curve on the left, the heads on the right (a projector is wider than it is tall).
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const int shown_changes = 3;
  const float changes_h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::min<std::size_t>(v.changes.size(), shown_changes) +
                                                                                     (v.changes.size() > shown_changes ? 1 : 0));
  const float curve_w = std::max(fs * 10, avail.x * 0.46f);
  ImGui::BeginGroup();
  const PhaseChange phase = find_phase_change(v.points);
  draw_loss_curve(ctx.view, v, ImVec2(curve_w, std::max(fs * 4, avail.y - changes_h - fs * 0.3f)), phase.sudden() ? &phase : nullptr);
  draw_kind_changes(ctx.view, v, shown_changes);
  ImGui::EndGroup();
  ImGui::SameLine(0, fs);
  ImGui::BeginGroup();
  char title[96];
  std::snprintf(title, sizeof title, "every head at step %d (click one to open it in the lab)", v.maps_step);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x);
  text_wrapped_unformatted(title);
  ImGui::PopTextWrapPos();
  // On a projector the layers take turns, as in the Model window: two rows of maps under the title
  // gave 128 px maps at 1280 × 720.
  const int layers = static_cast<int>(v.maps.size());
  const bool turns = ctx.view.presenter && layers > 1;
  if (turns) choose_layer(t, layers);
  const ImVec2 rest = ImGui::GetContentRegionAvail();
  const auto [l, h] = draw_head_maps(ctx.view, v, ImVec2(rest.x, rest.y - fs * 0.2f), t.layer, t.head, turns);
  ImGui::EndGroup();
  if (l >= 0) lift_training_head(t, l, h);
}

}  // namespace attnlab::gui
