// The heatmap widget: immediate cells for small matrices, GL textures for big ones.
#include "gui/widgets/heatmap.hpp"

#include "gui/dialogs/export_dialog.hpp"
#include "gui/shell/theme.hpp"
#include "gui/widgets/heatmap_renderer.hpp"
#include "gui/widgets/text_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cfloat>
#include <cstdio>
#include <cstdlib>

namespace attnlab::gui {

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

float min_label_size() { return std::max(10.0f, ImGui::GetFontSize() * 0.6f); }

float widest_label(ImFont* font, const std::vector<std::string>& labels) {
  float widest = 0;  // at font size 1
  for (const auto& l : labels) widest = std::max(widest, font->CalcTextSizeA(1.0f, FLT_MAX, 0, l.c_str()).x);
  return widest;
}

// The longest start of `l` (whole UTF-8 characters) no wider than `room` at `size`. Half a pixel
// of slack: a size chosen as room ÷ width must not lose a letter to rounding.
std::string fitted(ImFont* font, const std::string& l, float room, float size) {
  return shortened(l, room + 0.5f, [&](std::string_view s) {
    return font->CalcTextSizeA(size, FLT_MAX, 0, s.data(), s.data() + s.size()).x;
  });
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
  // Same rule as engine/colormap.hpp's colormap_position, inlined so both paths agree with the shader.
  if (spec.diverging) {
    const double r = std::max(std::abs(spec.lo), std::abs(spec.hi));
    return r > 0 ? 0.5 + 0.5 * v / r : 0.5;
  }
  return spec.hi > spec.lo ? (v - spec.lo) / (spec.hi - spec.lo) : 0.5;
}

}  // namespace

std::string format_cell(double v, int decimals) {
  char buf[32];
  if (!std::isfinite(v)) return v < 0 ? "−∞" : v > 0 ? "∞" : "nan";
  const double a = std::abs(v);
  if (a >= 1000) std::snprintf(buf, sizeof buf, "%.3g", v);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10) std::snprintf(buf, sizeof buf, "%.*f", std::max(0, decimals - 1), v);
  else std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s == "-0.000" || s == "-0.00" || s == "-0.0" || s == "-0") s.erase(0, 1);
  return s;
}

float min_number_size() { return std::max(11.0f, ImGui::GetFontSize() * 0.5f); }

ColumnLabels column_label_layout(const std::vector<std::string>& labels, int cols, float cell_w) {
  ColumnLabels out;
  if (cols > 32 || static_cast<int>(labels.size()) != cols) return out;
  ImFont* font = ImGui::GetFont();
  const float fs = ImGui::GetFontSize(), min_label = min_label_size();
  const float widest = widest_label(font, labels);
  const float room = cell_w - std::max(2.0f, fs * 0.15f);
  const float across = widest > 0 ? std::clamp(room / widest, min_label, fs) : fs;
  if (widest * across <= room || widest <= 0) {
    out.size = across;
    out.height = fs * 1.3f;
    return out;
  }
  // Upwards: a glyph line stands about 1.2 font sizes tall, so the size follows the cell's width.
  out.rotated = true;
  out.size = std::min(std::max(min_label, fs * 0.8f), (cell_w - 2.0f) / 1.2f);
  if (out.size < 7.0f) return ColumnLabels{};  // cells too thin for any label
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
      widest = std::max(widest, font->CalcTextSizeA(1.0f, FLT_MAX, 0, format_cell(v, 2).c_str()).x);
    }
  }
  return widest;
}

float cell_for_numbers(const Matrix& values, const BlockGrid* blocked, float size) {
  return std::ceil(cell_px_for_text(size, widest_number(values, blocked)));
}

HeatmapEvents draw_heatmap(AppState& state, Services& services, const HeatmapSpec& spec) {
  HeatmapEvents ev;
  const Matrix& M = *spec.values;
  const int rows = static_cast<int>(M.rows()), cols = static_cast<int>(M.cols());
  const Palette pal = palette(state);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  ImGui::PushID(spec.id);

  // Axis labels only while there are few enough to read.
  const bool row_labels = rows <= 32 && static_cast<int>(spec.row_labels.size()) == rows;
  const bool col_labels = cols <= 32 && static_cast<int>(spec.col_labels.size()) == cols;
  float label_w = 0;
  if (row_labels) {
    label_w = spec.row_label_width >= 0 ? spec.row_label_width
                                        : std::min(heatmap_row_label_width(spec.row_labels, rows), spec.size.x * 0.3f);
  }
  // The column labels' room depends on the cells' width, which depends on that room.
  const float grid_w = std::max(1.0f, spec.size.x - label_w);
  auto cell_for = [&](float label_h) {
    const float grid_h = std::max(1.0f, spec.size.y - label_h);
    float c = std::min(grid_w / static_cast<float>(std::max(cols, 1)), grid_h / static_cast<float>(std::max(rows, 1)));
    return spec.max_cell > 0 ? std::min(c, spec.max_cell) : c;
  };
  float label_h = col_labels ? fs * 1.3f : 0.0f;
  if (col_labels) {
    // Twice, keeping the taller: upward labels are shorter in narrower cells, so the cells that
    // height leaves have labels that fit in it.
    const float first = column_label_layout(spec.col_labels, cols, cell_for(label_h)).height;
    label_h = std::max(first, column_label_layout(spec.col_labels, cols, cell_for(first)).height);
  }
  float cell = cell_for(label_h);
  // Tiny square cells of a tall, thin matrix (an output n × d_v with d_v ≪ n) would draw a sliver:
  // the texture path widens it instead.
  const bool sliver = cell < fs && cell * static_cast<float>(cols) < std::min(grid_w, (spec.size.y - label_h) * 0.5f) * 0.5f;
  const bool immediate = static_cast<long>(rows) * cols <= kMaxImmediateCells && cell >= kMinCellPx && !sliver;

  float gw, gh;
  // The texture's size: the matrix's aspect ratio inside the available area, except that very thin
  // matrices (output n × d_v with d_v ≪ n) get wider cells rather than a sliver.
  auto texture_size = [&](float lh) {
    const float grid_h = std::max(1.0f, spec.size.y - lh);
    const float aspect = static_cast<float>(cols) / static_cast<float>(std::max(rows, 1));
    gw = grid_w;
    gh = gw / aspect;
    if (gh > grid_h) {
      gh = grid_h;
      gw = gh * aspect;
    }
    gw = std::max(gw, std::min(grid_w, grid_h * 0.5f));
    gh = std::max(gh, std::min(grid_h, grid_w * 0.5f));
    gw = std::floor(std::max(gw, 8.0f));
    gh = std::floor(std::max(gh, 8.0f));
  };
  if (immediate) {
    cell = std::floor(cell);
    gw = cell * static_cast<float>(cols);
    gh = cell * static_cast<float>(rows);
  } else {
    texture_size(label_h);
    // The texture's columns are wider than the square cells guessed above: lay the labels out again.
    if (col_labels) {
      const float lh = column_label_layout(spec.col_labels, cols, gw / static_cast<float>(cols)).height;
      if (lh != label_h) {
        label_h = lh;
        texture_size(label_h);
      }
    }
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 g0(origin.x + label_w, origin.y + label_h);
  const ImVec2 g1(g0.x + gw, g0.y + gh);

  // Labels: at the body size when they fit, else smaller (down to 60%), else (columns) upwards;
  // never hidden because a token is a little wider than its column, never overlapping a neighbour.
  ImFont* font = ImGui::GetFont();
  const float min_label = min_label_size();
  bool labels_cut = false, labels_rotated = false;
  if (col_labels) {
    const float cw = gw / static_cast<float>(cols);
    ColumnLabels cl = column_label_layout(spec.col_labels, cols, cw);
    if (cl.height > label_h + 0.5f) cl = ColumnLabels{};  // no room above the grid (never over other text)
    labels_rotated = cl.rotated;
    const float room = cl.rotated ? label_h - fs * 0.4f : cw - std::max(2.0f, fs * 0.15f);
    for (int j = 0; j < cols && cl.size > 0; ++j) {
      const std::string& full = spec.col_labels[static_cast<size_t>(j)];
      const std::string l = fitted(font, full, room, cl.size);
      labels_cut = labels_cut || l.size() < full.size();
      const ImVec2 ts = font->CalcTextSizeA(cl.size, FLT_MAX, 0, l.c_str());
      const float cx = g0.x + cw * (static_cast<float>(j) + 0.5f);
      if (cl.rotated) {
        // Bottom-aligned just above the grid, so that short and long tokens start at the same place.
        add_text_upwards(dl, font, cl.size, ImVec2(cx, g0.y - fs * 0.2f - ts.x * 0.5f), pal.text_dim, l.c_str());
      } else {
        dl->AddText(font, cl.size, ImVec2(cx - ts.x * 0.5f, origin.y + (label_h - cl.size) * 0.5f), pal.text_dim, l.c_str());
      }
    }
    labels_cut = labels_cut || cl.size <= 0;
  }
  if (row_labels) {
    const float ch = gh / static_cast<float>(rows);
    const float room = g0.x - fs * 0.35f - origin.x;
    const float widest = widest_label(font, spec.row_labels);
    const float size = std::min(widest > 0 ? std::clamp(room / widest, min_label, fs) : fs, std::max(ch * 0.95f, 1.0f));
    if (size >= min_label * 0.9f) {
      for (int i = 0; i < rows; ++i) {
        const std::string& full = spec.row_labels[static_cast<size_t>(i)];
        const std::string l = fitted(font, full, room, size);
        labels_cut = labels_cut || l.size() < full.size();
        const ImVec2 ts = font->CalcTextSizeA(size, FLT_MAX, 0, l.c_str());
        dl->AddText(font, size, ImVec2(g0.x - fs * 0.35f - ts.x, g0.y + ch * (static_cast<float>(i) + 0.5f) - ts.y * 0.5f),
                    pal.text_dim, l.c_str());
      }
    } else {
      labels_cut = true;
    }
  }

  ImGui::SetCursorScreenPos(g0);
  const bool pressed = ImGui::InvisibleButton("grid", ImVec2(gw, gh), ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight);
  const bool hovered = ImGui::IsItemHovered();
  const ImGuiIO& io = ImGui::GetIO();
  // Right-click (not the end of a right-drag pan) opens the export menu for this stage.
  if (hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Right) &&
      io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Right] < io.MouseDragThreshold * io.MouseDragThreshold) {
    ImGui::OpenPopup("heatmap_context");
  }
  if (ImGui::BeginPopup("heatmap_context")) {
    draw_heatmap_context_items(state, spec.stage);
    ImGui::EndPopup();
  }
  HeatmapView& view = state.heatmap_views[static_cast<size_t>(spec.stage)];
  if (immediate) view = HeatmapView{};

  auto cell_at = [&](ImVec2 p, int& i, int& j) {
    const float fx = (p.x - g0.x) / gw, fy = (p.y - g0.y) / gh;
    const float mx = view.x0 + fx * (view.x1 - view.x0), my = view.y0 + fy * (view.y1 - view.y0);
    j = std::clamp(static_cast<int>(std::floor(mx * static_cast<float>(cols))), 0, cols - 1);
    i = std::clamp(static_cast<int>(std::floor(my * static_cast<float>(rows))), 0, rows - 1);
  };

  if (hovered) {
    int i = 0, j = 0;
    cell_at(io.MousePos, i, j);
    ev.hovered = CellRef{spec.stage, i, j};
    // A click, not the end of a pan.
    if (pressed && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
        io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < io.MouseDragThreshold * io.MouseDragThreshold) {
      ev.clicked = ev.hovered;
    }
  }

  float number_size = 0;
  if (immediate) {
    // Numbers grow with the cells up to the body font size and shrink down to a still-legible
    // size (larger in presenter mode), one size for the whole heatmap; below that they give way to
    // the hover read-out.
    CellText ct;
    const float min_size = min_number_size();
    // Cells too small for the shortest number ("0.00" at min_size) skip the measuring.
    if (state.view.numbers_in_cells && cell >= min_size * 2.0f) {
      float widest[2] = {0, 0};  // 2 and 3 decimals, at font size 1
      for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
          if (is_blocked(spec, i, j)) continue;
          for (int d = 2; d <= 3; ++d) {
            const std::string txt = format_cell(M(i, j), d);
            widest[d - 2] = std::max(widest[d - 2], font->CalcTextSizeA(1.0f, FLT_MAX, 0, txt.c_str()).x);
          }
        }
      }
      ct = fit_cell_text(cell, fs, fs * 0.8f, min_size, [&](int d) { return widest[d == 3 ? 1 : 0]; });
    }
    const float num_size = ct.size;
    number_size = num_size;
    const int decimals = ct.decimals;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        const ImVec2 a(g0.x + cell * static_cast<float>(j), g0.y + cell * static_cast<float>(i));
        const ImVec2 b(a.x + cell, a.y + cell);
        if (is_blocked(spec, i, j)) {
          hatch(dl, a, b, pal.hatch_a, pal.hatch_b, std::max(5.0f, cell / 6.0f));
          // A cell the mask does not block is hatched because it overflowed: say ∞ or −∞ (the
          // pipeline panel says why), never the mask's text.
          const bool masked = spec.blocked && (*spec.blocked)(i, j);
          const std::string overflow = masked ? std::string() : format_cell(M(i, j), 0);
          const char* text = masked ? spec.blocked_text : overflow.c_str();
          // At the body size in big cells, smaller in smaller ones (a projector's six-token lesson).
          const float size = std::min(fs, cell * 0.5f);
          const ImVec2 ts = text && *text ? font->CalcTextSizeA(size, FLT_MAX, 0, text) : ImVec2(0, 0);
          if (ts.x > 0 && size >= min_number_size() && ts.x + 8 <= cell) {
            const ImVec2 c(std::round(a.x + (cell - ts.x) * 0.5f), std::round(a.y + (cell - ts.y) * 0.5f));
            dl->AddRectFilled(ImVec2(c.x - 3, c.y), ImVec2(c.x + ts.x + 3, c.y + ts.y), pal.hatch_a, 3.0f);
            dl->AddText(font, size, c, IM_COL32(255, 255, 255, 255), text);
          }
        } else {
          const double v = M(i, j);
          const Rgb c = spec.map->at(position(spec, v));
          dl->AddRectFilled(a, b, to_u32(c));
          if (num_size > 0) {
            const std::string txt = format_cell(v, decimals);
            const ImVec2 ts = font->CalcTextSizeA(num_size, FLT_MAX, 0, txt.c_str());
            dl->AddText(font, num_size, ImVec2(std::round(a.x + (cell - ts.x) * 0.5f), std::round(a.y + (cell - ts.y) * 0.5f)),
                        text_on(c), txt.c_str());
          }
        }
        if (cell >= 10) dl->AddRect(a, b, pal.cell_border, 0, 0, 1.0f);
      }
    }
  } else {
    // Pan and zoom: wheel zooms about the cursor, right-drag or left-drag pans, double-click resets.
    if (hovered && io.MouseWheel != 0) {
      const float fx = (io.MousePos.x - g0.x) / gw, fy = (io.MousePos.y - g0.y) / gh;
      const float cx = view.x0 + fx * (view.x1 - view.x0), cy = view.y0 + fy * (view.y1 - view.y0);
      const float k = io.MouseWheel > 0 ? 0.8f : 1.25f;
      float w = std::clamp((view.x1 - view.x0) * k, 4.0f / static_cast<float>(cols), 1.0f);
      float h = std::clamp((view.y1 - view.y0) * k, 4.0f / static_cast<float>(rows), 1.0f);
      view.x0 = std::clamp(cx - fx * w, 0.0f, 1.0f - w);
      view.y0 = std::clamp(cy - fy * h, 0.0f, 1.0f - h);
      view.x1 = view.x0 + w;
      view.y1 = view.y0 + h;
    }
    for (ImGuiMouseButton b : {ImGuiMouseButton_Left, ImGuiMouseButton_Right}) {
      if (ImGui::IsItemActive() && ImGui::IsMouseDragging(b)) {
        const float w = view.x1 - view.x0, h = view.y1 - view.y0;
        view.x0 = std::clamp(view.x0 - io.MouseDelta.x / gw * w, 0.0f, 1.0f - w);
        view.y0 = std::clamp(view.y0 - io.MouseDelta.y / gh * h, 0.0f, 1.0f - h);
        view.x1 = view.x0 + w;
        view.y1 = view.y0 + h;
      }
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view = HeatmapView{};
    if (services.renderer) {
      HeatmapRequest rq;
      rq.values = spec.values;
      rq.blocked = spec.blocked;
      rq.version = state.result_version * 8 + static_cast<std::uint64_t>(spec.stage);
      rq.map = spec.map;
      rq.lo = spec.lo;
      rq.hi = spec.hi;
      rq.diverging = spec.diverging;
      rq.view = view;
      rq.width = static_cast<int>(gw);
      rq.height = static_cast<int>(gh);
      rq.hatch_a = from_u32(pal.hatch_a);
      rq.hatch_b = from_u32(pal.hatch_b);
      dl->AddImage(services.renderer->render(static_cast<int>(spec.stage), rq), g0, g1);
    } else {
      // No GL (window-less tests): a coarse preview, at most 32 × 32 blocks.
      const int br = std::min(rows, 32), bc = std::min(cols, 32);
      for (int bi = 0; bi < br; ++bi) {
        for (int bj = 0; bj < bc; ++bj) {
          const int i = bi * rows / br, j = bj * cols / bc;
          const ImVec2 a(g0.x + gw * static_cast<float>(bj) / static_cast<float>(bc), g0.y + gh * static_cast<float>(bi) / static_cast<float>(br));
          const ImVec2 b(g0.x + gw * static_cast<float>(bj + 1) / static_cast<float>(bc), g0.y + gh * static_cast<float>(bi + 1) / static_cast<float>(br));
          dl->AddRectFilled(a, b, is_blocked(spec, i, j) ? pal.hatch_a : to_u32(spec.map->at(position(spec, M(i, j)))));
        }
      }
    }
  }
  dl->AddRect(ImVec2(g0.x - 1, g0.y - 1), ImVec2(g1.x + 1, g1.y + 1), pal.text_dim, 0, 0, 1.0f);

  // Hovered and selected cells (immediate path, or big cells when zoomed in).
  auto outline = [&](const CellRef& c, ImU32 col, float thick) {
    if (!c.valid() || c.stage != spec.stage || c.row >= rows || c.col >= cols) return;
    const float vx0 = view.x0 * static_cast<float>(cols), vy0 = view.y0 * static_cast<float>(rows);
    const float cw = gw / ((view.x1 - view.x0) * static_cast<float>(cols)), ch = gh / ((view.y1 - view.y0) * static_cast<float>(rows));
    if (cw < 3 || ch < 3) return;
    const ImVec2 a(g0.x + (static_cast<float>(c.col) - vx0) * cw, g0.y + (static_cast<float>(c.row) - vy0) * ch);
    dl->PushClipRect(g0, g1, true);
    dl->AddRect(a, ImVec2(a.x + cw, a.y + ch), col, 0, 0, thick);
    dl->PopClipRect();
  };
  outline(state.selected, pal.selected, 3.0f);
  outline(ev.hovered, pal.hovered, 2.0f);

  if (hovered && spec.describe) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(spec.describe(ev.hovered.row, ev.hovered.col).c_str());
    ImGui::EndTooltip();
  }
  if (hovered && !immediate && !spec.describe) {
    // Read-out for cells too small to print their number.
    const int i = ev.hovered.row, j = ev.hovered.col;
    ImGui::BeginTooltip();
    const std::string rl = i < static_cast<int>(spec.row_labels.size()) ? spec.row_labels[static_cast<size_t>(i)] : "";
    const std::string cl = j < static_cast<int>(spec.col_labels.size()) ? spec.col_labels[static_cast<size_t>(j)] : "";
    ImGui::Text("%s[%d][%d] = %s", stage_name(spec.stage).data(), i, j,
                spec.blocked && (*spec.blocked)(i, j) ? "blocked" : format_cell(M(i, j), 4).c_str());
    if (!rl.empty() || !cl.empty()) ImGui::TextDisabled("%s → %s", rl.c_str(), cl.c_str());
    ImGui::EndTooltip();
  }

  DrawnRect& dr = state.drawn[static_cast<size_t>(spec.stage)];
  dr = DrawnRect{g0.x, g0.y, g1.x, g1.y, rows, cols, true, number_size, origin.x, origin.y, labels_cut, labels_rotated};
  ImGui::SetCursorScreenPos(ImVec2(origin.x, g1.y + ImGui::GetStyle().ItemSpacing.y));
  ImGui::Dummy(ImVec2(label_w + gw, 0));
  ImGui::PopID();
  return ev;
}

void draw_colorbar(const AppState& state, const Colormap& map, double lo, double hi, bool diverging, float width) {
  const Palette pal = palette(state);
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
  double l = lo, r = hi;
  if (diverging) {
    r = std::max(std::abs(lo), std::abs(hi));
    l = -r;
  }
  // End labels (and 0 in the middle of a diverging bar) must not overlap or run past the bar: drop
  // decimals first, then the middle 0, then shrink the text.
  const float gap = fs * 0.6f;
  std::string sl, sr;
  float need = 0;
  bool zero = diverging;
  const float zw = ImGui::CalcTextSize("0").x;
  for (int d = 2; d >= 0; --d) {
    const std::string tl = format_cell(l, d), tr = format_cell(r, d);
    // Fewer decimals only while the ends still read as the range (0.4 must not become "0").
    if (d < 2 && ((l != 0 && std::strtod(tl.c_str(), nullptr) == 0) || (r != 0 && std::strtod(tr.c_str(), nullptr) == 0))) break;
    sl = tl;
    sr = tr;
    need = ImGui::CalcTextSize(sl.c_str()).x + ImGui::CalcTextSize(sr.c_str()).x + (zero ? 2 * gap + zw : gap);
    if (need <= width) break;
  }
  if (need > width && zero) {
    zero = false;
    need -= gap + zw;
  }
  const float size = need > width ? std::max(fs * 0.6f, fs * width / need) : fs;
  ImFont* font = ImGui::GetFont();
  const float ty = a.y + h + 2;
  const ImVec2 rs = font->CalcTextSizeA(size, FLT_MAX, 0, sr.c_str());
  dl->AddText(font, size, ImVec2(a.x, ty), pal.text_dim, sl.c_str());
  dl->AddText(font, size, ImVec2(a.x + width - rs.x, ty), pal.text_dim, sr.c_str());
  if (zero) dl->AddText(font, size, ImVec2(a.x + width * 0.5f - zw * 0.5f, ty), pal.text_dim, "0");
  ImGui::Dummy(ImVec2(width, h + fs + 4));
}

}  // namespace attnlab::gui

namespace attnlab::gui {

const Colormap& stage_colormap(const AppState& state, Stage stage) {
  const bool div = stage_is_signed(stage);
  const std::string& name = div ? state.view.diverging : state.view.sequential;
  for (const Colormap& m : colormaps()) {
    if (m.name == name) return m;
  }
  return colormap(div ? kDefaultDiverging : kDefaultSequential);
}

std::pair<double, double> stage_range(const AppState& state, Stage stage, const BlockGrid* blocked) {
  // Fixed ranges for weights and saturation so that toggling scaling changes colours, not the scale.
  if (stage == Stage::Weights) return {0.0, 1.0};
  if (stage == Stage::Saturation) return {0.0, 0.25};
  (void)blocked;
  return state.ranges[static_cast<size_t>(stage)];  // computed once per result (recompute_if_needed)
}

}  // namespace attnlab::gui
