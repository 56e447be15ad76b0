// The Lesson view's "look at" band on a projector; see look_at_band.hpp.
#include "gui/lessons/look_at_band.hpp"

#include "gui/base/theme.hpp"
#include "gui/lessons/lesson_text_view.hpp"
#include "gui/widgets/text_layout.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <GLFW/glfw3.h>
#include <imgui_internal.h>

#include <algorithm>

namespace attnlab::gui {

namespace {

// The left column's width, in font sizes: "<", "12/12" and ">" in a row.
constexpr float kColumnEm = 6.2f;

// Each "look at" item of the shown lesson about its page, as plain text (what the band draws and
// measures alike). An item about the pipeline ("In the pipeline, …", "This pipeline is …") is not:
// the page covers the pipeline, and that item is read with it, in the Lesson tab under it.
std::vector<std::string> look_at_items(const ViewContext& ctx, LessonsUi& ui) {
  std::vector<std::string> items;
  if (!ctx.view.presenter || !ctx.shown().lesson.text.present()) return items;
  refresh_lesson_text(ui, ctx);
  for (const RenderedText& t : ui.text.look_at) {
    std::string plain = t.plain();
    if (plain.find("pipeline") == std::string::npos) items.push_back(std::move(plain));
  }
  return items;
}

float text_width() {
  const float fs = ImGui::GetFontSize();
  return std::max(fs * 4, ImGui::GetContentRegionAvail().x - fs * kColumnEm - ImGui::GetStyle().ItemSpacing.x);
}

// The parts at the current width, and the tallest one's line count.
std::vector<std::string> parts_here(const std::vector<std::string>& items, int& most_lines) {
  const float width = text_width();
  const auto lines_of = [width](const std::string& s) {
    return static_cast<int>(wrap_words(s, width, [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; }).size());
  };
  std::vector<std::string> parts = look_at_parts(items, kLookAtLines, lines_of);
  most_lines = 0;
  for (const std::string& p : parts) most_lines = std::max(most_lines, lines_of(p));
  return parts;
}

}  // namespace

std::vector<std::string> look_at_parts(const std::vector<std::string>& look_at, int max_lines,
                                       const std::function<int(const std::string&)>& lines_of) {
  std::vector<std::string> parts;
  for (const std::string& item : look_at) {
    // Its sentences and clauses, each with its ". " or "; " kept before the break ("0.91" has no
    // space after its point).
    std::vector<std::string> sentences;
    std::size_t from = 0;
    while (from < item.size()) {
      const std::size_t stop = std::min(item.find(". ", from), item.find("; ", from));
      const std::size_t end = stop == std::string::npos ? item.size() : stop + 1;
      sentences.push_back(item.substr(from, end - from));
      from = end;
      while (from < item.size() && item[from] == ' ') ++from;
    }
    std::string part;
    for (const std::string& s : sentences) {
      const std::string joined = part.empty() ? s : part + " " + s;
      if (part.empty() || lines_of(joined) <= max_lines) {
        part = joined;
      } else {
        parts.push_back(part);
        part = s;
      }
    }
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

float look_at_band_height(const ViewContext& ctx, LessonsUi& ui) {
  const std::vector<std::string> items = look_at_items(ctx, ui);
  if (items.empty()) return 0;
  int most_lines = 0;
  parts_here(items, most_lines);
  const ImGuiStyle& style = ImGui::GetStyle();
  // The column: a row of buttons; the text: its tallest part.
  const float column = ImGui::GetFrameHeight();
  const float text = static_cast<float>(most_lines) * ImGui::GetTextLineHeight();
  // The spacing after the page above, and the rule with the gap under it; and what the band drew
  // past the bottom before (draw_look_at_band).
  return std::max(column, text) + style.ItemSpacing.y * 2 + 2 + ui.band_extra;
}

void draw_look_at_band(const ViewContext& ctx, LessonsUi& ui) {
  const std::vector<std::string> items = look_at_items(ctx, ui);
  if (items.empty()) return;
  int most_lines = 0;
  const std::vector<std::string> parts = parts_here(items, most_lines);
  const int count = static_cast<int>(parts.size());
  // A new lesson starts at its first part.
  const std::string key = ctx.shown().title + "\n" + ctx.shown().lesson.raw_json;
  if (key != ui.band_key) ui.band_key = key, ui.band_part = 0, ui.band_extra = 0;
  if (!ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_L, false)) {
    ui.band_part = ImGui::GetIO().KeyShift ? ui.band_part + count - 1 : ui.band_part + 1;
  }
  ui.band_part %= count;
  const Palette& pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(top, ImVec2(top.x + ImGui::GetContentRegionAvail().x, top.y), pal.text_dim);
  const ImVec2 start(top.x, top.y + ImGui::GetStyle().ItemSpacing.y + 2);
  // The part first, on a line of its own (beside the buttons, on their line, ImGui would lower it by
  // their frame padding), then the column at its left.
  ImGui::SetCursorScreenPos(ImVec2(start.x + fs * kColumnEm, start.y));
  ImGui::BeginGroup();
  text_wrapped_unformatted(parts[static_cast<std::size_t>(ui.band_part)]);
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(start);
  ImGui::BeginGroup();
  if (ImGui::Button("<")) ui.band_part += count - 1;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The part before (Shift+L)");
  ImGui::SameLine();
  // Level with the buttons' labels.
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + ImGui::GetStyle().FramePadding.y);
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::Text("%d/%d", ui.band_part + 1, count);
  ImGui::PopStyleColor();
  ImGui::SameLine();
  if (ImGui::Button(">")) ui.band_part += 1;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The next part of \"Look at\" (L)");
  ImGui::EndGroup();
  ui.band_part %= count;
  // What ImGui laid out past the window's content bottom (its line offsets, a width one scroll bar
  // narrower than measured) the band takes from the page from the next frame on, so the view never
  // scrolls: the pages measure what they drew the same way (gqa's table).
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const float over = w->DC.CursorMaxPos.y - (w->InnerRect.Max.y - w->WindowPadding.y);
  if (over > 0.5f) ui.band_extra += over;
}

}  // namespace attnlab::gui
