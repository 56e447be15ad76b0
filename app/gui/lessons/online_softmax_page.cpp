// The online softmax ("13.2 Scaled dot-product attention", section "Computational cost": blocks of
// the score matrix, never all of it): the logits one tile of keys at a time, the keys not yet seen
// greyed; per row the running max m, running sum ℓ and partial output o, the rescale
// e^(m_old − m_new) highlighted where a tile raised the max; at the last tile o ÷ ℓ beside the
// dense output, and how many scores each way holds. The walk-through keys step between tiles.
#include "gui/lessons/online_softmax_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace attnlab::gui {

namespace {

using Index = Eigen::Index;

// "(0.123, −0.456)"; past four entries the rest as "…".
std::string vector_text(const float* v, Index count, const Glyphs& g, int decimals = 3) {
  std::string s = "(";
  for (Index j = 0; j < count; ++j) {
    if (j == 4) {
      s += std::string(", ") + g.ellipsis;
      break;
    }
    s += (j ? ", " : "") + format_number(v[j], NumberUse::Axis, decimals, g);
  }
  return s + ")";
}

// Space / → / PageDown: the next tile; ← / PageUp / Backspace: the one before (as the walk-through).
void handle_tile_keys(int& step) {
  if (ImGui::GetIO().WantTextInput) return;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
  if (pressed(GLFW_KEY_SPACE) || pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_PAGE_DOWN)) ++step;
  if (pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_PAGE_UP) || pressed(GLFW_KEY_BACKSPACE)) --step;
}

// The logits of every tile side by side (all computed by the lesson; the view hides what the
// current step has not computed yet), and the mask's blocked cells.
void all_logits(const OnlineSoftmaxLesson& l, Index n, Index m, Matrix& out, BlockGrid& blocked) {
  out = Matrix::Zero(n, m);
  blocked = BlockGrid::Zero(n, m);
  for (const OnlineSoftmaxStep& s : l.steps) {
    for (Index i = 0; i < n; ++i) {
      for (Index j = s.first; j <= s.last; ++j) {
        const float v = s.logits(i, j - s.first);
        if (std::isinf(v) && v < 0) blocked(i, j) = 1;
        else out(i, j) = v;
      }
    }
  }
}

// Over the drawn heatmap: earlier tiles dimmed (their scores are gone, folded into m, ℓ and o), the
// current tile outlined, later keys covered (not computed yet).
void mark_tiles(const DrawnRect& d, const OnlineSoftmaxStep& st, Index m, const Palette& pal, bool dark) {
  if (!d.drawn || d.cols != m || m <= 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cw = (d.x1 - d.x0) / static_cast<float>(d.cols);
  const float a = d.x0 + cw * static_cast<float>(st.first), b = d.x0 + cw * static_cast<float>(st.last + 1);
  const ImU32 veil = dark ? IM_COL32(30, 30, 34, 150) : IM_COL32(255, 255, 255, 150);
  const ImU32 cover = dark ? IM_COL32(70, 70, 76, 255) : IM_COL32(200, 200, 204, 255);
  if (st.first > 0) dl->AddRectFilled(ImVec2(d.x0, d.y0), ImVec2(a, d.y1), veil);
  if (st.last + 1 < m) {
    dl->AddRectFilled(ImVec2(b, d.y0), ImVec2(d.x1, d.y1), cover);
    const char* label = "not seen yet";
    const ImVec2 ts = ImGui::CalcTextSize(label);
    if (ts.x < d.x1 - b - 4) dl->AddText(ImVec2((b + d.x1 - ts.x) * 0.5f, (d.y0 + d.y1 - ts.y) * 0.5f), pal.text_dim, label);
  }
  const float t = std::clamp(cw * 0.06f, 2.0f, 4.0f);
  dl->AddRect(ImVec2(a + t * 0.5f, d.y0 + t * 0.5f), ImVec2(b - t * 0.5f, d.y1 - t * 0.5f), pal.accent, 0, 0, t);
}

// One column of the table: its header and each query row's text; `raised` marks the cells of
// rows whose max the tile raised (highlighted), `dim` the ones that only say nothing happened.
struct Column {
  std::string header;
  std::vector<std::string> cells;
  std::vector<char> raised, dim;
};

// The buttons, the tile's title, the update rules and what this tile holds. `k` is the tile shown,
// clamped; returns false when there is no tile to show.
bool draw_tile_header(int& k, const OnlineSoftmaxLesson& l, Index n, Index m, const Services& services, const Palette& pal) {
  const Glyphs& g = services.glyphs;
  const int steps = static_cast<int>(l.steps.size());
  handle_tile_keys(k);
  // Navigation first, so the buttons stay put whatever the text below does.
  const bool unicode = services.fonts.unicode;
  if (ImGui::Button(unicode ? "← Previous tile" : "< Previous tile")) --k;
  ImGui::SameLine();
  if (ImGui::Button(unicode ? "Next tile →" : "Next tile >")) ++k;
  k = std::clamp(k, 0, std::max(steps - 1, 0));
  if (steps == 0) return false;
  const OnlineSoftmaxStep& st = l.steps[static_cast<size_t>(k)];
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::Text("Tile %d of %d: keys %lld%s%lld", k + 1, steps, static_cast<long long>(st.first + 1), unicode ? "–" : "-",
              static_cast<long long>(st.last + 1));
  ImGui::PopStyleColor();
  const char* alpha = unicode ? "α" : "alpha";
  const char* gets = unicode ? "←" : "<-";
  text_wrapped("%s = e^(m_old %s m),   %s %s %s%s%s + %s e^(L_j %s m),   o %s %s%so + %s e^(L_j %s m)%sv_j", alpha, g.minus,
               g.ell, gets, alpha, g.dot, g.ell, g.sum, g.minus, gets, alpha, g.dot, g.sum, g.minus, g.dot);
  // Earlier tiles are dimmed and later ones covered: the text names each by how it looks (the dry run
  // read "grey keys are not computed yet" beside earlier tiles that were grey too).
  const auto sentence = [&](int t) {
    const OnlineSoftmaxStep& at = l.steps[static_cast<size_t>(t)];
    const long long tile_w = static_cast<long long>(at.last - at.first + 1);
    char buf[400];
    std::snprintf(buf, sizeof buf, "Only this tile's %lld %s %lld = %lld scores exist (dense: %lld %s %lld = %lld); %s%s",
                  static_cast<long long>(n), g.times, tile_w, static_cast<long long>(n) * tile_w, static_cast<long long>(n), g.times,
                  static_cast<long long>(m), l.dense_scores,
                  t == 0 ? "" : (std::string("the dimmed earlier tiles live on only in m, ") + g.ell + " and o").c_str(),
                  t == steps - 1  ? "."
                  : t == 0        ? "the keys under \"not seen yet\" are not computed yet."
                                  : "; the keys under \"not seen yet\" are not computed yet.");
    return std::string(buf);
  };
  // The tallest tile's room, so that the map under it stays put from tile to tile.
  float room = 0;
  for (int t = 0; t < steps; ++t) room = std::max(room, wrapped_height(sentence(t)));
  const float y = ImGui::GetCursorPosY();
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped_unformatted(sentence(k));
  ImGui::PopStyleColor();
  const float drawn = ImGui::GetCursorPosY() - y - ImGui::GetStyle().ItemSpacing.y;
  if (room > drawn + 0.5f) ImGui::Dummy(ImVec2(1.0f, room - drawn - ImGui::GetStyle().ItemSpacing.y));
  return true;
}

// The table's columns for the tile shown: after the last tile o ÷ ℓ and the dense output take the
// partial o's place. Presenter mode leaves the dense output to the sentence under the table (how
// far the two are apart): with its column the table took the width the map needs for its numbers.
std::vector<Column> tile_columns(const OnlineSoftmaxLesson& l, const OnlineSoftmaxStep& st, bool last, Index n, Index dv,
                                 const Glyphs& g, const char* alpha, bool with_dense) {
  std::vector<Column> cols;
  cols.push_back({"max m", {}, {}, {}});
  cols.push_back({std::string("sum ") + g.ell, {}, {}, {}});
  if (!last) cols.push_back({"partial o", {}, {}, {}});
  cols.push_back({std::string("rescale ") + alpha, {}, {}, {}});
  if (last) {
    cols.push_back({std::string("o ") + g.divide + " " + g.ell, {}, {}, {}});
    if (with_dense) cols.push_back({"dense output", {}, {}, {}});
  }
  for (Index i = 0; i < n; ++i) {
    const OnlineSoftmaxRow& r = st.rows[static_cast<size_t>(i)];
    std::vector<std::string> texts{format_number(r.running_max, NumberUse::Axis, 3, g), format_number(r.running_sum, NumberUse::Axis, 3, g)};
    if (!last) texts.push_back(vector_text(r.output.data(), dv, g));
    texts.push_back(r.rescale ? g.times + (r.max_raised() ? format_number(*r.rescale, NumberUse::Axis, 3, g) : std::string("1")) : std::string("first keys"));
    if (!r.rescale && r.visible == 0) texts.back() = "no keys yet";
    if (last) {
      texts.push_back(vector_text(l.output.row(i).data(), dv, g));
      if (with_dense) texts.push_back(vector_text(l.dense_output.row(i).data(), dv, g));
    }
    const size_t rescale_col = last ? 2 : 3;
    for (size_t c = 0; c < cols.size(); ++c) {
      cols[c].cells.push_back(texts[c]);
      cols[c].raised.push_back(c == rescale_col && r.max_raised());
      cols[c].dim.push_back(c == rescale_col && !r.max_raised());
    }
  }
  return cols;
}

// Each column's width (its widest text) and the table's, in the current style.
float column_widths(const std::vector<Column>& cols, std::vector<float>& widths) {
  const ImGuiStyle& style = ImGui::GetStyle();
  float table_w = 0;
  for (const Column& c : cols) {
    float w = ImGui::CalcTextSize(c.header.c_str()).x;
    for (const std::string& t : c.cells) w = std::max(w, ImGui::CalcTextSize(t.c_str()).x);
    widths.push_back(w);
    table_w += w + style.CellPadding.x * 2 + 1;
  }
  return table_w + 2;
}

// Where the table goes and how tall its rows are.
struct TablePlace {
  ImVec2 pos;
  bool aligned = false;  // beside the heatmap, each row as tall as its cells
  float cell_h = 0, height = 0;
};

// The table: one row per query, the highlighted rescales marked. Returns its bottom edge.
float draw_rows_table(const std::vector<Column>& cols, const std::vector<float>& widths, float table_w, const TablePlace& at,
                      float row_text_h, Index n, const Palette& pal) {
  ImGui::SetCursorScreenPos(at.pos);
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                (at.aligned ? 0 : ImGuiTableFlags_ScrollY);
  if (!ImGui::BeginTable("online rows", static_cast<int>(cols.size()), flags, ImVec2(table_w, at.height))) return at.pos.y;
  for (size_t c = 0; c < cols.size(); ++c) ImGui::TableSetupColumn(cols[c].header.c_str(), ImGuiTableColumnFlags_WidthFixed, widths[c]);
  if (!at.aligned) ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableHeadersRow();
  for (Index i = 0; i < n; ++i) {
    ImGui::TableNextRow(0, at.cell_h);
    for (size_t c = 0; c < cols.size(); ++c) {
      ImGui::TableSetColumnIndex(static_cast<int>(c));
      ImGui::SetCursorPosY(ImGui::GetCursorPosY() + std::max(0.0f, (at.cell_h - row_text_h) * 0.5f));
      const size_t r = static_cast<size_t>(i);
      if (cols[c].raised[r]) {
        // The step students find hardest to believe: what was summed so far is scaled, not redone.
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, (pal.warning & 0x00FFFFFFu) | 0x66000000u);
      }
      if (cols[c].dim[r]) ImGui::TextDisabled("%s", cols[c].cells[r].c_str());
      else ImGui::TextUnformatted(cols[c].cells[r].c_str());
    }
  }
  ImGui::EndTable();
  return ImGui::GetItemRectMax().y;
}

}  // namespace

OnlineSoftmaxUi::OnlineSoftmaxUi() {
  const char* tile = std::getenv("ATTNLAB_GUI_TILE");
  step = tile ? std::max(0, std::atoi(tile) - 1) : 0;
}

void draw_online_softmax_page(const PageInputs& in, const OnlineSoftmaxNumbers* numbers, OnlineSoftmaxUi& ui, Commands& out) {
  const Services& services = in.ctx.services;
  const Glyphs& g = services.glyphs;
  const Palette pal = palette(in.ctx.view);
  const float fs = ImGui::GetFontSize();
  if (!numbers_or_why(in, numbers, "The online softmax cannot run on this scenario: ")) return;
  const OnlineSoftmaxLesson& l = numbers->lesson;
  const Scenario& s = in.ctx.shown();
  const Index n = s.Q.rows(), m = s.K.rows(), dv = s.V.cols();
  int& k = ui.step;
  if (!draw_tile_header(k, l, n, m, services, pal)) return;
  const int steps = static_cast<int>(l.steps.size());
  const OnlineSoftmaxStep& st = l.steps[static_cast<size_t>(k)];
  const bool last = k == steps - 1;
  const char* alpha = services.fonts.unicode ? "α" : "alpha";
  const bool with_dense = !in.ctx.view.presenter;
  std::vector<Column> cols = tile_columns(l, st, last, n, dv, g, alpha, with_dense);
  // Rows a little more than a line tall, so that they can be as tall as the heatmap's cells beside them.
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(ImGui::GetStyle().CellPadding.x, std::max(1.0f, fs * 0.1f)));
  const ImGuiStyle& style = ImGui::GetStyle();
  std::vector<float> widths;
  float table_w = column_widths(cols, widths);
  // The map is laid out for the widest table and the tallest footer of any tile, so it keeps its size,
  // its numbers and its labels' direction from tile to tile (at the last tile it shrank and lost its
  // numbers when the table grew by the dense output's column).
  float widest_table = table_w;
  for (int t = 0; t < steps; ++t) {
    std::vector<float> w;
    widest_table = std::max(widest_table, column_widths(tile_columns(l, l.steps[static_cast<size_t>(t)], t == steps - 1, n, dv, g, alpha, with_dense), w));
  }

  // The logits beside the table, a heatmap row beside each table row when its cells are tall enough
  // for a line of text; else the table under the heatmap, with the queries' names again.
  const float row_text_h = ImGui::GetTextLineHeight() + style.CellPadding.y * 2;
  const float gap = fs;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Under both: what a highlighted α means, and after the last tile how close the two outputs are.
  char legend[200], verdict[200];
  std::snprintf(legend, sizeof legend, "Highlighted %s < 1: the tile raised the row's max, so %s and o were scaled by %s first.",
                alpha, g.ell, alpha);
  std::snprintf(verdict, sizeof verdict, "o %s %s = the dense output up to %s (float rounding), from %lld scores at a time, not %lld.",
                g.divide, g.ell, significant(l.max_difference, 2).c_str(), l.scores_held, l.dense_scores);
  // One of them at a time in presenter mode (the verdict at the last tile, where the earlier tiles
  // have explained the highlight), so that the map has the same height on every tile.
  const float footer_h = (with_dense ? ImGui::CalcTextSize(legend, nullptr, false, avail.x).y + style.ItemSpacing.y : 0.0f) +
                         std::max(ImGui::CalcTextSize(legend, nullptr, false, avail.x).y, ImGui::CalcTextSize(verdict, nullptr, false, avail.x).y) +
                         style.ItemSpacing.y + fs * 0.5f;
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const auto ql = display_tokens(s.query_tokens, n), kl = display_tokens(s.key_tokens, m);
  const float label_w = heatmap_row_label_width(ql, static_cast<int>(n));
  const float beside_cell = std::min((avail.x - widest_table - gap - label_w) / static_cast<float>(std::max<Index>(m, 1)),
                                     (avail.y - footer_h - fs * 4.5f) / static_cast<float>(std::max<Index>(n, 1)));
  const bool beside = beside_cell >= row_text_h;
  if (!beside) {
    // The query's name leads each table row.
    float w = 0;
    for (const std::string& q : ql) w = std::max(w, ImGui::CalcTextSize(q.c_str()).x);
    cols.insert(cols.begin(), Column{"query", ql, std::vector<char>(static_cast<size_t>(n), 0), std::vector<char>(static_cast<size_t>(n), 0)});
    widths.insert(widths.begin(), std::max(w, ImGui::CalcTextSize("query").x));
    table_w += widths.front() + style.CellPadding.x * 2 + 1;
  }
  const float stacked_table_h = std::min(row_text_h * static_cast<float>(n + 1) + 4, (avail.y - footer_h) * 0.6f);
  const ImVec2 heat_size = beside ? ImVec2(avail.x - widest_table - gap, avail.y - footer_h)
                                  : ImVec2(avail.x, avail.y - footer_h - stacked_table_h - fs * 0.4f);

  Matrix logits;
  BlockGrid blocked;
  all_logits(l, n, m, logits, blocked);
  char title[120];
  std::snprintf(title, sizeof title, "logits L, tile %d of %d", k + 1, steps);
  ImGui::BeginGroup();
  const DrawnRect d = draw_lesson_matrix(in.canvas(out), "online logits", title, Stage::Logits, logits, &blocked, ql, kl,
                                         ImVec2(std::max(heat_size.x, fs * 6), std::max(heat_size.y, fs * 4)));
  ImGui::EndGroup();
  out.push_back(LessonMapsListed{{d}});  // for the layout record and the tests
  mark_tiles(d, st, m, pal, in.ctx.view.theme == Theme::Dark);
  const float below_heat = ImGui::GetCursorScreenPos().y;

  // The rows line up with the heatmap's beside it (each row as tall as a cell), under it otherwise;
  // the header row then sits just above the first row of cells, beside the column labels.
  TablePlace at;
  at.aligned = beside && d.drawn && d.rows == n && n > 0;
  at.cell_h = at.aligned ? (d.y1 - d.y0) / static_cast<float>(n) : row_text_h;
  at.pos = at.aligned ? ImVec2(d.x1 + gap, d.y0 - row_text_h) : ImVec2(top.x, below_heat + fs * 0.2f);
  at.height = at.aligned ? 0.0f : stacked_table_h;
  const float table_bottom = draw_rows_table(cols, widths, table_w, at, row_text_h, n, pal);
  ImGui::PopStyleVar();

  ImGui::SetCursorScreenPos(ImVec2(top.x, std::max(below_heat, table_bottom) + fs * 0.2f));
  if (with_dense || !last) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped_unformatted(legend);
    ImGui::PopStyleColor();
  }
  if (last) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.good);
    text_wrapped_unformatted(verdict);
    ImGui::PopStyleColor();
  }
}

}  // namespace attnlab::gui
