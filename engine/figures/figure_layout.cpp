// Layout of stage and pipeline figures into a display list: sizes, labels, colorbar, hatching.
// Everything is placed here once, in points; the renderers only draw what they are given.

// Index of this file:
// [SECTION] Numbers, labels and colour scales
// [SECTION] One stage's panel
// [SECTION] stage_data, layout_figure
#include "engine/figures/figure.hpp"
#include "engine/text/text_format.hpp"

#include "engine/attention/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

// Typography and spacing, in points.
constexpr double kPad = 14;
constexpr double kTitleSize = 14;
constexpr double kSubtitleSize = 10.5;
constexpr double kLabelSize = 10;
constexpr double kAxisTitleSize = 10;
constexpr double kTickSize = 9;
constexpr double kBarWidth = 12;
constexpr double kMaxLabelWidth = 140;
// Baseline offset that centres digits and capitals vertically on a point (DejaVu Sans cap
// height is 0.73 em).
constexpr double kMiddle = 0.36;

const Rgb kInk{33, 33, 33};
const Rgb kMuted{90, 90, 90};
const Rgb kFrame{120, 120, 120};
const Rgb kWhite{255, 255, 255};
const Rgb kHatchBackground{246, 246, 246};
const Rgb kHatchInk{165, 165, 165};

// [SECTION] Numbers, labels and colour scales

int auto_decimals(const Matrix& values) {
  double biggest = 0;
  for (Eigen::Index k = 0; k < values.size(); ++k) {
    const double v = values.data()[k];
    if (std::isfinite(v)) biggest = std::max(biggest, std::abs(v));
  }
  if (biggest >= 100) return 0;
  if (biggest >= 10) return 1;
  return 2;
}

double luminance(Rgb c) {
  auto lin = [](std::uint8_t u) {
    const double x = u / 255.0;
    return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

// Black or white, whichever contrasts more with the cell (the WCAG contrast ratios cross at
// a relative luminance of about 0.18).
Rgb text_color_on(Rgb fill) { return luminance(fill) > 0.18 ? Rgb{0, 0, 0} : kWhite; }

// Tick values at 1, 2 or 5 times a power of ten, about five of them across [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int& decimals) {
  decimals = 0;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 5.0;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * p;
    if (step >= raw) break;
  }
  decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  std::vector<double> ticks;
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (double v = first; v <= hi + step * 1e-9; v += step) {
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string truncate_label(const std::string& label, double size) {
  if (text_width(label, size) <= kMaxLabelWidth) return label;
  std::string s = label;
  while (!s.empty() && text_width(s + "\xE2\x80\xA6", size) > kMaxLabelWidth) {
    s.pop_back();
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();  // whole UTF-8 characters
    if (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0xC0) s.pop_back();
  }
  return s + "\xE2\x80\xA6";
}

std::string stage_formula(Stage stage, const Scenario& s) {
  switch (stage) {
    case Stage::Scores: return "S = QK\xE1\xB5\x80";
    case Stage::Logits:
      return s.options.scale ? "L = S / (\xE2\x88\x9A" "d\xE2\x82\x96 \xC2\xB7 T), blocked cells \xE2\x88\x92\xE2\x88\x9E"
                             : "L = S / T, blocked cells \xE2\x88\x92\xE2\x88\x9E";
    case Stage::Weights: return "A = " + std::string(normalizer_name(s.options.normalizer)) + "(L), row by row";
    case Stage::Output: return "O = AV";
    case Stage::Saturation: return "a(1 \xE2\x88\x92 a): the softmax's local gradient";
    case Stage::Pipeline: break;
  }
  return {};
}

struct ColorScale {
  const Colormap* map = nullptr;
  double lo = 0, hi = 1;
};

// [SECTION] One stage's panel

ColorScale choose_scale(const StageData& d, const FigureOptions& o) {
  ColorScale cs;
  cs.map = &colormap(!o.colormap.empty() ? o.colormap : (d.signed_values ? kDefaultDiverging : kDefaultSequential));
  if (o.range) {
    cs.lo = o.range->first;
    cs.hi = o.range->second;
    return cs;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (Eigen::Index k = 0; k < d.values.size(); ++k) {
    const double v = d.values.data()[k];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!std::isfinite(lo)) lo = hi = 0;
  if (cs.map->kind == ColormapKind::Diverging) {
    const double reach = std::max(std::abs(lo), std::abs(hi));
    cs.lo = -reach;
    cs.hi = reach;
  } else if (d.stage == Stage::Weights) {
    // The scales the GUI uses too, so a number has the same colour on screen and on paper, and
    // figures of different scenarios compare: weights are probabilities, and a(1 − a) ≤ 1/4.
    cs.lo = 0;
    cs.hi = 1;
  } else if (d.stage == Stage::Saturation) {
    cs.lo = 0;
    cs.hi = 0.25;
  } else {
    cs.lo = lo;
    cs.hi = hi;
  }
  if (!(cs.hi > cs.lo)) {
    // A constant matrix: widen symmetrically so the colorbar still has a scale.
    const double w = std::max(1.0, std::abs(cs.lo)) * 0.5;
    cs.lo -= w;
    cs.hi += w;
  }
  return cs;
}

// One heatmap with its labels and colorbar, measured first, then emitted at an origin.
struct Panel {
  StageData data;
  ColorScale scale;
  bool show_row_labels = true;
  bool show_title = false;  // pipeline panels carry their own title
  bool annotate = false;
  int decimals = 2;

  double cell = 40, gap = 1;
  double annotation_size = 0;
  double row_label_w = 0, row_axis_w = 0;
  int label_step_rows = 1, label_step_cols = 1;
  double col_label_rotation = 0, col_label_h = 0;
  double title_h = 0;
  double bar_h = 0, tick_w = 0;
  bool any_blocked = false;
  std::vector<double> ticks;
  int tick_decimals = 0;

  double grid_x = 0, grid_y = 0;  // relative to the panel's origin
  double width = 0, height = 0;

  Eigen::Index rows() const { return data.values.rows(); }
  Eigen::Index cols() const { return data.values.cols(); }
  bool blocked(Eigen::Index i, Eigen::Index j) const { return data.blocked.size() && data.blocked(i, j); }

  std::string cell_text(Eigen::Index i, Eigen::Index j) const {
    if (blocked(i, j)) return data.stage == Stage::Logits ? format_number(-INFINITY, NumberUse::Axis, 0) : std::string();
    return format_number(data.values(i, j), NumberUse::Axis, decimals);
  }

  void measure(double cell_size) {
    cell = cell_size;
    gap = cell >= 14 ? 1.0 : 0.0;
    any_blocked = data.blocked.size() && (data.blocked.array() != 0).any();
    label_step_rows = label_step_cols = 1;
    if (cell < kLabelSize * 1.15) label_step_rows = label_step_cols = static_cast<int>(std::ceil(kLabelSize * 1.2 / cell));

    if (annotate) {
      double widest = 0;
      for (Eigen::Index i = 0; i < rows(); ++i)
        for (Eigen::Index j = 0; j < cols(); ++j) widest = std::max(widest, text_width(cell_text(i, j), 10));
      // Largest size up to 10 pt at which the widest number fits in 85% of a cell.
      annotation_size = widest > 0 ? std::min({10.0, 10.0 * cell * 0.85 / widest, cell * 0.45}) : 10.0;
      if (annotation_size < 4.5) annotation_size = 0;  // too small to read: leave the cells plain
    }

    row_label_w = 0;
    if (show_row_labels) {
      for (Eigen::Index i = 0; i < rows(); i += label_step_rows)
        row_label_w = std::max(row_label_w, text_width(truncate_label(data.row_labels[size_t(i)], kLabelSize), kLabelSize));
      row_axis_w = kAxisTitleSize + 8;
    } else {
      row_axis_w = 0;
    }

    double col_label_w = 0;
    for (Eigen::Index j = 0; j < cols(); j += label_step_cols)
      col_label_w = std::max(col_label_w, text_width(truncate_label(data.col_labels[size_t(j)], kLabelSize), kLabelSize));
    const double room = cell * label_step_cols - 3;
    if (col_label_w <= room) {
      col_label_rotation = 0;
      col_label_h = kLabelSize + 4;
    } else if (cell * label_step_cols >= kLabelSize * 1.6) {
      col_label_rotation = 45;
      col_label_h = (col_label_w + kLabelSize * 0.5) * std::sqrt(0.5) + 6;
    } else {
      col_label_rotation = 90;
      col_label_h = col_label_w + 7;
    }

    title_h = show_title ? kSubtitleSize + 10 : 0;
    const double grid_h = cell * static_cast<double>(rows());
    const double grid_w = cell * static_cast<double>(cols());
    bar_h = std::max(grid_h, 100.0);
    ticks = nice_ticks(scale.lo, scale.hi, tick_decimals);
    tick_w = 0;
    for (double t : ticks) tick_w = std::max(tick_w, text_width(format_number(t, NumberUse::Axis, tick_decimals), kTickSize));

    grid_x = row_axis_w + (show_row_labels ? row_label_w + 6 : 0);
    grid_y = title_h;
    const double left_block_h = grid_h + 3 + col_label_h + kAxisTitleSize + 8;
    const double bar_block_h = bar_h + (any_blocked ? 22 : 0);
    height = title_h + std::max(left_block_h, bar_block_h);
    const double title_w = show_title ? text_width(data.name + "   " + data.formula, kSubtitleSize) : 0;
    const double bar_block_w = 16 + kBarWidth + 4 + tick_w + 8 + kTickSize + 2;
    width = std::max(grid_x + grid_w, title_w) + bar_block_w;
    // The column axis title and rotated labels must not stick out on the left.
    width = std::max(width, grid_x + grid_w + bar_block_w);
  }

  // The panel's display list at (ox, oy): its title, cells, the numbers in them, the labels and axis
  // titles, the colour bar; and where each went (Figure::panels).
  void emit(Figure& f, double ox, double oy) const {
    const double gx = ox + grid_x, gy = oy + grid_y;
    auto& items = f.items;
    if (show_title) {
      items.push_back(GroupBegin{"title-" + data.name});
      items.push_back(TextItem{gx, oy + kSubtitleSize, data.name, kSubtitleSize, HAlign::Left, 0, kInk, true, "panel-title"});
      const double name_w = text_width(data.name, kSubtitleSize, true);
      items.push_back(TextItem{gx + name_w + 8, oy + kSubtitleSize, data.formula, kSubtitleSize, HAlign::Left, 0, kMuted, false, "formula"});
      items.push_back(GroupEnd{});
    }

    emit_cells(items, gx, gy);
    emit_labels(items, ox, gx, gy);
    const double bx = gx + cell * static_cast<double>(cols()) + 16, by = gy;
    // Colorbar: slices drawn bottom to top, each reaching the top, so anti-aliasing never
    // leaves seams between them.
    items.push_back(GroupBegin{"colorbar-" + data.name});
    constexpr int kSlices = 128;
    for (int k = 0; k < kSlices; ++k) {
      // The end slices show exactly lo and hi, so the bar spans the whole range of colours used.
      const double v = scale.lo + (scale.hi - scale.lo) * k / (kSlices - 1);
      const double y0 = by + bar_h * (1.0 - static_cast<double>(k) / kSlices);
      const Rgb c = scale.map->at(colormap_position(*scale.map, v, scale.lo, scale.hi));
      items.push_back(RectItem{bx, by, kBarWidth, y0 - by, c, "colorbar", -1, -1, v});
    }
    const Rgb frame = kFrame;
    items.push_back(LineItem{bx, by, bx + kBarWidth, by, 0.6, frame});
    items.push_back(LineItem{bx, by + bar_h, bx + kBarWidth, by + bar_h, 0.6, frame});
    items.push_back(LineItem{bx, by, bx, by + bar_h, 0.6, frame});
    items.push_back(LineItem{bx + kBarWidth, by, bx + kBarWidth, by + bar_h, 0.6, frame});
    for (double t : ticks) {
      const double y = by + bar_h * (1.0 - (t - scale.lo) / (scale.hi - scale.lo));
      items.push_back(LineItem{bx + kBarWidth, y, bx + kBarWidth + 3.5, y, 0.6, frame});
      items.push_back(TextItem{bx + kBarWidth + 6, y + kMiddle * kTickSize, format_number(t, NumberUse::Axis, tick_decimals), kTickSize, HAlign::Left,
                               0, kInk, false, "tick"});
    }
    items.push_back(TextItem{bx + kBarWidth + 10 + tick_w + kTickSize * 0.9, by + bar_h / 2, data.name, kTickSize, HAlign::Center, 90,
                             kMuted, false, "colorbar-title"});
    if (any_blocked) {
      const double ly = by + bar_h + 10;
      items.push_back(HatchItem{bx, ly, kBarWidth, kBarWidth * 0.8, kHatchBackground, kHatchInk, "legend blocked", -1, -1});
      items.push_back(TextItem{bx + kBarWidth + 5, ly + kBarWidth * 0.4 + kMiddle * kTickSize, "blocked", kTickSize, HAlign::Left, 0,
                               kInk, false, "legend"});
    }
    items.push_back(GroupEnd{});

    PanelInfo info;
    info.stage = data.stage;
    info.x = gx;
    info.y = gy;
    info.cell_w = info.cell_h = cell;
    info.rows = rows();
    info.cols = cols();
    info.colorbar_x = bx;
    info.colorbar_y = by;
    info.colorbar_w = kBarWidth;
    info.colorbar_h = bar_h;
    info.lo = scale.lo;
    info.hi = scale.hi;
    info.colormap = scale.map->name;
    f.panels.push_back(info);
  }

  // The cells, coloured or hatched, and the numbers in them when they are annotated.
  void emit_cells(std::vector<FigureItem>& items, double gx, double gy) const {
    items.push_back(GroupBegin{"cells-" + data.name});
    for (Eigen::Index i = 0; i < rows(); ++i) {
      for (Eigen::Index j = 0; j < cols(); ++j) {
        const double x = gx + cell * static_cast<double>(j) + gap * 0.5, y = gy + cell * static_cast<double>(i) + gap * 0.5;
        const double w = cell - gap;
        if (blocked(i, j)) {
          items.push_back(HatchItem{x, y, w, w, kHatchBackground, kHatchInk, "cell blocked", int(i), int(j)});
        } else {
          const double v = data.values(i, j);
          const Rgb c = scale.map->at(colormap_position(*scale.map, v, scale.lo, scale.hi));
          items.push_back(RectItem{x, y, w, w, c, "cell", int(i), int(j), v});
        }
      }
    }
    items.push_back(GroupEnd{});

    if (annotation_size > 0) {
      items.push_back(GroupBegin{"values-" + data.name});
      for (Eigen::Index i = 0; i < rows(); ++i) {
        for (Eigen::Index j = 0; j < cols(); ++j) {
          const std::string t = cell_text(i, j);
          if (t.empty()) continue;
          Rgb color = kMuted;
          if (!blocked(i, j)) {
            color = text_color_on(scale.map->at(colormap_position(*scale.map, data.values(i, j), scale.lo, scale.hi)));
          }
          const double cx = gx + cell * (static_cast<double>(j) + 0.5), cy = gy + cell * (static_cast<double>(i) + 0.5);
          items.push_back(TextItem{cx, cy + kMiddle * annotation_size, t, annotation_size, HAlign::Center, 0, color, false, "value"});
        }
      }
      items.push_back(GroupEnd{});
    }

  }

  // The row and column labels (rotated as laid out) and the two axis titles.
  void emit_labels(std::vector<FigureItem>& items, double ox, double gx, double gy) const {
    const double grid_w = cell * static_cast<double>(cols()), grid_h = cell * static_cast<double>(rows());
    items.push_back(GroupBegin{"labels-" + data.name});
    if (show_row_labels) {
      for (Eigen::Index i = 0; i < rows(); i += label_step_rows) {
        const double cy = gy + cell * (static_cast<double>(i) + 0.5);
        items.push_back(TextItem{gx - 6, cy + kMiddle * kLabelSize, truncate_label(data.row_labels[size_t(i)], kLabelSize),
                                 kLabelSize, HAlign::Right, 0, kInk, false, "row-label"});
      }
      const double ax = ox + kAxisTitleSize;
      items.push_back(TextItem{ax, gy + grid_h / 2, data.row_axis, kAxisTitleSize, HAlign::Center, 90, kMuted, false, "axis-title"});
    }
    for (Eigen::Index j = 0; j < cols(); j += label_step_cols) {
      const double cx = gx + cell * (static_cast<double>(j) + 0.5);
      const std::string label = truncate_label(data.col_labels[size_t(j)], kLabelSize);
      if (col_label_rotation == 0) {
        items.push_back(TextItem{cx, gy + grid_h + 3 + kLabelSize, label, kLabelSize, HAlign::Center, 0, kInk, false, "col-label"});
      } else if (col_label_rotation == 45) {
        items.push_back(TextItem{cx + kLabelSize * 0.3, gy + grid_h + 4 + kLabelSize * 0.45, label, kLabelSize, HAlign::Right, 45,
                                 kInk, false, "col-label"});
      } else {
        items.push_back(TextItem{cx + kMiddle * kLabelSize, gy + grid_h + 5, label, kLabelSize, HAlign::Right, 90, kInk, false,
                                 "col-label"});
      }
    }
    items.push_back(TextItem{gx + grid_w / 2, gy + grid_h + 3 + col_label_h + kAxisTitleSize, data.col_axis, kAxisTitleSize,
                             HAlign::Center, 0, kMuted, false, "axis-title"});
    items.push_back(GroupEnd{});

  }

};

Panel make_panel(const Scenario& s, const Result& r, Stage stage, const FigureOptions& o) {
  Panel p;
  p.data = stage_data(s, r, stage);
  p.scale = choose_scale(p.data, o);
  p.annotate = o.annotate;
  p.decimals = o.decimals >= 0 ? o.decimals : auto_decimals(p.data.values);
  return p;
}

void arrow(Figure& f, double x0, double x1, double y) {
  const Rgb c = kMuted;
  f.items.push_back(LineItem{x0, y, x1, y, 1.1, c});
  f.items.push_back(LineItem{x1 - 6, y - 3.5, x1, y, 1.1, c});
  f.items.push_back(LineItem{x1 - 6, y + 3.5, x1, y, 1.1, c});
}

}  // namespace

// [SECTION] stage_data, layout_figure

std::pair<double, double> parse_range(std::string_view text, std::string_view where) {
  const std::string bad = std::string(where) + ": expected LO:HI with finite numbers and LO < HI (e.g. 0:1), got '" +
                          std::string(text) + "'";
  const size_t colon = text.find(':', text.size() > 0 ? 1 : 0);
  if (colon == std::string_view::npos) throw InputError(bad);
  auto number = [&](std::string_view part) {
    const std::string str(part);
    if (str.empty()) throw InputError(bad);
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(str, &used);
    } catch (const std::exception&) {
      throw InputError(bad);
    }
    if (used != str.size() || !std::isfinite(v)) throw InputError(bad);
    return v;
  };
  const double lo = number(text.substr(0, colon)), hi = number(text.substr(colon + 1));
  if (!(lo < hi)) throw InputError(bad);
  return {lo, hi};
}

// The weights of a streamed result: its downsampled heatmap (each value the mean weight of a block
// of cells, blocked cells counting 0), labelled by each block's first query and key.
StageData heatmap_stage_data(const Scenario& s, const Result& r) {
  StageData d;
  d.stage = Stage::Weights;
  d.name = "weights";
  const Eigen::Index hr = r.heatmap.mean.rows(), hc = r.heatmap.mean.cols();
  d.formula = stage_formula(Stage::Weights, s) + ", downsampled: the mean of each block of about " +
              std::to_string((r.n + hr - 1) / hr) + " × " + std::to_string((r.m + hc - 1) / hc) + " cells";
  d.values = r.heatmap.mean;
  const auto q = display_tokens(s.query_tokens, r.n), k = display_tokens(s.key_tokens, r.m);
  for (Eigen::Index y = 0; y < hr; ++y) d.row_labels.push_back(q[static_cast<size_t>(pixel_first(y, r.n, hr))]);
  for (Eigen::Index x = 0; x < hc; ++x) d.col_labels.push_back(k[static_cast<size_t>(pixel_first(x, r.m, hc))]);
  d.row_axis = "queries (blocks)";
  d.col_axis = "keys (blocks)";
  return d;
}

StageData stage_data(const Scenario& s, const Result& r, Stage stage) {
  if (stage == Stage::Pipeline) throw InputError("--stage pipeline is a figure of several stages and has no single matrix");
  if (!r.dense && stage == Stage::Weights && !r.heatmap.empty()) return heatmap_stage_data(s, r);
  if (!r.dense && stage != Stage::Output) {
    throw InputError("--stage " + std::string(stage_name(stage)) +
                     ": this result was computed without the n × m matrices (streaming); export the output, or use smaller inputs");
  }
  StageData d;
  d.stage = stage;
  d.name = std::string(stage_name(stage));
  d.formula = stage_formula(stage, s);
  d.row_labels = display_tokens(s.query_tokens, r.n);
  d.row_axis = "queries";
  if (stage != Stage::Pipeline) d.values = stage_matrix(r, stage);
  d.signed_values = stage_is_signed(stage);
  if (stage == Stage::Output) {
    for (Eigen::Index j = 0; j < r.d_v; ++j) d.col_labels.push_back("v" + std::to_string(j + 1));
    d.col_axis = "output dimensions";
  } else {
    d.col_labels = display_tokens(s.key_tokens, r.m);
    d.col_axis = "keys";
    // Scores are computed for every cell; the mask acts from the logits on.
    if (stage != Stage::Scores) d.blocked = mask_grid(s.options.mask, r.n, r.m);
  }
  return d;
}

Figure layout_figure(const Scenario& s, const Result& r, Stage stage, const FigureOptions& o) {
  Figure f;
  const std::string title = !o.title.empty() ? o.title : (!s.title.empty() ? s.title : "Scaled dot-product attention");
  double title_h = kTitleSize + 8;

  if (stage != Stage::Pipeline) {
    Panel p = make_panel(s, r, stage, o);
    const double dim = static_cast<double>(std::max(p.rows(), p.cols()));
    p.measure(std::clamp(std::floor(340.0 / dim), 4.0, 44.0));
    const std::string subtitle = p.data.name + "   " + p.data.formula;
    const double content_w = p.width;
    const double head_w = std::max(text_width(title, kTitleSize, true), text_width(subtitle, kSubtitleSize));
    f.width = std::ceil(2 * kPad + std::max(content_w, head_w));
    const double top = kPad + title_h + kSubtitleSize + 14;
    f.height = std::ceil(top + p.height + kPad);
    f.items.push_back(GroupBegin{"title"});
    f.items.push_back(TextItem{f.width / 2, kPad + kTitleSize, title, kTitleSize, HAlign::Center, 0, kInk, true, "title"});
    f.items.push_back(TextItem{f.width / 2, kPad + title_h + kSubtitleSize, subtitle, kSubtitleSize, HAlign::Center, 0, kMuted, false,
                               "subtitle"});
    f.items.push_back(GroupEnd{});
    p.emit(f, kPad + (f.width - 2 * kPad - content_w) / 2, top);
    return f;
  }

  std::vector<Panel> panels;
  for (Stage st : {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output}) panels.push_back(make_panel(s, r, st, o));
  const double dim = static_cast<double>(std::max({r.n, r.m, r.d_v}));
  const double cell = std::clamp(std::floor(200.0 / dim), 4.0, 36.0);
  // Short formulas keep the panels narrow; the full ones are in the single-stage figures.
  panels[1].data.formula = s.options.scale ? "L = S / (\xE2\x88\x9A" "d\xE2\x82\x96\xC2\xB7T)" : "L = S / T";
  panels[2].data.formula = "A = " + std::string(normalizer_name(s.options.normalizer)) + "(L)";
  for (size_t k = 0; k < panels.size(); ++k) {
    panels[k].show_row_labels = k == 0;
    panels[k].show_title = true;
    panels[k].measure(cell);
  }
  // The step between two panels: what is done to go from one to the next.
  struct Step {
    std::string op, detail;
  };
  std::vector<Step> steps = {
      {s.options.scale ? "\xC3\xB7 \xE2\x88\x9A" "d\xE2\x82\x96\xC2\xB7T" : "\xC3\xB7 T", std::string("\xC3\xB7 ") + three_digits(r.effective_temperature)},
      {std::string(normalizer_name(s.options.normalizer)), "row by row"},
      {"\xC3\x97 V", "mix the values"},
  };
  if (s.options.mask.kind != MaskKind::None) steps[0].detail += ", mask \xE2\x86\x92 \xE2\x88\x92\xE2\x88\x9E";
  std::vector<double> step_w;
  for (const auto& st : steps) {
    step_w.push_back(std::max({text_width(st.op, kLabelSize + 1, true), text_width(st.detail, kTickSize), 50.0}) + 18);
  }
  double content_w = 0, content_h = 0;
  for (size_t k = 0; k < panels.size(); ++k) {
    content_w += panels[k].width + (k + 1 < panels.size() ? step_w[k] : 0);
    content_h = std::max(content_h, panels[k].height);
  }
  const double head_w = text_width(title, kTitleSize, true);
  f.width = std::ceil(2 * kPad + std::max(content_w, head_w));
  const double top = kPad + title_h + 8;
  f.height = std::ceil(top + content_h + kPad);
  f.items.push_back(GroupBegin{"title"});
  f.items.push_back(TextItem{f.width / 2, kPad + kTitleSize, title, kTitleSize, HAlign::Center, 0, kInk, true, "title"});
  f.items.push_back(GroupEnd{});
  double x = kPad + (f.width - 2 * kPad - content_w) / 2;
  for (size_t k = 0; k < panels.size(); ++k) {
    panels[k].emit(f, x, top);
    x += panels[k].width;
    if (k + 1 < panels.size()) {
      const double mid_y = top + panels[k].grid_y + cell * static_cast<double>(r.n) / 2;
      f.items.push_back(GroupBegin{"step-" + std::to_string(k + 1)});
      arrow(f, x + 6, x + step_w[k] - 8, mid_y);
      const double cx = x + step_w[k] / 2 - 1;
      f.items.push_back(TextItem{cx, mid_y - 7, steps[k].op, kLabelSize + 1, HAlign::Center, 0, kInk, true, "step"});
      f.items.push_back(TextItem{cx, mid_y + 6 + kTickSize, steps[k].detail, kTickSize, HAlign::Center, 0, kMuted, false, "step-detail"});
      f.items.push_back(GroupEnd{});
      x += step_w[k];
    }
  }
  return f;
}

int default_png_width(const Figure& f) { return static_cast<int>(std::lround(2 * f.width)); }

}  // namespace attnlab
