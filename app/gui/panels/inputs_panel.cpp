// Inputs: the sizes (+/−), self-attention, Q/K/V as editable grids with token labels, fills,
// and a sentence split into tokens.
#include "gui/panels/panels.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attnlab::gui {

namespace {

// Normal mode: "[ 3 ][-][+] n", two to a line. Presenter mode: "n [ 3 ][-][+]" one to a line,
// the field taking the column's width, so the big labels are never cut by the column's edge.
void size_control(AppState& state, Dim dim, bool enabled, bool presenter) {
  int v = actions::dim_value(state, dim);
  ImGui::PushID(static_cast<int>(dim));
  if (!enabled) ImGui::BeginDisabled();
  const float fs = ImGui::GetFontSize();
  std::string label = dim_name(dim);
  if (presenter) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine(fs * 2.4f);
    ImGui::SetNextItemWidth(-1);
    label = "##size";
  } else {
    ImGui::SetNextItemWidth(fs * 6.5f);
  }
  if (ImGui::InputInt(label.c_str(), &v, 1, 16, ImGuiInputTextFlags_EnterReturnsTrue)) {
    actions::resize(state, dim, v);
  }
  if (!enabled) ImGui::EndDisabled();
  ImGui::PopID();
}

// Reports a cell's text that does not parse as a number while it is typed, and once it is
// abandoned (ImGui then keeps the old value). Returns false while the text is not a plain number:
// ImGui 1.86 reads "+-1", "*2" or "/2" as arithmetic on the old value, which the message would
// contradict, so such text never reaches the cell.
bool check_typed_text(AppState& state, ImGuiID id, const std::string& cell_name, float kept) {
  bool plain = true;
  if (ImGui::TempInputIsActive(id)) {
    if (ImGuiInputTextState* ts = ImGui::GetInputTextState(id)) {
      const char* text = ts->TextA.Data ? ts->TextA.Data : "";
      char* end = nullptr;
      const double value = std::strtod(text, &end);
      const bool blank = text[0] == '\0';
      while (end && *end == ' ') ++end;
      if (!blank && (end == text || (end && *end != '\0'))) {
        plain = false;
        state.inputs.cell_error = cell_name + ": \"" + text + "\" is not a number; it keeps " + std::to_string(kept);
        ImGui::SetTooltip("%s", state.inputs.cell_error.c_str());
      } else if (!blank && !fits_float(value)) {
        plain = false;
        state.inputs.cell_error = cell_name + ": " + text + " is beyond float32's range (largest 3.4e38); it keeps " +
                                  std::to_string(kept);
        ImGui::SetTooltip("%s", state.inputs.cell_error.c_str());
      } else if (state.inputs.cell_error.rfind(cell_name + ":", 0) == 0) {
        state.inputs.cell_error.clear();
      }
    }
  } else if (ImGui::IsItemDeactivated() && state.inputs.cell_error.rfind(cell_name + ":", 0) == 0) {
    // Enter on refused text: ImGui applies it once more as the field closes; that must not land.
    plain = false;
    state.error = state.inputs.cell_error;
    state.inputs.cell_error.clear();
  }
  return plain;
}

void matrix_grid(AppState& state, Which w) {
  const Scenario& sc = state.doc.scenario;
  const Matrix& M = w == Which::Q ? sc.Q : w == Which::K ? sc.K : sc.V;
  const int rows = static_cast<int>(M.rows()), cols = static_cast<int>(M.cols());
  const float fs = ImGui::GetFontSize();
  const std::vector<std::string> labels = w == Which::Q ? query_labels(state.doc.scenario) : key_labels(state.doc.scenario);
  const bool labels_editable = w == Which::Q || !state.doc.self_attention;
  // With RoPE on, Q's and K's rows carry their positions in a strip after the tokens, editable.
  const std::optional<RopeSettings>& rope = sc.options.rope;
  const bool positions = rope && w != Which::V;
  const std::vector<std::int64_t> at =
      positions ? rope_positions(w == Which::Q ? rope->query_positions : rope->key_positions, M.rows())
                : std::vector<std::int64_t>{};
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float token_w = fs * 4.5f, position_w = positions ? fs * 2.6f : 0.0f;
  const float label_w = token_w + position_w;
  const float row_h = ImGui::GetFrameHeightWithSpacing();
  const float height = std::min(static_cast<float>(rows), 8.0f) * row_h + ImGui::GetStyle().ScrollbarSize + 4;
  // Cells narrow (down to 2.8 font sizes, room for "-0.25") when that spares a small matrix the
  // horizontal scroll bar (a two-column Q in presenter mode's column on a 1152-pixel screen needed
  // it); a matrix that scrolls anyway keeps its full cells.
  const float room = ImGui::GetContentRegionAvail().x - label_w - (rows > 8 ? ImGui::GetStyle().ScrollbarSize : 0.0f) - 2;
  const float fitting = room / static_cast<float>(std::max(cols, 1)) - spacing;
  const float cell_w = fitting >= fs * 2.8f ? std::min(fitting, fs * 3.6f) : fs * 3.6f;
  ImGui::PushID(static_cast<int>(w));
  ImGui::BeginChild("grid", ImVec2(0, height), false, ImGuiWindowFlags_HorizontalScrollbar);
  const float scroll_x = ImGui::GetScrollX(), visible_w = ImGui::GetWindowWidth();
  const float col_step = cell_w + spacing;
  const int c0 = std::clamp(static_cast<int>((scroll_x - label_w) / col_step), 0, std::max(cols - 1, 0));
  const int c1 = std::min(cols, c0 + static_cast<int>(visible_w / col_step) + 2);
  ImGuiListClipper clipper;
  clipper.Begin(rows, row_h);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      ImGui::PushID(i);
      ImGui::SetNextItemWidth(token_w - spacing);
      std::string label = labels[static_cast<size_t>(i)];
      want_glyphs(label);  // a token in any script (the field keeps typed order: ImGui edits left to right)
      if (!labels_editable) ImGui::BeginDisabled();
      if (ImGui::InputText("##token", &label)) {
        if (w == Which::Q) actions::set_query_token(state, i, label);
        else actions::set_key_token(state, i, label);
      }
      if (ImGui::IsItemDeactivatedAfterEdit()) end_merge(state);
      if (!labels_editable) ImGui::EndDisabled();
      if (positions) {
        ImGui::SameLine(token_w);
        ImGui::SetNextItemWidth(position_w - spacing);
        int p = static_cast<int>(at[static_cast<size_t>(i)]);
        if (ImGui::DragInt("##position", &p, 0.2f, 0, 1000000)) actions::set_rope_position(state, w, i, p);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the position RoPE rotates this row by (drag or double-click to type)");
        if (ImGui::IsItemDeactivated()) end_merge(state);
      }
      for (int j = c0; j < c1; ++j) {
        ImGui::SameLine(label_w + static_cast<float>(j) * col_step);
        ImGui::PushID(j);
        float v = M(i, j);
        ImGui::SetNextItemWidth(cell_w);
        const float speed = 0.01f * std::max(1.0f, std::abs(v) * 0.1f);
        const bool changed = ImGui::DragFloat("##c", &v, speed, 0, 0, "%.3g");
        const std::string cell_name = std::string(which_name(w)) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
        const float kept = M(i, j);  // read before set_cell: the edit may replace the matrix
        if (check_typed_text(state, ImGui::GetItemID(), cell_name, kept) && changed) actions::set_cell(state, w, i, j, v);
        if (ImGui::IsItemDeactivated()) end_merge(state);
        ImGui::PopID();
      }
      // Reserve the full row width so the scrollbar spans every column.
      ImGui::SameLine(label_w + static_cast<float>(cols) * col_step);
      ImGui::Dummy(ImVec2(1, 1));
      ImGui::PopID();
    }
  }
  ImGui::EndChild();
  ImGui::PopID();
}

}  // namespace

void draw_inputs_panel(AppState& state, Services& services) {
  const Scenario& sc = state.doc.scenario;
  const Glyphs& g = services.glyphs;
  const Palette pal = palette(state.view);

  const bool presenter = state.view.presenter;
  bool self = state.doc.self_attention;
  // The checkbox's text wraps (a checkbox label cannot), so it is whole in a narrow column.
  if (ImGui::Checkbox("##self", &self)) actions::set_self_attention(state, self);
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  text_wrapped("self-attention (K, V on Q's tokens)");
  size_control(state, Dim::N, true, presenter);
  if (!presenter) ImGui::SameLine();
  size_control(state, Dim::M, !state.doc.self_attention, presenter);
  size_control(state, Dim::Dk, true, presenter);
  if (!presenter) ImGui::SameLine();
  size_control(state, Dim::Dv, true, presenter);

  const Which mats[] = {Which::Q, Which::K, Which::V};
  for (Which w : mats) {
    const Matrix& M = w == Which::Q ? sc.Q : w == Which::K ? sc.K : sc.V;
    const char* dims = w == Which::Q ? "n, d_k" : w == Which::K ? "m, d_k" : "m, d_v";
    const std::string header = std::string(which_name(w)) + "  (" + dims + " = " + std::to_string(M.rows()) + g.times +
                               std::to_string(M.cols()) + ")" +
                               (sc.options.rope && w != Which::V ? ", positions after the tokens" : "") + "###" +
                               which_name(w);
    if (ImGui::CollapsingHeader(header.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) matrix_grid(state, w);
  }
  error_text(pal.error, state.inputs.cell_error);

  if (ImGui::CollapsingHeader("Fill and tokens")) {
    const char* targets[] = {"Q", "K", "V", "Q, K and V"};
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
    int target = static_cast<int>(state.inputs.fill_target);
    if (ImGui::Combo("fill", &target, targets, 4)) state.inputs.fill_target = static_cast<FillTarget>(target);
    const float fs = ImGui::GetFontSize(), inner = ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(fs * 5);
    ImGui::DragFloat(g.sigma, &state.inputs.sigma, 0.01f, 0.01f, 100.0f, "%.2f");
    same_line_if_fits(fs * 6 + inner + ImGui::CalcTextSize("seed").x);
    ImGui::SetNextItemWidth(fs * 6);
    ImGui::InputInt("seed", &state.inputs.seed);
    const std::string random_label = std::string("Random N(0, ") + g.sigma + "²)";
    if (ImGui::Button(random_label.c_str())) {
      actions::fill(state, state.inputs.fill_target, actions::Fill::Random, state.inputs.sigma, state.inputs.seed);
    }
    same_line_if_fits(button_width("Identity"));
    if (ImGui::Button("Identity")) actions::fill(state, state.inputs.fill_target, actions::Fill::Identity, 1, 0);
    same_line_if_fits(button_width("Zeros"));
    if (ImGui::Button("Zeros")) actions::fill(state, state.inputs.fill_target, actions::Fill::Zeros, 1, 0);
    if (presenter) ImGui::SetNextItemWidth(-1.0f);
    ImGui::InputTextWithHint("##sentence", "type a sentence", &state.inputs.sentence);
    same_line_if_fits(button_width("Split into tokens"));
    if (ImGui::Button("Split into tokens")) actions::tokens_from_sentence(state, state.inputs.sentence);
  }
}

}  // namespace attnlab::gui
