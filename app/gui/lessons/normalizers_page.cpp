// Normalizers side by side ("The Query-Key-Value framework"'s table): softmax, sparsemax (exact zeros), sigmoid (rows
// need not sum to 1) and hardmax on the same logits.
#include "gui/lessons/normalizers_page.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <cstdio>

namespace attnlab::gui {

void draw_normalizers_page(const PageInputs& in, const NormalizersNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const MapCanvas canvas = in.canvas(out);
  const Scenario& s = in.ctx.shown();
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
      error_text(palette(in.ctx.view).error, v.error);
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
    draw_lesson_matrix(canvas, normalizer_name(normalizer).data(), title, Stage::Weights, r.weights, &blocked, ql, kl,
                       ImVec2(w - fs, h - fs * 1.6f));
    char label[64];
    std::snprintf(label, sizeof label, "exact zeros %lld; row sums", zeros);
    lesson_numbers_line(label, sums, 3);
    if (normalizer != s.options.normalizer) {
      ImGui::SameLine();
      if (ImGui::SmallButton(("use##" + std::string(normalizer_name(normalizer))).c_str())) out.push_back(edits::set_normalizer(normalizer));
    }
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
