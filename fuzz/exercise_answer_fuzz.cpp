// Fuzzes the exercise answer reader (`attnlab exercise LESSON --seed S --answer FILE`): any text
// is either refused with an InputError or read into one answer per part, each of its part's shape,
// with no NaN, which the grader then grades without throwing (every part graded, the score counted
// right). The first byte chooses the lesson and the seed, so the corpus covers every part kind.
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/exercise_grade.hpp"
#include "engine/lessons/presets.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  if (size == 0) return 0;
  // The exercises are drawn once per lesson and seed (drawing is slower than reading an answer).
  static std::map<std::pair<size_t, int>, Exercise> drawn;
  static const std::vector<PresetInfo> lessons = list_presets();
  const size_t lesson = data[0] % lessons.size();
  const int seed = static_cast<int>(data[0] / lessons.size() % 4);
  auto it = drawn.find({lesson, seed});
  if (it == drawn.end()) it = drawn.emplace(std::pair{lesson, seed}, make_exercise(lessons[lesson].name, static_cast<std::uint64_t>(seed))).first;
  const Exercise& e = it->second;

  const auto answers = fuzz::read_or_refused([&] { return parse_answers(fuzz::input_text(data + 1, size - 1), e, "fuzz.json"); });
  if (!answers) return 0;
  FUZZ_CHECK(answers->size() == e.parts.size());
  for (const ExercisePart& p : e.parts) {
    const auto found = answers->find(p.id);
    FUZZ_CHECK(found != answers->end());
    for (const auto& v : found->second.values) FUZZ_CHECK(!v || !std::isnan(*v));
  }
  const Grade g = grade_exercise(e, *answers);
  FUZZ_CHECK(g.of == static_cast<int>(e.parts.size()) && g.parts.size() == e.parts.size());
  int right = 0;
  for (const PartGrade& pg : g.parts) {
    right += pg.correct ? 1 : 0;
    FUZZ_CHECK(pg.correct != pg.diagnosis.has_value());
  }
  FUZZ_CHECK(right == g.score);
  return 0;
}
