// Drawing a lesson's text: the four parts with bullets and highlighted numbers, the edit notice,
// and Help's lesson index with each lesson's reference card.
#include "gui/lessons/lesson_text_view.hpp"

#include "engine/lessons/lesson_card.hpp"
#include "engine/lessons/presets.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace attnlab::gui {

namespace {

void heading(const char* text, const Palette& pal) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
}

void bullets(const std::vector<RenderedText>& lines, const Palette& pal) {
  for (const RenderedText& line : lines) {
    ImGui::Bullet();
    ImGui::SameLine();
    draw_spans(line.spans, pal.text, pal.number);
  }
}

}  // namespace

void refresh_lesson_text(LessonsUi& ui, const ViewContext& ctx) {
  if (ui.text_result_version == ctx.results.result_version && ui.text_doc_version == ctx.doc_version) return;
  const bool doc_changed = ui.text_doc_version != ctx.doc_version;
  ui.text_result_version = ctx.results.result_version;
  ui.text_doc_version = ctx.doc_version;
  ui.text_error.clear();
  if (doc_changed) ui.origin = lesson_origin(ctx.doc.scenario);
  const Scenario& s = ctx.shown();
  try {
    const nlohmann::ordered_json values = ctx.results.has_result ? lesson_values(s, ctx.results.result) : nlohmann::ordered_json::object();
    ui.text = render_lesson_text(s, values, ui.origin.edited);
  } catch (const InputError& e) {
    ui.text = RenderedLesson{};
    ui.text_error = e.what();
  }
}

void draw_spans(const std::vector<TextSpan>& spans, ImU32 text_color, ImU32 number_color) {
  // The words in order, each with whether a space comes before it: a number glued to the text
  // around it ("0.401·V") stays glued when the line wraps.
  struct Word {
    std::string_view text;
    bool number = false;
    bool gap = false;
  };
  std::vector<Word> words;
  bool gap = false;
  for (const TextSpan& span : spans) {
    std::string_view rest = span.text;
    while (!rest.empty()) {
      if (rest.front() == ' ') {
        gap = true;
        rest.remove_prefix(1);
        continue;
      }
      const size_t end = std::min(rest.find(' '), rest.size());
      words.push_back({rest.substr(0, end), span.number, gap});
      gap = false;
      rest.remove_prefix(end);
    }
  }
  if (words.empty()) {
    ImGui::NewLine();
    return;
  }
  const float start_x = ImGui::GetCursorPosX();
  const float right = ImGui::GetContentRegionMax().x;
  const float space = ImGui::CalcTextSize(" ").x;
  float x = start_x;
  for (size_t k = 0; k < words.size(); ++k) {
    const Word& w = words[k];
    const float width = ImGui::CalcTextSize(w.text.data(), w.text.data() + w.text.size()).x;
    if (k > 0) {
      const float before = w.gap ? space : 0.0f;
      if (w.gap && x + before + width > right && x > start_x) {
        ImGui::SetCursorPosX(start_x);  // the previous word ended its line
        x = start_x;
      } else {
        ImGui::SameLine(0, before);
        x += before;
      }
    }
    ImGui::PushStyleColor(ImGuiCol_Text, w.number ? number_color : text_color);
    ImGui::TextUnformatted(w.text.data(), w.text.data() + w.text.size());
    ImGui::PopStyleColor();
    x += width;
  }
}

void draw_lesson_text(const ViewContext& ctx, LessonsUi& ui, Commands& out) {
  refresh_lesson_text(ui, ctx);
  ui.reset_x0 = ui.reset_x1 = 0;
  const Palette pal = palette(ctx.view);
  if (!ui.text_error.empty()) {
    error_text(pal.error, ui.text_error);
    return;
  }
  const RenderedLesson& t = ui.text;
  if (t.goal.spans.empty()) return;
  // The notice comes first: it says whether the numbers below are the course text's.
  if (t.edited) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    ImGui::TextUnformatted("You have changed this lesson's numbers:");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    const bool reset = ImGui::SmallButton("Reset lesson");
    ui.reset_x0 = ImGui::GetItemRectMin().x;
    ui.reset_y0 = ImGui::GetItemRectMin().y;
    ui.reset_x1 = ImGui::GetItemRectMax().x;
    ui.reset_y1 = ImGui::GetItemRectMax().y;
    if (reset) out.push_back(ResetLesson{});
  }
  draw_spans(t.goal.spans, pal.text, pal.number);
  heading("Look at", pal);
  bullets(t.look_at, pal);
  heading("Try", pal);
  bullets(t.try_steps, pal);
  if (!t.edited && !t.course_notes.empty()) {
    heading("In the course text's original numbers", pal);
    bullets(t.course_notes, pal);
  } else if (t.edited && t.has_notes) {
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped("Notes on the course text's own numbers come back with Reset lesson.");
    ImGui::PopStyleColor();
  }
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("Source: %s", t.source.c_str());
  ImGui::PopStyleColor();
}

void draw_lesson_index(const ViewContext& ctx, LessonCardUi& card, Commands& out) {
  const Palette pal = palette(ctx.view);
  const auto presets = list_presets();
  if (card.lesson.empty() && !presets.empty()) card.lesson = presets.front().name;
  ImGui::TextUnformatted("Lessons: choose one for its reference card");
  const float list_h = std::min(ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(presets.size()) + 8.0f,
                                ImGui::GetContentRegionAvail().y * 0.45f);
  if (ImGui::BeginChild("##lesson_index", ImVec2(0, std::max(list_h, 60.0f)), true)) {
    int k = 0;
    for (const PresetInfo& p : presets) {
      char label[320];
      std::snprintf(label, sizeof label, "%2d. %s###card_%s", ++k, p.title.c_str(), p.name.c_str());
      if (ImGui::Selectable(label, p.name == card.lesson)) card.lesson = p.name;
    }
  }
  ImGui::EndChild();
  if (card.filled_for != card.lesson) {
    // Filling a card computes its lesson (with the lesson's own numbers): once per choice.
    card.filled_for = card.lesson;
    card.text = RenderedLesson{};
    card.title.clear();
    try {
      const Scenario s = load_preset(card.lesson);
      card.title = s.title;
      card.text = lesson_card_text(s);
    } catch (const InputError& e) {
      card.title = e.what();
    }
  }
  const RenderedLesson& t = card.text;
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  text_wrapped("%s", card.title.c_str());
  ImGui::PopStyleColor();
  if (!t.source.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped("Source: %s", t.source.c_str());
    ImGui::PopStyleColor();
  }
  if (!t.goal.spans.empty()) draw_spans(t.goal.spans, pal.text, pal.number);
  if (!t.keys.empty() && ImGui::BeginTable("##card_keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("what");
    for (const LessonKey& key : t.keys) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(key.key.c_str());
      ImGui::TableNextColumn();
      text_wrapped("%s", key.what.c_str());
    }
    ImGui::EndTable();
  }
  if (ImGui::Button("Open this lesson")) out.push_back(LoadPreset{card.lesson});
  ImGui::SameLine();
  if (ImGui::Button("Export reference card (PDF)...")) out.push_back(ChooseFile{FilePurpose::SaveLessonCard, card.lesson});
}

}  // namespace attnlab::gui
