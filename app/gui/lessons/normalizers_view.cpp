// Normalizers side by side ("The Query-Key-Value framework"'s table): softmax, sparsemax (exact zeros), sigmoid (rows
// need not sum to 1) and hardmax on the same logits.
#include "engine/lessons/normalizers.hpp"
#include "gui/lessons/lesson_views.hpp"
#include "gui/base/theme.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <cstdio>

namespace attnlab::gui {

void draw_normalizers_view(AppState& state, Services& services) {
  const NormalizersNumbers* numbers = view_numbers<NormalizersNumbers>(state, services);
  if (!numbers) return;
  const Scenario& s = shown_scenario(state);
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const char* notes[] = {"smooth, dense, sums to 1", "projection onto the simplex: exact zeros",
                         "each key on its own: rows need not sum to 1", "1 on the largest logit, 0 elsewhere"};
  const float w = avail.x / 2.0f, h = avail.y / 2.0f;
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  for (int k = 0; k < 4; ++k) {
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(k % 2) * w, top.y + static_cast<float>(k / 2) * h));
    ImGui::BeginGroup();
    const LessonVariant& v = numbers->variants[static_cast<size_t>(k)];
    const Normalizer normalizer = numbers->normalizers[static_cast<size_t>(k)];
    if (!v.ok()) {
      error_text(palette(state.view).error, v.error);
      ImGui::EndGroup();
      continue;
    }
    const Result& r = v.result;
    const BlockGrid& blocked = v.blocked;
    long long zeros = 0;
    std::vector<double> sums;
    for (Eigen::Index i = 0; i < r.n; ++i) {
      sums.push_back(r.weights.row(i).cast<double>().sum());
      for (Eigen::Index j = 0; j < r.m; ++j) zeros += r.weights(i, j) == 0.0f && !blocked(i, j);
    }
    const std::string title = std::string(normalizer_name(normalizer)) + ": " + notes[k];
    draw_lesson_matrix(state, services, normalizer_name(normalizer).data(), title, Stage::Weights, r.weights, &blocked, ql, kl,
                       ImVec2(w - fs, h - fs * 1.6f));
    char label[64];
    std::snprintf(label, sizeof label, "exact zeros %lld; row sums", zeros);
    lesson_numbers_line(label, sums, 3);
    if (normalizer != s.options.normalizer) {
      ImGui::SameLine();
      if (ImGui::SmallButton(("use##" + std::string(normalizer_name(normalizer))).c_str())) actions::set_normalizer(state, normalizer);
    }
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
