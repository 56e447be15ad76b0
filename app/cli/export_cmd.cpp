// `attnlab export`: one stage (or the pipeline) of a scenario as a figure or as data.
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "cli/progress.hpp"
#include "engine/figures/export.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/text/text_format.hpp"

#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write one stage as a figure (.png .svg .pdf) or as data (.csv .json .npy .tex)");
  struct Args {
    InputArgs input;
    std::string stage, out, colormap, range, title;
    int width = 0;
    int decimals = 3;
    int annotation_decimals = -1;
    bool annotate = false, force = false;
  };
  auto args = std::make_shared<Args>();
  add_input_options(*cmd, args->input);
  cmd->add_option("--stage", args->stage, "scores | logits | weights | output | saturation | pipeline")->required();
  cmd->add_option("--out", args->out, "Output file: .png .svg .pdf (figures) or .csv .json .npy .tex (data)")->required();
  cmd->add_flag("--annotate", args->annotate, "Print each cell's value in the figure");
  cmd->add_option("--colormap", args->colormap, "viridis | magma | inferno | plasma | cividis | grays | blue-white-red | purple-white-orange");
  cmd->add_option("--range", args->range, "Fixed colour range LO:HI (e.g. 0:1, or --range=-2:2), shared by several figures");
  cmd->add_option("--width", args->width, "PNG width in pixels (default: two pixels per point)");
  cmd->add_option("--title", args->title, "Figure title (default: the scenario's title)");
  cmd->add_option("--decimals", args->decimals, "LaTeX: digits after the point (default 3)");
  cmd->add_option("--annotation-decimals", args->annotation_decimals, "Figure numbers: digits after the point (default: from the values)");
  cmd->add_flag("--force", args->force, "Overwrite an existing file");
  return [args]() {
    ExportOptions o;
    o.stage = parse_stage(args->stage);
    o.force = args->force;
    o.width_px = args->width;
    o.decimals = args->decimals;
    o.figure.annotate = args->annotate;
    o.figure.title = args->title;
    o.figure.decimals = args->annotation_decimals;
    if (!args->colormap.empty()) o.figure.colormap = colormap(args->colormap).name;
    if (!args->range.empty()) o.figure.range = parse_range(args->range);
    if (args->width != 0 && (args->width < 16 || args->width > 20000)) {
      throw InputError("--width: expected a pixel width from 16 to 20000, got " + std::to_string(args->width));
    }
    if (args->decimals < 0 || args->decimals > 12) throw InputError("--decimals: expected a whole number from 0 to 12");
    if (args->annotation_decimals > 12) throw InputError("--annotation-decimals: expected a whole number from 0 to 12");
    // Refuse a bad target before computing anything.
    check_export_target(args->out, o);
    const Scenario s = resolve_scenario(args->input);
    auto backend = select_backend(args->input.backend, std::cerr);
    const Problem problem = s.problem();
    const Eigen::Index n = problem.Q.rows(), m = problem.K.rows();
    Result r;
    if (dense_fits(n, m)) {
      r = backend->compute(problem);
    } else {
      // Too large for the dense stages: stream, keeping the weights downsampled (each pixel the
      // mean of its block) and the output. The other stages exist only cell by cell.
      if (o.stage != Stage::Weights && o.stage != Stage::Output) {
        throw InputError("--stage " + args->stage + ": n = " + std::to_string(n) + ", m = " + std::to_string(m) +
                         " is too large for the dense n×m stages (" + human_bytes(dense_bytes(n, m)) + ", limit " +
                         human_bytes(dense_memory_limit()) +
                         "); at this size export --stage weights (a downsampled heatmap) or --stage output");
      }
      // Figures: 256 × 256 blocks at most (a readable heatmap, quick to draw); data: 1024 × 1024.
      const Eigen::Index pixels = o.stage != Stage::Weights ? 0 : is_figure_format(export_format_for(args->out)) ? 256 : 1024;
      std::cerr << "attnlab: the dense n×m stages would need " << human_bytes(dense_bytes(n, m)) << " (limit "
                << human_bytes(dense_memory_limit()) << "); streaming instead"
                << (pixels ? ": the weights downsampled to at most " + std::to_string(pixels) + "×" +
                                 std::to_string(pixels) + " blocks (the mean weight of each)"
                           : std::string())
                << "\n";
      StderrProgress progress("streaming " + std::to_string(n) + "×" + std::to_string(m) + " attention");
      StreamingOptions so;
      so.heatmap_rows = so.heatmap_cols = pixels;
      so.progress = progress.callback();
      r = backend->compute_streaming(problem, so);
      progress.done();
    }
    export_stage(s, r, o, args->out);
    return kExitOk;
  };
}

}  // namespace attnlab::cli
