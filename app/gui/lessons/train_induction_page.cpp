// "Watch an induction head form" ("Query, Key, Value": "A model learns: at this position, what query
// best retrieves useful past context?"): five steps that the walk-through's keys move through — the
// task and the hand-made induction head in the pipeline; a two-layer model trained from scratch on
// the Training window's thread, its loss and maps live; the phase change pointed out on the curve;
// then layer 0's previous-token head and layer 1's induction head lifted into the lab, one after
// the other, each shown as the lab computes it.
#include "gui/lessons/train_induction_page.hpp"

#include "engine/lessons/lesson_registry.hpp"
#include "engine/model/training_tasks.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/training/training_job.hpp"
#include "gui/training/training_plots.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gui {

namespace {

const char* const kTitles[kInductionSteps] = {"the task", "training from scratch", "the phase change",
                                              "layer 0: a previous-token head", "layer 1: an induction head"};

// Space / → / PageDown: the next step; ← / PageUp / Backspace: the one before (as the walk-through).
void handle_keys(int& step) {
  if (ImGui::GetIO().WantTextInput) return;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, false); };
  if (pressed(GLFW_KEY_SPACE) || pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_PAGE_DOWN)) ++step;
  if (pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_PAGE_UP) || pressed(GLFW_KEY_BACKSPACE)) --step;
  step = std::clamp(step, 0, kInductionSteps - 1);
}

// The lesson's run: the engine's induction defaults, which it tunes to reach 90% on the predictable
// half in well under a minute.
bool lesson_run_exists(const TrainingUi& t) {
  if (!t.job || t.view.phase == TrainingPhase::Failed) return false;
  const model::TrainConfig want = model::resolved(model::TrainConfig{});
  const model::TrainConfig& have = t.job->config();
  return have.task.kind == want.task.kind && have.task.length == want.task.length && have.task.symbols == want.task.symbols &&
         have.n_layer == want.n_layer && have.n_head == want.n_head && have.d_model == want.d_model && have.steps == want.steps &&
         have.seed == want.seed;
}

// The head of `layer` that scores highest on `score` (previous-token or induction), or −1.
int best_head(const TrainingView& v, int layer, double model::HeadScores::*score) {
  if (layer >= static_cast<int>(v.kinds.size())) return -1;
  const auto& row = v.kinds[static_cast<std::size_t>(layer)];
  int best = -1;
  for (int h = 0; h < static_cast<int>(row.size()); ++h) {
    if (best < 0 || row[static_cast<std::size_t>(h)].scores.*score > row[static_cast<std::size_t>(best)].scores.*score) best = h;
  }
  return best;
}

// What entering a step does, once: training starts (or resumes) on step 2, a head is lifted on
// steps 4 and 5 (tried again each frame until the run has maps to choose from).
void enter_step(TrainInductionUi& ui, const TrainingUi& t, Commands& out) {
  const int step = ui.step;
  if (ui.entered == step) return;
  if (step < 3) ui.entered = step;
  if (step == 1 || step == 2) {
    if (!lesson_run_exists(t)) {
      out.push_back(StartTraining{"induction", model::resolved(model::TrainConfig{})});
    } else if (t.view.phase == TrainingPhase::Paused && training_resumable(t)) {
      out.push_back(StartTraining{});  // resumes what a lift paused
    }
  }
  if (step == 3 || step == 4) {
    const int layer = step == 3 ? 0 : 1;
    const int head = best_head(t.view, layer, step == 3 ? &model::HeadScores::previous_token : &model::HeadScores::induction);
    if (head < 0) return;
    ui.entered = step;
    ui.lift_layer = layer;
    out.push_back(LiftTrainingHead{layer, head});
  }
}

void accent_line(const ViewContext& ctx, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, palette(ctx.view).accent);
  text_wrapped_unformatted(text);
  ImGui::PopStyleColor();
}

std::string status_line(const TrainingView& v) {
  char buf[200];
  const std::size_t n = v.points.size(), k = std::min<std::size_t>(n, 20);
  double loss = 0, acc = 0;
  for (std::size_t i = n - k; i < n; ++i) loss += v.points[i].loss, acc += v.points[i].accuracy;
  if (k) loss /= static_cast<double>(k), acc /= static_cast<double>(k);
  std::snprintf(buf, sizeof buf, "step %d of %d%s · loss %s · accuracy on the predictable half %s", v.step, v.steps,
                v.phase == TrainingPhase::Running ? "" : v.phase == TrainingPhase::Finished ? " (finished)" : " (paused)",
                fixed_decimals(loss, 3).c_str(), fixed_decimals(acc, 2).c_str());
  return buf;
}

// The curve on the left and every head on the right, in `height`. On a projector the layers take
// turns (layer, ↑ ↓), as in the Training window: four maps in half the width were ~125 px at
// 1280 × 720, too small for the back of a room (issue 69); the phase change shows the curve alone.
void curve_and_maps(const PageInputs& in, TrainInductionUi& ui, float height, bool show_phase) {
  const TrainingView& v = in.training.view;
  const float fs = ImGui::GetFontSize();
  const float w = ImGui::GetContentRegionAvail().x;
  const PhaseChange phase = find_phase_change(v.points);
  // On a projector the phase change is the curve's step: the curve takes the width, its markers
  // and labels room to stand apart; below its text the maps had 130 px (issue 69), and the Training
  // window (F2) and the next steps show the heads.
  const bool curve_only = show_phase && in.ctx.view.presenter;
  ImGui::BeginGroup();
  // Shaded only where the text beside it says there was a phase change (the dry run saw the band
  // beside "no sudden fall yet").
  draw_loss_curve(in.ctx.view, v, ImVec2(curve_only ? w : w * 0.5f - fs * 0.5f, height), show_phase && phase.sudden() ? &phase : nullptr);
  ImGui::EndGroup();
  if (curve_only) return;
  ImGui::SameLine(0, fs);
  ImGui::BeginGroup();
  const int layers = static_cast<int>(v.maps.size());
  const bool turns = in.ctx.view.presenter && layers > 1;
  float maps_h = height;
  if (turns) {
    const float above = ImGui::GetCursorPosY();
    ui.maps_layer = choose_layer_line(ui.maps_layer, layers);
    maps_h -= ImGui::GetCursorPosY() - above;
  }
  draw_head_maps(in.ctx.view, v, ImVec2(ImGui::GetContentRegionAvail().x, maps_h), turns ? ui.maps_layer : -1, -1, turns);
  ImGui::EndGroup();
}

// Where a step's map goes. Under its text a map got what the text left: 110 px at step 1, a 24 × 24
// map in ~270 px with 4 px labels at steps 4 and 5 while the right half of a projector stayed empty
// (issue 69). In presenter mode the text takes a column on the left and the map the whole height on
// the right; normal mode keeps the text above the map.
struct TextBesideMap {
  bool beside = false;
  ImVec2 top{}, avail{};
  float text_w = 0;

  TextBesideMap(bool presenter, float text_share) : beside(presenter) {
    top = ImGui::GetCursorScreenPos();
    avail = ImGui::GetContentRegionAvail();
    text_w = avail.x * text_share;
    if (!beside) return;
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + text_w);
  }
  TextBesideMap(const TextBesideMap&) = delete;
  TextBesideMap& operator=(const TextBesideMap&) = delete;
  // The map's group ends with the step's drawing (its title wraps back to the group's left edge).
  ~TextBesideMap() {
    if (map_started) ImGui::EndGroup();
  }
  // Ends the text and returns the room the map has (its cursor placed at its top left).
  ImVec2 map_room() {
    if (!beside) return ImGui::GetContentRegionAvail();
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    const float gap = ImGui::GetFontSize();
    ImGui::SetCursorScreenPos(ImVec2(top.x + text_w + gap, top.y));
    ImGui::BeginGroup();
    map_started = true;
    return ImVec2(avail.x - text_w - gap, avail.y);
  }

private:
  bool map_started = false;
};

void draw_task(const PageInputs& in, Commands& out) {
  const ViewContext& ctx = in.ctx;
  const float fs = ImGui::GetFontSize();
  const model::TaskSpec task = model::resolved(model::TrainConfig{}).task;
  TextBesideMap layout(ctx.view.presenter, 0.62f);
  char buf[700];
  std::snprintf(buf, sizeof buf,
                "The model reads %d symbols drawn at random from %d, in which spans (2 to %d symbols) are copied from earlier "
                "places to later ones, anywhere. It must predict the copied symbols. No position says where a copy comes from; "
                "the only way is to look back: find where the current symbol was before, and copy the one that followed it.",
                task.sequence_length(), task.symbols, task.length);
  text_wrapped_unformatted(buf);
  accent_line(ctx, "One head cannot do it: a key knows its own symbol, not the one before it. Two can. In layer 0 a previous-token "
                     "head copies into each position the symbol before it; in layer 1 an induction head's query (my symbol) then "
                     "matches the key that now says \"the symbol before me was yours\", and its value copies what came next.");
  text_wrapped("That second head is the one in the pipeline, made by hand: its keys hold the symbol before, its queries their own. "
               "\"Query, Key, Value\" asks what a model learns: \"at this position, what query best retrieves useful past context?\" "
               "Press Space to let a model find these two heads by gradient descent.");
  const ImVec2 avail = layout.map_room();
  // The hand-made head is the shown result's document (the live one may have moved on).
  const Scenario& s = ctx.shown();
  if (lesson_view(s.lesson) != kTrainInductionView || !ctx.results.has_result) return;
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  const float side = std::min(avail.y - fs * 0.5f, layout.beside ? avail.x : avail.x * 0.45f);
  if (side < fs * 5) return;
  // As wide as the title's one line, where a map as wide as it is tall (a projector's few lines
  // below the text) would wrap the title into three and leave the map a third of the height.
  const char* title = "the hand-made induction head's weights";
  draw_lesson_matrix(in.canvas(out), "ind_hand", title, Stage::Weights, ctx.results.result.weights, &ctx.results.blocked, ql, kl,
                     ImVec2(std::min(avail.x, std::max(side, ImGui::CalcTextSize(title).x)), side));
}

void draw_training(const PageInputs& in, TrainInductionUi& ui) {
  const TrainingUi& t = in.training;
  const TrainingView& v = t.view;
  const float fs = ImGui::GetFontSize();
  text_wrapped("A two-layer GPT-2 with %s a layer starts from random weights; its W_Q, W_K and W_V are, as \"Query, Key, "
               "Value\" says, \"all trained via backpropagation\" on batches of such sequences. "
               "Watch the loss: flat at first, the model guessing; then it falls. The maps are every head on one sequence, "
               "%d random symbols and their copy, redrawn as it trains.",
               count_of(t.job ? t.job->config().n_head : model::resolved(model::TrainConfig{}).n_head, "head").c_str(),
               (t.job ? t.job->config() : model::resolved(model::TrainConfig{})).task.length);
  error_text(palette(in.ctx.view).error, v.error);
  if (v.maps.empty()) {
    text_wrapped_unformatted("Making the model…");
    return;
  }
  accent_line(in.ctx, status_line(v));
  curve_and_maps(in, ui, ImGui::GetContentRegionAvail().y - fs * 0.3f, false);
}

}  // namespace

std::string no_phase_change_text(const std::vector<TrainingPoint>& points, int step, int steps) {
  const LossSoFar loss = loss_so_far(points);
  const std::string at = "step " + std::to_string(step) + " of " + std::to_string(steps);
  if (!loss.falling()) {
    return "No sudden fall yet at " + at + ": the loss is still on its plateau" +
           (points.empty() ? std::string() : " (" + fixed_decimals(loss.now, 2) + ")") +
           ". Stay here; the shaded window appears when it falls.";
  }
  if (step >= steps) {
    return "Over the whole run the loss fell from " + fixed_decimals(loss.start, 2) + " to " + fixed_decimals(loss.now, 2) +
           " without a sudden step: this run has no phase change.";
  }
  return "The loss is falling: " + fixed_decimals(loss.start, 2) + " at the start, " + fixed_decimals(loss.now, 2) + " at " + at +
         ". The shaded window marks the fall once the loss levels off after it; stay here.";
}

namespace {

// The heads that settled into a kind around the fall (a span before it to a span after), grouped by
// kind in the order they came: "induction L1H0 (step 300), L1H1 (300); previous-token L0H0 (420)".
struct HeadsAround {
  std::string text;
  int first_previous = -1, first_induction = -1;  // the first step each half of the circuit was named
};
HeadsAround heads_around(const std::vector<KindChange>& changes, const PhaseChange& pc) {
  HeadsAround out;
  const int span = std::max(1, pc.last_step - pc.first_step);
  std::vector<std::pair<model::HeadKind, std::string>> kinds;  // each kind's list, in order of its first
  for (const KindChange& c : changes) {
    if (c.step < pc.first_step - span || c.step > pc.last_step + span) continue;
    if (c.kind == model::HeadKind::PreviousToken && out.first_previous < 0) out.first_previous = c.step;
    if (c.kind == model::HeadKind::Induction && out.first_induction < 0) out.first_induction = c.step;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == c.kind; });
    const std::string head = "L" + std::to_string(c.layer) + "H" + std::to_string(c.head);
    if (it == kinds.end()) {
      kinds.emplace_back(c.kind, std::string(model::head_kind_name(c.kind)) + " " + head + " (step " + std::to_string(c.step) + ")");
    } else {
      it->second += ", " + head + " (" + std::to_string(c.step) + ")";
    }
  }
  for (const auto& k : kinds) out.text += (out.text.empty() ? "" : "; ") + k.second;
  return out;
}

void draw_phase_change(const PageInputs& in, TrainInductionUi& ui) {
  const TrainingView& v = in.training.view;
  const float fs = ImGui::GetFontSize();
  const PhaseChange pc = find_phase_change(v.points);
  if (!pc.sudden()) {
    text_wrapped_unformatted(no_phase_change_text(v.points, v.step, v.steps));
  } else {
    char buf[400];
    std::snprintf(buf, sizeof buf, "The phase change: steps %d to %d, the loss %s to %s: %s of its whole fall in a tenth of the run.",
                  pc.first_step, pc.last_step, fixed_decimals(pc.loss_before, 2).c_str(), fixed_decimals(pc.loss_after, 2).c_str(),
                  percent(100 * pc.share, 0).c_str());
    accent_line(in.ctx, buf);
    // Short enough that the curve and the maps keep their room on a projector: at 1280 × 720 the
    // sentences it had, one per head, left the maps 40 px (issue 69).
    const HeadsAround around = heads_around(v.changes, pc);
    text_wrapped_unformatted(around.text.empty() ? "No head settled into a new kind around it yet: the detector looks every few steps."
                                                 : "Around it: " + around.text + ".");
    if (around.first_induction >= 0 && around.first_previous >= 0 && around.first_induction < around.first_previous) {
      // The story runs previous-token first; a run whose names came the other way says why.
      text_wrapped("The induction heads were named first: a name needs a score %s of the way from even weights to 1, and "
                   "both halves grow together inside the fall.",
                   fixed_decimals(model::kPatternThreshold, 1).c_str());
    }
    text_wrapped_unformatted("Neither head helps alone, so they appear together and the loss drops in a step, not a slope; each "
                             "specialized in one relationship, as \"QKV, Scaled Dot-Product & Causal Masking\", Section 2.3, says "
                             "heads do.");
  }
  accent_line(in.ctx, status_line(v));
  curve_and_maps(in, ui, ImGui::GetContentRegionAvail().y - fs * 0.3f, true);
}

void draw_lifted(const PageInputs& in, const TrainInductionUi& ui, Commands& out) {
  const ViewContext& ctx = in.ctx;
  const TrainingUi& t = in.training;
  const int step = ui.step;
  const float fs = ImGui::GetFontSize();
  const bool lifted = !training_banner(t, ctx.shown()).empty() && ui.lift_layer == (step == 3 ? 0 : 1);
  const bool known = t.layer < static_cast<int>(t.view.kinds.size()) && !t.view.kinds.empty() &&
                     t.head < static_cast<int>(t.view.kinds[static_cast<std::size_t>(t.layer)].size());
  if (t.lift_pending || !lifted || !known) {
    text_wrapped_unformatted(t.lift_pending               ? "Pausing the training and opening the head…"
                             : !t.job                     ? "There is no model: step back to train one."
                             : t.view.kinds.size() < 2    ? "This run has no second layer: step back to train the lesson's model."
                             : t.view.kinds.empty()       ? "Waiting for the model's maps…"
                                                          : "The lab holds another document now: press ← then → to open this step's head again.");
    error_text(palette(ctx.view).error, t.error);
    return;
  }
  const model::HeadVerdict& v = t.view.kinds[static_cast<std::size_t>(t.layer)][static_cast<std::size_t>(t.head)];
  TextBesideMap layout(ctx.view.presenter, 0.4f);
  char buf[300];
  std::snprintf(buf, sizeof buf, "L%dH%d at step %d, now in the lab: %s, previous-token score %s, induction score %s.", t.layer, t.head,
                t.view.maps_step, std::string(model::head_kind_name(v.kind)).c_str(), fixed_decimals(v.scores.previous_token, 2).c_str(),
                fixed_decimals(v.scores.induction, 2).c_str());
  accent_line(ctx, buf);
  if (step == 3) {
    text_wrapped_unformatted("Each query puts its weight on the key just before it, at every position: the stripe under the diagonal. "
                             "A copy may come from anywhere, so every position must know its previous symbol. Its queries and keys come "
                             "from the positions more than the symbols, so it does this for any sequence. Its output is the previous "
                             "symbol, added to each position for layer 1 to read. Press Space for layer 1.");
  } else {
    text_wrapped_unformatted("In the copy each query finds the earlier occurrence of its symbol and attends one step right of it, to "
                             "the symbol that came next: the stripe parallel to the diagonal. Its key was written by the previous-token "
                             "head below it, exactly the hand-made head of the first step. Ctrl+Z returns to layer 0's head.");
  }
  const ImVec2 avail = layout.map_room();
  const Scenario& s = ctx.shown();
  if (!ctx.results.has_result || ctx.results.result.weights.rows() != s.Q.rows()) return;
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  const float side = std::min(avail.y - fs * 0.3f, avail.x);
  if (side < fs * 5) return;
  draw_lesson_matrix(in.canvas(out), step == 3 ? "ind_l0" : "ind_l1", "weights, as the lab computes them from the head's q, k, v",
                     Stage::Weights, ctx.results.result.weights, &ctx.results.blocked, ql, kl, ImVec2(side, side));
}

}  // namespace

TrainInductionUi::TrainInductionUi() {
  if (const char* at = std::getenv("ATTNLAB_GUI_STEP")) step = std::clamp(std::atoi(at) - 1, 0, kInductionSteps - 1);
}

bool train_induction_goes_on(const Scenario& shown, const TrainingUi& training) {
  return lesson_view(shown.lesson) == kTrainInductionView || !training_banner(training, shown).empty();
}

void draw_train_induction_page(const PageInputs& in, const TrainInductionNumbers*, TrainInductionUi& ui, Commands& out) {
  int& step = ui.step;
  handle_keys(step);
  const bool unicode = in.ctx.services.fonts.unicode;
  // Navigation first, so the buttons stay put whatever the text below does.
  ImGui::BeginDisabled(step == 0);
  if (ImGui::Button(unicode ? "← Back" : "< Back")) --step;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(step == kInductionSteps - 1);
  if (ImGui::Button(unicode ? "Next →" : "Next >")) ++step;
  ImGui::EndDisabled();
  step = std::clamp(step, 0, kInductionSteps - 1);
  ImGui::SameLine();
  char title[120];
  std::snprintf(title, sizeof title, "Step %d of %d: %s", step + 1, kInductionSteps, kTitles[step]);
  ImGui::TextUnformatted(title);
  const char* more = "Training window (F2)";
  same_line_if_fits(button_width(more) + ImGui::GetFontSize());
  if (ImGui::Button(more)) out.push_back(ShowWindow{"Training"});
  enter_step(ui, in.training, out);
  switch (step) {
    case 0: draw_task(in, out); break;
    case 1: draw_training(in, ui); break;
    case 2: draw_phase_change(in, ui); break;
    default: draw_lifted(in, ui, out); break;
  }
}

}  // namespace attnlab::gui
