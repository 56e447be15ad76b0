// The knock-out lesson's page (knock_out_page.cpp): the built-in induction model's heads as a grid a
// student clicks to knock heads out, bars of the copy's accuracy as is and with those heads out, and
// the two results that show the heads compose: the induction heads out, the previous-token heads out.
#pragma once

#include "engine/lessons/knock_out.hpp"
#include "gui/lessons/lesson_page.hpp"

#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

struct KnockOutUi {
  std::vector<model::HeadIndex> out;  // the heads the student knocked out, in the model's order
  // The copy with `out` knocked out, measured (knock_out, one engine call) when the choice changed;
  // empty while nothing is knocked out, or with the sentence why it could not run.
  std::optional<KnockOutRun> run;
  std::string error;
};

// "Open in the Model window" opens the lesson's model there on its probe (OpenInModelWindow), where K
// knocks out a head too.
void draw_knock_out_page(const PageInputs& in, const KnockOutNumbers* numbers, KnockOutUi& ui, Commands& out);

}  // namespace attnlab::gui
