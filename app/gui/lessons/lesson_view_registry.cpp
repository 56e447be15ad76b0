// The lesson views' registry: every view a lesson file can name, with the function that draws it.
#include "gui/lessons/lesson_views.hpp"

#include <utility>

namespace attnlab::gui {

namespace {

constexpr std::pair<LessonView, LessonViewFn> kViews[] = {
    {LessonView::WorkedExample, draw_worked_example_view},
    {LessonView::CompareScaling, draw_compare_scaling_view},
    {LessonView::ScalingLab, draw_scaling_lab_view},
    {LessonView::MultiHead, draw_multihead_view},
    {LessonView::SelfCross, draw_self_cross_view},
    {LessonView::MaskFamily, draw_mask_family_view},
    {LessonView::Temperature, draw_temperature_view},
    {LessonView::Normalizers, draw_normalizers_view},
    {LessonView::Precision, draw_precision_view},
    {LessonView::Geometry, draw_geometry_view},
    {LessonView::Cost, draw_cost_view},
    {LessonView::OnlineSoftmax, draw_online_softmax_view},
    {LessonView::ModelHeads, draw_model_heads_view},
    {LessonView::TrainInduction, draw_train_induction_view},
    {LessonView::Rope, draw_rope_view},
    {LessonView::GroupedQuery, draw_gqa_view},
    {LessonView::KvCache, draw_kv_cache_view},
};

}  // namespace

LessonViewFn lesson_view_drawer(LessonView view) {
  for (const auto& [v, draw] : kViews) {
    if (v == view) return draw;
  }
  return nullptr;
}

}  // namespace attnlab::gui
