// The mask family of seed 002 side by side on the same scores: bidirectional, causal, padding,
// prefix-LM and sliding window, each map's blocked cells hatched and its row sums written under it.
#include "gui/lesson_views.hpp"
#include "gui/theme.hpp"

#include <algorithm>

namespace attnlab::gui {

void draw_mask_family_view(AppState& state, Services& services) {
  const Scenario& s = state.doc.scenario;
  const std::vector<std::string>& specs = s.lesson.masks;
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const int count = static_cast<int>(specs.size());
  const int cols = count <= 3 ? count : (count + 1) / 2;
  const int rows = (count + cols - 1) / cols;
  const float w = avail.x / static_cast<float>(std::max(cols, 1)), h = avail.y / static_cast<float>(std::max(rows, 1));
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  for (int k = 0; k < count; ++k) {
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(k % cols) * w, top.y + static_cast<float>(k / cols) * h));
    ImGui::BeginGroup();
    Problem p = s.problem();
    try {
      p.options.mask = parse_mask_spec(specs[static_cast<size_t>(k)], "lesson.masks");
      const Result r = compute_cpu(p);
      const BlockGrid blocked = mask_grid(p.options.mask, r.n, r.m);
      static const char* const names[] = {"bidirectional (BERT)", "causal (GPT)", "padding", "prefix-LM", "sliding window", "custom"};
      const std::string title = std::string(names[static_cast<int>(p.options.mask.kind)]) + ": " + specs[static_cast<size_t>(k)];
      draw_lesson_matrix(state, services, ("mask" + std::to_string(k)).c_str(), title, Stage::Weights, r.weights, &blocked,
                         ql, kl, ImVec2(w - fs, h - fs * 1.6f));
      std::vector<double> sums;
      for (Eigen::Index i = 0; i < r.n; ++i) sums.push_back(r.weights.row(i).cast<double>().sum());
      lesson_numbers_line("row sums", sums, 2);
    } catch (const InputError& e) {
      ImGui::TextWrapped("%s", e.what());
    }
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
