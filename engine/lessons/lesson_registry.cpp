// The registry of lesson pages: one line per view. Adding a lesson is its page
// (engine/lessons/<view>.hpp/.cpp, lesson_page.hpp says what it holds) and its line here.
#include "engine/lessons/lesson_registry.hpp"

#include "engine/lessons/attention_sinks.hpp"
#include "engine/lessons/compare_scaling.hpp"
#include "engine/lessons/cost.hpp"
#include "engine/lessons/geometry.hpp"
#include "engine/lessons/gqa.hpp"
#include "engine/lessons/knock_out.hpp"
#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/mask_family.hpp"
#include "engine/lessons/model_heads.hpp"
#include "engine/lessons/multi_head.hpp"
#include "engine/lessons/normalizers.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "engine/lessons/plain.hpp"
#include "engine/lessons/precision.hpp"
#include "engine/lessons/rope.hpp"
#include "engine/lessons/scaling_lab.hpp"
#include "engine/lessons/self_cross.hpp"
#include "engine/lessons/temperature.hpp"
#include "engine/lessons/train_induction.hpp"
#include "engine/lessons/worked_example.hpp"

#include <type_traits>

namespace attnlab {

namespace {

// A row from a page's typed functions: `Params` reads its parameters (nullptr for a page without
// any), `Compute` makes its numbers, `ToJson` writes them, `MakeExercise` draws its exercise,
// `WriteText` (where a page has one) prints a report's view fields for a terminal. The numbers' type
// is Compute's result.
template <auto Params, auto Compute, auto ToJson, auto MakeExercise, auto WriteText = nullptr>
constexpr LessonPage page(std::string_view view) {
  using Numbers = std::invoke_result_t<decltype(Compute), const Scenario&, const Result&, Backend&, const LessonDetail&>;
  static_assert(std::is_base_of_v<LessonNumbers, Numbers>, "a page's numbers derive from LessonNumbers (lesson_page.hpp)");
  LessonPage p{};
  p.view = view;
  if constexpr (!std::is_null_pointer_v<decltype(Params)>) p.check_fields = [](const LessonFields& f) { (void)Params(f); };
  p.compute = [](const Scenario& s, const Result& r, Backend& b, const LessonDetail& d) -> std::unique_ptr<LessonNumbers> {
    return std::make_unique<Numbers>(Compute(s, r, b, d));
  };
  // The numbers handed to a row's to_json are always its own compute's (compute_lesson, lesson_report).
  p.to_json = [](const LessonNumbers& n, const Scenario& s, const Result& r, const LessonDetail& d) {
    return ToJson(static_cast<const Numbers&>(n), s, r, d);
  };
  p.write_text = WriteText;
  p.exercise = MakeExercise;
  return p;
}

// The plain page first: it stands for a view this build does not know.
constexpr LessonPage kPages[] = {
    page<nullptr, compute_plain, plain_to_json, plain_exercise>(kPlainView),
    page<nullptr, compute_worked_example, worked_example_to_json, worked_example_exercise>(kWorkedExampleView),
    page<nullptr, compute_compare_scaling, compare_scaling_to_json, compare_scaling_exercise>(kCompareScalingView),
    page<scaling_lab_params, compute_scaling_lab, scaling_lab_to_json, scaling_lab_exercise>(kScalingLabView),
    page<multi_head_params, compute_multi_head, multi_head_to_json, multi_head_exercise>(kMultiHeadView),
    page<nullptr, compute_self_cross, self_cross_to_json, self_cross_exercise>(kSelfCrossView),
    page<mask_family_params, compute_mask_family, mask_family_to_json, mask_family_exercise>(kMaskFamilyView),
    page<temperature_params, compute_temperature, temperature_to_json, temperature_exercise>(kTemperatureView),
    page<nullptr, compute_normalizers, normalizers_to_json, normalizers_exercise>(kNormalizersView),
    page<nullptr, compute_precision, precision_to_json, precision_exercise>(kPrecisionView),
    page<nullptr, compute_geometry, geometry_to_json, geometry_exercise>(kGeometryView),
    page<cost_params, compute_cost, cost_to_json, cost_exercise>(kCostView),
    page<online_softmax_params, compute_online_softmax, online_softmax_to_json, online_softmax_exercise>(kOnlineSoftmaxView),
    page<nullptr, compute_model_heads, model_heads_to_json, model_heads_exercise>(kModelHeadsView),
    page<nullptr, compute_train_induction, train_induction_to_json, train_induction_exercise>(kTrainInductionView),
    page<rope_params, compute_rope, rope_to_json, rope_exercise>(kRopeView),
    page<gqa_params, compute_gqa, gqa_to_json, gqa_exercise>(kGqaView),
    page<kv_cache_params, compute_kv_cache, kv_cache_to_json, kv_cache_exercise>(kKvCacheView),
    page<nullptr, compute_knock_out, knock_out_to_json, knock_out_exercise>(kKnockOutView),
    page<attention_sinks_params, compute_attention_sinks, attention_sinks_to_json, attention_sinks_exercise>(kAttentionSinksView),
};

}  // namespace

std::span<const LessonPage> lesson_pages() { return kPages; }

const LessonPage& find_lesson_page(std::string_view view) {
  for (const LessonPage& p : kPages) {
    if (p.view == view) return p;
  }
  return kPages[0];
}

const LessonPage& lesson_page(const LessonSpec& lesson) { return find_lesson_page(lesson.view_name); }

void check_lesson_fields(const LessonSpec& lesson) {
  if (lesson.raw_json.empty()) return;
  const LessonFields fields(lesson);
  for (const LessonPage& p : kPages) {
    if (p.check_fields) p.check_fields(fields);
  }
}

std::unique_ptr<LessonNumbers> compute_lesson(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail) {
  return lesson_page(s.lesson).compute(s, r, backend, detail);
}

}  // namespace attnlab
