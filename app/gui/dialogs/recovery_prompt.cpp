// The start-up offer to restore work that a crash or a kill -9 interrupted.
#include "gui/dialogs/recovery_prompt.hpp"

#include "gui/persistence/recovery_store.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

namespace attnlab::gui {

void draw_recovery_prompt(RecoveryUi& r, const std::filesystem::path& config_dir, Commands& out) {
  const char* title = "Restore unsaved work?";
  if (r.offer && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
  if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) return;
  const Scenario& s = r.work.doc.scenario;
  ImGui::TextUnformatted("Attention Lab did not close normally last time.");
  ImGui::Text("Your work from %s can be restored:", r.work.saved_at.empty() ? "the last run" : r.work.saved_at.c_str());
  ImGui::BulletText("%s", s.title.empty() ? "(untitled)" : s.title.c_str());
  ImGui::BulletText("n = %d, m = %d, d_k = %d, d_v = %d", static_cast<int>(s.Q.rows()), static_cast<int>(s.K.rows()),
                    static_cast<int>(s.Q.cols()), static_cast<int>(s.V.cols()));
  if (!r.work.scenario_path.empty()) ImGui::BulletText("from %s", r.work.scenario_path.c_str());
  ImGui::Spacing();
  const bool enter = ImGui::IsKeyPressed(GLFW_KEY_ENTER, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ENTER, false);
  const bool escape = ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false);
  if (ImGui::Button("Restore (Enter)") || enter) {
    if (std::optional<RecoveredWork> w = take_recovered_work(r)) out.push_back(RestoreWork{w->doc, w->scenario_path, w->saved_at});
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Discard (Esc)") || escape || !r.offer) {
    if (r.offer) discard_recovered_work(r, config_dir);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace attnlab::gui
