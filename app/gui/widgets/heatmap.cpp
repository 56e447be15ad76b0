// The heatmap widget: immediate cells for small matrices, GL textures for big ones.
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/layout_record.hpp"

#include "engine/text/bidi.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/heatmap_renderer.hpp"
#include "gui/widgets/text_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

// Index of this file:
// [SECTION] Drawing helpers (colours, hatching, fitted and upward text)
// [SECTION] Measures (cell numbers, label room) that panels use to plan their layout
// [SECTION] Layout: where the labels, the grid and its cells go
// [SECTION] Input: hover, click, the export menu, pan and zoom
// [SECTION] Draw: labels, cells or texture, highlights and read-out
// [SECTION] The widget: draw_heatmap
// [SECTION] Colour bar

namespace attnlab::gui {

// ---------------------------------------------------------------------------------------------
// [SECTION] Drawing helpers
// ---------------------------------------------------------------------------------------------

namespace {

ImU32 to_u32(Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }

Rgb from_u32(ImU32 c) {
  return Rgb{static_cast<std::uint8_t>(c & 0xFF), static_cast<std::uint8_t>((c >> 8) & 0xFF),
             static_cast<std::uint8_t>((c >> 16) & 0xFF)};
}

ImU32 text_on(Rgb c) {
  const double lum = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
  return lum > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

void hatch(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 bg, ImU32 fg, float spacing) {
  dl->AddRectFilled(a, b, bg);
  dl->PushClipRect(a, b, true);
  const float w = b.x - a.x, h = b.y - a.y;
  for (float o = -h; o < w; o += spacing) {
    dl->AddLine(ImVec2(a.x + o, b.y), ImVec2(a.x + o + h, a.y), fg, std::max(1.5f, spacing * 0.3f));
  }
  dl->PopClipRect();
}

bool is_blocked(const HeatmapSpec& spec, int i, int j) {
  if (spec.blocked && (*spec.blocked)(i, j)) return true;
  return !std::isfinite((*spec.values)(i, j));
}

float min_label_size() { return std::max({10.0f, ImGui::GetFontSize() * 0.6f, smallest_text()}); }

float widest_label(ImFont* font, const std::vector<std::string>& labels) {
  float widest = 0;  // at font size 1
  for (const auto& l : labels) {
    const std::string shown = drawn_text(l);  // a lifted head's or a document's tokens in any script
    widest = std::max(widest, font->CalcTextSizeA(1.0f, FLT_MAX, 0, shown.c_str()).x);
  }
  return widest;
}

// The longest start of `l` (whole UTF-8 characters) no wider than `room` at `size` as drawn
// (drawn_text: right-to-left text in reading order), in typed order. Half a pixel of slack: a size
// chosen as room ÷ width must not lose a letter to rounding.
std::string fitted(ImFont* font, const std::string& l, float room, float size) {
  return shortened(l, room + 0.5f, [&](std::string_view s) {
    const std::string shown = visual_order(s);
    return font->CalcTextSizeA(size, FLT_MAX, 0, shown.c_str()).x;
  });
}

// A column label's room across its column: the cell less a word's gap, so that neighbouring labels
// read as two words ("the mat" over two keys, 4 px apart, read as one).
float across_room(float cell_w) { return cell_w - std::max(2.0f, ImGui::GetFontSize() * 0.3f); }

// Whether UTF-8 `s` is one character (a first byte and its continuation bytes).
bool single_character(const std::string& s) {
  return !s.empty() && std::all_of(s.begin() + 1, s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; });
}

// Text turned a quarter turn anticlockwise (reads bottom to top), centred on `centre`. ImGui 1.86
// draws text only across, so the glyph quads are drawn across about the centre and their vertices
// turned. The glyphs are laid out against an unbounded clip rectangle: the window's would drop the
// ones that stick out before the turn, though after it they are inside.
void add_text_upwards(ImDrawList* dl, ImFont* font, float size, ImVec2 centre, ImU32 col, const char* text) {
  const ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, text);
  const int first = dl->VtxBuffer.Size;
  font->RenderText(dl, size, ImVec2(centre.x - ts.x * 0.5f, centre.y - ts.y * 0.5f), col, ImVec4(-FLT_MAX, -FLT_MAX, FLT_MAX, FLT_MAX),
                   text, nullptr);
  for (int k = first; k < dl->VtxBuffer.Size; ++k) {
    ImVec2& p = dl->VtxBuffer[k].pos;
    const float dx = p.x - centre.x, dy = p.y - centre.y;
    p = ImVec2(centre.x + dy, centre.y - dx);
  }
}

double position(const HeatmapSpec& spec, double v) {
  // Same rule as engine/figures/colormap.hpp's colormap_position, inlined so both paths agree with the shader.
  if (spec.diverging) {
    const double r = std::max(std::abs(spec.lo), std::abs(spec.hi));
    return r > 0 ? 0.5 + 0.5 * v / r : 0.5;
  }
  return spec.hi > spec.lo ? (v - spec.lo) / (spec.hi - spec.lo) : 0.5;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Measures
// ---------------------------------------------------------------------------------------------

float min_number_size() { return std::max({11.0f, ImGui::GetFontSize() * 0.5f, smallest_text()}); }

ColumnLabels column_label_layout(const std::vector<std::string>& labels, int cols, float cell_w) {
  ColumnLabels out;
  if (cols > 32 || static_cast<int>(labels.size()) != cols) return out;
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize(), min_label = min_label_size();
  const float widest = widest_label(font, labels);
  const float room = across_room(cell_w);
  const float across = widest > 0 ? std::clamp(room / widest, min_label, fs) : fs;
  if (widest * across <= room || widest <= 0) {
    out.size = across;
    out.height = fs * 1.3f;
    return out;
  }
  // Upwards: a glyph line stands about 1.2 font sizes tall, so the size follows the cell's width.
  out.rotated = true;
  out.size = std::min(std::max(min_label, fs * 0.8f), (cell_w - 2.0f) / 1.2f);
  if (out.size < std::max(7.0f, smallest_text())) return ColumnLabels{};  // cells too thin for any label
  const float most = fs * 6.0f;                 // a sentence for a token must not eat the heatmap
  if (widest * out.size + fs * 0.4f > most) out.size = std::min(out.size, std::max(min_label, (most - fs * 0.4f) / widest));
  out.height = std::min(widest * out.size + fs * 0.4f, most);
  return out;
}

float heatmap_row_label_width(const std::vector<std::string>& labels, int rows) {
  if (rows > 32 || static_cast<int>(labels.size()) != rows) return 0;
  // Tokens longer than about four letters are written smaller (down to 60%) rather than taking the
  // cells' width: "everywhere" at a projector's size is wider than three cells.
  const float fs = ImGui::GetFontSize(), widest = widest_label(ImGui::GetFont(), labels);
  return std::min(widest * fs, std::max(widest * min_label_size(), fs * 2.5f)) + fs * 0.5f;
}

float widest_number(const Matrix& values, const BlockGrid* blocked) {
  ImFont* font = ImGui::GetFont();
  float widest = 0;
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (Eigen::Index j = 0; j < values.cols(); ++j) {
      const float v = values(i, j);
      if (!std::isfinite(v) || (blocked && (*blocked)(i, j))) continue;
      widest = std::max(widest, font->CalcTextSizeA(1.0f, FLT_MAX, 0, format_number(v, NumberUse::Cell, 2).c_str()).x);
    }
  }
  return widest;
}

float cell_for_numbers(const Matrix& values, const BlockGrid* blocked, float size) {
  return std::ceil(cell_px_for_text(size, widest_number(values, blocked)));
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Layout
// ---------------------------------------------------------------------------------------------

namespace {

// Where everything of one heatmap goes this frame: the label room, the grid and its cells.
struct HeatmapLayout {
  int rows = 0, cols = 0;
  bool row_labels = false, col_labels = false;  // drawn at all (few enough to read)
  float label_w = 0, label_h = 0;               // room left of and above the grid
  bool immediate = false;                       // cells drawn one by one; else a GL texture
  float cell = 0;                               // the square cell's side (immediate path)
  float gw = 0, gh = 0;                         // the grid's size
  ImVec2 origin, g0, g1;                        // the whole area's and the grid's corners
};

// The texture's size: the matrix's aspect ratio inside the available area, except that very thin
// matrices (output n × d_v with d_v ≪ n) get wider cells rather than a sliver.
void fit_texture(HeatmapLayout& L, const HeatmapSpec& spec, float grid_w) {
  const float grid_h = std::max(1.0f, spec.size.y - L.label_h);
  const float aspect = static_cast<float>(L.cols) / static_cast<float>(std::max(L.rows, 1));
  L.gw = grid_w;
  L.gh = L.gw / aspect;
  if (L.gh > grid_h) {
    L.gh = grid_h;
    L.gw = L.gh * aspect;
  }
  L.gw = std::max(L.gw, std::min(grid_w, grid_h * 0.5f));
  L.gh = std::max(L.gh, std::min(grid_h, grid_w * 0.5f));
  L.gw = std::floor(std::max(L.gw, 8.0f));
  L.gh = std::floor(std::max(L.gh, 8.0f));
}

HeatmapLayout layout_heatmap(const HeatmapSpec& spec) {
  HeatmapLayout L;
  const Matrix& M = *spec.values;
  L.rows = static_cast<int>(M.rows());
  L.cols = static_cast<int>(M.cols());
  const int rows = L.rows, cols = L.cols;
  const float fs = ImGui::GetFontSize();
  // Axis labels only while there are few enough to read.
  L.row_labels = rows <= 32 && static_cast<int>(spec.row_labels.size()) == rows;
  L.col_labels = cols <= 32 && static_cast<int>(spec.col_labels.size()) == cols;
  if (L.row_labels) {
    L.label_w = spec.row_label_width >= 0 ? spec.row_label_width
                                          : std::min(heatmap_row_label_width(spec.row_labels, rows), spec.size.x * 0.3f);
  }
  // The column labels' room depends on the cells' width, which depends on that room.
  const float grid_w = std::max(1.0f, spec.size.x - L.label_w);
  auto cell_for = [&](float label_h) {
    const float grid_h = std::max(1.0f, spec.size.y - label_h);
    float c = std::min(grid_w / static_cast<float>(std::max(cols, 1)), grid_h / static_cast<float>(std::max(rows, 1)));
    return spec.max_cell > 0 ? std::min(c, spec.max_cell) : c;
  };
  L.label_h = L.col_labels ? fs * 1.3f : 0.0f;
  if (L.col_labels) {
    // Twice, keeping the taller: upward labels are shorter in narrower cells, so the cells that
    // height leaves have labels that fit in it.
    const float first = column_label_layout(spec.col_labels, cols, cell_for(L.label_h)).height;
    L.label_h = std::max(first, column_label_layout(spec.col_labels, cols, cell_for(first)).height);
  }
  L.cell = cell_for(L.label_h);
  // Cells too thin for labels the room can read (presenter mode) or for any: no column labels, and
  // their room goes to the cells.
  if (L.col_labels && column_label_layout(spec.col_labels, cols, L.cell).height <= 0) {
    L.col_labels = false;
    L.label_h = 0;
    L.cell = cell_for(0);
  }
  // Tiny square cells of a tall, thin matrix (an output n × d_v with d_v ≪ n) would draw a sliver:
  // the texture path widens it instead.
  const bool sliver =
      L.cell < fs && L.cell * static_cast<float>(cols) < std::min(grid_w, (spec.size.y - L.label_h) * 0.5f) * 0.5f;
  L.immediate = static_cast<long>(rows) * cols <= kMaxImmediateCells && L.cell >= kMinCellPx && !sliver;
  if (L.immediate) {
    L.cell = std::floor(L.cell);
    L.gw = L.cell * static_cast<float>(cols);
    L.gh = L.cell * static_cast<float>(rows);
  } else {
    fit_texture(L, spec, grid_w);
    // The texture's columns are wider than the square cells guessed above: lay the labels out again.
    if (L.col_labels) {
      const float lh = column_label_layout(spec.col_labels, cols, L.gw / static_cast<float>(cols)).height;
      if (lh != L.label_h) {
        L.label_h = lh;
        fit_texture(L, spec, grid_w);
      }
    }
  }
  L.origin = ImGui::GetCursorScreenPos();
  L.g0 = ImVec2(L.origin.x + L.label_w, L.origin.y + L.label_h);
  L.g1 = ImVec2(L.g0.x + L.gw, L.g0.y + L.gh);
  return L;
}

// Labels: at the body size when they fit, else smaller (down to 60%), else (columns) upwards;
// never hidden because a token is a little wider than its column, never overlapping a neighbour.
// Sets the DrawnRect's labels_cut and labels_rotated.
void draw_labels(const HeatmapSpec& spec, const HeatmapLayout& L, const Palette& pal, DrawnRect& out) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize();
  const float min_label = min_label_size();
  bool cut = false;
  if (L.col_labels) {
    const float cw = L.gw / static_cast<float>(L.cols);
    ColumnLabels cl = column_label_layout(spec.col_labels, L.cols, cw);
    if (cl.height > L.label_h + 0.5f) cl = ColumnLabels{};  // no room above the grid (never over other text)
    out.labels_rotated = cl.rotated;
    if (cl.size > 0) out.label_size = cl.size;
    const float across = across_room(cw);
    const float room = cl.rotated ? L.label_h - fs * 0.4f : across;
    for (int j = 0; j < L.cols && cl.size > 0; ++j) {
      const std::string& full = spec.col_labels[static_cast<size_t>(j)];
      const std::string typed = fitted(font, full, room, cl.size);
      cut = cut || typed.size() < full.size();
      const std::string l = drawn_text(typed);
      const ImVec2 ts = font->CalcTextSizeA(cl.size, FLT_MAX, 0, l.c_str());
      const float cx = L.g0.x + cw * (static_cast<float>(j) + 0.5f);
      // Turned, every label turns, short or long: upright and turned words side by side read as one
      // ("and soft" over two keys), and switched as the cells changed width. Only a single character
      // that fits stays upright, on the same baseline (turned, "I" reads as "_").
      if (cl.rotated && (ts.x > across || !single_character(typed))) {
        // Bottom-aligned just above the grid, so that short and long tokens start at the same place.
        add_text_upwards(dl, font, cl.size, ImVec2(cx, L.g0.y - fs * 0.2f - ts.x * 0.5f), pal.text_dim, l.c_str());
      } else if (cl.rotated) {
        dl->AddText(font, cl.size, ImVec2(cx - ts.x * 0.5f, L.g0.y - fs * 0.2f - ts.y), pal.text_dim, l.c_str());
      } else {
        dl->AddText(font, cl.size, ImVec2(cx - ts.x * 0.5f, L.origin.y + (L.label_h - cl.size) * 0.5f), pal.text_dim, l.c_str());
      }
    }
    cut = cut || cl.size <= 0;
  }
  if (L.row_labels) {
    const float ch = L.gh / static_cast<float>(L.rows);
    const float room = L.g0.x - fs * 0.35f - L.origin.x;
    const float widest = widest_label(font, spec.row_labels);
    const float size = std::min(widest > 0 ? std::clamp(room / widest, min_label, fs) : fs, std::max(ch * 0.95f, 1.0f));
    if (size >= min_label * 0.9f) {
      out.label_size = out.label_size > 0 ? std::min(out.label_size, size) : size;
      for (int i = 0; i < L.rows; ++i) {
        const std::string& full = spec.row_labels[static_cast<size_t>(i)];
        const std::string typed = fitted(font, full, room, size);
        cut = cut || typed.size() < full.size();
        const std::string l = drawn_text(typed);
        const ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, l.c_str());
        dl->AddText(font, size, ImVec2(L.g0.x - fs * 0.35f - ts.x, L.g0.y + ch * (static_cast<float>(i) + 0.5f) - ts.y * 0.5f),
                    pal.text_dim, l.c_str());
      }
    } else {
      cut = true;
    }
  }
  out.labels_cut = cut;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Input
// ---------------------------------------------------------------------------------------------

// This heatmap's own pan/zoom, kept in ImGui's storage under the widget's ID (the immediate-mode
// home of a widget's state): two heatmaps of one stage pan and zoom independently.
HeatmapView load_view() {
  ImGuiStorage* st = ImGui::GetStateStorage();
  return HeatmapView{st->GetFloat(ImGui::GetID("view_x0"), 0.0f), st->GetFloat(ImGui::GetID("view_y0"), 0.0f),
                     st->GetFloat(ImGui::GetID("view_x1"), 1.0f), st->GetFloat(ImGui::GetID("view_y1"), 1.0f)};
}

void store_view(const HeatmapView& v) {
  ImGuiStorage* st = ImGui::GetStateStorage();
  st->SetFloat(ImGui::GetID("view_x0"), v.x0);
  st->SetFloat(ImGui::GetID("view_y0"), v.y0);
  st->SetFloat(ImGui::GetID("view_x1"), v.x1);
  st->SetFloat(ImGui::GetID("view_y1"), v.y1);
}

bool is_click(ImGuiMouseButton button) {
  const ImGuiIO& io = ImGui::GetIO();
  return ImGui::IsMouseReleased(button) && io.MouseDragMaxDistanceSqr[button] < io.MouseDragThreshold * io.MouseDragThreshold;
}

// The mouse over the grid: hover and click (not the end of a pan), the right-click export menu,
// and on the texture path wheel zoom about the cursor, drag to pan, double-click to reset.
HeatmapEvents handle_input(const HeatmapSpec& spec, const HeatmapLayout& L, HeatmapView& view) {
  HeatmapEvents ev;
  ImGui::SetCursorScreenPos(L.g0);
  const bool pressed =
      ImGui::InvisibleButton("grid", ImVec2(L.gw, L.gh), ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered();
  const ImGuiIO& io = ImGui::GetIO();
  if (hovered && is_click(ImGuiMouseButton_Right)) ImGui::OpenPopup("heatmap_context");
  if (ImGui::BeginPopup("heatmap_context")) {
    if (ImGui::MenuItem("Export this stage...")) ev.menu = HeatmapMenu::ExportStage;
    if (ImGui::MenuItem("Export the pipeline figure...")) ev.menu = HeatmapMenu::ExportPipeline;
    ImGui::Separator();
    if (ImGui::MenuItem("Copy as LaTeX")) ev.menu = HeatmapMenu::CopyLatex;
    if (ImGui::MenuItem("Copy as CSV")) ev.menu = HeatmapMenu::CopyCsv;
    ImGui::EndPopup();
  }
  if (L.immediate) view = HeatmapView{};
  if (hovered) {
    const float fx = (io.MousePos.x - L.g0.x) / L.gw, fy = (io.MousePos.y - L.g0.y) / L.gh;
    const float mx = view.x0 + fx * (view.x1 - view.x0), my = view.y0 + fy * (view.y1 - view.y0);
    const int j = std::clamp(static_cast<int>(std::floor(mx * static_cast<float>(L.cols))), 0, L.cols - 1);
    const int i = std::clamp(static_cast<int>(std::floor(my * static_cast<float>(L.rows))), 0, L.rows - 1);
    ev.hovered = CellRef{spec.stage, i, j};
    if (pressed && is_click(ImGuiMouseButton_Left)) ev.clicked = ev.hovered;
  }
  if (L.immediate) return ev;
  if (hovered && io.MouseWheel != 0) {
    const float fx = (io.MousePos.x - L.g0.x) / L.gw, fy = (io.MousePos.y - L.g0.y) / L.gh;
    const float cx = view.x0 + fx * (view.x1 - view.x0), cy = view.y0 + fy * (view.y1 - view.y0);
    const float k = io.MouseWheel > 0 ? 0.8f : 1.25f;
    float w = std::clamp((view.x1 - view.x0) * k, 4.0f / static_cast<float>(L.cols), 1.0f);
    float h = std::clamp((view.y1 - view.y0) * k, 4.0f / static_cast<float>(L.rows), 1.0f);
    view.x0 = std::clamp(cx - fx * w, 0.0f, 1.0f - w);
    view.y0 = std::clamp(cy - fy * h, 0.0f, 1.0f - h);
    view.x1 = view.x0 + w;
    view.y1 = view.y0 + h;
  }
  for (ImGuiMouseButton b : {ImGuiMouseButton_Left, ImGuiMouseButton_Right}) {
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(b)) {
      const float w = view.x1 - view.x0, h = view.y1 - view.y0;
      view.x0 = std::clamp(view.x0 - io.MouseDelta.x / L.gw * w, 0.0f, 1.0f - w);
      view.y0 = std::clamp(view.y0 - io.MouseDelta.y / L.gh * h, 0.0f, 1.0f - h);
      view.x1 = view.x0 + w;
      view.y1 = view.y0 + h;
    }
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view = HeatmapView{};
  return ev;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Draw
// ---------------------------------------------------------------------------------------------

// Numbers grow with the cells up to the body font size and shrink down to a still-legible size
// (larger in presenter mode), one size for the whole heatmap; below that they give way to the
// hover read-out. Size 0: no numbers.
CellText cell_text(const HeatmapStyle& style, const HeatmapSpec& spec, const HeatmapLayout& L) {
  const float fs = ImGui::GetFontSize(), min_size = min_number_size();
  // Cells too small for the shortest number ("0.00" at min_size) skip the measuring.
  if (!style.numbers_in_cells || L.cell < min_size * 2.0f) return CellText{};
  ImFont* font = ImGui::GetFont();
  const Matrix& M = *spec.values;
  float widest[2] = {0, 0};  // 2 and 3 decimals, at font size 1
  for (int i = 0; i < L.rows; ++i) {
    for (int j = 0; j < L.cols; ++j) {
      if (is_blocked(spec, i, j)) continue;
      for (int d = 2; d <= 3; ++d) {
        const std::string txt = format_number(M(i, j), NumberUse::Cell, d);
        widest[d - 2] = std::max(widest[d - 2], font->CalcTextSizeA(1.0f, FLT_MAX, 0, txt.c_str()).x);
      }
    }
  }
  return fit_cell_text(L.cell, fs, fs * 0.8f, min_size, [&](int d) { return widest[d == 3 ? 1 : 0]; });
}

// A blocked cell: hatched, with the mask's text ("−∞") when it fits. A cell the mask does not block
// is hatched because it overflowed: it says ∞ or −∞ (the pipeline panel says why).
void draw_blocked_cell(const HeatmapSpec& spec, const Palette& pal, ImVec2 a, float cell, int i, int j) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImFont* font = ImGui::GetFont();
  hatch(dl, a, ImVec2(a.x + cell, a.y + cell), pal.hatch_a, pal.hatch_b, std::max(5.0f, cell / 6.0f));
  const bool masked = spec.blocked && (*spec.blocked)(i, j);
  const std::string overflow = masked ? std::string() : format_number((*spec.values)(i, j), NumberUse::Cell, 0);
  const char* text = masked ? spec.blocked_text : overflow.c_str();
  // At the body size in big cells, smaller in smaller ones (a projector's six-token lesson).
  const float size = std::min(ImGui::GetFontSize(), cell * 0.5f);
  const ImVec2 ts = text && *text ? font->CalcTextSizeA(size, FLT_MAX, 0, text) : ImVec2(0, 0);
  if (ts.x > 0 && size >= min_number_size() && ts.x + 8 <= cell) {
    const ImVec2 c(std::round(a.x + (cell - ts.x) * 0.5f), std::round(a.y + (cell - ts.y) * 0.5f));
    dl->AddRectFilled(ImVec2(c.x - 3, c.y), ImVec2(c.x + ts.x + 3, c.y + ts.y), pal.hatch_a, 3.0f);
    dl->AddText(font, size, c, IM_COL32(255, 255, 255, 255), text);
  }
}

// Small matrices: every cell a rectangle with its number. Returns the numbers' font size (0: none).
float draw_cells(const HeatmapStyle& style, const HeatmapSpec& spec, const HeatmapLayout& L) {
  const Palette& pal = style.palette;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImFont* font = ImGui::GetFont();
  const Matrix& M = *spec.values;
  const CellText ct = cell_text(style, spec, L);
  const float cell = L.cell;
  for (int i = 0; i < L.rows; ++i) {
    for (int j = 0; j < L.cols; ++j) {
      const ImVec2 a(L.g0.x + cell * static_cast<float>(j), L.g0.y + cell * static_cast<float>(i));
      const ImVec2 b(a.x + cell, a.y + cell);
      if (is_blocked(spec, i, j)) {
        draw_blocked_cell(spec, pal, a, cell, i, j);
      } else {
        const double v = M(i, j);
        const Rgb c = spec.map->at(position(spec, v));
        dl->AddRectFilled(a, b, to_u32(c));
        if (ct.size > 0) {
          const std::string txt = format_number(v, NumberUse::Cell, ct.decimals);
          const ImVec2 ts = font->CalcTextSizeA(ct.size, FLT_MAX, 0, txt.c_str());
          dl->AddText(font, ct.size, ImVec2(std::round(a.x + (cell - ts.x) * 0.5f), std::round(a.y + (cell - ts.y) * 0.5f)),
                      text_on(c), txt.c_str());
        }
      }
      if (cell >= 10) dl->AddRect(a, b, pal.cell_border, 0, 0, 1.0f);
    }
  }
  return ct.size;
}

// Big matrices: the GL texture of the visible part (window-less tests: a coarse preview instead).
void draw_texture(const HeatmapStyle& style, const HeatmapSpec& spec, const HeatmapLayout& L, const HeatmapView& view) {
  const Palette& pal = style.palette;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (style.renderer) {
    HeatmapRequest rq;
    rq.values = spec.values;
    rq.blocked = spec.blocked;
    rq.version = style.version * 8 + static_cast<std::uint64_t>(spec.stage);
    rq.map = spec.map;
    rq.lo = spec.lo;
    rq.hi = spec.hi;
    rq.diverging = spec.diverging;
    rq.view = view;
    rq.width = static_cast<int>(L.gw);
    rq.height = static_cast<int>(L.gh);
    rq.hatch_a = from_u32(pal.hatch_a);
    rq.hatch_b = from_u32(pal.hatch_b);
    dl->AddImage(style.renderer->render(ImGui::GetID("grid"), rq), L.g0, L.g1);
    return;
  }
  // At most 32 × 32 blocks.
  const Matrix& M = *spec.values;
  const int br = std::min(L.rows, 32), bc = std::min(L.cols, 32);
  for (int bi = 0; bi < br; ++bi) {
    for (int bj = 0; bj < bc; ++bj) {
      const int i = bi * L.rows / br, j = bj * L.cols / bc;
      const ImVec2 a(L.g0.x + L.gw * static_cast<float>(bj) / static_cast<float>(bc), L.g0.y + L.gh * static_cast<float>(bi) / static_cast<float>(br));
      const ImVec2 b(L.g0.x + L.gw * static_cast<float>(bj + 1) / static_cast<float>(bc), L.g0.y + L.gh * static_cast<float>(bi + 1) / static_cast<float>(br));
      dl->AddRectFilled(a, b, is_blocked(spec, i, j) ? pal.hatch_a : to_u32(spec.map->at(position(spec, M(i, j)))));
    }
  }
}

// Hovered and selected cells outlined (immediate path, or big cells when zoomed in), and the hover
// read-out: the spec's own, or for cells too small to print their number, the value and its tokens.
void draw_highlights(const HeatmapStyle& style, const HeatmapSpec& spec, const HeatmapLayout& L, const HeatmapView& view,
                     const HeatmapEvents& ev) {
  const Palette& pal = style.palette;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  auto outline = [&](const CellRef& c, ImU32 col, float thick) {
    if (!c.valid() || c.stage != spec.stage || c.row >= L.rows || c.col >= L.cols) return;
    const float vx0 = view.x0 * static_cast<float>(L.cols), vy0 = view.y0 * static_cast<float>(L.rows);
    const float cw = L.gw / ((view.x1 - view.x0) * static_cast<float>(L.cols));
    const float ch = L.gh / ((view.y1 - view.y0) * static_cast<float>(L.rows));
    if (cw < 3 || ch < 3) return;
    const ImVec2 a(L.g0.x + (static_cast<float>(c.col) - vx0) * cw, L.g0.y + (static_cast<float>(c.row) - vy0) * ch);
    dl->PushClipRect(L.g0, L.g1, true);
    dl->AddRect(a, ImVec2(a.x + cw, a.y + ch), col, 0, 0, thick);
    dl->PopClipRect();
  };
  outline(style.selected, pal.selected, 3.0f);
  outline(ev.hovered, pal.hovered, 2.0f);

  if (!ev.hovered.valid()) return;
  const int i = ev.hovered.row, j = ev.hovered.col;
  if (spec.describe) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(spec.describe(i, j).c_str());
    ImGui::EndTooltip();
  } else if (!L.immediate) {
    ImGui::BeginTooltip();
    const std::string rl = i < static_cast<int>(spec.row_labels.size()) ? spec.row_labels[static_cast<size_t>(i)] : "";
    const std::string cl = j < static_cast<int>(spec.col_labels.size()) ? spec.col_labels[static_cast<size_t>(j)] : "";
    ImGui::Text("%s[%d][%d] = %s", stage_name(spec.stage).data(), i, j,
                spec.blocked && (*spec.blocked)(i, j) ? "blocked" : format_number((*spec.values)(i, j), NumberUse::Cell, 4).c_str());
    if (!rl.empty() || !cl.empty()) ImGui::TextDisabled("%s → %s", rl.c_str(), cl.c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] The widget
// ---------------------------------------------------------------------------------------------

HeatmapEvents draw_heatmap(const HeatmapSpec& spec, const HeatmapStyle& style) {
  const Palette& pal = style.palette;
  ImGui::PushID(spec.id);
  const HeatmapLayout L = layout_heatmap(spec);
  DrawnRect drawn{L.g0.x, L.g0.y, L.g1.x, L.g1.y, L.rows, L.cols, true, 0, L.origin.x, L.origin.y, false, false};
  draw_labels(spec, L, pal, drawn);

  HeatmapView view = load_view();
  HeatmapEvents ev = handle_input(spec, L, view);
  store_view(view);

  if (L.immediate) drawn.number_size = draw_cells(style, spec, L);
  else draw_texture(style, spec, L, view);
  ImGui::GetWindowDrawList()->AddRect(ImVec2(L.g0.x - 1, L.g0.y - 1), ImVec2(L.g1.x + 1, L.g1.y + 1), pal.text_dim, 0, 0, 1.0f);
  draw_highlights(style, spec, L, view, ev);
  ev.drawn = drawn;
  record_map({spec.id, L.g0, L.g1, L.rows, L.cols, std::min(L.gw / static_cast<float>(L.cols), L.gh / static_cast<float>(L.rows)),
              drawn.label_size});
  ImGui::SetCursorScreenPos(ImVec2(L.origin.x, L.g1.y + ImGui::GetStyle().ItemSpacing.y));
  ImGui::Dummy(ImVec2(L.label_w + L.gw, 0));
  ImGui::PopID();
  return ev;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Colour bar
// ---------------------------------------------------------------------------------------------

void draw_colorbar(const Palette& pal, const Colormap& map, double lo, double hi, bool diverging, float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const float h = std::max(8.0f, fs * 0.6f);
  const int steps = 64;
  for (int k = 0; k < steps; ++k) {
    const float x0 = a.x + width * static_cast<float>(k) / steps, x1 = a.x + width * static_cast<float>(k + 1) / steps;
    const double t = (k + 0.5) / steps;
    dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(x1 + 0.5f, a.y + h), to_u32(map.at(t)));
  }
  dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(a.x + width + 1, a.y + h + 1), pal.text_dim);
  const ColorbarLabels labels = colorbar_labels(
      lo, hi, diverging, width, fs * 0.6f, [](double v, int d) { return format_number(v, NumberUse::Cell, d); },
      [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; });
  const float size = fs * labels.scale;
  ImFont* font = ImGui::GetFont();
  const float ty = a.y + h + 2;
  const ImVec2 rs = font->CalcTextSizeA(size, FLT_MAX, 0, labels.right.c_str());
  dl->AddText(font, size, ImVec2(a.x, ty), pal.text_dim, labels.left.c_str());
  dl->AddText(font, size, ImVec2(a.x + width - rs.x, ty), pal.text_dim, labels.right.c_str());
  if (labels.zero) {
    const float zw = font->CalcTextSizeA(size, FLT_MAX, 0, "0").x;
    dl->AddText(font, size, ImVec2(a.x + width * 0.5f - zw * 0.5f, ty), pal.text_dim, "0");
  }
  ImGui::Dummy(ImVec2(width, h + fs + 4));
}

}  // namespace attnlab::gui
