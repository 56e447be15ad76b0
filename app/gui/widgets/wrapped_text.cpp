// Word wrapping for panels: the lines come from wrap_words, ImGui only draws them.
#include "gui/widgets/wrapped_text.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/text_layout.hpp"

#include <imgui_internal.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

// `text`'s lines as text_wrapped_unformatted wraps them at the cursor.
std::vector<std::string> wrapped_lines(std::string_view text) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  // Same wrap width ImGui::TextWrapped would use: the pushed position, else the region's end.
  const float wrap_pos = window->DC.TextWrapPos < 0.0f ? 0.0f : window->DC.TextWrapPos;
  const float width = std::max(1.0f, ImGui::CalcWrapWidthForPos(window->DC.CursorPos, wrap_pos));
  return wrap_words(text, width, [](std::string_view s) {
    return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
  });
}

}  // namespace

float wrapped_height(std::string_view text) {
  return static_cast<float>(wrapped_lines(text).size()) * ImGui::GetTextLineHeight();
}

void text_wrapped_unformatted(std::string_view text) {
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return;
  const auto lines = wrapped_lines(text);
  std::string joined;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k) joined += '\n';
    joined += lines[k];
  }
  // A path or a token in a sentence, in any script, each line in reading order.
  joined = drawn_text(joined);
  // Drawn as one block (ImGui's line spacing), with ImGui's own wrapping off so that an overlong
  // word stays whole.
  ImGui::PushTextWrapPos(-1.0f);
  ImGui::TextUnformatted(joined.data(), joined.data() + joined.size());
  ImGui::PopTextWrapPos();
}

void error_text(ImU32 colour, std::string_view text) {
  if (text.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  text_wrapped_unformatted(text);
  ImGui::PopStyleColor();
}

void hint_text(std::string_view text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped_unformatted(text);
  ImGui::PopStyleColor();
}

float wrapped_text_height(std::string_view text, float width) {
  const auto lines = wrap_words(text, width, [](std::string_view s) {
    return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
  });
  return ImGui::GetTextLineHeight() * static_cast<float>(lines.size());
}

bool same_line_if_fits(float next_width) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const bool fits = ImGui::GetItemRectMax().x + spacing + next_width <= right;
  if (fits) ImGui::SameLine();
  return fits;
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

void text_wrapped(const char* fmt, ...) {
  char buf[4096];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (n < 0) return;
  text_wrapped_unformatted(std::string_view(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1)));
}

}  // namespace attnlab::gui
