// Numbered PNG frames of a temperature sweep.
#include "engine/lessons/lesson_export.hpp"

#include "engine/lessons/lesson_math.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/text/text_format.hpp"

#include <cstdio>
#include <system_error>

namespace attnlab {

std::vector<std::filesystem::path> export_temperature_sequence(const Scenario& s, const std::filesystem::path& folder,
                                                               const ExportOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
    throw InputError(folder.string() + " exists and is not a folder; the frames need a folder");
  }
  fs::create_directories(folder, ec);
  if (ec) throw InputError(folder.string() + ": cannot create the folder for the frames (" + ec.message() + ")");
  const auto taus = log_spaced(s.lesson.tau_min, s.lesson.tau_max, s.lesson.frames);
  std::vector<fs::path> paths;
  for (size_t k = 0; k < taus.size(); ++k) {
    char name[48];
    std::snprintf(name, sizeof name, "temperature_%04zu.png", k + 1);
    paths.push_back(folder / name);
  }
  // Refuse before drawing anything, so a refused run leaves the folder as it was.
  for (const auto& p : paths) check_export_target(p, o);
  for (size_t k = 0; k < taus.size(); ++k) {
    Scenario frame = s;
    frame.options.temperature = taus[k];
    const Result r = compute_cpu(frame.problem());
    ExportOptions fo = o;
    if (fo.figure.title.empty()) {
      fo.figure.title = "Temperature τ = " + three_digits(taus[k]) + "   (s·τ = " + three_digits(r.effective_temperature) + ")";
    }
    // Weights and saturation live on fixed ranges; a fixed range keeps colours comparable across frames.
    if (!fo.figure.range && (fo.stage == Stage::Weights)) fo.figure.range = std::pair{0.0, 1.0};
    export_stage(frame, r, fo, paths[k]);
  }
  return paths;
}

}  // namespace attnlab
