// What a student solved of each lesson's exercise (issue 70): kept in AppState, saved with the
// session (persistence/session_file.hpp, "exercises") and read by the Exercise tab. Plain data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::gui {

// A lesson's exercise as last checked: its seed, and the parts answered right there (ids, sorted).
struct ExerciseRecord {
  std::uint64_t seed = 0;
  std::vector<std::string> solved;
  friend bool operator==(const ExerciseRecord&, const ExerciseRecord&) = default;
};
// By built-in lesson name.
using ExerciseProgress = std::map<std::string, ExerciseRecord>;

}  // namespace attnlab::gui
