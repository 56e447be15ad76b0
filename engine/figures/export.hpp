// Exporting a stage: figures (PNG, SVG, PDF) and data (CSV, JSON, NPY, LaTeX), written safely.
// The CLI's `attnlab export` and the GUI's Export dialog both call these, so a PNG from either
// is byte-identical for the same scenario and options.
#pragma once

#include "engine/figures/figure.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab {

enum class ExportFormat { Png, Svg, Pdf, Csv, Json, Npy, Tex };

struct ExportOptions {
  Stage stage = Stage::Weights;
  FigureOptions figure;  // title, annotate, colormap, range, annotation decimals
  int width_px = 0;      // PNG width; 0: two pixels per point
  int decimals = 3;      // LaTeX: digits after the point
  bool force = false;    // overwrite an existing file
  // How error sentences name the target and the way to overwrite it: the CLI flag by default;
  // `lesson --frames-out` and the GUI say their own words.
  std::string target_name = "--out";
  std::string overwrite_hint = "pass --force to overwrite it";
};

// The format for a file name's extension (case-insensitive); throws InputError naming the file
// and listing the extensions for anything else.
ExportFormat export_format_for(const std::filesystem::path& path);
bool is_figure_format(ExportFormat f);
std::string_view export_format_name(ExportFormat f);  // "png", ...

// The bytes of the file, without writing anything. Throws InputError for a pipeline as data, an
// unknown colormap or a result without dense stages.
std::string export_bytes(const Scenario& s, const Result& r, const ExportOptions& o, ExportFormat format);
// render_png(layout_figure(...), width): what `attnlab export --out X.png` writes.
std::string render_png_bytes(const Scenario& s, const Result& r, const ExportOptions& o);

// Checks, before any work, that `path` can be written: known extension, existing folder, and
// no existing file unless o.force. Throws InputError with one sentence.
void check_export_target(const std::filesystem::path& path, const ExportOptions& o);
// Checks the target, builds the bytes, writes them atomically (temporary file, then rename).
void export_stage(const Scenario& s, const Result& r, const ExportOptions& o, const std::filesystem::path& path);

// Data writers of one stage's matrix (n × m, or n × d_v for output).
// LaTeX: "\begin{bmatrix}a & b\\c & d\end{bmatrix}\n", values rounded to `decimals`, blocked
// logits as -\infty.
std::string latex_bmatrix(const Matrix& M, int decimals);
// CSV: one row per line, shortest round-trip floats, blocked logits as -inf.
std::string stage_csv(const StageData& d);
// JSON: {"stage", "rows", "cols", "row_labels", "col_labels", "values" (blocked logits null), "blocked"}.
std::string stage_json(const StageData& d);
// NPY: float32, C order, n × m; blocked logits are -inf.
std::string stage_npy(const StageData& d);

}  // namespace attnlab
