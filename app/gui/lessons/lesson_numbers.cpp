// The lesson pages' numbers, kept per result (see lesson_numbers.hpp).
#include "gui/lessons/lesson_numbers.hpp"

#include <new>

namespace attnlab::gui {

const LessonNumbers* lesson_numbers_any(LessonNumbersCache& cache, const ViewContext& ctx, std::string& error) {
  if (cache.result_version != ctx.results.result_version) cache = LessonNumbersCache{ctx.results.result_version, nullptr, {}};
  if (!cache.numbers && cache.error.empty()) {
    if (!ctx.results.has_result) {
      cache.error = "nothing computed yet";
    } else {
      // The GUI's d_k sweep averages over at most 200 trials: enough for the table, and quick.
      LessonDetail detail;
      detail.max_sweep_trials = 200;
      try {
        cache.numbers = compute_lesson(ctx.shown(), ctx.results.result, *ctx.services.backend, detail);
      } catch (const InputError& e) {
        cache.error = e.what();
      } catch (const std::bad_alloc&) {
        cache.error = "this view's computation ran out of memory";
      }
    }
  }
  error = cache.error;
  return cache.numbers.get();
}

}  // namespace attnlab::gui
