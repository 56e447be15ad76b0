// The status bar: backend, last recompute time, frame time, sizes, and above them the last error in place.
#include "gui/shell/status_bar.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/text_layout.hpp"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

namespace {

constexpr float kPadX = 8, kPadY = 3;
constexpr size_t kErrorLines = 3;

}  // namespace

StatusBarLayout status_bar_layout(const ViewContext& ctx, const std::string& error, float line_h) {
  const Glyphs& g = ctx.services.glyphs;
  StatusBarLayout out;
  const ImFont* font = ImGui::GetFont();
  out.error_line_h = font->FontSize + 2;
  if (!error.empty()) {
    const float width = ImGui::GetMainViewport()->WorkSize.x - 2 * kPadX;
    const auto width_of = [font](std::string_view s) {
      return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, s.data(), s.data() + s.size()).x;
    };
    out.error_lines = wrap_words(error, width, width_of);
    if (out.error_lines.size() > kErrorLines) {
      out.error_lines.resize(kErrorLines);
      out.error_lines.back() = shortened(out.error_lines.back() + " " + g.ellipsis, width, width_of, false, g.ellipsis);
    }
  }
  out.height = line_h + static_cast<float>(out.error_lines.size()) * out.error_line_h;
  return out;
}

void draw_status_bar(const ViewContext& ctx, const StatusLine& line, const StatusBarLayout& layout) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float height = layout.height;
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - height));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, height));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  const Palette pal = palette(ctx.view);
  for (const std::string* text : {&line.error, &line.notice, &line.scenario_path, &ctx.doc.scenario.title}) want_glyphs(*text);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(kPadX, kPadY));
  // Exactly `height`: the style's minimum window size (32 px, 48 in presenter mode) ran it off the screen's bottom.
  ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1, 1));
  if (ImGui::Begin("##status", nullptr, flags)) {
    const float errors_h = static_cast<float>(layout.error_lines.size()) * layout.error_line_h;
    if (!layout.error_lines.empty()) {
      ImGui::SetCursorPosY(kPadY);
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImDrawList* dl = ImGui::GetWindowDrawList();
      for (size_t k = 0; k < layout.error_lines.size(); ++k) {
        const std::string line = drawn_text(layout.error_lines[k]);
        dl->AddText(ImVec2(at.x, at.y + static_cast<float>(k) * layout.error_line_h), pal.error, line.c_str());
      }
      ImGui::SetCursorScreenPos(at);
      ImGui::InvisibleButton("##error", ImVec2(std::max(1.0f, vp->WorkSize.x - 2 * kPadX), errors_h));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(the last good state is kept)", drawn_text(line.error).c_str());
    }
    // The usual line, centred in what is left below the error's lines.
    ImGui::SetCursorPosY(errors_h + std::max(kPadY, (height - errors_h - ImGui::GetFontSize()) * 0.5f));
    // The backend, the timings and the sizes are the engineer's, not the room's: on a projector the
    // bar speaks in the room's font and gives its width to the lesson's title (the dry run found the
    // title cut, and the rest 17 px tall).
    if (!ctx.view.presenter) {
      const Result& r = ctx.results.result;
      ImGui::Text("%s", ctx.results.backend_description.empty() ? ctx.services.backend->description().c_str()
                                                                : ctx.results.backend_description.c_str());
      ImGui::SameLine(0, 24);
      ImGui::TextUnformatted(("recompute " + fixed_decimals(ctx.results.last_compute_ms, 2) + " ms").c_str());
      ImGui::SameLine(0, 24);
      ImGui::TextUnformatted(("frame " + fixed_decimals(line.frame_ms, 1) + " ms").c_str());
      ImGui::SameLine(0, 24);
      ImGui::Text("n=%d m=%d d_k=%d d_v=%d", static_cast<int>(r.n), static_cast<int>(r.m), static_cast<int>(r.d_k),
                  static_cast<int>(r.d_v));
      ImGui::SameLine(0, 24);
    }
    if (line.inputs_hidden) {
      // The controls are folded away (presenter mode may have done it by itself): say how to get them.
      ImGui::TextUnformatted("I: inputs");
      ImGui::SameLine(0, 24);
    }
    if (!line.notice.empty() && line.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.good);
      ImGui::TextUnformatted(drawn_text(line.notice).c_str());
      ImGui::PopStyleColor();
    } else {
      // Cut to the bar's width with an ellipsis rather than at the window's edge (a path at its start:
      // its end names the file).
      const bool path = !line.scenario_path.empty();
      const std::string shown = shortened(
          path ? line.scenario_path : ctx.doc.scenario.title, ImGui::GetContentRegionAvail().x,
          [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; }, path,
          ctx.services.glyphs.ellipsis);
      ImGui::TextDisabled("%s", drawn_text(shown).c_str());
    }
  }
  ImGui::End();
  ImGui::PopStyleVar(2);
}

}  // namespace attnlab::gui
