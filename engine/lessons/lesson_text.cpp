// Filling a lesson's text from the current result, and telling an edited lesson from its original.
#include "engine/lessons/lesson_text.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/lesson_report.hpp"
#include "engine/lessons/plain.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

using json = nlohmann::ordered_json;

// View numbers cost up to a few dozen recomputations of the scenario (temperature frames,
// precision runs): affordable at lesson sizes, skipped past them.
constexpr double kViewNumbersMaxCells = 65536;

json number(double v) {
  if (std::isfinite(v)) return short_double(static_cast<float>(v));
  return format_number(v, NumberUse::Prose);  // "∞", "−∞", "NaN"
}

json matrix_values(const Matrix& M) {
  json out = json::array();
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < M.cols(); ++j) row.push_back(number(M(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

RenderedText render_part(const std::string& text, const json& values, const std::string& where) {
  return render_template(text, values, where);
}

}  // namespace

json lesson_values(const Scenario& s, const Result& r) {
  json v;
  v["n"] = r.n;
  v["m"] = r.m;
  v["d_k"] = r.d_k;
  v["d_v"] = r.d_v;
  v["divisor"] = r.scale_divisor;
  v["temperature"] = s.options.temperature;
  v["effective_temperature"] = r.effective_temperature;
  const double cells = static_cast<double>(r.n) * static_cast<double>(r.m);
  const bool dense = r.dense && r.weights.rows() == r.n && r.weights.cols() == r.m && cells > 0;
  // The inputs and the n × m stages are listed only at sizes a text can sensibly quote.
  if (dense && cells <= kViewNumbersMaxCells) {
    v["Q"] = matrix_values(s.Q);
    v["K"] = matrix_values(s.K);
    v["V"] = matrix_values(s.V);
    v["scores"] = matrix_values(r.scores);
    v["logits"] = matrix_values(r.logits);
    v["weights"] = matrix_values(r.weights);
    v["output"] = matrix_values(r.output);
    v["saturation"] = matrix_values(r.saturation);
    // exp of each logit as the course texts do it by hand (no max subtracted), 0 where blocked.
    Matrix exps = r.logits.unaryExpr([](float x) { return std::isinf(x) && x < 0 ? 0.0f : std::exp(x); });
    v["exps"] = matrix_values(exps);
    json sums = json::array(), row_sums = json::array();
    for (Eigen::Index i = 0; i < r.n; ++i) {
      sums.push_back(number(exps.row(i).cast<double>().sum()));
      row_sums.push_back(number(r.weights.row(i).cast<double>().sum()));
    }
    v["exp_sums"] = sums;
    v["row_sums"] = row_sums;
    auto finite_max = [](const Matrix& M) {
      double mx = -INFINITY;
      for (Eigen::Index i = 0; i < M.rows(); ++i)
        for (Eigen::Index j = 0; j < M.cols(); ++j)
          if (std::isfinite(M(i, j))) mx = std::max(mx, static_cast<double>(M(i, j)));
      return mx;
    };
    v["max_score"] = number(finite_max(r.scores));
    v["max_logit"] = number(finite_max(r.logits));
  }
  json max_w = json::array(), ent = json::array(), eff = json::array();
  for (const auto& d : r.rows) {
    max_w.push_back(number(d.max_weight));
    ent.push_back(number(d.entropy));
    eff.push_back(number(d.effective_keys));
  }
  v["max_weight"] = max_w;
  v["entropy"] = ent;
  v["effective_keys"] = eff;
  v["scores_std"] = r.stats.scores.std;
  v["logits_std"] = r.stats.logits.std;
  // The view's numbers only when the text names one the lines above do not give: they can cost
  // dozens of recomputations (the temperature sweep), and the GUI fills the text on every result.
  bool needs_view = false;
  for (const std::string& ref : lesson_references(s.lesson.text)) {
    const std::string name = ref.substr(0, ref.find_first_of(".[:"));
    if (!v.contains(name)) needs_view = true;
  }
  if (needs_view && dense && cells <= kViewNumbersMaxCells) {
    try {
      const json view = lesson_view_numbers(s, r, false);
      for (const auto& [k, x] : view.items()) {
        if (!v.contains(k)) v[k] = x;
      }
    } catch (const InputError&) {
      // The view cannot be computed for these sizes (a padding of 3 on two tokens): its numbers
      // render as "—" until the student makes the scenario fit again or resets the lesson.
    }
  }
  return v;
}

std::vector<std::string> lesson_references(const LessonText& t) {
  std::vector<std::string> refs;
  auto add = [&](const std::string& text) {
    for (auto& r : check_template(text, "lesson text")) refs.push_back(std::move(r));
  };
  add(t.goal);
  for (const auto* list : {&t.look_at, &t.try_steps, &t.course_notes})
    for (const std::string& line : *list) add(line);
  return refs;
}

RenderedLesson render_lesson_text(const Scenario& s, const json& values, bool edited) {
  const LessonText& t = s.lesson.text;
  RenderedLesson out;
  out.edited = edited;
  out.has_notes = !t.course_notes.empty();
  out.source = source_line(t.source);
  out.keys = t.keys;
  if (!t.present()) return out;
  out.goal = render_part(t.goal, values, s.title + ": lesson.goal");
  for (size_t i = 0; i < t.look_at.size(); ++i)
    out.look_at.push_back(render_part(t.look_at[i], values, s.title + ": lesson.look_at[" + std::to_string(i) + "]"));
  for (size_t i = 0; i < t.try_steps.size(); ++i)
    out.try_steps.push_back(render_part(t.try_steps[i], values, s.title + ": lesson.try[" + std::to_string(i) + "]"));
  if (!edited) {
    for (size_t i = 0; i < t.course_notes.size(); ++i)
      out.course_notes.push_back(
          render_part(t.course_notes[i], values, s.title + ": lesson.course_notes[" + std::to_string(i) + "]"));
  }
  return out;
}

json lesson_text_json(const RenderedLesson& t) {
  auto lines = [](const std::vector<RenderedText>& parts) {
    json a = json::array();
    for (const auto& p : parts) a.push_back(p.plain());
    return a;
  };
  json j = {{"goal", t.goal.plain()}, {"look_at", lines(t.look_at)}, {"try", lines(t.try_steps)}, {"source", t.source}};
  if (!t.course_notes.empty()) j["course_notes"] = lines(t.course_notes);
  j["edited"] = t.edited;
  return j;
}

bool same_numbers(const Scenario& a, const Scenario& b) {
  auto same = [](const Matrix& x, const Matrix& y) { return x.rows() == y.rows() && x.cols() == y.cols() && x == y; };
  return same(a.Q, b.Q) && same(a.K, b.K) && same(a.V, b.V) && a.query_tokens == b.query_tokens &&
         a.key_tokens == b.key_tokens && a.options.scale == b.options.scale &&
         a.options.temperature == b.options.temperature && a.options.mask == b.options.mask &&
         a.options.normalizer == b.options.normalizer;
}

LessonOrigin lesson_origin(const Scenario& s) {
  LessonOrigin o;
  if (s.title.empty()) return o;
  for (const PresetInfo& p : list_presets()) {
    if (p.title != s.title) continue;
    o.preset = p.name;
    o.edited = !same_numbers(s, load_preset(p.name));
    return o;
  }
  return o;
}

void check_lesson_references(const Scenario& s, std::string_view source) {
  const LessonText& t = s.lesson.text;
  if (!t.present()) return;
  const Result result = make_cpu_backend()->compute(s.problem());
  const json values = lesson_values(s, result);
  auto check = [&](const std::string& text, const std::string& part) {
    const std::string where = std::string(source) + ": " + part;
    const RenderedText r = render_template(text, values, where);
    if (!r.unknown.empty()) {
      // The view's numbers are missing when the view cannot run on this scenario (an online
      // softmax over sparsemax): its own sentence says why, better than the reference it left empty.
      if (lesson_view(s.lesson) != kPlainView) {
        try {
          lesson_view_numbers(s, result, false);
        } catch (const InputError& e) {
          throw InputError(std::string(source) + ": " + e.what());
        }
      }
      throw InputError(where + ": the reference {" + r.unknown.front() +
                       "} names no number of this lesson (try scores, logits, weights, output, saturation, exps, "
                       "or a field of `attnlab lesson --format json`)");
    }
    if (!r.out_of_range.empty()) {
      throw InputError(where + ": the reference {" + r.out_of_range.front() + "} points past the end of its list");
    }
  };
  check(t.goal, "lesson.goal");
  for (size_t i = 0; i < t.look_at.size(); ++i) check(t.look_at[i], "lesson.look_at[" + std::to_string(i) + "]");
  for (size_t i = 0; i < t.try_steps.size(); ++i) check(t.try_steps[i], "lesson.try[" + std::to_string(i) + "]");
  for (size_t i = 0; i < t.course_notes.size(); ++i)
    check(t.course_notes[i], "lesson.course_notes[" + std::to_string(i) + "]");
}

}  // namespace attnlab
