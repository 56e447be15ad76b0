// Inputs: the sizes (+/−), self-attention, Q/K/V as editable grids with token labels, fills,
// and a sentence split into tokens; the "Large matrices" and "Load matrix" questions.
#include "gui/lab/inputs_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace attnlab::gui {

namespace {

// Normal mode: "[ 3 ][-][+] n", two to a line. Presenter mode: "n [ 3 ][-][+]" one to a line,
// the field taking the column's width, so the big labels are never cut by the column's edge.
void size_control(const Document& doc, Commands& out, Dim dim, bool enabled, bool presenter) {
  int v = dim_value(doc, dim);
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
    out.push_back(Resize{dim, v});
  }
  if (!enabled) ImGui::EndDisabled();
  ImGui::PopID();
}

// Reports a cell's text that does not parse as a number while it is typed, and once it is
// abandoned (ImGui then keeps the old value). Returns false while the text is not a plain number:
// ImGui 1.86 reads "+-1", "*2" or "/2" as arithmetic on the old value, which the message would
// contradict, so such text never reaches the cell.
bool check_typed_text(InputsUi& ui, Commands& out, ImGuiID id, const std::string& cell_name, float kept) {
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
        ui.cell_error = cell_name + ": \"" + text + "\" is not a number; it keeps " + fixed_decimals(kept, 6);
        ImGui::SetTooltip("%s", ui.cell_error.c_str());
      } else if (!blank && !fits_float(value)) {
        plain = false;
        ui.cell_error = cell_name + ": " + text + " is beyond float32's range (largest 3.4e38); it keeps " +
                        fixed_decimals(kept, 6);
        ImGui::SetTooltip("%s", ui.cell_error.c_str());
      } else if (ui.cell_error.rfind(cell_name + ":", 0) == 0) {
        ui.cell_error.clear();
      }
    }
  } else if (ImGui::IsItemDeactivated() && ui.cell_error.rfind(cell_name + ":", 0) == 0) {
    // Enter on refused text: ImGui applies it once more as the field closes; that must not land.
    plain = false;
    out.push_back(SayError{ui.cell_error});
    ui.cell_error.clear();
  }
  return plain;
}

void matrix_grid(const Document& doc, InputsUi& ui, Commands& out, Which w) {
  const Scenario& sc = doc.scenario;
  const Matrix& M = w == Which::Q ? sc.Q : w == Which::K ? sc.K : sc.V;
  const int rows = static_cast<int>(M.rows()), cols = static_cast<int>(M.cols());
  const float fs = ImGui::GetFontSize();
  const std::vector<std::string> labels = w == Which::Q ? query_labels(sc) : key_labels(sc);
  const bool labels_editable = w == Which::Q || !doc.self_attention;
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
        out.push_back(w == Which::Q ? edits::set_query_token(i, label) : edits::set_key_token(i, label));
      }
      if (ImGui::IsItemDeactivatedAfterEdit()) out.push_back(EndMerge{});
      if (!labels_editable) ImGui::EndDisabled();
      if (positions) {
        ImGui::SameLine(token_w);
        ImGui::SetNextItemWidth(position_w - spacing);
        int p = static_cast<int>(at[static_cast<size_t>(i)]);
        if (ImGui::DragInt("##position", &p, 0.2f, 0, 1000000)) out.push_back(edits::set_rope_position(doc, w, i, p));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("the position RoPE rotates this row by (drag or double-click to type)");
        if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});
      }
      for (int j = c0; j < c1; ++j) {
        ImGui::SameLine(label_w + static_cast<float>(j) * col_step);
        ImGui::PushID(j);
        float v = M(i, j);
        ImGui::SetNextItemWidth(cell_w);
        const float speed = 0.01f * std::max(1.0f, std::abs(v) * 0.1f);
        const bool changed = ImGui::DragFloat("##c", &v, speed, 0, 0, widget_significant(3).c_str());
        const std::string cell_name = std::string(which_name(w)) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
        if (check_typed_text(ui, out, ImGui::GetItemID(), cell_name, M(i, j)) && changed) out.push_back(edits::set_cell(w, i, j, v));
        if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});
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

// Fill: Random N(0, σ²), Identity or Zeros into Q, K, V or all three; a sentence into tokens.
void fill_and_tokens(const ViewContext& ctx, InputsUi& ui, Commands& out) {
  const Glyphs& g = ctx.services.glyphs;
  const char* targets[] = {"Q", "K", "V", "Q, K and V"};
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  int target = static_cast<int>(ui.fill_target);
  if (ImGui::Combo("fill", &target, targets, 4)) ui.fill_target = static_cast<FillTarget>(target);
  const float fs = ImGui::GetFontSize(), inner = ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(fs * 5);
  ImGui::DragFloat(g.sigma, &ui.sigma, 0.01f, 0.01f, 100.0f, widget_decimals(2).c_str());
  same_line_if_fits(fs * 6 + inner + ImGui::CalcTextSize("seed").x);
  ImGui::SetNextItemWidth(fs * 6);
  ImGui::InputInt("seed", &ui.seed);
  const std::string random_label = std::string("Random N(0, ") + g.sigma + "²)";
  if (ImGui::Button(random_label.c_str())) out.push_back(edits::fill(ui.fill_target, edits::Fill::Random, ui.sigma, ui.seed));
  same_line_if_fits(button_width("Identity"));
  if (ImGui::Button("Identity")) out.push_back(edits::fill(ui.fill_target, edits::Fill::Identity, 1, 0));
  same_line_if_fits(button_width("Zeros"));
  if (ImGui::Button("Zeros")) out.push_back(edits::fill(ui.fill_target, edits::Fill::Zeros, 1, 0));
  if (ctx.view.presenter) ImGui::SetNextItemWidth(-1.0f);
  ImGui::InputTextWithHint("##sentence", "type a sentence", &ui.sentence);
  same_line_if_fits(button_width("Split into tokens"));
  if (ImGui::Button("Split into tokens")) out.push_back(edits::tokens_from_sentence(ctx.doc, ui.sentence));
}

}  // namespace

void draw_inputs_panel(const ViewContext& ctx, InputsUi& ui, Commands& out) {
  const Document& doc = ctx.doc;
  const Scenario& sc = doc.scenario;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);

  const bool presenter = ctx.view.presenter;
  bool self = doc.self_attention;
  // The checkbox's text wraps (a checkbox label cannot), so it is whole in a narrow column.
  if (ImGui::Checkbox("##self", &self)) out.push_back(edits::set_self_attention(self));
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  text_wrapped("self-attention (K, V on Q's tokens)");
  size_control(doc, out, Dim::N, true, presenter);
  if (!presenter) ImGui::SameLine();
  size_control(doc, out, Dim::M, !doc.self_attention, presenter);
  size_control(doc, out, Dim::Dk, true, presenter);
  if (!presenter) ImGui::SameLine();
  size_control(doc, out, Dim::Dv, true, presenter);

  const Which mats[] = {Which::Q, Which::K, Which::V};
  for (Which w : mats) {
    const Matrix& M = w == Which::Q ? sc.Q : w == Which::K ? sc.K : sc.V;
    const char* dims = w == Which::Q ? "n, d_k" : w == Which::K ? "m, d_k" : "m, d_v";
    const std::string header = std::string(which_name(w)) + "  (" + dims + " = " + std::to_string(M.rows()) + g.times +
                               std::to_string(M.cols()) + ")" +
                               (sc.options.rope && w != Which::V ? ", positions after the tokens" : "") + "###" +
                               which_name(w);
    if (ImGui::CollapsingHeader(header.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) matrix_grid(doc, ui, out, w);
  }
  error_text(pal.error, ui.cell_error);

  if (ImGui::CollapsingHeader("Fill and tokens")) fill_and_tokens(ctx, ui, out);
}

void draw_confirm_resize(PendingResize& pending, Commands& out) {
  if (pending.active && !ImGui::IsPopupOpen("Large matrices")) ImGui::OpenPopup("Large matrices");
  if (!ImGui::BeginPopupModal("Large matrices", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::Text("%s = %d: the n %s m stages (scores, logits, weights, saturation) would take %s.", dim_name(pending.dim),
              pending.value, "x", human_bytes(pending.bytes).c_str());
  if (pending.streams) {
    ImGui::TextUnformatted("That is too many to keep and draw cell by cell, so Attention Lab will stream them: tiles of");
    ImGui::TextUnformatted("queries and keys with an online softmax, on a background thread, never the whole matrix.");
    ImGui::TextUnformatted("You will see the output, every row's diagnostics and the weights downsampled to at most");
    ImGui::TextUnformatted("1024 x 1024 pixels. Go ahead?");
  } else {
    ImGui::TextUnformatted("Computing and drawing them may be slow. Go ahead?");
  }
  if (ImGui::Button("Yes, resize")) {
    pending.active = false;
    out.push_back(Resize{pending.dim, pending.value, true});
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || !pending.active) {
    pending.active = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

void draw_drop_choice(InputsUi& ui, Commands& out) {
  std::string& path = ui.drop_path;
  if (!path.empty() && !ImGui::IsPopupOpen("Load matrix")) ImGui::OpenPopup("Load matrix");
  if (!ImGui::BeginPopupModal("Load matrix", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::Text("Load %s into", path.c_str());
  for (Which w : {Which::Q, Which::K, Which::V}) {
    if (ImGui::Button(which_name(w), ImVec2(ImGui::GetFontSize() * 3, 0))) {
      const FilePurpose into = w == Which::Q ? FilePurpose::OpenMatrixQ : w == Which::K ? FilePurpose::OpenMatrixK : FilePurpose::OpenMatrixV;
      out.push_back(UseFile{into, std::exchange(path, {})});
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
  }
  if (ImGui::Button("Cancel") || path.empty()) {
    path.clear();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace attnlab::gui
