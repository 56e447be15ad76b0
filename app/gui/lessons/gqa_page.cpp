// Grouped-query attention (the gqa lesson): multi-head, grouped and multi-query side by side on the
// same tokens, each query head's map under the K/V head it reads, and the KV cache of real models.
#include "gui/lessons/gqa_page.hpp"

#include "gui/base/theme.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

namespace {

constexpr const char* kCacheIntro =
    "The KV cache holds K and V of every layer for every token (bfloat16), per token and at %lld tokens:";

const char* kind_name(const GqaLesson& l, const GqaVariant& v) {
  return v.kv_heads == l.heads ? "multi-head" : v.kv_heads == 1 ? "multi-query" : "grouped-query";
}

// Heads and K/V heads are numbered from 0, as the Model window's H0, H1, … and the command line's
// --head are (the dry run found this lesson counting from 1).
// A variant's title, and the line under it: which query heads read each K/V head, and how far
// sharing moved the weights.
std::string title_line(const GqaLesson& l, const GqaVariant& v, const Glyphs& glyphs) {
  return std::string(kind_name(l, v)) + " " + glyphs.dot + " " + std::to_string(v.kv_heads) + " K/V head" +
         (v.kv_heads == 1 ? "" : "s");
}

std::string reads_line(const GqaLesson& l, const GqaVariant& v, const Glyphs& glyphs) {
  std::string reads;
  if (v.kv_heads == l.heads) {
    reads = "each head reads its own K and V";
  } else if (v.kv_heads == 1) {
    reads = "every head reads K/V 0";
  } else {
    for (long long g = 0; g < v.kv_heads; ++g) {
      reads += (g ? "; " : "") + std::string("K/V ") + std::to_string(g) + " " + glyphs.arrow;
      for (size_t h = 0; h < v.group.size(); ++h)
        if (v.group[h] == g) reads += " " + std::to_string(h);
    }
  }
  if (v.kv_heads != l.heads) reads += "; weights move " + significant(v.max_weight_change, 2) + " at most";
  return reads;
}

// How one variant's maps sit in a column `size.x` wide with `maps_h` pixels below its title and
// line: two maps a row, or all in one row when the height is short (a projector), whichever gives
// the larger maps. Each map's slot holds its one-line title above it.
struct MapsLayout {
  int per_row = 1, rows = 1;
  float map_w = 0, map_h = 0;  // one map's slot, its title included
  float height() const { return static_cast<float>(rows) * map_h; }
};

MapsLayout maps_layout(int heads, float width, float maps_h) {
  const float fs = ImGui::GetFontSize(), title_h = ImGui::GetTextLineHeightWithSpacing();
  const auto rows_for = [&](int per_row) { return (heads + per_row - 1) / per_row; };
  const auto width_for = [&](int per_row) {
    return (width - fs * 0.5f * static_cast<float>(per_row - 1)) / static_cast<float>(per_row);
  };
  const auto side_for = [&](int per_row) {
    return std::min(width_for(per_row), maps_h / static_cast<float>(rows_for(per_row)) - title_h);
  };
  MapsLayout m;
  m.per_row = std::max(1, heads <= 2 || side_for(heads) > side_for(2) ? heads : 2);
  m.rows = rows_for(m.per_row);
  m.map_w = width_for(m.per_row);
  m.map_h = std::max(side_for(m.per_row), fs * 2) + title_h;
  return m;
}

// One variant in its column: its title and line in the first header_h pixels (the tallest
// variant's, so that every variant's maps start at the same height), then every head's weights as
// `m` lays them out, each added to `listed`.
void draw_variant(const MapCanvas& canvas, std::vector<DrawnRect>& listed, const GqaVariant& v, size_t index,
                  const std::vector<std::string>& tokens, const BlockGrid& blocked, float header_h, const MapsLayout& m,
                  const std::string& title_text, const std::string& reads_text) {
  const Palette pal = palette(canvas.ctx.view);
  const float fs = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (!title_text.empty()) {  // none under the chooser's lit button, which names the variant
    ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
    text_wrapped_unformatted(title_text);
    ImGui::PopStyleColor();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped_unformatted(reads_text);
  ImGui::PopStyleColor();
  const ImVec2 top(origin.x, origin.y + header_h);
  for (int h = 0; h < static_cast<int>(v.heads.size()); ++h) {
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(h % m.per_row) * (m.map_w + fs * 0.5f),
                                     top.y + static_cast<float>(h / m.per_row) * m.map_h));
    ImGui::BeginGroup();
    char id[48], title[32];
    std::snprintf(id, sizeof id, "gqa%zu_%d", index, h);
    std::snprintf(title, sizeof title, "head %d", h);
    listed.push_back(draw_lesson_matrix(canvas, id, title, Stage::Weights, v.heads[static_cast<size_t>(h)].weights, &blocked, tokens,
                                        tokens, ImVec2(m.map_w, m.map_h), true));
    ImGui::EndGroup();
  }
}

// The KV cache of real models: one row each, the cache per token and at the lesson's context.
void cache_table(const GqaLesson& l) {
  text_wrapped(kCacheIntro, l.context);
  if (!ImGui::BeginTable("kv_cache", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
  for (const char* h : {"model", "query / K/V heads", "cache", "with a K/V head per query head"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const KvCacheRow& r : l.configs) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.config.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%lld / %lld", r.config.heads, r.config.kv_heads);
    ImGui::TableNextColumn();
    ImGui::Text("%s KiB, %s", significant(static_cast<double>(r.bytes_per_token) / 1024.0, 4).c_str(),
                human_bytes(static_cast<double>(r.context_bytes)).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s KiB, %s", significant(static_cast<double>(r.mha_bytes_per_token) / 1024.0, 4).c_str(),
                human_bytes(static_cast<double>(r.mha_context_bytes)).c_str());
  }
  ImGui::EndTable();
}

// The variants `shown` (indices into l.variants) in columns side by side over `avail`, `table_h`
// kept for the table under them: their layouts, the column's width and height, and the header
// height every variant's title and line take (the tallest's, so that the maps line up).
struct ColumnsLayout {
  std::vector<MapsLayout> maps;
  std::vector<std::string> titles, reads;
  float col_w = 0, column_h = 0, header_h = 0;
};

ColumnsLayout columns_layout(const GqaLesson& l, const std::vector<size_t>& shown, ImVec2 avail, float table_h, const Glyphs& glyphs,
                             bool titled = true) {
  const float fs = ImGui::GetFontSize(), spacing = ImGui::GetStyle().ItemSpacing.y;
  const size_t count = shown.size();
  ColumnsLayout c;
  c.col_w = (avail.x - fs * static_cast<float>(count - 1)) / static_cast<float>(std::max<size_t>(count, 1));
  for (const size_t k : shown) {
    c.titles.push_back(titled ? title_line(l, l.variants[k], glyphs) : std::string());
    c.reads.push_back(reads_line(l, l.variants[k], glyphs));
    c.header_h = std::max(c.header_h, (titled ? wrapped_text_height(c.titles.back(), c.col_w) + spacing : 0.0f) +
                                          wrapped_text_height(c.reads.back(), c.col_w) + spacing);
  }
  c.column_h = std::max(c.header_h + fs * 6, avail.y - table_h - fs * 0.5f);
  // Each variant's maps in the column's height below its header, one item spacing short of the
  // bottom, which the last map's item reaches past. Where the width, not the height, limits the
  // maps (a normal window), the columns end below the tallest variant's maps and the table follows
  // them, with no empty band between; the layouts stay as they are in the shorter columns.
  float maps_used = 0;
  for (const size_t k : shown) {
    c.maps.push_back(maps_layout(static_cast<int>(l.variants[k].heads.size()), c.col_w, c.column_h - c.header_h - spacing));
    maps_used = std::max(maps_used, c.maps.back().height());
  }
  c.column_h = std::min(c.column_h, c.header_h + maps_used + spacing);
  return c;
}

// Presenter mode's choice of the variant shown alone: one button per variant, the shown one lit.
void variant_chooser(const GqaLesson& l, GqaUi& ui, const Glyphs& glyphs) {
  for (size_t k = 0; k < l.variants.size(); ++k) {
    if (k) ImGui::SameLine();
    const bool lit = static_cast<int>(k) == ui.variant;
    if (lit) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::Button(title_line(l, l.variants[k], glyphs).c_str())) ui.variant = static_cast<int>(k);
    if (lit) ImGui::PopStyleColor();
  }
}

// The three variants in columns (or, where their maps would be too small to read on a projector,
// the chosen one alone) and the KV-cache table under them; every drawn head's map added to `listed`.
void draw_gqa_lesson(const MapCanvas& canvas, std::vector<DrawnRect>& listed, const GqaLesson& l, GqaUi& ui) {
  const Scenario& s = canvas.ctx.shown();
  const float fs = ImGui::GetFontSize(), spacing = ImGui::GetStyle().ItemSpacing.y;
  const auto tokens = display_tokens(s.query_tokens, s.Q.rows());
  const BlockGrid blocked = mask_grid(s.options.mask, s.Q.rows(), s.Q.rows());
  const Glyphs& glyphs = canvas.ctx.services.glyphs;
  // The table below takes its height as drawn last frame (kept in ImGui's storage; the first frame
  // estimates it), and the maps everything above it.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID table_key = ImGui::GetID("kv_cache_table_height");
  const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  const ImVec2 full = ImGui::GetContentRegionAvail();
  const float estimate = wrapped_text_height(kCacheIntro, full.x) + spacing * 2 + row_h * static_cast<float>(l.configs.size() + 1);
  const float table_h = l.configs.empty() ? 0.0f : storage->GetFloat(table_key, estimate);
  std::vector<size_t> shown(l.variants.size());
  for (size_t k = 0; k < shown.size(); ++k) shown[k] = k;
  ColumnsLayout c = columns_layout(l, shown, full, table_h, glyphs);
  // A projector's back row reads a map of 200 px or cells of 20 (DESIGN.md's layout contract): twelve
  // maps side by side give a third of that at 1280 × 720, so in presenter mode the variants take turns.
  if (canvas.ctx.view.presenter && shown.size() > 1) {
    ui.variant = std::clamp(ui.variant, 0, static_cast<int>(l.variants.size()) - 1);
    variant_chooser(l, ui, glyphs);
    shown = {static_cast<size_t>(ui.variant)};
    c = columns_layout(l, shown, ImGui::GetContentRegionAvail(), table_h, glyphs, false);
  }
  const float gap = fs * 0.5f;
  const ImVec2 top = ImGui::GetCursorScreenPos();
  for (size_t i = 0; i < shown.size(); ++i) {
    const size_t k = shown[i];
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(i) * (c.col_w + fs), top.y));
    ImGui::BeginChild(static_cast<ImGuiID>(k + 1), ImVec2(c.col_w, c.column_h), false, ImGuiWindowFlags_NoScrollbar);
    draw_variant(canvas, listed, l.variants[k], k, tokens, blocked, c.header_h, c.maps[i], c.titles[i], c.reads[i]);
    ImGui::EndChild();
  }
  const float column_h = c.column_h;
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + column_h + gap));
  if (l.configs.empty()) return;
  const float table_top = ImGui::GetCursorScreenPos().y;
  cache_table(l);
  storage->SetFloat(table_key, ImGui::GetCursorScreenPos().y - table_top);
}

}  // namespace

void draw_gqa_page(const PageInputs& in, const GqaNumbers* numbers, GqaUi& ui, Commands& out) {
  // The heads' maps, listed for the layout record and the tests (none when the lesson cannot run).
  std::vector<DrawnRect> listed;
  if (numbers_or_why(in, numbers, "The gqa lesson cannot run here: ")) draw_gqa_lesson(in.canvas(out), listed, numbers->lesson, ui);
  out.push_back(LessonMapsListed{std::move(listed)});
}

}  // namespace attnlab::gui
