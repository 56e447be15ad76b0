// Export of stages to files: choosing the format, building the bytes, writing them atomically.
#include "engine/figures/export.hpp"
#include "engine/text/text_format.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/io/matrix_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace attnlab {

namespace fs = std::filesystem;

namespace {

constexpr const char* kExtensions = ".png, .svg, .pdf, .csv, .json, .npy or .tex";

}  // namespace

ExportFormat export_format_for(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return ExportFormat::Png;
  if (ext == ".svg") return ExportFormat::Svg;
  if (ext == ".pdf") return ExportFormat::Pdf;
  if (ext == ".csv") return ExportFormat::Csv;
  if (ext == ".json") return ExportFormat::Json;
  if (ext == ".npy") return ExportFormat::Npy;
  if (ext == ".tex") return ExportFormat::Tex;
  throw InputError("--out " + path.string() + ": unknown file type '" + ext + "'; expected " + kExtensions);
}

bool is_figure_format(ExportFormat f) { return f == ExportFormat::Png || f == ExportFormat::Svg || f == ExportFormat::Pdf; }

std::string_view export_format_name(ExportFormat f) {
  switch (f) {
    case ExportFormat::Png: return "png";
    case ExportFormat::Svg: return "svg";
    case ExportFormat::Pdf: return "pdf";
    case ExportFormat::Csv: return "csv";
    case ExportFormat::Json: return "json";
    case ExportFormat::Npy: return "npy";
    case ExportFormat::Tex: return "tex";
  }
  return "?";
}

std::string latex_bmatrix(const Matrix& M, int decimals) {
  std::string out = "\\begin{bmatrix}";
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    if (i) out += "\\\\";
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (j) out += " & ";
      out += format_number(M(i, j), NumberUse::Latex, decimals);
    }
  }
  out += "\\end{bmatrix}\n";
  return out;
}

std::string stage_csv(const StageData& d) { return csv_text(d.values); }

std::string stage_npy(const StageData& d) { return npy_bytes(d.values); }

std::string stage_json(const StageData& d) {
  // Written by hand so floats print in their shortest round-trip form (as `compute` does),
  // one matrix row per line.
  auto str = [](const std::string& t) { return nlohmann::json(t).dump(); };
  auto strings = [&](const std::vector<std::string>& v) {
    std::string out = "[";
    for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + str(v[k]);
    return out + "]";
  };
  std::string out = "{\n";
  out += " \"stage\": " + str(d.name) + ",\n";
  out += " \"formula\": " + str(d.formula) + ",\n";
  out += " \"rows\": " + std::to_string(d.values.rows()) + ",\n";
  out += " \"cols\": " + std::to_string(d.values.cols()) + ",\n";
  out += " \"row_labels\": " + strings(d.row_labels) + ",\n";
  out += " \"col_labels\": " + strings(d.col_labels) + ",\n";
  out += " \"values\": [\n";
  for (Eigen::Index i = 0; i < d.values.rows(); ++i) {
    out += "  [";
    for (Eigen::Index k = 0; k < d.values.cols(); ++k) {
      if (k) out += ", ";
      const float v = d.values(i, k);
      if (!std::isfinite(v)) {
        out += "null";  // JSON has no −∞: blocked logits are null, as in compute
        continue;
      }
      append_shortest_decimals(out, v);
    }
    out += i + 1 < d.values.rows() ? "],\n" : "]\n";
  }
  out += " ]";
  if (d.blocked.size()) {
    out += ",\n \"blocked\": [\n";
    for (Eigen::Index i = 0; i < d.blocked.rows(); ++i) {
      out += "  [";
      for (Eigen::Index k = 0; k < d.blocked.cols(); ++k) out += std::string(k ? ", " : "") + (d.blocked(i, k) ? "true" : "false");
      out += i + 1 < d.blocked.rows() ? "],\n" : "]\n";
    }
    out += " ]";
  }
  out += "\n}\n";
  return out;
}

std::string render_png_bytes(const Scenario& s, const Result& r, const ExportOptions& o) {
  return render_png(layout_figure(s, r, o.stage, o.figure), o.width_px);
}

std::string export_bytes(const Scenario& s, const Result& r, const ExportOptions& o, ExportFormat format) {
  if (o.width_px < 0 || o.width_px > 20000) throw InputError("--width: expected a pixel width from 16 to 20000");
  if (o.width_px > 0 && o.width_px < 16) throw InputError("--width: expected a pixel width from 16 to 20000");
  if (o.decimals < 0 || o.decimals > 12) throw InputError("--decimals: expected a whole number from 0 to 12");
  if (is_figure_format(format)) {
    const Figure f = layout_figure(s, r, o.stage, o.figure);
    if (format == ExportFormat::Png) return render_png(f, o.width_px);
    if (format == ExportFormat::Svg) return render_svg(f);
    return render_pdf(f);
  }
  if (o.stage == Stage::Pipeline) {
    throw InputError("--stage pipeline is a figure; write it as .png, .svg or .pdf, or export one stage as ." +
                     std::string(export_format_name(format)));
  }
  const StageData d = stage_data(s, r, o.stage);
  switch (format) {
    case ExportFormat::Csv: return stage_csv(d);
    case ExportFormat::Json: return stage_json(d);
    case ExportFormat::Npy: return stage_npy(d);
    case ExportFormat::Tex: return latex_bmatrix(d.values, o.decimals);
    default: break;
  }
  return {};
}

void check_export_target(const fs::path& path, const ExportOptions& o) {
  export_format_for(path);
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(o.target_name + " " + path.string() + ": the folder " + dir.string() + " does not exist");
  if (fs::is_directory(path, ec)) throw InputError(o.target_name + " " + path.string() + ": is a folder, not a file");
  if (::access(dir.c_str(), W_OK) != 0) {
    throw InputError(o.target_name + " " + path.string() + ": the folder " + dir.string() + " is not writable");
  }
  if (!o.force && fs::exists(fs::symlink_status(path, ec))) {
    throw InputError(o.target_name + " " + path.string() + ": the file exists; " + o.overwrite_hint);
  }
}

void export_stage(const Scenario& s, const Result& r, const ExportOptions& o, const fs::path& path) {
  check_export_target(path, o);
  const std::string bytes = export_bytes(s, r, o, export_format_for(path));
  write_file_atomic(path, bytes);
}

}  // namespace attnlab
