// Numbered PNG frames of a temperature sweep.
#include "engine/lessons/lesson_export.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/temperature.hpp"
#include "engine/text/text_format.hpp"

#include <cstdio>
#include <memory>
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
  const TemperatureParams sweep = temperature_params(LessonFields(s.lesson));
  const auto taus = log_spaced(sweep.tau_min, sweep.tau_max, sweep.frames);
  std::vector<fs::path> paths;
  for (size_t k = 0; k < taus.size(); ++k) {
    char name[48];
    std::snprintf(name, sizeof name, "temperature_%04zu.png", k + 1);
    paths.push_back(folder / name);
  }
  // Refuse before drawing anything, so a refused run leaves the folder as it was.
  for (const auto& p : paths) check_export_target(p, o);
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  for (size_t k = 0; k < taus.size(); ++k) {
    Scenario frame = s;
    frame.options.temperature = taus[k];
    const Result r = cpu->compute(frame.problem());
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
