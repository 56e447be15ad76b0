// The Exercise tab (exercise_tab.hpp): givens, a field per part, the grades and the working.
#include "gui/lessons/exercise_tab.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

namespace attnlab::gui {

namespace {

// A given matrix as the tab draws it.
struct ExerciseGiven {
  std::string name;
  Matrix values;
  Stage stage = Stage::Scores;
  std::vector<std::string> rows, cols;
};

std::vector<ExerciseGiven> exercise_givens(const Exercise& e) {
  const Scenario& g = e.given;
  std::vector<ExerciseGiven> out;
  const auto tokens = [](const std::vector<std::string>& t, Eigen::Index n) {
    std::vector<std::string> labels = display_tokens(t, n);
    for (size_t k = 0; k < labels.size(); ++k) labels[k] = std::to_string(k) + " " + labels[k];
    return labels;
  };
  out.push_back({"Q", g.Q, Stage::Scores, tokens(g.query_tokens, g.Q.rows()), lesson_dim_labels("d", g.Q.cols())});
  out.push_back({"K (click a key)", g.K, Stage::Scores, tokens(g.key_tokens, g.K.rows()), lesson_dim_labels("d", g.K.cols())});
  if (shows_values(e)) out.push_back({"V", g.V, Stage::Output, tokens(g.key_tokens, g.V.rows()), lesson_dim_labels("v", g.V.cols())});
  for (const NamedMatrix& m : e.extra_matrices) {
    out.push_back({m.name, m.values.cast<float>(), Stage::Output, lesson_dim_labels("r", m.values.rows()),
                   lesson_dim_labels("c", m.values.cols())});
  }
  return out;
}

// The part a click on K answers: the argmax part whose field was used last, else the first.
int key_part(const Exercise& e, const unsigned last_field, const std::vector<ImGuiID>& field_ids) {
  int first = -1;
  for (size_t k = 0; k < e.parts.size(); ++k) {
    if (e.parts[k].kind != PartKind::ArgmaxKey) continue;
    if (first < 0) first = static_cast<int>(k);
    if (k < field_ids.size() && field_ids[k] == last_field) return static_cast<int>(k);
  }
  return first;
}

// The givens side by side (wrapping to the next line where the width ends), cells `cell_fonts` font
// sizes wide, the facts under them. Returns the key row clicked in K (−1: none).
int draw_givens(const MapCanvas& canvas, const Exercise& e, float cell_fonts) {
  const float fs = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  int clicked = -1;
  std::vector<DrawnRect> listed;
  float x = 0;
  const std::vector<ExerciseGiven> givens = exercise_givens(e);
  for (size_t k = 0; k < givens.size(); ++k) {
    const ExerciseGiven& g = givens[k];
    const float cell = fs * cell_fonts;
    const ImVec2 size(std::max(fs * 7.0f, cell * static_cast<float>(g.values.cols()) + fs * 4.5f),
                      cell * static_cast<float>(g.values.rows()) + fs * 3.2f);
    if (k && x + size.x < avail) {
      ImGui::SameLine(0, fs);
    } else {
      x = 0;
    }
    x += size.x + fs;
    ImGui::BeginGroup();
    const DrawnRect d = draw_lesson_matrix(canvas, ("ex_given" + std::to_string(k)).c_str(), g.name, g.stage, g.values, nullptr,
                                           g.rows, g.cols, size);
    ImGui::EndGroup();
    listed.push_back(d);
    // The heatmap's own button takes the press, so the window counts as hovered while it is held.
    const ImVec2 mouse = ImGui::GetMousePos();
    const bool here = ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows | ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
    if (k == 1 && d.drawn && d.rows > 0 && here && ImGui::IsMouseClicked(ImGuiMouseButton_Left) && mouse.x >= d.x0 &&
        mouse.x < d.x1 && mouse.y >= d.y0 && mouse.y < d.y1) {
      clicked = std::clamp(static_cast<int>((mouse.y - d.y0) / ((d.y1 - d.y0) / static_cast<float>(d.rows))), 0, d.rows - 1);
    }
  }
  canvas.out.push_back(LessonMapsListed{std::move(listed)});
  for (const std::string& fact : given_facts(e)) text_wrapped_unformatted(fact);
  return clicked;
}

bool solved_before(const ExerciseProgress& progress, const ExerciseUi& ui, const std::string& id) {
  const auto it = progress.find(ui.lesson);
  if (it == progress.end() || it->second.seed != ui.seed) return false;
  return std::find(it->second.solved.begin(), it->second.solved.end(), id) != it->second.solved.end();
}

// One part: its prompt, its field, and after Check its grade, with the working on request.
void draw_part(const MapCanvas& canvas, const ExerciseProgress& progress, ExerciseUi& ui, size_t k, std::vector<ImGuiID>& field_ids) {
  const Palette pal = palette(canvas.ctx.view);
  const float fs = ImGui::GetFontSize();
  const ExercisePart& part = ui.exercise->parts[k];
  ExercisePartUi& p = ui.parts[k];
  ImGui::PushID(static_cast<int>(k));
  ImGui::Separator();
  text_wrapped_unformatted("(" + part.id + ") " + part.prompt);
  const char* hint = part.kind == PartKind::ArgmaxKey  ? "a key's number, or click its row of K"
                     : part.kind == PartKind::Blocked  ? "row key; row key; … (e.g. 0 1; 0 2)"
                     : part.kind == PartKind::Matrix   ? "a row's numbers; the next row; …"
                     : part.kind == PartKind::Number   ? "one number"
                                                       : "numbers separated by commas (-inf: blocked)";
  ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, fs * 22.0f));
  field_ids.push_back(ImGui::GetID("##answer"));
  if (ImGui::InputTextWithHint("##answer", hint, &p.text)) p.grade.reset();
  if (solved_before(progress, ui, part.id) && !p.grade) {
    ImGui::SameLine();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(pal.good), "solved before");
  }
  if (!p.refused.empty()) error_text(pal.error, p.refused);
  if (p.grade) {
    const bool unicode = canvas.ctx.services.fonts.unicode;
    const std::string mark = p.grade->correct ? (unicode ? "✓ " : "Right: ") : (unicode ? "✗ " : "Wrong: ");
    ImGui::PushStyleColor(ImGuiCol_Text, p.grade->correct ? pal.good : pal.error);
    text_wrapped_unformatted(mark + p.grade->verdict);
    ImGui::PopStyleColor();
    if (ImGui::SmallButton(p.show_working ? "Hide the working" : "Show the working")) p.show_working = !p.show_working;
    if (p.show_working) {
      ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
      for (const std::string& line : p.grade->working) text_wrapped_unformatted(line);
      ImGui::PopStyleColor();
    }
  }
  ImGui::PopID();
}

// The line of controls: the seed, New numbers, Check.
void draw_exercise_controls(const MapCanvas& canvas, ExerciseUi& ui) {
  const float fs = ImGui::GetFontSize();
  ImGui::TextUnformatted("Seed");
  ImGui::SameLine();
  // Wide enough for the seed shown: a link or the command line may give one of up to 20 digits.
  const float digits = ImGui::CalcTextSize(std::to_string(ui.seed_field).c_str()).x + ImGui::GetStyle().FramePadding.x * 2 + fs;
  ImGui::SetNextItemWidth(std::max(fs * 6.0f, digits));
  ImGui::InputScalar("##seed", ImGuiDataType_U64, &ui.seed_field);
  ImGui::SameLine();
  if (ImGui::Button("Open")) open_exercise(ui, ui.lesson, ui.seed_field);
  ImGui::SameLine();
  if (ImGui::Button("New numbers")) open_exercise(ui, ui.lesson, ui.seed + 1);
  ImGui::SameLine();
  if (ImGui::Button("Check") && ui.exercise) {
    canvas.out.push_back(RecordExercise{ui.lesson, ui.seed, check_exercise(ui)});
  }
  ImGui::SameLine();
  if (ImGui::Button("Back to the lesson")) ui.shown = false;
}

}  // namespace

void sync_exercise(ExerciseUi& ui, const Scenario& shown, const ExerciseProgress& progress) {
  if (ui.for_title != shown.title) {
    ui.for_title = shown.title;
    const std::string lesson = exercise_lesson_of(shown);
    if (lesson.empty()) {
      ui.lesson.clear();
      ui.exercise.reset();
      ui.parts.clear();
      ui.error.clear();
    } else if (lesson != ui.lesson) {
      const auto it = progress.find(lesson);
      open_exercise(ui, lesson, it == progress.end() ? 1 : it->second.seed);
    }
  }
  if (ui.open_seed && !ui.lesson.empty()) {
    open_exercise(ui, ui.lesson, *ui.open_seed);
    ui.open_seed.reset();
  }
}

void draw_exercise_tab(const MapCanvas& canvas, const ExerciseProgress& progress, ExerciseUi& ui) {
  const Palette pal = palette(canvas.ctx.view);
  if (ui.lesson.empty()) {
    text_wrapped_unformatted("This scenario is not one of the built-in lessons, so it has no exercise. Open a lesson from the "
                             "Lessons menu: each has one, drawn from a seed.");
    return;
  }
  if (!ui.pending_answers.empty() && ui.exercise) {
    const std::string answers = std::exchange(ui.pending_answers, {});
    if (fill_answers(ui, answers)) canvas.out.push_back(RecordExercise{ui.lesson, ui.seed, check_exercise(ui)});
  }
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  // A course text's exercise names itself ("Exercise 2.3.2: …"); the others are named here.
  const std::string title = ui.exercise ? ui.exercise->title : ui.lesson;
  text_wrapped_unformatted((title.starts_with("Exercise") ? "" : "Exercise: ") + title + ", seed " + std::to_string(ui.seed));
  ImGui::PopStyleColor();
  draw_exercise_controls(canvas, ui);
  if (!ui.error.empty()) error_text(pal.error, ui.error);
  if (!ui.exercise) return;
  const bool presenter = canvas.ctx.view.presenter;
  // On a projector the room goes to the givens and the parts; the same words are on every worksheet.
  if (!presenter) hint_text("Rows and keys are counted from 0. Work by hand, keep 4 decimals on the way, round only the answer. The same "
            "seed gives the same exercise on a worksheet and in `attnlab exercise " + ui.lesson + " --seed " + std::to_string(ui.seed) + "`.");
  // Givens on the left and the parts on the right where the window is wide (a projector's 1280 × 720
  // shows both at once), else one under the other.
  const float fs = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool columns = avail > fs * 40;
  if (columns) ImGui::BeginChild("givens", ImVec2(avail * (presenter ? 0.56f : 0.42f), 0));
  const int clicked = draw_givens(canvas, *ui.exercise, presenter ? 1.6f : 2.6f);
  if (columns) {
    ImGui::EndChild();
    ImGui::SameLine(0, fs);
    ImGui::BeginChild("parts");
  }
  std::vector<ImGuiID> field_ids;
  for (size_t k = 0; k < ui.parts.size(); ++k) draw_part(canvas, progress, ui, k, field_ids);
  if (columns) ImGui::EndChild();
  if (clicked >= 0) {
    const int target = key_part(*ui.exercise, ui.last_field, field_ids);
    if (target >= 0) {
      ui.parts[static_cast<size_t>(target)].text = std::to_string(clicked);
      ui.parts[static_cast<size_t>(target)].grade.reset();
    }
  }
  if (const ImGuiID active = ImGui::GetActiveID(); std::find(field_ids.begin(), field_ids.end(), active) != field_ids.end()) {
    ui.last_field = active;
  }
}

}  // namespace attnlab::gui
