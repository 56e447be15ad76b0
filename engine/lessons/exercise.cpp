// A lesson's exercise: made by its page through the registry, written as JSON and for a terminal.
#include "engine/lessons/exercise.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnlab {

namespace {

// The blocked cells of an answer, row by row: {0: [1, 2], 1: [2]}.
std::map<long long, std::vector<long long>> cells_by_row(const AnswerValue& v) {
  std::map<long long, std::vector<long long>> rows;
  for (size_t k = 0; k + 1 < v.values.size(); k += 2) {
    rows[std::llround(v.values[k].value_or(0))].push_back(std::llround(v.values[k + 1].value_or(0)));
  }
  for (auto& [row, keys] : rows) std::sort(keys.begin(), keys.end());
  return rows;
}

std::string entry_text(const std::optional<double>& v, int decimals) {
  return v ? unsigned_zero(fixed_decimals(*v, decimals)) : std::string("−∞");
}

// One matrix of the givens for a terminal: its name, then a line per row with its label.
void write_matrix(std::ostream& out, const std::string& name, const MatrixD& M, const std::vector<std::string>& labels) {
  const int d = given_decimals(M);
  std::vector<std::string> cells;
  size_t width = 0, label_width = 0;
  for (Eigen::Index k = 0; k < M.size(); ++k) {
    cells.push_back(given_number(M.data()[k], d));
    width = std::max(width, cells.back().size());
  }
  for (const std::string& l : labels) label_width = std::max(label_width, l.size());
  out << "  " << name << " =\n";
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    const std::string label = i < static_cast<Eigen::Index>(labels.size()) ? labels[static_cast<size_t>(i)] : "";
    out << "    " << label << std::string(label_width - label.size() + 2, ' ');
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      const std::string& c = cells[static_cast<size_t>(i * M.cols() + j)];
      out << std::string(width - c.size() + (j ? 2 : 0), ' ') << c;
    }
    out << "\n";
  }
}

// "row 0 (t1)", … for each row of a matrix whose rows are the queries or the keys.
std::vector<std::string> row_labels(const Exercise& e, Eigen::Index rows, bool queries) {
  std::vector<std::string> labels;
  for (Eigen::Index i = 0; i < rows; ++i) labels.push_back(queries ? query_label(e, i) : key_label(e, i));
  return labels;
}

// What a part's answer is, for a terminal: "a list of 3 numbers, to 2 decimals".
std::string answer_form(const ExercisePart& p) {
  switch (p.kind) {
    case PartKind::ArgmaxKey: return "one key, its number from 0";
    case PartKind::Blocked: return "a list of [query, key] cells, e.g. [[0, 1], [0, 2]]";
    case PartKind::Number: return "one number, " + to_decimals(p.decimals);
    case PartKind::Matrix:
      return "a list of " + std::to_string(p.shape[0]) + " rows of " + std::to_string(p.shape[1]) + " numbers, " +
             to_decimals(p.decimals);
    case PartKind::LogitsRow:
      return "a list of " + std::to_string(p.shape[0]) + " numbers (null for a blocked key), " + to_decimals(p.decimals);
    default: return "a list of " + std::to_string(p.shape[0]) + " numbers, " + to_decimals(p.decimals);
  }
}

}  // namespace

int given_decimals(const MatrixD& M) {
  for (int d = 0; d < 4; ++d) {
    const double unit = std::pow(10.0, d);
    bool exact = true;
    for (Eigen::Index k = 0; k < M.size() && exact; ++k) {
      const double v = M.data()[k] * unit;
      exact = std::abs(v - std::round(v)) < 1e-4;
    }
    if (exact) return d;
  }
  return 4;
}

std::string given_number(double v, int decimals) { return unsigned_zero(fixed_decimals(v, decimals)); }

std::string_view part_kind_name(PartKind kind) {
  switch (kind) {
    case PartKind::ScoresRow: return "scores_row";
    case PartKind::LogitsRow: return "logits_row";
    case PartKind::WeightsRow: return "weights_row";
    case PartKind::OutputRow: return "output_row";
    case PartKind::ArgmaxKey: return "argmax_key";
    case PartKind::Blocked: return "blocked";
    case PartKind::Number: return "number";
    case PartKind::Matrix: return "matrix";
  }
  return "number";
}

std::string_view mistake_name(Mistake m) {
  switch (m) {
    case Mistake::NoScaling: return "no_scaling";
    case Mistake::DividedByDk: return "divided_by_dk";
    case Mistake::NoTemperature: return "no_temperature";
    case Mistake::NoMask: return "no_mask";
    case Mistake::MaskAfterSoftmax: return "mask_after_softmax";
    case Mistake::WrongAxis: return "wrong_axis";
    case Mistake::Transposed: return "transposed";
    case Mistake::Arithmetic: return "arithmetic";
  }
  return "arithmetic";
}

std::string mistake_sentence(Mistake m) {
  switch (m) {
    case Mistake::NoScaling:
      return "These are the numbers without the √d_k step: divide the scores by √d_k when scaling is on, and not when it is off.";
    case Mistake::DividedByDk: return "These come from dividing by d_k; the scores are divided by its square root, √d_k.";
    case Mistake::NoTemperature: return "The temperature is missing: the logits are the scores divided by √d_k·T, T included.";
    case Mistake::NoMask:
      return "The blocked keys were counted as visible: a blocked logit is −∞ before the softmax, so its weight is 0.";
    case Mistake::MaskAfterSoftmax:
      return "The blocked weights were set to 0 after the softmax, so the row no longer sums to 1: mask before the softmax.";
    case Mistake::WrongAxis:
      return "This normalizes each column (over the queries); each row (over the keys) must sum to 1.";
    case Mistake::Transposed:
      return "The matrices were taken the wrong way round: the scores are Q Kᵀ (query i against key j), the output A V.";
    case Mistake::Arithmetic:
      return "None of the usual slips gives these numbers: compare your working with the one below, step by step.";
  }
  return {};
}

AnswerValue AnswerValue::cells(const std::vector<std::pair<long long, long long>>& cells) {
  AnswerValue v;
  v.shape = {static_cast<long long>(cells.size()), 2};
  for (const auto& [i, j] : cells) {
    v.values.emplace_back(static_cast<double>(i));
    v.values.emplace_back(static_cast<double>(j));
  }
  return v;
}

std::string part_label(const ExercisePart& p) {
  const std::string row = ", row " + std::to_string(p.row);
  switch (p.kind) {
    case PartKind::ScoresRow: return "scores" + row;
    case PartKind::LogitsRow: return "logits" + row;
    case PartKind::WeightsRow: return "weights" + row;
    case PartKind::OutputRow: return "output" + row;
    case PartKind::ArgmaxKey: return "top key" + row;
    case PartKind::Blocked: return "blocked cells";
    case PartKind::Matrix: return "matrix";
    case PartKind::Number: return {};
  }
  return {};
}

std::string query_label(const Exercise& e, Eigen::Index i) {
  return "row " + std::to_string(i) + " (" + display_token(e.given.query_tokens, e.given.Q.rows(), i) + ")";
}

std::string key_label(const Exercise& e, Eigen::Index j) {
  return "key " + std::to_string(j) + " (" + display_token(e.given.key_tokens, e.given.K.rows(), j) + ")";
}

Exercise make_exercise(std::string_view lesson, std::uint64_t seed) {
  if (preset_json(std::string(lesson)).empty()) {
    throw InputError("there is no built-in lesson named " + in_quotes(lesson) + "; `attnlab presets` lists them");
  }
  const Scenario preset = load_preset(std::string(lesson));
  const LessonPage& page = lesson_page(preset.lesson);
  return page.exercise(ExerciseRequest{lesson, preset, seed});
}

nlohmann::ordered_json answer_to_json(const AnswerValue& v, PartKind kind) {
  const auto entry = [](const std::optional<double>& x) { return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(); };
  if (kind == PartKind::ArgmaxKey) return std::llround(v.values.at(0).value_or(0));
  if (v.shape.empty()) return entry(v.values.at(0));
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  if (v.shape.size() == 1) {
    for (const auto& x : v.values) out.push_back(entry(x));
    return out;
  }
  const size_t cols = static_cast<size_t>(v.shape[1]);
  for (size_t k = 0; k + cols <= v.values.size(); k += cols) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (size_t c = 0; c < cols; ++c) {
      if (kind == PartKind::Blocked) row.push_back(std::llround(v.values[k + c].value_or(0)));
      else row.push_back(entry(v.values[k + c]));
    }
    out.push_back(row);
  }
  return out;
}

std::string answer_text(const AnswerValue& v, PartKind kind, int decimals) {
  if (kind == PartKind::ArgmaxKey) return "key " + std::to_string(std::llround(v.values.at(0).value_or(0)));
  if (kind == PartKind::Blocked) {
    std::string out;
    for (const auto& [row, keys] : cells_by_row(v)) {
      out += (out.empty() ? "" : "; ") + std::string("row ") + std::to_string(row) + ": keys";
      for (const long long k : keys) out += " " + std::to_string(k);
    }
    return out.empty() ? "no cell" : out;
  }
  if (v.shape.empty()) return entry_text(v.values.at(0), decimals);
  const size_t cols = v.shape.size() == 2 ? static_cast<size_t>(v.shape[1]) : v.values.size();
  std::string out;
  for (size_t k = 0; k < v.values.size(); ++k) {
    if (k % cols == 0) out += k ? "), (" : "(";
    else out += ", ";
    out += entry_text(v.values[k], decimals);
  }
  return out + ")";
}

nlohmann::ordered_json exercise_to_json(const Exercise& e) {
  nlohmann::ordered_json given = nlohmann::ordered_json::parse(scenario_to_json(e.given));
  given["extra"] = e.extra;
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const ExercisePart& p : e.parts) {
    nlohmann::ordered_json shape = nlohmann::ordered_json::array();
    for (const long long s : p.shape) shape.push_back(s < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(s));
    parts.push_back({{"id", p.id},
                     {"kind", part_kind_name(p.kind)},
                     {"prompt", p.prompt},
                     {"row", p.row < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(p.row)},
                     {"shape", shape},
                     {"decimals", p.decimals}});
  }
  return {{"lesson", e.lesson}, {"seed", e.seed}, {"title", e.title}, {"given", given}, {"parts", parts}};
}

std::vector<std::string> given_facts(const Exercise& e) {
  const Options& o = e.given.options;
  const Eigen::Index d = e.given.Q.cols();
  std::string scaling = "d_k = " + std::to_string(d) + "; ";
  if (o.scale) scaling += "the scores are divided by √d_k = " + hand_number(std::sqrt(static_cast<double>(d)));
  else scaling += "scaling is off: the scores are not divided by √d_k";
  if (o.temperature != 1) scaling += ", and by the temperature T = " + hand_number(o.temperature);
  std::vector<std::string> facts{scaling};
  if (o.mask.kind != MaskKind::None) facts.push_back(mask_rule(o.mask));
  if (o.normalizer != Normalizer::Softmax) facts.push_back("the weights are the " + std::string(normalizer_name(o.normalizer)) + " of each row of logits");
  if (o.rope) facts.push_back("rotary positions are on: each query and key is rotated by its position before the scores");
  for (const std::string& f : e.facts) facts.push_back(f);
  return facts;
}

bool shows_values(const Exercise& e) {
  return std::any_of(e.parts.begin(), e.parts.end(), [](const ExercisePart& p) { return p.kind == PartKind::OutputRow; });
}

void write_exercise_text(std::ostream& out, const Exercise& e) {
  out << e.title << "  [exercise " << e.lesson << ", seed " << e.seed << "]\n\n";
  out << "Given (rows and keys are counted from 0):\n";
  write_matrix(out, "Q", e.given.Q.cast<double>(), row_labels(e, e.given.Q.rows(), true));
  write_matrix(out, "K", e.given.K.cast<double>(), row_labels(e, e.given.K.rows(), false));
  if (shows_values(e)) write_matrix(out, "V", e.given.V.cast<double>(), row_labels(e, e.given.V.rows(), false));
  for (const NamedMatrix& x : e.extra_matrices) write_matrix(out, x.name, x.values, {});
  for (const std::string& f : given_facts(e)) out << "  " << f << "\n";
  out << "\nParts:\n";
  for (const ExercisePart& p : e.parts) {
    out << "  (" << p.id << ") " << p.prompt << "\n      answer: " << answer_form(p) << "\n";
  }
  out << "\nTo have it graded, write the answers as {\"parts\": {\"a\": …, \"b\": …}} and run\n  attnlab exercise "
      << e.lesson << " --seed " << e.seed << " --answer FILE.json\n";
}

}  // namespace attnlab
