// The Model window's Generate panel on an ImGui context with no window (docs/MODELS.md,
// "Generation"), on the built-in induction model: Generate and One token write the model's tokens
// into the text, the chips and the grid, each equal to a whole forward's most probable token at
// T = 0; Stop keeps the tokens written at any moment; the same seed writes the same text; the
// bars follow the temperature slider; a text edited at its end runs only its new positions and
// gives what a whole run gives; bad requests are refused in place. And the kv-cache lesson's
// buttons that reach the Model window.
#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/presets.hpp"
#include "gui/lessons/kv_cache_page.hpp"
#include "gui/lessons/lesson_numbers.hpp"
#include "gui/model_window/generate_panel.hpp"
#include "gui/model_window/model_window.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/widgets/drawn_text.hpp"
#include "headless_imgui.hpp"
#include "model/model_window_fixture.hpp"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

namespace attnlab::gui {
namespace {

// A span of 12 symbols and the first two of its copy: the induction model goes on copying.
const std::vector<int> kPrompt = {3, 17, 8, 21, 5, 12, 0, 19, 9, 14, 2, 23, 3, 17};

std::string text_of(const std::vector<int>& ids) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ids.size(); ++i) s << (i ? " " : "") << ids[i];
  return s.str();
}

// The most probable next token after `ids` by a whole forward over them (no cache): the reference
// a greedy draw over the cache must equal. Ties go to the lower id, as the sampler's do.
int whole_forward_argmax(const model::LanguageModel& m, const std::vector<int>& ids) {
  model::ForwardOptions o;
  o.keep_weights = false;
  o.keep_logits = true;
  const auto logits = m.forward(ids, o).logits;
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

class GeneratePanel : public ModelWindowTest {
protected:
  void SetUp() override {
    ModelWindowTest::SetUp();
    apply_commands(state, services, open_model_file(state.model, "induction", state.platform.threads));
    ASSERT_TRUE(state.model.model) << state.model.error;
    set_model_text(state.model, text_of(kPrompt), true);
    wait();
    ASSERT_EQ(state.model.ids, kPrompt);
  }
  // Frames until the run or generation in progress is done and taken.
  void wait() {
    ASSERT_NO_FATAL_FAILURE(wait_for_run());
    frame();
  }
  // Clicks every spot of the next-token column (the buttons' place depends on the font) and
  // calls `wrote(tokens)` after each click that wrote tokens; stops when it returns true.
  template <class Wrote>
  void click_in_column(Wrote wrote) {
    for (float y = 40; y < 600; y += 8) {
      for (float x = 1000; x < 1275; x += 12) {
        const std::size_t before = state.model.ids.size();
        frame(ImVec2(x, y), false);
        frame(ImVec2(x, y), true);
        frame(ImVec2(x, y), false);
        if (state.model.job) wait();
        if (state.model.ids.size() > before && wrote(state.model.ids.size() - before)) return;
      }
    }
  }
  int positions() const { return state.model.model->config().n_ctx; }
  // The tokens the model's positions leave after the text.
  int room() const { return positions() - static_cast<int>(state.model.ids.size()); }
  // Whatever the draws, the window's text, tokens, sequence and run agree.
  void expect_consistent() {
    const ModelUi& m = state.model;
    ASSERT_TRUE(m.run);
    EXPECT_EQ(m.run->trace.ids, m.ids);
    EXPECT_EQ(m.sequence->ids(), m.ids);
    EXPECT_EQ(m.model->tokenize(m.text, "the text"), m.ids) << m.text;
    for (const auto& [pos, t] : m.generate.drawn) {
      ASSERT_LT(pos, static_cast<std::int64_t>(m.ids.size()));
      EXPECT_EQ(m.ids[static_cast<std::size_t>(pos)], t.id) << "position " << pos;
    }
    const auto n = static_cast<Eigen::Index>(m.ids.size());
    EXPECT_EQ(m.run->trace.heads[1][1].weights.rows(), n) << "the grid covers every token";
  }
};

TEST_F(GeneratePanel, GenerateWritesWhatAWholeForwardPredicts) {
  ModelUi& m = state.model;
  m.generate.sampling.temperature = 0;
  generate_tokens(m, 5, true);
  ASSERT_TRUE(m.error.empty()) << m.error;
  wait();
  ASSERT_EQ(m.ids.size(), kPrompt.size() + 5);
  // Each written token is the argmax of a whole forward over the text before it.
  for (std::size_t i = kPrompt.size(); i < m.ids.size(); ++i) {
    const std::vector<int> before(m.ids.begin(), m.ids.begin() + static_cast<std::ptrdiff_t>(i));
    EXPECT_EQ(m.ids[i], whole_forward_argmax(*m.model, before)) << "token " << i;
    const auto& drawn = m.generate.drawn.at(static_cast<std::int64_t>(i));
    EXPECT_EQ(drawn.prob, 1.0) << "greedy draws take their token with probability 1";
    EXPECT_GT(drawn.model_prob, 0.0);
    EXPECT_LE(drawn.model_prob, 1.0);
  }
  EXPECT_EQ(m.text, text_of(m.ids));
  expect_consistent();
  // The grid's weights are a whole run's, to float rounding.
  const model::ModelRun whole = model::run_model(*m.model, m.ids, model::ForwardOptions{});
  for (int l = 0; l < 2; ++l) {
    for (int h = 0; h < 2; ++h) {
      const model::CausalWeights& a = m.run->trace.heads[l][h].weights;
      const model::CausalWeights& b = whole.trace.heads[l][h].weights;
      ASSERT_EQ(a.rows(), b.rows());
      EXPECT_LT(max_abs_difference(a, b), 1e-5) << "L" << l << "H" << h;
    }
  }
  // The chips' tooltip and the last draw's bars draw.
  ImGui::NewFrame();
  ImGui::Begin("Model");
  EXPECT_TRUE(written_by_model(state.model, static_cast<std::int64_t>(kPrompt.size())));
  EXPECT_FALSE(written_by_model(state.model, 0));
  draw_drawn_token_tooltip(state.model, static_cast<std::int64_t>(kPrompt.size()));
  draw_generate_panel(view_context(state, services), state.model);
  ImGui::End();
  ImGui::Render();
}

TEST_F(GeneratePanel, TheButtonsWriteOneTokenOrN) {
  ModelUi& m = state.model;
  m.generate.count = 3;
  bool one = false, many = false;
  click_in_column([&](std::size_t written) {
    // "One token" writes 1, "Generate N" the count the Sampling fold shows (a click may have
    // opened it and changed it).
    one = one || written == 1;
    many = many || (written == static_cast<std::size_t>(m.generate.count) && written > 1);
    EXPECT_TRUE(written == 1 || written == static_cast<std::size_t>(m.generate.count)) << written;
    expect_consistent();
    set_model_text(m, text_of(kPrompt), true);  // room for the next click
    wait();
    return one && many;
  });
  EXPECT_TRUE(one) << "no click in the column wrote one token";
  EXPECT_TRUE(many) << "no click in the column wrote " << m.generate.count << " tokens";
}

TEST_F(GeneratePanel, NearTheLastPositionGenerateWritesWhatFits) {
  ModelUi& m = state.model;
  m.generate.sampling.temperature = 0;
  m.generate.count = 20;
  // Two positions left: "Generate" writes 2 (not a refusal for 20), "One token" 1.
  std::vector<int> ids = kPrompt;
  while (static_cast<int>(ids.size()) < positions() - 2) ids.push_back(ids[ids.size() - 12]);
  set_model_text(m, text_of(ids), true);
  wait();
  bool two = false;
  click_in_column([&](std::size_t written) {
    EXPECT_TRUE(written == 1 || written == 2) << written;
    EXPECT_TRUE(m.error.empty()) << m.error;
    two = two || written == 2;
    set_model_text(m, text_of(ids), true);
    wait();
    return two;
  });
  EXPECT_TRUE(two) << "no click wrote the two tokens that fit";
  // None left: nothing a click can write.
  generate_tokens(m, 2, true);
  wait();
  ASSERT_EQ(room(), 0);
  const std::vector<int> full = m.ids;
  click_in_column([&](std::size_t) { return true; });
  EXPECT_EQ(m.ids, full);
}

TEST_F(GeneratePanel, StopKeepsTheTokensWrittenAtAnyMoment) {
  ModelUi& m = state.model;
  m.generate.sampling.temperature = 1;
  // Stop at once, after the first token has arrived, and after a few frames: every time the text,
  // its tokens, the sequence and the grid agree and hold the tokens written, none after Stop.
  for (int when : {0, 1, 3}) {
    set_model_text(m, text_of(kPrompt), true);
    wait();
    generate_tokens(m, room() - 2, true);  // room for two more after the Stops
    ASSERT_TRUE(m.job) << m.error;
    for (int f = 0; f < when && m.job; ++f) frame();
    cancel_model_run(m);  // the Stop button's action
    ASSERT_TRUE(m.error.empty()) << m.error;
    wait();
    EXPECT_FALSE(m.cancelled) << "Stop keeps what was written; it is not a cancelled text";
    EXPECT_GE(m.ids.size(), kPrompt.size());
    EXPECT_LE(static_cast<int>(m.ids.size()), positions());
    EXPECT_TRUE(std::equal(kPrompt.begin(), kPrompt.end(), m.ids.begin()));
    EXPECT_EQ(m.generate.drawn.size(), m.ids.size() - kPrompt.size());
    expect_consistent();
  }
  // After a Stop the sequence goes on: two more tokens.
  const std::size_t at = m.ids.size();
  generate_tokens(m, 2, true);
  wait();
  EXPECT_EQ(m.ids.size(), at + 2);
  expect_consistent();
}

TEST_F(GeneratePanel, TheSameSeedWritesTheSameText) {
  ModelUi& m = state.model;
  m.generate.sampling.temperature = 2.5;  // hot: the draws wander, so equal texts say something
  set_generate_seed(m, 7);
  generate_tokens(m, 12, true);
  wait();
  const std::vector<int> first = m.ids;
  // Back to the prompt: the cache keeps it and runs its last position only.
  set_model_text(m, text_of(kPrompt), true);
  ASSERT_TRUE(m.job);
  const std::shared_ptr<ModelJob> job = m.job;
  wait();
  EXPECT_EQ(job->positions_run(), 1);
  EXPECT_TRUE(m.generate.drawn.empty()) << "the written tokens' draws go with them";
  set_generate_seed(m, 7);
  generate_tokens(m, 12, true);
  wait();
  EXPECT_EQ(m.ids, first);
  // The generator carries on from one Generate to the next: the next 12 draws of seed 7 are not
  // its first 12 again (checked on their numbers, the draws' probabilities).
  std::vector<double> a, b;
  for (std::size_t i = kPrompt.size(); i < first.size(); ++i) a.push_back(m.generate.drawn.at(static_cast<std::int64_t>(i)).prob);
  set_model_text(m, text_of(kPrompt), true);
  wait();
  generate_tokens(m, 12, true);
  wait();
  for (std::size_t i = kPrompt.size(); i < m.ids.size(); ++i) b.push_back(m.generate.drawn.at(static_cast<std::int64_t>(i)).prob);
  EXPECT_NE(a, b);
  expect_consistent();
}

TEST_F(GeneratePanel, TheBarsFollowTheTemperature) {
  ModelUi& m = state.model;
  const auto& logits = m.run->trace.logits;
  const int vocab = m.model->config().vocab_size;
  ASSERT_EQ(logits.size(), static_cast<std::size_t>(vocab));
  for (double t : {0.0, 0.5, 1.0, 2.0, 3.0}) {
    m.generate.sampling.temperature = t;
    std::vector<int> ids;
    const model::TokenDistribution* d = next_token_bars(m, &ids);
    ASSERT_TRUE(d);
    ASSERT_EQ(ids.size(), 10u);
    // After T: softmax(logits / T), computed here in double; T = 0 all on the argmax.
    const double mx = *std::max_element(logits.begin(), logits.end());
    double z = 0, z1 = 0;
    for (float l : logits) {
      if (t > 0) z += std::exp((l - mx) / t);
      z1 += std::exp(l - mx);
    }
    for (int id = 0; id < vocab; ++id) {
      const double l = logits[static_cast<std::size_t>(id)];
      const double want = t > 0 ? std::exp((l - mx) / t) / z : (l == mx ? 1.0 : 0.0);
      EXPECT_NEAR(d->drawn[static_cast<std::size_t>(id)], want, 1e-6) << "T " << t << " id " << id;
      EXPECT_NEAR(d->model[static_cast<std::size_t>(id)], std::exp(l - mx) / z1, 1e-6) << "the model's own does not move with T";
    }
    frame();
  }
}

// The number beside each bar is the model's own probability, whatever the slider's temperature;
// what a draw uses follows in brackets where it differs (the dry run read the window's default
// T = 0.80 as the model's confidence: '7' 0.999 where the model's own is 0.9955).
TEST_F(GeneratePanel, TheNumberShownIsTheModelsOwnProbability) {
  ModelUi& m = state.model;
  for (double t : {0.8, 1.0, 2.0}) {
    m.generate.sampling.temperature = t;
    frame();
    std::vector<int> ids;
    const model::TokenDistribution* d = next_token_bars(m, &ids);
    ASSERT_TRUE(d);
    const int top = ids.front();
    const std::string own = format_number(d->model[static_cast<std::size_t>(top)], NumberUse::Axis, 3);
    const std::string draw = format_number(d->drawn[static_cast<std::size_t>(top)], NumberUse::Axis, 3);
    // A narrow column leaves the bracket out (the thin bar and the tooltip still show the draw's).
    const std::string want = own + (draw != own ? " (" + draw + ")" : "");
    bool found = false;
    for (const DrawnText& text : drawn_texts(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts)) found = found || text.text == want || text.text == own;
    EXPECT_TRUE(found) << "T = " << t << ": no bar reads \"" << want << "\" or \"" << own << "\" (the model's own first)";
    if (t != 1.0) {
      EXPECT_NE(own, draw) << "T = " << t << " moves what a draw uses";
    }
  }
}

TEST_F(GeneratePanel, TypingAtTheEndRunsOnlyTheNewTokens) {
  ModelUi& m = state.model;
  std::vector<int> ids = kPrompt;
  ids.push_back(8);
  set_model_text(m, text_of(ids), true);
  ASSERT_TRUE(m.job);
  std::shared_ptr<ModelJob> job = m.job;
  wait();
  EXPECT_EQ(job->positions_run(), 1);
  // An edit at token 10 runs tokens 10 … 14 again.
  ids[10] = 4;
  set_model_text(m, text_of(ids), true);
  job = m.job;
  wait();
  EXPECT_EQ(job->positions_run(), static_cast<std::int64_t>(ids.size()) - 10);
  EXPECT_NE(job->status().find("from the cache"), std::string::npos) << job->status();
  // What the cache gives is what a whole run gives.
  const model::ModelRun whole = model::run_model(*m.model, ids, model::ForwardOptions{});
  ASSERT_EQ(m.run->trace.next_tokens.size(), whole.trace.next_tokens.size());
  for (std::size_t i = 0; i < whole.trace.next_tokens.size(); ++i) {
    EXPECT_EQ(m.run->trace.next_tokens[i].id, whole.trace.next_tokens[i].id);
    EXPECT_NEAR(m.run->trace.next_tokens[i].prob, whole.trace.next_tokens[i].prob, 1e-5);
  }
  for (int l = 0; l < 2; ++l) {
    for (int h = 0; h < 2; ++h) {
      EXPECT_LT(max_abs_difference(m.run->trace.heads[l][h].weights, whole.trace.heads[l][h].weights), 1e-5);
      EXPECT_EQ(m.run->kinds[l][h].kind, whole.kinds[l][h].kind);
    }
  }
  expect_consistent();
}

TEST_F(GeneratePanel, BadRequestsAreRefusedInPlace) {
  ModelUi& m = state.model;
  const auto last_good = m.ids;
  generate_tokens(m, room() + 1, true);  // one more than the model's positions leave
  EXPECT_NE(m.error.find("positions"), std::string::npos) << m.error;
  EXPECT_NE(m.error.find("at most " + std::to_string(room())), std::string::npos) << m.error;
  EXPECT_FALSE(m.job);
  EXPECT_EQ(m.ids, last_good);
  frame();
  m.generate.sampling.temperature = -1;  // what no control lets through
  generate_tokens(m, 1, true);
  EXPECT_NE(m.error.find("temperature"), std::string::npos) << m.error;
  frame();
  m.generate.sampling.temperature = 1;
  // While a text runs, Generate waits for it.
  set_model_text(m, text_of(kPrompt) + " 8", true);
  if (m.job) {
    generate_tokens(m, 1, true);
    EXPECT_NE(m.error.find("waits"), std::string::npos) << m.error;
  }
  wait();
  generate_tokens(m, room(), true);  // exactly to the last position
  wait();
  EXPECT_EQ(static_cast<int>(m.ids.size()), positions());
  expect_consistent();
}

// The kv-cache lesson's view in the whole app: "Try it in the Model window" opens the lesson's model
// on its prompt at its temperature and seed, so that Generate there writes the lesson's own draws;
// Measure then times a token on that model.
class KvCacheLesson : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override {
    start(ImVec2(1280, 720), TestFonts::Default, load_preset("kv-cache"));
    window_open(state.view, "Lesson view") = true;
    for (int k = 0; k < 3; ++k) frame();
  }
  void TearDown() override {
    state.model.job.reset();
    stop();
  }
  // Clicks over the Lesson view's window, showing part `part` of the view (a click may choose
  // another), until `done` holds.
  template <class Done>
  bool click_in_lesson_view(int part, Done done) {
    const ImGuiWindow* w = ImGui::FindWindowByName("Lesson view");
    if (!w) return false;
    // Below the title bar: a click there would collapse or move the window.
    for (float y = w->Pos.y + w->TitleBarHeight() + 4; y < w->Pos.y + w->Size.y; y += 12) {
      for (float x = w->Pos.x + 12; x < w->Pos.x + w->Size.x - 12; x += 30) {  // the exposure part's button is on the parts' line
        kv().part = part;
        click(ImVec2(x, y));
        if (done()) return true;
      }
    }
    return false;
  }
  // The lesson page's UI state.
  KvCacheUi& kv() { return *page_ui<KvCacheUi>(state.lesson); }
  void wait() {
    for (int i = 0; i < 4000 && state.model.job; ++i) {
      frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_FALSE(state.model.job);
  }
};

TEST_F(KvCacheLesson, TryItWritesTheLessonsDrawsAndMeasureTimesTheOpenModel) {
  std::string error;
  const KvCacheNumbers* n = lesson_numbers<KvCacheNumbers>(state.lesson, view_context(state, services), error);
  ASSERT_TRUE(n) << error;
  const ExposureBias e = n->exposure;
  ModelUi& m = state.model;
  ASSERT_TRUE(click_in_lesson_view(3, [&] { return m.model && m.text == text_of(e.prompt); })) << "no click opened the model";
  EXPECT_TRUE(window_open(state.view, "Model"));
  wait();
  EXPECT_EQ(m.generate.sampling.temperature, e.temperature);
  generate_tokens(m, m.generate.count, true);
  wait();
  ASSERT_EQ(m.ids.size(), e.prompt.size() + e.truth.size());
  EXPECT_EQ(std::vector<int>(m.ids.begin() + static_cast<std::ptrdiff_t>(e.prompt.size()), m.ids.end()), e.drawn)
      << "Generate in the Model window writes the lesson's draws";
  // Measure: one token on the open model, with and without the cache (the Model window closed so
  // that it covers nothing; its model stays open).
  window_open(state.view, "Model") = false;
  ASSERT_TRUE(click_in_lesson_view(1, [&] { return kv().cost.has_value(); })) << "no click measured";
  EXPECT_EQ(kv().model, m.model->display_name());
  EXPECT_EQ(kv().cost->prompt,
            static_cast<std::int64_t>(std::min<std::size_t>(m.ids.size(), static_cast<std::size_t>(m.model->config().n_ctx - 3))));
  EXPECT_GT(kv().cost->ms_cached, 0);
  EXPECT_GT(kv().cost->ms_whole, 0);
  EXPECT_LT(kv().cost->flops_cached, kv().cost->flops_whole);
  // And the check on the open model.
  ASSERT_TRUE(click_in_lesson_view(0, [&] { return kv().check.has_value(); })) << "no click checked";
  EXPECT_LE(kv().check->largest_difference, kv().check->bound);
  EXPECT_EQ(kv().check->cached, kv().check->whole);
}

}  // namespace
}  // namespace attnlab::gui
