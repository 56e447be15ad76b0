// The temperature sweep written as numbered PNG frames.
#include "engine/lessons/lesson_export.hpp"
#include "support/build_features.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/lessons/presets.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

TEST(LessonExport, TemperatureSequenceIsNumberedPngs) {
  ATTNLAB_NEEDS_CAIRO();
  const fs::path dir = fs::temp_directory_path() / ("attnlab_frames_" + std::to_string(getpid()));
  fs::remove_all(dir);
  Scenario s = load_preset("temperature");
  nlohmann::json lesson = nlohmann::json::parse(s.lesson.raw_json);
  lesson["frames"] = 3;
  s.lesson = parse_lesson_spec(lesson.dump(), "temperature, 3 frames");
  ExportOptions o;
  o.width_px = 200;
  const auto paths = export_temperature_sequence(s, dir / "sub", o);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0].filename(), "temperature_0001.png");
  EXPECT_EQ(paths[2].filename(), "temperature_0003.png");
  for (const auto& p : paths) EXPECT_EQ(read_file(p).substr(1, 3), "PNG");
  // The frames differ: the weights change with τ.
  EXPECT_NE(read_file(paths[0]), read_file(paths[2]));
  // Without force nothing is overwritten.
  const std::string before = read_file(paths[1]);
  EXPECT_THROW(export_temperature_sequence(s, dir / "sub", o), InputError);
  EXPECT_EQ(read_file(paths[1]), before);
  o.force = true;
  EXPECT_EQ(export_temperature_sequence(s, dir / "sub", o).size(), 3u);
  // A file where the folder should be is a one-sentence error.
  write_file_atomic(dir / "file", "x");
  EXPECT_THROW(export_temperature_sequence(s, dir / "file", o), InputError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnlab
