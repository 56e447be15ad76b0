// The lesson views' registry: every view a lesson file can name, with the function that draws it.
#include "gui/lessons/lesson_views.hpp"

#include "engine/lessons/compare_scaling.hpp"
#include "engine/lessons/cost.hpp"
#include "engine/lessons/geometry.hpp"
#include "engine/lessons/gqa.hpp"
#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/mask_family.hpp"
#include "engine/lessons/model_heads.hpp"
#include "engine/lessons/multi_head.hpp"
#include "engine/lessons/normalizers.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "engine/lessons/precision.hpp"
#include "engine/lessons/rope.hpp"
#include "engine/lessons/scaling_lab.hpp"
#include "engine/lessons/self_cross.hpp"
#include "engine/lessons/temperature.hpp"
#include "engine/lessons/train_induction.hpp"
#include "engine/lessons/worked_example.hpp"

#include <utility>

namespace attnlab::gui {

namespace {

constexpr std::pair<std::string_view, LessonViewFn> kViews[] = {
    {kWorkedExampleView, draw_worked_example_view},
    {kCompareScalingView, draw_compare_scaling_view},
    {kScalingLabView, draw_scaling_lab_view},
    {kMultiHeadView, draw_multihead_view},
    {kSelfCrossView, draw_self_cross_view},
    {kMaskFamilyView, draw_mask_family_view},
    {kTemperatureView, draw_temperature_view},
    {kNormalizersView, draw_normalizers_view},
    {kPrecisionView, draw_precision_view},
    {kGeometryView, draw_geometry_view},
    {kCostView, draw_cost_view},
    {kOnlineSoftmaxView, draw_online_softmax_view},
    {kModelHeadsView, draw_model_heads_view},
    {kTrainInductionView, draw_train_induction_view},
    {kRopeView, draw_rope_view},
    {kGqaView, draw_gqa_view},
    {kKvCacheView, draw_kv_cache_view},
};

}  // namespace

LessonViewFn lesson_view_drawer(std::string_view view) {
  for (const auto& [v, draw] : kViews) {
    if (v == view) return draw;
  }
  return nullptr;
}

}  // namespace attnlab::gui
