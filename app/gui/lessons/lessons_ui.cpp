// The lessons' UI state (lessons_ui.hpp): its special members here, where the page type is complete.
#include "gui/lessons/lessons_ui.hpp"

#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

LessonsUi::LessonsUi() = default;
LessonsUi::~LessonsUi() = default;
LessonsUi::LessonsUi(LessonsUi&&) noexcept = default;
LessonsUi& LessonsUi::operator=(LessonsUi&&) noexcept = default;

}  // namespace attnlab::gui
