// A small in-app file dialog (no native dialogs on a bare X server): a folder listing, a file
// name field, and the file types that fit its purpose.
#include "gui/dialogs/file_dialog.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <GLFW/glfw3.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

const char* title_of(FilePurpose p) {
  switch (p) {
    case FilePurpose::OpenScenario: return "Open scenario";
    case FilePurpose::SaveScenario: return "Save scenario";
    case FilePurpose::OpenMatrixQ: return "Open a matrix into Q";
    case FilePurpose::OpenMatrixK: return "Open a matrix into K";
    case FilePurpose::OpenMatrixV: return "Open a matrix into V";
    case FilePurpose::SaveLessonCard: return "Export reference card (PDF)";
    case FilePurpose::OpenModel: return "Open a model (its .safetensors file)";
    case FilePurpose::SaveTrainedModel: return "Save the trained model (a new folder: type its name)";
    case FilePurpose::SaveHeadLinks: return "Save the heads' ranking (CSV)";
    case FilePurpose::None: break;
  }
  return "File";
}

bool fits(FilePurpose p, const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (p == FilePurpose::OpenScenario || p == FilePurpose::SaveScenario) return ext == ".json";
  if (p == FilePurpose::SaveLessonCard) return ext == ".pdf";
  if (p == FilePurpose::SaveHeadLinks) return ext == ".csv";
  if (p == FilePurpose::OpenModel) return ext == ".safetensors";
  if (p == FilePurpose::SaveTrainedModel) return false;  // a model is a folder: only folders are listed
  return ext == ".npy" || ext == ".csv";
}

// A requested dialog opened: in the scenario's folder when it has none (or it is gone), a save of the
// scenario proposing its file's name; or, where the platform picks files itself, its picker asked.
void open_requested(const ViewContext& ctx, FileDialogState& d, const std::string& scenario_path, Commands& out) {
  d.request_open = false;
  if (ctx.platform.file_picker) {
    // The platform chooses files itself (the browser's picker; a save becomes a download).
    out.push_back(PickFile{d.purpose});
    return;
  }
  d.error.clear();
  if (d.directory.empty() || !fs::is_directory(d.directory)) {
    std::error_code ec;
    d.directory = scenario_path.empty() ? fs::current_path(ec).string() : fs::path(scenario_path).parent_path().string();
    if (d.directory.empty()) d.directory = ".";
  }
  if (d.purpose == FilePurpose::SaveScenario && d.file_name.empty()) {
    d.file_name = scenario_path.empty() ? "scenario.json" : fs::path(scenario_path).filename().string();
  }
  ImGui::OpenPopup("##file_dialog");
}

}  // namespace

void open_file_dialog(FileDialogState& d, FilePurpose purpose) {
  d.purpose = purpose;
  d.request_open = true;
}

bool begin_file_dialog(const ViewContext& ctx, FileDialogState& d, const std::string& scenario_path, Commands& out) {
  if (d.request_open) open_requested(ctx, d, scenario_path, out);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x * 0.6f, vp->WorkSize.y * 0.7f), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("##file_dialog", nullptr, ImGuiWindowFlags_NoSavedSettings)) return false;
  // Esc closes it as Cancel does, unless it was ending an edit of the folder or the name (it reverts
  // the field then: WantTextInput still tells of the last frame's field).
  const bool escape = ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) && !ImGui::GetIO().WantTextInput;
  ImGui::TextUnformatted(title_of(d.purpose));
  ImGui::SetNextItemWidth(-1);
  want_glyphs(d.directory);  // folders and files named in any script
  want_glyphs(d.file_name);
  ImGui::InputText("##dir", &d.directory);
  const float list_h = ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() * 3;
  std::string chosen;
  ImGui::BeginChild("##list", ImVec2(0, std::max(list_h, 60.0f)), true);
  std::error_code ec;
  if (ImGui::Selectable("../")) d.directory = fs::path(d.directory).parent_path().string();
  std::vector<fs::directory_entry> dirs, files;
  for (const auto& e : fs::directory_iterator(d.directory, fs::directory_options::skip_permission_denied, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name[0] == '.') continue;
    want_glyphs(name);
    if (e.is_directory(ec)) dirs.push_back(e);
    else if (fits(d.purpose, e.path())) files.push_back(e);
  }
  if (ec) ImGui::TextDisabled("cannot list this folder: %s", ec.message().c_str());
  auto by_name = [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path().filename() < b.path().filename(); };
  std::sort(dirs.begin(), dirs.end(), by_name);
  std::sort(files.begin(), files.end(), by_name);
  for (const auto& e : dirs) {
    if (ImGui::Selectable((e.path().filename().string() + "/").c_str())) d.directory = e.path().string();
  }
  for (const auto& e : files) {
    const std::string name = e.path().filename().string();
    if (ImGui::Selectable(name.c_str(), name == d.file_name, ImGuiSelectableFlags_AllowDoubleClick)) {
      d.file_name = name;
      if (ImGui::IsMouseDoubleClicked(0)) chosen = e.path().string();
    }
  }
  ImGui::EndChild();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  const bool enter = ImGui::InputText("file name", &d.file_name, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  const bool saves = d.purpose == FilePurpose::SaveScenario || d.purpose == FilePurpose::SaveLessonCard ||
                     d.purpose == FilePurpose::SaveTrainedModel || d.purpose == FilePurpose::SaveHeadLinks;
  const bool ok = ImGui::Button(saves ? "Save" : "Open");
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || escape) d.purpose = FilePurpose::None;
  if ((ok || enter) && !d.file_name.empty()) chosen = (fs::path(d.directory) / d.file_name).string();
  if (!chosen.empty() && d.purpose != FilePurpose::None) out.push_back(UseFile{d.purpose, chosen, true});
  return true;
}

void end_file_dialog(const ViewContext& ctx, FileDialogState& d) {
  // Cancelled, or the chosen file was used: its purpose is done.
  if (d.purpose == FilePurpose::None) ImGui::CloseCurrentPopup();
  error_text(palette(ctx.view).error, d.error);
  ImGui::EndPopup();
}

}  // namespace attnlab::gui
