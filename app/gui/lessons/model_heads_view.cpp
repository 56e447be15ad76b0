// "What heads do in a trained model" ("QKV, Scaled Dot-Product & Causal Masking", Section 2.3,
// Figure 2.3.1): the hand-made previous-token head of the pipeline named by the detector the Model
// window uses, then the open model's heads counted by kind with the clearest of each kind one click
// from the lab. With no model open it opens the built-in `induction` model on its probe sequence, so
// a fresh install shows real learned heads; and says where GPT-2 is found (docs/MODELS.md).
#include "engine/model/head_kinds.hpp"
#include "engine/model/training_tasks.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/lessons/lesson_views.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/state/model_actions.hpp"
#include "gui/state/training_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace attnlab::gui {

namespace {

// The built-in induction model (issue 18) on its own task's probe sequence, once per session: the
// heads a fresh install can show without GPT-2. The Model window stays closed (this view lists the
// heads); a failure leaves the sentence in the Model window and the hint below.
void open_builtin_induction(AppState& state) {
  if (state.lesson.builtin_model_tried) return;
  state.lesson.builtin_model_tried = true;
  const auto builtins = model::builtin_models();
  if (std::none_of(builtins.begin(), builtins.end(), [](const model::BuiltinModel& b) { return b.name == "induction"; })) return;
  try {
    const auto probe_model = model::open_model("induction");
    const model::TaskSpec task = model::parse_task_json(probe_model->config().task_json, "the built-in induction model");
    state.model.text = probe_text(model::probe_sequence(task));
  } catch (const InputError& e) {
    state.model.error = e.what();
    return;
  }
  const bool was_open = window_open(state.view, "Model");
  open_model_file(state, "induction");
  window_open(state.view, "Model") = was_open;
}

}  // namespace

void draw_model_heads_view(AppState& state, Services& services) {
  std::string error;
  const ModelHeadsNumbers* numbers = lesson_numbers<ModelHeadsNumbers>(state, services, error);
  if (numbers && state.results.result.weights.rows() >= 2) {
    const model::HeadVerdict& v = numbers->example;
    char line[160];
    std::snprintf(line, sizeof line, "The pipeline's head, by the Model window's detector: %s, score %.2f.",
                  std::string(model::head_kind_name(v.kind)).c_str(), v.score);
    text_wrapped_unformatted(line);
  }
  ModelUi& m = state.model;
  open_builtin_induction(state);
  poll_model_run(state.model);
  if (!m.model) {
    text_wrapped("No model is open. GPT-2 needs no download if this computer has used it: a Hugging Face cache keeps it in "
                 "~/.cache/huggingface/hub/models--gpt2/snapshots/<revision>/ (or under $HF_HOME), a folder holding config.json, "
                 "model.safetensors, vocab.json and merges.txt. Open that folder's model.safetensors, or drop the folder on the window.");
    if (ImGui::Button("Open model…")) {
      window_open(state.view, "Model") = true;
      open_file_dialog(state, FilePurpose::OpenModel);
    }
    return;
  }
  if (m.model->config().is_toy()) {
    text_wrapped_unformatted("This is one of Attention Lab's own models, trained in the app on repeated random symbols (the Training "
                             "window, F2, trains one while you watch). File > Open model… opens a GPT-2 folder instead.");
  }
  if (ImGui::Button("Show the Model window")) window_open(state.view, "Model") = true;
  if (!m.run || m.run->kinds.empty()) {
    text_wrapped_unformatted(m.job ? "Running the model on its text…" : "Type a text in the Model window to see its heads.");
    return;
  }
  // Count the kinds and find each kind's clearest head.
  constexpr int kKinds = 6;
  std::array<int, kKinds> count{};
  std::array<std::pair<int, int>, kKinds> best;
  std::array<double, kKinds> best_score{};
  best.fill({-1, -1});
  for (std::size_t l = 0; l < m.run->kinds.size(); ++l) {
    for (std::size_t h = 0; h < m.run->kinds[l].size(); ++h) {
      const auto& v = m.run->kinds[l][h];
      const int k = static_cast<int>(v.kind);
      ++count[static_cast<std::size_t>(k)];
      if (best[static_cast<std::size_t>(k)].first < 0 || v.score > best_score[static_cast<std::size_t>(k)]) {
        best[static_cast<std::size_t>(k)] = {static_cast<int>(l), static_cast<int>(h)};
        best_score[static_cast<std::size_t>(k)] = v.score;
      }
    }
  }
  char line[200];
  std::snprintf(line, sizeof line, "%s on %zu tokens: %d heads in all.", m.model->display_name().c_str(), m.run->trace.ids.size(),
                m.model->config().n_layer * m.model->config().n_head);
  text_wrapped_unformatted(line);
  for (int k = 0; k < kKinds; ++k) {
    if (count[static_cast<std::size_t>(k)] == 0) continue;
    const auto [l, h] = best[static_cast<std::size_t>(k)];
    std::snprintf(line, sizeof line, "%-15s %3d heads; clearest L%dH%d (%.2f)", std::string(model::head_kind_name(static_cast<model::HeadKind>(k))).c_str(),
                  count[static_cast<std::size_t>(k)], l, h, best_score[static_cast<std::size_t>(k)]);
    ImGui::TextUnformatted(line);
    ImGui::SameLine();
    ImGui::PushID(k);
    if (ImGui::SmallButton("Open in the lab")) {
      choose_head(state.model, l, h);
      lift_chosen_head(state);
    }
    ImGui::PopID();
  }
}

}  // namespace attnlab::gui
