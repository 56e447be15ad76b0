// The lesson pages' registry: every view a lesson file can name that has a page in the GUI, one line
// each (`page<draw_<view>_page>(k<View>View)`, the view's name from its engine page); the page's UI
// state, its numbers' type and whether it has UI state at all come from its draw function's
// signature. A lesson whose view has no line here (the plain view) shows the walk-through's way in.
#include "gui/lessons/lesson_page.hpp"

#include "gui/lessons/attention_sinks_page.hpp"
#include "gui/lessons/compare_scaling_page.hpp"
#include "gui/lessons/cost_page.hpp"
#include "gui/lessons/geometry_page.hpp"
#include "gui/lessons/gqa_page.hpp"
#include "gui/lessons/knock_out_page.hpp"
#include "gui/lessons/kv_cache_page.hpp"
#include "gui/lessons/mask_family_page.hpp"
#include "gui/lessons/model_heads_page.hpp"
#include "gui/lessons/multi_head_page.hpp"
#include "gui/lessons/normalizers_page.hpp"
#include "gui/lessons/online_softmax_page.hpp"
#include "gui/lessons/precision_page.hpp"
#include "gui/lessons/rope_page.hpp"
#include "gui/lessons/scaling_lab_page.hpp"
#include "gui/lessons/self_cross_page.hpp"
#include "gui/lessons/temperature_page.hpp"
#include "gui/lessons/train_induction_page.hpp"
#include "gui/lessons/worked_example_page.hpp"

#include "engine/lessons/lesson_registry.hpp"

#include <type_traits>

namespace attnlab::gui {

namespace {

// What a page's draw function says of the page: its UI state (none: NoPageUi) and its numbers.
struct NoPageUi {};
template <auto Draw>
struct PageTraits;
template <class Ui, class Numbers, void (*Draw)(const PageInputs&, const Numbers*, Ui&, Commands&)>
struct PageTraits<Draw> {
  using UiType = Ui;
  using NumbersType = Numbers;
  static void draw(const PageInputs& in, const Numbers* n, Ui& ui, Commands& out) { Draw(in, n, ui, out); }
};
template <class Numbers, void (*Draw)(const PageInputs&, const Numbers*, Commands&)>
struct PageTraits<Draw> {
  using UiType = NoPageUi;
  using NumbersType = Numbers;
  static void draw(const PageInputs& in, const Numbers* n, NoPageUi&, Commands& out) { Draw(in, n, out); }
};

// The page drawn by `Draw`, going on with another lesson's document where `GoesOn` says so.
template <auto Draw, auto GoesOn>
class RegisteredPage final : public PageState<typename PageTraits<Draw>::UiType> {
  using Traits = PageTraits<Draw>;
  using Ui = typename Traits::UiType;
  using Numbers = typename Traits::NumbersType;

  // A page whose UI state starts from its lesson's file (the multi-head lesson's heads and seed) has a
  // constructor that takes the scenario.
  static Ui fresh_ui(const Scenario& s) {
    if constexpr (std::is_constructible_v<Ui, const Scenario&>) {
      return Ui(s);
    } else {
      (void)s;
      return Ui{};
    }
  }

public:
  explicit RegisteredPage(const Scenario& s) : PageState<Ui>(fresh_ui(s)) {}

  void draw(const PageInputs& in, const LessonNumbers* numbers, Commands& out) override {
    const auto* mine = dynamic_cast<const Numbers*>(numbers);
    if (numbers && !mine) {
      PageInputs other = in;
      other.numbers_error = "this scenario's lesson shows another view";
      Traits::draw(other, nullptr, this->ui, out);
      return;
    }
    Traits::draw(in, mine, this->ui, out);
  }

  bool goes_on_with(const Scenario& shown, const TrainingUi& training) const override {
    if constexpr (std::is_null_pointer_v<decltype(GoesOn)>) {
      (void)shown, (void)training;
      return false;
    } else {
      return GoesOn(shown, training);
    }
  }
};

struct PageRow {
  std::string_view view;
  std::unique_ptr<LessonPageView> (*make)(const Scenario& s);
};

template <auto Draw, auto GoesOn = nullptr>
constexpr PageRow page(std::string_view view) {
  return {view, [](const Scenario& s) -> std::unique_ptr<LessonPageView> { return std::make_unique<RegisteredPage<Draw, GoesOn>>(s); }};
}

constexpr PageRow kPages[] = {
    page<draw_worked_example_page>(kWorkedExampleView),
    page<draw_compare_scaling_page>(kCompareScalingView),
    page<draw_scaling_lab_page>(kScalingLabView),
    page<draw_multi_head_page>(kMultiHeadView),
    page<draw_self_cross_page>(kSelfCrossView),
    page<draw_mask_family_page>(kMaskFamilyView),
    page<draw_temperature_page>(kTemperatureView),
    page<draw_normalizers_page>(kNormalizersView),
    page<draw_precision_page>(kPrecisionView),
    page<draw_geometry_page>(kGeometryView),
    page<draw_cost_page>(kCostView),
    page<draw_online_softmax_page>(kOnlineSoftmaxView),
    page<draw_model_heads_page>(kModelHeadsView),
    page<draw_train_induction_page, train_induction_goes_on>(kTrainInductionView),
    page<draw_rope_page>(kRopeView),
    page<draw_gqa_page>(kGqaView),
    page<draw_kv_cache_page>(kKvCacheView),
    page<draw_knock_out_page>(kKnockOutView),
    page<draw_attention_sinks_page>(kAttentionSinksView),
};

}  // namespace

std::unique_ptr<LessonPageView> make_lesson_page(const Scenario& s) {
  const std::string_view view = lesson_view(s.lesson);
  for (const PageRow& p : kPages) {
    if (p.view != view) continue;
    std::unique_ptr<LessonPageView> made = p.make(s);
    made->tells_its_steps = view == kOnlineSoftmaxView || view == kTrainInductionView;
    return made;
  }
  return nullptr;
}

void sync_lesson_page(LessonsUi& lessons, const Scenario& shown, const TrainingUi& training) {
  std::string key = shown.title + "\n" + shown.lesson.raw_json;
  if (key == lessons.page_key) return;
  if (!lessons.page || !lessons.page->goes_on_with(shown, training)) lessons.page = make_lesson_page(shown);
  lessons.page_key = std::move(key);
}

}  // namespace attnlab::gui
