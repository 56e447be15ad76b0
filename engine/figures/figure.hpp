// Figures of attention stages: laid out once into a display list (rectangles, lines, text) in
// points, then drawn by Cairo (PNG, PDF) or written as semantic SVG, so every format shows the
// same picture. The GUI draws its preview from the same PNG bytes.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/stage.hpp"
#include "engine/figures/colormap.hpp"
#include "engine/io/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace attnlab {


// One stage's matrix with what a reader needs to understand it.
struct StageData {
  Stage stage = Stage::Weights;
  std::string name;     // "weights"
  std::string formula;  // "A = softmax(L), row-wise"
  Matrix values;        // n × m (n × d_v for output); blocked logits are −∞
  BlockGrid blocked;    // same shape as values, 1 = blocked; 0 × 0 when the stage has no mask cells
  std::vector<std::string> row_labels, col_labels;
  std::string row_axis, col_axis;  // "queries", "keys" / "output dimensions"
  bool signed_values = false;      // scores, logits, output: shown on a diverging map by default
};

// The data of one stage (not Pipeline). Throws InputError when the result holds no dense stages.
StageData stage_data(const Scenario& s, const Result& r, Stage stage);

struct FigureOptions {
  std::string title;         // empty: the scenario's title
  bool annotate = false;     // print each cell's value
  std::string colormap;      // empty: viridis for weights/saturation, blue-white-red for signed stages
  std::optional<std::pair<double, double>> range;  // fixed value range; empty: automatic
  int decimals = -1;         // digits after the point in annotations; -1: chosen from the values
};

// --range LO:HI -> (LO, HI); throws InputError naming `where` unless LO < HI, both finite.
std::pair<double, double> parse_range(std::string_view text, std::string_view where = "--range");

// ---- The display list ------------------------------------------------------------------------

enum class HAlign { Left, Center, Right };

struct RectItem {
  double x = 0, y = 0, w = 0, h = 0;
  Rgb fill;
  std::string role;  // SVG class: "cell", "colorbar", "frame", ...
  int row = -1, col = -1;  // cells: position in the matrix
  double value = 0;        // cells: the value shown
};
// A blocked cell: hatched, so it never reads as a colour of the map.
struct HatchItem {
  double x = 0, y = 0, w = 0, h = 0;
  Rgb background, ink;
  std::string role;
  int row = -1, col = -1;
};
struct LineItem {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  double width = 1;
  Rgb color;
};
// Text anchored at (x, y) on its baseline, aligned horizontally by `align`, rotated by
// `rotation_deg` (counter-clockwise) about the anchor.
struct TextItem {
  double x = 0, y = 0;
  std::string text;  // UTF-8
  double size = 10;  // points
  HAlign align = HAlign::Left;
  double rotation_deg = 0;
  Rgb color;
  bool bold = false;
  std::string role;  // "title", "label", "value", "tick", ...
};
struct GroupBegin {
  std::string id;  // SVG <g id>: "cells", "colorbar", ...
};
struct GroupEnd {};

using FigureItem = std::variant<RectItem, HatchItem, LineItem, TextItem, GroupBegin, GroupEnd>;

// Where one heatmap landed, for tests and for the GUI (hover, right-click).
struct PanelInfo {
  Stage stage = Stage::Weights;
  double x = 0, y = 0, cell_w = 0, cell_h = 0;  // top-left of cell (0, 0) and the cell pitch
  Eigen::Index rows = 0, cols = 0;
  double colorbar_x = 0, colorbar_y = 0, colorbar_w = 0, colorbar_h = 0;  // high end at the top
  double lo = 0, hi = 1;  // value range of the colours
  std::string colormap;
};

struct Figure {
  double width = 0, height = 0;  // points (1/72 inch)
  std::vector<FigureItem> items;
  std::vector<PanelInfo> panels;
};

// Lays out a figure of one stage or of the pipeline. Throws InputError for an unknown colormap
// or a result without dense stages.
Figure layout_figure(const Scenario& s, const Result& r, Stage stage, const FigureOptions& options);

// Width in points of `text` in DejaVu Sans at `size` points (as Cairo will draw it).
double text_width(std::string_view text, double size, bool bold = false);

// ---- Renderers -------------------------------------------------------------------------------

// Default PNG width: two pixels per point, crisp on slides and high-DPI screens.
int default_png_width(const Figure& f);
// PNG bytes, `width_px` wide (0: default), height in proportion. White background.
std::string render_png(const Figure& f, int width_px = 0);
// PDF bytes, one page of the figure's size in points, text as real text.
std::string render_pdf(const Figure& f);
// PDF bytes with one page per figure, each of its own size (a worksheet's pages).
std::string render_pdf_pages(const std::vector<Figure>& pages);
// Semantic SVG: one <rect class="cell"> per cell, <text> for every label and value.
std::string render_svg(const Figure& f);

}  // namespace attnlab
