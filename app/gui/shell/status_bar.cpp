// The status bar: backend, last recompute time, frame time, sizes, and the last error in place.
#include "gui/shell/status_bar.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/text_layout.hpp"

#include <cstdio>
#include <string>
#include <string_view>

namespace attnlab::gui {

void draw_status_bar(AppState& state, Services& services, float height) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - height));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, height));
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  const Palette pal = palette(state.view);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 3));
  if (ImGui::Begin("##status", nullptr, flags)) {
    // Presenter mode: the bar is for the teacher at the laptop, not the room; at the normal size
    // it still holds the backend, the timings and an error at 1280 pixels.
    ImFont* small = state.view.presenter ? services.fonts.normal : nullptr;
    if (small) {
      ImGui::PushFont(small);
      ImGui::SetCursorPosY((height - ImGui::GetFontSize()) * 0.5f);
    }
    const Result& r = state.results.result;
    ImGui::Text("%s", state.results.backend_description.empty() ? services.backend->description().c_str()
                                                       : state.results.backend_description.c_str());
    ImGui::SameLine(0, 24);
    ImGui::Text("recompute %.2f ms", state.results.last_compute_ms);
    ImGui::SameLine(0, 24);
    ImGui::Text("frame %.1f ms", state.frame_ms);
    ImGui::SameLine(0, 24);
    ImGui::Text("n=%d m=%d d_k=%d d_v=%d", static_cast<int>(r.n), static_cast<int>(r.m), static_cast<int>(r.d_k),
                static_cast<int>(r.d_v));
    ImGui::SameLine(0, 24);
    if (inputs_column_hidden(state)) {
      // The controls are folded away (presenter mode may have done it by itself): say how to get them.
      ImGui::TextUnformatted("I: inputs");
      ImGui::SameLine(0, 24);
    }
    if (!state.error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.error);
      ImGui::TextUnformatted(state.error.c_str());
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n(the last good state is kept)", state.error.c_str());
    } else if (!state.notice.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.good);
      ImGui::TextUnformatted(state.notice.c_str());
      ImGui::PopStyleColor();
    } else {
      // Cut to the bar's width with an ellipsis rather than at the window's edge (a path at its start:
      // its end names the file).
      const bool path = !state.scenario_path.empty();
      const std::string shown = shortened(
          path ? state.scenario_path : state.doc.scenario.title, ImGui::GetContentRegionAvail().x,
          [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; }, path,
          services.glyphs.ellipsis);
      ImGui::TextDisabled("%s", shown.c_str());
    }
    if (small) ImGui::PopFont();
  }
  ImGui::End();
  ImGui::PopStyleVar();
}

}  // namespace attnlab::gui
