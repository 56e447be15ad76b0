// Rotary positions (the rope lesson): the scores with every position where it is and shifted, the
// same q and k at every pair of positions (constant along each diagonal: one distance), each pair
// of components' frequency, and how the score of aligned vectors falls with distance.
#include "gui/lessons/rope_page.hpp"

#include "gui/base/theme.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

std::vector<std::string> placed(const std::vector<std::string>& tokens, const std::vector<std::int64_t>& positions) {
  std::vector<std::string> out;
  for (size_t k = 0; k < tokens.size(); ++k) out.push_back(tokens[k] + " @" + std::to_string(positions[k]));
  return out;
}

std::vector<std::string> numbered(const char* what, long long count) {
  std::vector<std::string> out;
  for (long long p = 0; p < count; ++p) out.push_back(std::string(what) + " @" + std::to_string(p));
  return out;
}

// The pairs' frequencies: all of them for a small d_k, else the fastest three and the slowest two.
void frequency_table(const RopeLesson& l, const Glyphs& g, float width) {
  const size_t count = l.frequencies.size();
  if (!ImGui::BeginTable("frequencies", 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg, ImVec2(width, 0))) return;
  ImGui::TableSetupColumn("pair");
  ImGui::TableSetupColumn("rad per position");
  ImGui::TableSetupColumn("positions per turn");
  ImGui::TableHeadersRow();
  for (size_t t = 0; t < count; ++t) {
    if (count > 6 && t >= 3 && t + 2 < count) {
      if (t == 3) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(g.ellipsis);
      }
      continue;
    }
    const RopeFrequency& f = l.frequencies[t];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%lld and %lld", f.pair + 1, f.pair + 1 + static_cast<long long>(count));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(significant(f.frequency, 3).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(significant(f.wavelength, 4).c_str());
  }
  ImGui::EndTable();
}

// The score of aligned q and k against distance, the distance on a log scale.
void distance_plot(const RopeLesson& l, const Palette& pal, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float fs = ImGui::GetFontSize();
  const ImVec2 plot(at.x + fs * 2.5f, at.y);
  const float w = std::max(size.x - fs * 2.5f, fs * 4), h = std::max(size.y - fs * 1.6f, fs * 3);
  dl->AddRect(plot, ImVec2(plot.x + w, plot.y + h), ImGui::GetColorU32(pal.text_dim));
  const double far = std::log2(1.0 + static_cast<double>(l.distances.back().distance));
  const auto x_of = [&](long long d) { return plot.x + w * static_cast<float>(std::log2(1.0 + static_cast<double>(d)) / far); };
  const auto y_of = [&](double v) { return plot.y + h * static_cast<float>((1.0 - std::clamp(v, -1.0, 1.0)) / 2.0); };
  dl->AddLine(ImVec2(plot.x, y_of(0)), ImVec2(plot.x + w, y_of(0)), ImGui::GetColorU32(pal.text_dim));
  std::vector<ImVec2> line;
  for (const RopeDistance& d : l.distances) line.emplace_back(x_of(d.distance), y_of(d.aligned));
  dl->AddPolyline(line.data(), static_cast<int>(line.size()), ImGui::GetColorU32(pal.accent), 0, 2.0f);
  dl->AddText(ImVec2(at.x, plot.y - fs * 0.5f), ImGui::GetColorU32(pal.text_dim), "1");
  dl->AddText(ImVec2(at.x, y_of(0) - fs * 0.5f), ImGui::GetColorU32(pal.text_dim), "0");
  dl->AddText(ImVec2(at.x, plot.y + h - fs * 0.5f), ImGui::GetColorU32(pal.text_dim), "-1");
  for (const long long d : {1LL, 16LL, 256LL, 4096LL}) {
    const std::string label = std::to_string(d);
    const float label_w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(std::min(x_of(d) - label_w / 2, plot.x + w - label_w), plot.y + h + fs * 0.2f),
                ImGui::GetColorU32(pal.text_dim), label.c_str());
  }
  ImGui::Dummy(ImVec2(size.x, h + fs * 1.4f));
}

// The three maps side by side, `map_h` tall, listed (LessonMapsListed) for the layout record and the tests.
void rope_maps(const MapCanvas& canvas, const RopeLesson& l, const Scenario& s, float map_h) {
  const float fs = ImGui::GetFontSize();
  const float col_w = (ImGui::GetContentRegionAvail().x - fs * 2) / 3.0f;
  const auto qt = display_tokens(s.query_tokens, s.Q.rows()), kt = display_tokens(s.key_tokens, s.K.rows());
  const auto pq = rope_positions(l.rope.query_positions, s.Q.rows()), pk = rope_positions(l.rope.key_positions, s.K.rows());
  std::vector<std::int64_t> sq = pq, sk = pk;
  for (auto& p : sq) p += l.shift;
  for (auto& p : sk) p += l.shift;
  map_h = std::min(map_h, col_w);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  ImGui::BeginGroup();
  // The pipeline's own scores: R turns the rotation off and this map shows what is left, Q Kᵀ in
  // which a token's position plays no part (the dry run saw R change nothing in the lesson).
  std::vector<DrawnRect> listed;
  listed.push_back(draw_lesson_matrix(canvas, "rope_scores", l.rope_on ? "scores with RoPE" : "scores without RoPE", Stage::Scores,
                                      l.rope_on ? l.scores : l.unrotated_scores, nullptr, placed(qt, pq), placed(kt, pk),
                                      ImVec2(col_w, map_h)));
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(ImVec2(top.x + col_w + fs, top.y));
  ImGui::BeginGroup();
  const std::string shifted_title = std::string(l.rope_on ? "" : "with RoPE, ") + "every position + " + std::to_string(l.shift) +
                                    ": no score moves past " + significant(l.max_shift_change, 2);
  listed.push_back(draw_lesson_matrix(canvas, "rope_shifted", shifted_title, Stage::Scores, l.shifted_scores, nullptr,
                                      placed(qt, sq), placed(kt, sk), ImVec2(col_w, map_h)));
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(ImVec2(top.x + 2 * (col_w + fs), top.y));
  ImGui::BeginGroup();
  const std::string grid_title = "q_1 and k_1 at every pair of positions: one score per diagonal";
  listed.push_back(draw_lesson_matrix(canvas, "rope_grid", grid_title, Stage::Scores, l.same_pair_scores, nullptr,
                                      numbered("q_1", l.grid), numbered("k_1", l.grid), ImVec2(col_w, map_h)));
  ImGui::EndGroup();
  canvas.out.push_back(LessonMapsListed{std::move(listed)});
  ImGui::SetCursorScreenPos(ImVec2(top.x, std::max(ImGui::GetCursorScreenPos().y, top.y + map_h)));
}

// The frequency table and the decay with distance side by side, `height` tall.
void rope_frequencies(const RopeLesson& l, const Glyphs& g, const Palette& pal, float height) {
  const float fs = ImGui::GetFontSize();
  const float bottom_w = (ImGui::GetContentRegionAvail().x - fs) / 2.0f;
  const ImVec2 below = ImGui::GetCursorScreenPos();
  ImGui::BeginGroup();
  text_wrapped("Each pair turns at its own speed (%s = %s):", g.theta, significant(l.rope.theta, 6).c_str());
  frequency_table(l, g, bottom_w);
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(ImVec2(below.x + bottom_w + fs, below.y));
  ImGui::BeginGroup();
  text_wrapped("Aligned q, k of width %lld: score by distance", l.envelope_d_k);
  distance_plot(l, pal, ImVec2(bottom_w, std::max(fs * 4, height - ImGui::GetTextLineHeightWithSpacing() - fs * 0.5f)));
  ImGui::EndGroup();
}

// Presenter mode's choice of what is shown: two buttons, the one shown lit.
void rope_chooser(RopeUi& ui) {
  for (const bool frequencies : {false, true}) {
    if (frequencies) ImGui::SameLine();
    const bool lit = ui.frequencies == frequencies;
    if (lit) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(frequencies ? "Each pair's speed, and distance" : "The scores at their positions")) ui.frequencies = frequencies;
    if (lit) ImGui::PopStyleColor();
  }
}

}  // namespace

void draw_rope_page(const PageInputs& in, const RopeNumbers* numbers, RopeUi& ui, Commands& out) {
  if (!numbers_or_why(in, numbers, "The rope lesson cannot run here: ")) return;
  const MapCanvas canvas = in.canvas(out);
  const RopeLesson& l = numbers->lesson;
  const Glyphs& g = in.ctx.services.glyphs;
  const Palette pal = palette(in.ctx.view);
  const float fs = ImGui::GetFontSize();
  if (!l.rope_on) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    text_wrapped("RoPE is off in the pipeline (press R to turn it on): these numbers use %s = %s.", g.theta,
                 significant(l.rope.theta, 6).c_str());
    ImGui::PopStyleColor();
  }
  if (in.ctx.view.presenter) {
    rope_chooser(ui);
    const float height = ImGui::GetContentRegionAvail().y - fs * 0.5f;
    if (ui.frequencies) {
      rope_frequencies(l, g, pal, height);
      out.push_back(LessonMapsListed{});  // no map on this turn
    } else {
      rope_maps(canvas, l, in.ctx.shown(), height);
    }
    return;
  }
  // The three maps take what the frequency table (a header and up to six rows) and the plot leave.
  const float col_w = (ImGui::GetContentRegionAvail().x - fs * 2) / 3.0f;
  const float table_h = ImGui::GetFrameHeightWithSpacing() * static_cast<float>(std::min<size_t>(l.frequencies.size(), 6) + 1);
  const float map_h = std::clamp(ImGui::GetContentRegionAvail().y - table_h - fs * 3.5f, fs * 6, col_w);
  const float top = ImGui::GetCursorScreenPos().y;
  rope_maps(canvas, l, in.ctx.shown(), map_h);
  ImGui::SetCursorScreenPos(ImVec2(ImGui::GetCursorScreenPos().x, std::max(ImGui::GetCursorScreenPos().y, top + map_h + fs * 2.6f)));
  rope_frequencies(l, g, pal, ImGui::GetContentRegionAvail().y);
}

}  // namespace attnlab::gui
