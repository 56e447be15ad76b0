// Lesson texts: the template syntax, the four parts every lesson has, references that resolve on
// every lesson and after random edits, the course texts' own names, and the reference cards.
#include "engine/lessons/lesson_card.hpp"
#include "support/build_features.hpp"
#include "engine/lessons/lesson_report.hpp"
#include "engine/io/lesson_template.hpp"
#include "engine/lessons/lesson_text.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/cpu/dense.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace attnlab {
namespace {

using json = nlohmann::ordered_json;

// "Seed 000", "seeds 003 and 004", "seed 002's": our own word for the course texts, never shown.
const std::regex kSeedName(R"(\bseeds?('s)?\s+0\d\d)", std::regex::icase);

std::string all_text(const RenderedLesson& t) {
  std::string out = t.goal.plain() + "\n";
  for (const auto& parts : {&t.look_at, &t.try_steps, &t.course_notes})
    for (const auto& p : *parts) out += p.plain() + "\n";
  return out + t.source + "\n";
}

TEST(LessonTemplate, FillsNumbersListsAndFormats) {
  const json v = json::parse(R"({"weights": [[0.40111208, 0.19777581], [0.25, 0.5]], "n": 3, "x": {"y": [1.5]},
                                 "blocked": "−∞"})");
  EXPECT_EQ(render_template("w = {weights[0][0]}", v, "t").plain(), "w = 0.4011");
  EXPECT_EQ(render_template("{weights[0]:.3f}", v, "t").plain(), "(0.401, 0.198)");
  EXPECT_EQ(render_template("{weights[1]}", v, "t").plain(), "(0.2500, 0.5000)");
  EXPECT_EQ(render_template("{weights[0][0]} {n} {x.y[0]}", json::parse(R"({"weights": [[1.0]], "n": 2.0, "x": {"y": [-0.00001]}})"), "t").plain(), "1 2 -1e-05");
  EXPECT_EQ(render_template("n = {n}, {x.y[0]:.2f}, {blocked}", v, "t").plain(), "n = 3, 1.50, −∞");
  EXPECT_EQ(render_template("{{literal}} {n:d}", v, "t").plain(), "{literal} 3");
  const RenderedText r = render_template("a {weights[0][1]:.2f} b", v, "t");
  ASSERT_EQ(r.spans.size(), 3u);
  EXPECT_TRUE(r.spans[1].number);
  EXPECT_FALSE(r.spans[0].number);
}

TEST(LessonTemplate, UnresolvedReferencesRenderAsADash) {
  const json v = json::parse(R"({"weights": [[0.5, 0.5]]})");
  const RenderedText past = render_template("{weights[3][0]} and {weights[0][9]}", v, "t");
  EXPECT_EQ(past.plain(), std::string(kMissingNumber) + " and " + kMissingNumber);
  EXPECT_EQ(past.out_of_range.size(), 2u);
  const RenderedText unknown = render_template("{wieghts[0]} {weights.x}", v, "t");
  EXPECT_EQ(unknown.unknown.size(), 2u);
  EXPECT_EQ(unknown.plain().find('{'), std::string::npos);
}

TEST(LessonTemplate, BadSyntaxIsAnInputErrorNamingTheReference) {
  for (const char* bad : {"{weights[0]", "{weights[x]}", "{weights[0]:.2q}", "{0weights}", "{}", "a } b",
                          "{weights[]}", "{weights..x}", "{weights[0]:.12f}", "{weights{0}}"}) {
    SCOPED_TRACE(bad);
    test::expect_refusal([&] { check_template(bad, "lesson three-tokens: lesson.look_at[0]"); },
                         {"lesson three-tokens: lesson.look_at[0]"});
  }
  test::expect_refusal([] { check_template("weights {weights[0]:x}", "where"); }, {"{weights[0]:x}"});
}

TEST(LessonText, BadTemplateInALessonFileNamesTheLessonAndTheReference) {
  const std::string text = R"({"format": "attnlab-scenario", "version": 1, "title": "t", "Q": [[1]], "K": [[1]],
    "V": [[1]], "lesson": {"goal": "g {weights[0][0]:.9x}", "look_at": ["a"], "try": ["b"], "source": {"title": "c"}}})";
  test::expect_refusal([&] { parse_scenario(text, "my-lesson.json"); }, {"my-lesson.json", "{weights[0][0]:.9x}"});
  // A name the lesson has no number for is refused when the lesson is checked, not shown as a gap.
  Scenario s = parse_scenario(R"({"format": "attnlab-scenario", "version": 1, "title": "t", "Q": [[1]], "K": [[1]],
    "V": [[1]], "lesson": {"goal": "g {wieghts[0][0]}", "look_at": ["a"], "try": ["b"], "source": {"title": "c"}}})",
                              "my-lesson.json");
  test::expect_refusal([&] { check_lesson_references(s, "my-lesson.json"); }, {"my-lesson.json: lesson.goal", "{wieghts[0][0]}"});
  // A text with a part missing is refused.
  EXPECT_THROW(parse_scenario(R"({"format": "attnlab-scenario", "version": 1, "Q": [[1]], "K": [[1]], "V": [[1]],
    "lesson": {"goal": "g", "look_at": ["a"], "source": {"title": "c"}}})", "x.json"), InputError);
}

TEST(LessonText, EveryLessonHasTheFourPartsAndCitesTheCourseByTitle) {
  const std::set<std::string> titles{"QKV, Scaled Dot-Product & Causal Masking", "The Query-Key-Value framework",
                                     "Query, Key, Value", "13.2 Scaled dot-product attention"};
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    const LessonText& t = s.lesson.text;
    ASSERT_TRUE(t.present());
    EXPECT_LE(t.goal.size(), 160u) << "the goal is one short sentence";
    EXPECT_EQ(t.goal.find(". "), std::string::npos) << "one sentence: " << t.goal;
    EXPECT_GE(t.look_at.size(), 2u);
    EXPECT_LE(t.look_at.size(), 3u);
    EXPECT_GE(t.try_steps.size(), 2u);
    EXPECT_LE(t.try_steps.size(), 3u);
    EXPECT_TRUE(titles.count(t.source.title)) << t.source.title;
    EXPECT_FALSE(t.keys.empty()) << "the reference card lists the keys the lesson uses";
    // Each action names its control or key.
    for (const std::string& step : t.try_steps) {
      const bool names_one = std::regex_search(step, std::regex(R"(\b(Press|Click|Drag|Tick|Untick|Change|Shift\+click|Pick|Open|Run|Edit|Write|In the)\b)"));
      EXPECT_TRUE(names_one) << step;
    }
    if (!t.source.exercise.empty()) {
      EXPECT_EQ(t.source.exercise.rfind("2.3.", 0), 0u);
    }
  }
}

TEST(LessonText, EveryReferenceResolvesOnEveryLesson) {
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    EXPECT_NO_THROW(check_lesson_references(s, p.name));
    const RenderedLesson t = render_lesson_text(s, lesson_values(s, compute_cpu(s.problem())));
    const std::string text = all_text(t);
    EXPECT_EQ(text.find('{'), std::string::npos) << text;
    EXPECT_EQ(text.find(kMissingNumber), std::string::npos) << text;
    EXPECT_EQ(t.course_notes.size(), s.lesson.text.course_notes.size());
    EXPECT_FALSE(lesson_origin(s).edited);
    EXPECT_EQ(lesson_origin(s).preset, p.name);
  }
}

// The student's edits, at random: values, sizes, masks, scaling, temperature, normalizer.
Scenario random_edit(Scenario s, std::mt19937& rng) {
  using test::uniform_int;
  const int what = uniform_int(rng, 0, 6);
  const Eigen::Index n = s.Q.rows(), m = s.K.rows(), dk = s.Q.cols(), dv = s.V.cols();
  auto resize = [&](Matrix& M, Eigen::Index rows, Eigen::Index cols) {
    Matrix R = Matrix::Zero(rows, cols);
    const Eigen::Index r = std::min(rows, M.rows()), c = std::min(cols, M.cols());
    R.topLeftCorner(r, c) = M.topLeftCorner(r, c);
    M = R;
  };
  switch (what) {
    case 0: {  // one value
      Matrix& M = uniform_int(rng, 0, 2) == 0 ? s.Q : uniform_int(rng, 0, 1) ? s.K : s.V;
      M(uniform_int(rng, 0, static_cast<int>(M.rows()) - 1), uniform_int(rng, 0, static_cast<int>(M.cols()) - 1)) =
          std::normal_distribution<float>(0.0f, 3.0f)(rng);
      break;
    }
    case 1: {  // n and m (self-attention keeps them equal), tokens follow
      const Eigen::Index nn = uniform_int(rng, 1, 8), mm = n == m ? nn : uniform_int(rng, 1, 8);
      resize(s.Q, nn, dk);
      resize(s.K, mm, dk);
      resize(s.V, mm, dv);
      s.query_tokens.clear();
      s.key_tokens.clear();
      s.options.mask = Mask{};
      break;
    }
    case 2: {  // d_k and d_v
      const Eigen::Index k = uniform_int(rng, 1, 6), v = uniform_int(rng, 1, 6);
      resize(s.Q, n, k);
      resize(s.K, m, k);
      resize(s.V, m, v);
      break;
    }
    case 3: {
      const auto& kinds = test::all_mask_kinds();
      s.options.mask = test::random_mask(rng, kinds[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(kinds.size()) - 1))], n, m);
      break;
    }
    case 4: s.options.scale = !s.options.scale; break;
    case 5: s.options.temperature = std::exp(std::uniform_real_distribution<double>(std::log(0.05), std::log(20.0))(rng)); break;
    default: {
      const auto& norms = test::all_normalizers();
      s.options.normalizer = norms[static_cast<size_t>(uniform_int(rng, 0, static_cast<int>(norms.size()) - 1))];
    }
  }
  return s;
}

TEST(LessonText, EveryLessonRendersAfterRandomEdits) {
  std::mt19937 rng(2323);
  int rendered = 0, dashes = 0;
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    Scenario s = load_preset(p.name);
    for (int step = 0; step < 10; ++step) {
      Scenario next = random_edit(s, rng);
      try {
        validate_scenario(next, "edit");
      } catch (const InputError&) {
        continue;  // the GUI refuses this edit and keeps the last good scenario
      }
      s = next;
      const Result r = compute_cpu(s.problem());
      const LessonOrigin origin = lesson_origin(s);
      RenderedLesson t;
      ASSERT_NO_THROW(t = render_lesson_text(s, lesson_values(s, r), origin.edited));
      const std::string text = all_text(t);
      EXPECT_EQ(text.find('{'), std::string::npos) << text;
      EXPECT_EQ(text.find('}'), std::string::npos) << text;
      if (origin.edited) {
        EXPECT_TRUE(t.course_notes.empty()) << "notes on the course's numbers shown for edited numbers";
      }
      dashes += text.find(kMissingNumber) != std::string::npos;
      ++rendered;
      // The CLI's rendering of the same report leaves no reference behind; a view that cannot be
      // computed at these sizes (4 heads on d_model = 5) is a sentence (InputError), never a crash.
      // (Every few edits: the scaling lab's report runs its half-second sweep.)
      if (step % 4 == 3) {
        std::ostringstream out;
        try {
          write_lesson_text(out, lesson_report(p.name, s));
          EXPECT_EQ(out.str().find("{weights"), std::string::npos);
        } catch (const InputError& e) {
          EXPECT_GT(std::string(e.what()).size(), 10u);
        }
      }
    }
  }
  EXPECT_GT(rendered, 80);
  EXPECT_GT(dashes, 0) << "some edit should have made a reference point past a smaller matrix";
}

TEST(LessonText, EditedLessonIsToldApartFromItsOriginal) {
  Scenario s = load_preset("three-tokens");
  s.Q(0, 0) = 2;
  const LessonOrigin o = lesson_origin(s);
  EXPECT_EQ(o.preset, "three-tokens");
  EXPECT_TRUE(o.edited);
  const RenderedLesson t = render_lesson_text(s, lesson_values(s, compute_cpu(s.problem())), o.edited);
  EXPECT_TRUE(t.course_notes.empty());
  EXPECT_TRUE(t.has_notes);
  // The text shows the edited numbers: row 1's weights are no longer the book's 0.4011.
  EXPECT_EQ(t.look_at[0].plain().find("0.4011"), std::string::npos) << t.look_at[0].plain();
  const json report = lesson_report("three-tokens", s);
  EXPECT_TRUE(report.at("text").at("edited").get<bool>());
}

TEST(LessonText, NoUserFacingSeedNumbers) {
  // Lesson files, titles (`attnlab presets`) and every lesson's text report (`attnlab lesson`).
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    EXPECT_FALSE(std::regex_search(preset_json(p.name), kSeedName));
    EXPECT_FALSE(std::regex_search(p.title, kSeedName));
    std::ostringstream out;
    write_lesson_text(out, lesson_report(p.name, load_preset(p.name)));
    EXPECT_FALSE(std::regex_search(out.str(), kSeedName)) << out.str();
  }
  // Every string literal of the app and the engine (help text, panels, CLI messages).
  size_t files = 0;
  const std::regex literal(R"("[^"]*")");
  for (const char* dir : {"app", "engine"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(ATTNLAB_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".hpp")) continue;
      ++files;
      std::ifstream in(e.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        const size_t comment = line.find("//");
        const std::string code = line.substr(0, comment == std::string::npos ? line.size() : comment);
        for (std::sregex_iterator it(code.begin(), code.end(), literal), end; it != end; ++it) {
          EXPECT_FALSE(std::regex_search(it->str(), kSeedName)) << e.path() << ":" << number << ": " << it->str();
        }
      }
    }
  }
  EXPECT_GT(files, 50u);
}

TEST(LessonCard, IsAPdfWithTheTitleSourceAndKeys) {
  ATTNLAB_NEEDS_CAIRO();
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    const RenderedLesson t = render_lesson_text(s, lesson_values(s, compute_cpu(s.problem())));
    const Figure f = layout_lesson_card(s, t, p.name);
    EXPECT_GT(f.height, 100);
    std::string words;
    for (const auto& item : f.items) {
      if (const auto* text = std::get_if<TextItem>(&item)) {
        words += text->text + " ";
        EXPECT_LE(text->x + text_width(text->text, text->size, text->bold), f.width - 20) << text->text;
      }
    }
    EXPECT_NE(words.find("Source:"), std::string::npos);
    EXPECT_NE(words.find(t.keys.front().key.substr(0, t.keys.front().key.find(' '))), std::string::npos) << words;
  }
  const std::string pdf = lesson_card_pdf("three-tokens");
  EXPECT_EQ(pdf.rfind("%PDF", 0), 0u);
  const auto path = std::filesystem::temp_directory_path() / "attnlab-card-test.pdf";
  std::filesystem::remove(path);
  ExportOptions o;
  write_lesson_card("causal-six", path, o);
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
  EXPECT_THROW(write_lesson_card("causal-six", path, o), InputError) << "an existing file needs --force";
  EXPECT_THROW(write_lesson_card("causal-six", path.string() + ".png", o), InputError);
  EXPECT_THROW(lesson_card_pdf("no-such-lesson"), InputError);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace attnlab
