// Data export: LaTeX for Section 2.3's worked example, CSV/JSON/NPY read back equal, formats by
// extension, and the sentences for bad options.
#include "engine/figures/export.hpp"
#include "engine/io/matrix_io.hpp"
#include "support/computed_preset.hpp"
#include "support/files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace attnlab {
namespace {

using test::ComputedPreset;
using test::computed_preset;

// An independent .npy reader for what the writer promises: version 1.0, '<f4', C order, with
// the shape in the header (parse_npy would refuse the −∞ of blocked logits).
Matrix raw_npy(const std::string& bytes, Eigen::Index rows, Eigen::Index cols) {
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  EXPECT_NE(header.find("(" + std::to_string(rows) + ", " + std::to_string(cols) + ")"), std::string::npos) << header;
  EXPECT_EQ((10 + header_len) % 16, 0u);
  Matrix m(rows, cols);
  EXPECT_EQ(bytes.size(), 10 + header_len + sizeof(float) * static_cast<size_t>(m.size()));
  std::memcpy(m.data(), bytes.data() + 10 + header_len, sizeof(float) * static_cast<size_t>(m.size()));
  return m;
}

std::string bytes_of(const ComputedPreset& c, Stage stage, ExportFormat f, int decimals = 3) {
  ExportOptions o;
  o.stage = stage;
  o.decimals = decimals;
  return export_bytes(c.s, c.r, o, f);
}

// Section 2.3, steps 1–3. The book's row 3 of the weights, (0.276 0.276 0.448), is a
// misprint: exp(0.707), exp(0.707), exp(1.414) normalize to (0.248 0.248 0.503).
TEST(ExportLatex, SeedZeroWorkedExample) {
  const ComputedPreset c = computed_preset("three-tokens");
  EXPECT_EQ(bytes_of(c, Stage::Scores, ExportFormat::Tex, 0),
            "\\begin{bmatrix}1 & 0 & 1\\\\0 & 1 & 1\\\\1 & 1 & 2\\end{bmatrix}\n");
  EXPECT_EQ(bytes_of(c, Stage::Logits, ExportFormat::Tex, 3),
            "\\begin{bmatrix}0.707 & 0.000 & 0.707\\\\0.000 & 0.707 & 0.707\\\\0.707 & 0.707 & 1.414\\end{bmatrix}\n");
  EXPECT_EQ(bytes_of(c, Stage::Weights, ExportFormat::Tex, 3),
            "\\begin{bmatrix}0.401 & 0.198 & 0.401\\\\0.198 & 0.401 & 0.401\\\\0.248 & 0.248 & 0.503\\end{bmatrix}\n");
  // The book prints (6.02 3.99) and (1.98 6.02) for rows 1 and 2; with its own weights the
  // rows are (6.02 3.98) and (3.98 6.02) to two decimals.
  EXPECT_EQ(bytes_of(c, Stage::Output, ExportFormat::Tex, 2),
            "\\begin{bmatrix}6.02 & 3.98\\\\3.98 & 6.02\\\\5.00 & 5.00\\end{bmatrix}\n");
}

TEST(ExportLatex, BlockedLogitsAndNegativeZero) {
  Matrix m(2, 2);
  m << -0.0001f, 1.5f, -INFINITY, -2.25f;
  EXPECT_EQ(latex_bmatrix(m, 2), "\\begin{bmatrix}0.00 & 1.50\\\\-\\infty & -2.25\\end{bmatrix}\n");
}

TEST(ExportData, CsvNpyJsonReadBackEqual) {
  const ComputedPreset c = computed_preset("causal-six");
  for (Stage stage : {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output, Stage::Saturation}) {
    const StageData d = stage_data(c.s, c.r, stage);
    const Matrix from_npy = raw_npy(bytes_of(c, stage, ExportFormat::Npy), d.values.rows(), d.values.cols());
    const auto j = nlohmann::json::parse(bytes_of(c, stage, ExportFormat::Json));
    EXPECT_EQ(j["stage"], stage_name(stage));
    const std::string csv = bytes_of(c, stage, ExportFormat::Csv);
    for (Eigen::Index i = 0; i < d.values.rows(); ++i) {
      for (Eigen::Index k = 0; k < d.values.cols(); ++k) {
        const float want = d.values(i, k);
        EXPECT_EQ(from_npy(i, k), want);
        if (std::isfinite(want)) EXPECT_EQ(j["values"][i][k].get<float>(), want);
        else EXPECT_TRUE(j["values"][i][k].is_null());
      }
    }
    // parse_csv accepts only finite numbers, so compare the finite stages through it.
    if (stage != Stage::Logits) {
      EXPECT_EQ(parse_csv(csv, "csv"), d.values) << stage_name(stage);
    } else {
      EXPECT_NE(csv.find("-inf"), std::string::npos);
      EXPECT_EQ(j["blocked"][0][1], true);
      EXPECT_EQ(j["blocked"][1][0], false);
    }
  }
  EXPECT_EQ(parse_npy(bytes_of(c, Stage::Weights, ExportFormat::Npy), "npy"), c.r.weights);
}

TEST(ExportFormats, ByExtension) {
  EXPECT_EQ(export_format_for("a/b.PNG"), ExportFormat::Png);
  EXPECT_EQ(export_format_for("x.svg"), ExportFormat::Svg);
  EXPECT_EQ(export_format_for("x.pdf"), ExportFormat::Pdf);
  EXPECT_EQ(export_format_for("x.csv"), ExportFormat::Csv);
  EXPECT_EQ(export_format_for("x.json"), ExportFormat::Json);
  EXPECT_EQ(export_format_for("x.npy"), ExportFormat::Npy);
  EXPECT_EQ(export_format_for("x.tex"), ExportFormat::Tex);
  EXPECT_THROW(export_format_for("x.bmp"), InputError);
  EXPECT_THROW(export_format_for("noext"), InputError);
}

TEST(ExportOptionsParsing, RangeStageAndPipelineAsData) {
  EXPECT_EQ(parse_range("0:1"), std::make_pair(0.0, 1.0));
  EXPECT_EQ(parse_range("-2.5:2.5"), std::make_pair(-2.5, 2.5));
  EXPECT_EQ(parse_range("-3:-1"), std::make_pair(-3.0, -1.0));
  for (const char* bad : {"1:0", "1:1", "0-1", ":1", "0:", "a:b", "0:inf", "0:1:2", ""}) {
    EXPECT_THROW(parse_range(bad), InputError) << bad;
  }
  EXPECT_EQ(parse_stage("saturation"), Stage::Saturation);
  EXPECT_THROW(parse_stage("attention"), InputError);
  const ComputedPreset c = computed_preset("three-tokens");
  ExportOptions o;
  o.stage = Stage::Pipeline;
  EXPECT_THROW(export_bytes(c.s, c.r, o, ExportFormat::Csv), InputError);
}

TEST(ExportFile, RefusesToOverwriteWithoutForceAndLeavesNoTemporaryFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_test_dir("attnlab-export-test");
  fs::create_directories(dir);
  const ComputedPreset c = computed_preset("three-tokens");
  ExportOptions o;
  const fs::path target = dir / "w.csv";
  export_stage(c.s, c.r, o, target);
  const auto first = fs::file_size(target);
  o.stage = Stage::Scores;
  EXPECT_THROW(export_stage(c.s, c.r, o, target), InputError);
  EXPECT_EQ(fs::file_size(target), first);
  o.force = true;
  export_stage(c.s, c.r, o, target);
  EXPECT_THROW(export_stage(c.s, c.r, o, dir / "missing" / "w.csv"), InputError);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnlab
