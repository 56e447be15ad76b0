// The loss curve and the head maps of a training run, drawn with ImGui's draw list (no plotting
// library: Debian has no ImPlot); see training_plots.hpp.
#include "gui/training/training_plots.hpp"

#include "gui/base/theme.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/widgets/attention_map.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/state/view_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

ImU32 with_alpha(ImU32 c, int alpha) { return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT); }

void dashed_vline(ImDrawList* dl, float x, float y0, float y1, ImU32 colour, float dash) {
  for (float y = y0; y < y1; y += dash * 2) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + dash, y1)), colour, 1.5f);
}

std::string short_kind(model::HeadKind k) {
  switch (k) {
    case model::HeadKind::PreviousToken: return "prev";
    case model::HeadKind::Induction: return "ind";
    case model::HeadKind::FirstToken: return "first";
    case model::HeadKind::Self: return "self";
    case model::HeadKind::Broad: return "broad";
    case model::HeadKind::Mixed: return "mixed";
  }
  return "";
}

// A head's score (its kind's, and the five patterns'), as the Model window writes it.
std::string score_text(double score) { return format_number(score, NumberUse::Cell, 2); }

}  // namespace

void draw_loss_curve(const ViewSettings& look, const TrainingView& v, ImVec2 size, const PhaseChange* phase) {
  const Palette pal = palette(look);
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  const float left = at.x + ImGui::CalcTextSize("0.00").x + fs * 0.4f, right = at.x + size.x - ImGui::CalcTextSize("1.0").x - fs * 0.4f;
  const float top = at.y + fs * 1.3f, bottom = at.y + size.y - fs * 1.3f;
  if (right - left < fs * 4 || bottom - top < fs * 3) return;
  const ImU32 loss_c = pal.accent, acc_c = pal.good, mark_c = pal.warning;
  const std::vector<TrainingPoint> bins = bin_points(v.points, static_cast<int>(right - left));
  float lmax = 0;
  for (const auto& p : bins) lmax = std::max(lmax, p.loss);
  lmax = lmax > 0 && std::isfinite(lmax) ? lmax * 1.05f : 1.0f;
  const float steps = static_cast<float>(std::max(1, v.steps));
  const auto x_of = [&](double step) { return left + (right - left) * static_cast<float>(step) / steps; };
  const auto y_loss = [&](double l) { return bottom - (bottom - top) * std::clamp(static_cast<float>(l) / lmax, 0.0f, 1.0f); };
  const auto y_acc = [&](double a) { return bottom - (bottom - top) * std::clamp(static_cast<float>(a), 0.0f, 1.0f); };

  // The legend and the axes' ends.
  dl->AddText(ImVec2(left, at.y), loss_c, "loss");
  const float acc_w = ImGui::CalcTextSize("accuracy").x;
  dl->AddText(ImVec2(right - acc_w, at.y), acc_c, "accuracy");
  char buf[64];
  dl->AddText(ImVec2(at.x, top - fs * 0.5f), loss_c, format_number(lmax, NumberUse::Axis, 2).c_str());
  dl->AddText(ImVec2(at.x, bottom - fs * 0.5f), loss_c, "0");
  dl->AddText(ImVec2(right + fs * 0.3f, top - fs * 0.5f), acc_c, "1.0");
  dl->AddText(ImVec2(right + fs * 0.3f, bottom - fs * 0.5f), acc_c, "0");
  dl->AddText(ImVec2(left, bottom + fs * 0.15f), pal.text_dim, "step 0");
  std::snprintf(buf, sizeof buf, "%d", v.steps);
  dl->AddText(ImVec2(right - ImGui::CalcTextSize(buf).x, bottom + fs * 0.15f), pal.text_dim, buf);
  dl->AddRect(ImVec2(left, top), ImVec2(right, bottom), pal.cell_border);

  // Labels go on top of the curves, each on a backdrop of the window's colour so that a curve
  // passing under it does not cross its letters (on a projector they must read at a glance).
  struct Label {
    ImVec2 at;
    ImU32 colour;
    std::string text;
  };
  std::vector<Label> labels;
  if (phase && phase->found) {
    const float x0 = x_of(phase->first_step), x1 = std::max(x0 + 2.0f, x_of(phase->last_step));
    dl->AddRectFilled(ImVec2(x0, top), ImVec2(x1, bottom), with_alpha(pal.accent, 50));
    const char* label = "phase change";
    const float w = ImGui::CalcTextSize(label).x;
    labels.push_back({ImVec2(std::clamp((x0 + x1 - w) * 0.5f, left, right - w), top + fs * 0.2f), pal.text, label});
  }
  // A marker per settled kind change, its label where place_change_labels puts it (markers a few
  // steps apart crowd together on a long run).
  const int rows = std::max(1, static_cast<int>((bottom - top - fs * 1.6f) / (fs * 1.1f)));
  std::vector<ChangeLabel> places;
  std::vector<std::string> texts;
  for (const KindChange& c : v.changes) {
    const float x = x_of(c.step);
    dashed_vline(dl, x, top, bottom, mark_c, fs * 0.3f);
    std::snprintf(buf, sizeof buf, "L%dH%d %s", c.layer, c.head, short_kind(c.kind).c_str());
    const float w = ImGui::CalcTextSize(buf).x;
    places.push_back({std::clamp(x + fs * 0.2f, left, right - w), w, c.layer, c.head});
    texts.emplace_back(buf);
  }
  const std::vector<int> row_of = place_change_labels(places, rows, fs * 0.3f);
  for (std::size_t i = 0; i < places.size(); ++i) {
    if (row_of[i] < 0) continue;
    labels.push_back({ImVec2(places[i].x, bottom - fs * (1.2f + 1.1f * static_cast<float>(row_of[i]))), mark_c, texts[i]});
  }
  if (bins.size() >= 2) {
    std::vector<ImVec2> loss_line, acc_line;
    for (const auto& p : bins) {
      loss_line.emplace_back(x_of(p.step), y_loss(p.loss));
      acc_line.emplace_back(x_of(p.step), y_acc(p.accuracy));
    }
    dl->AddPolyline(acc_line.data(), static_cast<int>(acc_line.size()), acc_c, 0, 2.0f);
    dl->AddPolyline(loss_line.data(), static_cast<int>(loss_line.size()), loss_c, 0, 2.0f);
  }
  const ImU32 backdrop = with_alpha(ImGui::GetColorU32(ImGuiCol_WindowBg), 215);
  for (const Label& l : labels) {
    const ImVec2 size_of = ImGui::CalcTextSize(l.text.c_str());
    dl->AddRectFilled(ImVec2(l.at.x - fs * 0.15f, l.at.y), ImVec2(l.at.x + size_of.x + fs * 0.15f, l.at.y + size_of.y), backdrop, fs * 0.2f);
    dl->AddText(l.at, l.colour, l.text.c_str());
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!bins.empty() && ImGui::IsWindowHovered() && mouse.x >= left && mouse.x < right && mouse.y >= top && mouse.y < bottom) {
    const std::size_t b = std::min(bins.size() - 1, static_cast<std::size_t>((mouse.x - left) / (right - left) * static_cast<float>(bins.size())));
    std::string tip = "step " + std::to_string(bins[b].step) + ": loss " + fixed_decimals(bins[b].loss, 3) + ", accuracy " +
                      fixed_decimals(bins[b].accuracy, 3);
    // The kind changes whose markers are under the pointer: a label that gave way is read here.
    for (const KindChange& c : v.changes) {
      if (std::abs(x_of(c.step) - mouse.x) <= fs * 0.4f) tip += "\n" + kind_change_text(c);
    }
    ImGui::SetTooltip("%s", tip.c_str());
  }
}

std::pair<int, int> draw_head_maps(const ViewSettings& look, const TrainingView& v, ImVec2 size, int chosen_layer, int chosen_head,
                                   bool one_layer) {
  std::pair<int, int> clicked{-1, -1};
  if (v.maps.empty() || v.maps[0].empty()) return clicked;
  const Palette pal = palette(look);
  const Colormap& map = stage_colormap(look, Stage::Weights);
  const float fs = ImGui::GetFontSize();
  const int layers = static_cast<int>(v.maps.size()), H = static_cast<int>(v.maps[0].size());
  const int first = one_layer ? std::clamp(chosen_layer, 0, layers - 1) : 0, L = one_layer ? 1 : layers;
  const float label_w = ImGui::CalcTextSize("L00").x + fs * 0.3f;
  const float gap = fs * 0.45f, small = std::max(fs * 0.8f, smallest_text()), label_h = small * 1.25f;
  const float header_h = fs * 1.15f;
  const float side = std::max(fs * 1.5f, std::min((size.x - label_w) / static_cast<float>(H) - gap,
                                                  (size.y - header_h) / static_cast<float>(L) - label_h - gap));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int h = 0; h < H; ++h) {
    const std::string t = "H" + std::to_string(h);
    dl->AddText(ImVec2(origin.x + label_w + static_cast<float>(h) * (side + gap), origin.y), pal.text_dim, t.c_str());
  }
  for (int l = first; l < first + L; ++l) {
    const float y = origin.y + header_h + static_cast<float>(l - first) * (side + label_h + gap);
    const std::string t = "L" + std::to_string(l);
    dl->AddText(ImVec2(origin.x, y + side * 0.5f - fs * 0.5f), pal.text_dim, t.c_str());
    for (int h = 0; h < H; ++h) {
      const model::CausalWeights& A = v.maps[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
      const ImVec2 at(origin.x + label_w + static_cast<float>(h) * (side + gap), y);
      // At most one block per 2 pixels: a long probe on a small map shows its blocks' means.
      const auto [i, j] = draw_attention_map("training " + head_map_label(l, h), A, at, side, static_cast<int>(side / 2), map, pal.error);
      const model::HeadVerdict& verdict = v.kinds[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
      std::string label = std::string(model::head_kind_name(verdict.kind)) + " " + score_text(verdict.score);
      if (ImGui::CalcTextSize(label.c_str()).x * small / fs > side) label = short_kind(verdict.kind) + " " + score_text(verdict.score);
      const float size_px = std::max({fs * 0.45f, smallest_text(), std::min(small, small * side / (ImGui::CalcTextSize(label.c_str()).x * small / fs + 1.0f))});
      const bool named = verdict.kind != model::HeadKind::Broad && verdict.kind != model::HeadKind::Mixed;
      dl->AddText(ImGui::GetFont(), size_px, ImVec2(at.x, at.y + side + 1), named ? pal.text : pal.text_dim, label.c_str());
      if (l == chosen_layer && h == chosen_head) {
        dl->AddRect(ImVec2(at.x - 2, at.y - 2), ImVec2(at.x + side + 2, at.y + side + 2), pal.accent, 0, 0, 2.5f);
      }
      if (head_map_button(l, h, at, side)) clicked = {l, h};
      if (i < 0) continue;
      const auto tok = [&](int k) { return k < static_cast<int>(v.probe.size()) ? v.probe[static_cast<std::size_t>(k)] : -1; };
      ImGui::BeginTooltip();
      ImGui::Text("L%dH%d · %s %s (step %d)", l, h, std::string(model::head_kind_name(verdict.kind)).c_str(), score_text(verdict.score).c_str(),
                  v.maps_step);
      ImGui::Text("query %d (symbol %d) → key %d (symbol %d): %s", i, tok(i), j, tok(j), j > i ? "blocked (causal)" : format_number(A(i, j), NumberUse::Cell, 3).c_str());
      const model::HeadScores& s = verdict.scores;
      ImGui::TextDisabled("previous-token %s · induction %s · first-token %s · self %s · broad %s", score_text(s.previous_token).c_str(),
                          score_text(s.induction).c_str(), score_text(s.first_token).c_str(), score_text(s.self).c_str(),
                          score_text(s.broad).c_str());
      ImGui::TextDisabled("click: pause and open this head in the lab");
      ImGui::EndTooltip();
    }
  }
  ImGui::Dummy(ImVec2(label_w + static_cast<float>(H) * (side + gap), header_h + static_cast<float>(L) * (side + label_h + gap)));
  return clicked;
}

int choose_layer_line(int layer, int layers) {
  int chosen = layer;
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::GetIO().WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) chosen = layer + 1;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) chosen = layer - 1;
  }
  ImGui::TextUnformatted("layer");
  for (int l = 0; l < layers; ++l) {
    ImGui::SameLine();
    ImGui::PushID(l);
    if (ImGui::RadioButton(std::to_string(l).c_str(), layer == l)) chosen = l;
    ImGui::PopID();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(↑ ↓)");
  return std::clamp(chosen, 0, std::max(0, layers - 1));
}

void draw_kind_changes(const ViewSettings& look, const TrainingView& v, int most) {
  const Palette pal = palette(look);
  const int n = static_cast<int>(v.changes.size());
  for (int k = std::max(0, n - most); k < n; ++k) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    ImGui::TextUnformatted(kind_change_text(v.changes[static_cast<std::size_t>(k)]).c_str());
    ImGui::PopStyleColor();
  }
  if (n <= most) return;
  ImGui::TextDisabled("(%s on the curve)", count_of(n - most, "earlier change").c_str());
  if (ImGui::IsItemHovered()) {
    std::string earlier;
    for (int k = 0; k < n - most; ++k) earlier += (k ? "\n" : "") + kind_change_text(v.changes[static_cast<std::size_t>(k)]);
    ImGui::SetTooltip("%s", earlier.c_str());
  }
}

}  // namespace attnlab::gui
