// The registry of lesson pages: every view a built-in lesson names has its page, a name this build
// does not know falls back to the plain page, and the numbers the GUI gets through the registry
// (compute_lesson on its backend) are those `attnlab lesson` prints.
#include "engine/lessons/lesson_registry.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/lesson_report.hpp"
#include "engine/lessons/presets.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

namespace attnlab {
namespace {

TEST(LessonRegistry, EveryViewHasOnePageAndUnknownViewsArePlain) {
  std::set<std::string_view> views;
  for (const LessonPage& p : lesson_pages()) {
    EXPECT_TRUE(views.insert(p.view).second) << p.view << " is listed twice";
    EXPECT_NE(p.compute, nullptr) << p.view;
    EXPECT_NE(p.to_json, nullptr) << p.view;
  }
  EXPECT_EQ(lesson_pages().front().view, kPlainView);
  EXPECT_EQ(&find_lesson_page("hologram"), &find_lesson_page(kPlainView));
  EXPECT_EQ(&find_lesson_page(""), &find_lesson_page(kPlainView));
  for (const PresetInfo& p : list_presets()) {
    const Scenario s = load_preset(p.name);
    if (!s.lesson.view_name.empty()) {
      EXPECT_TRUE(views.contains(s.lesson.view_name)) << p.name << ": no page for its view";
    }
  }
}

TEST(LessonRegistry, ComputedNumbersAreWhatTheReportPrints) {
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    const Result r = cpu->compute(s.problem());
    LessonDetail detail;
    detail.measure = false;  // the kv-cache lesson's milliseconds differ run to run
    const std::unique_ptr<LessonNumbers> n = compute_lesson(s, r, *cpu, detail);
    ASSERT_NE(n, nullptr);
    nlohmann::ordered_json mine = lesson_page(s.lesson).to_json(*n, s, r, detail);
    nlohmann::ordered_json report = lesson_view_numbers(s, r, true);
    if (report.contains("cost")) report["cost"].erase("measured");
    EXPECT_EQ(mine.dump(), report.dump());
  }
}

TEST(LessonRegistry, ABadFieldIsRefusedWhateverTheView) {
  for (const char* lesson : {R"({"heads": 0})", R"({"view": "temperature", "tile": 0})", R"({"view": "hologram", "kv_heads": [0]})",
                             R"({"sample_temperature": 0})", R"({"view": "rope", "envelope_d_k": 3})"}) {
    SCOPED_TRACE(lesson);
    EXPECT_THROW(check_lesson_fields(parse_lesson_spec(lesson, "lesson.json")), InputError);
  }
  EXPECT_NO_THROW(check_lesson_fields(parse_lesson_spec(R"({"view": "hologram", "sparkle": 3})", "lesson.json")));
  for (const PresetInfo& p : list_presets()) EXPECT_NO_THROW(check_lesson_fields(load_preset(p.name).lesson)) << p.name;
}

}  // namespace
}  // namespace attnlab
