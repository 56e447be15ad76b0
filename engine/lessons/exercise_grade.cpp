// Reading an answer file and grading it part by part.
#include "engine/lessons/exercise_grade.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/lessons/exercise_math.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// The JSON value as a sentence quotes it: "'text'", "true", "a list of 2".
std::string quoted(const nlohmann::json& v) {
  if (v.is_string()) return "the text " + in_quotes(v.get<std::string>());
  if (v.is_array()) return "a list of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  return in_quotes(v.dump());
}

// JSON has no NaN or infinity, but Python's json.dumps writes them bare (NaN, Infinity): they are
// quoted here, outside strings, so that the part they stand in is the one the error names.
std::string bare_non_numbers_quoted(std::string_view text) {
  std::string out;
  bool in_string = false;
  for (size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      out += c;
      if (c == '\\' && k + 1 < text.size()) out += text[++k];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool quoted_word = false;
    for (const std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.substr(k, word.size()) == word) {
        out += "\"" + std::string(word) + "\"";
        k += word.size() - 1;
        quoted_word = true;
        break;
      }
    }
    if (!quoted_word) out += c;
  }
  return out;
}

bool non_number_word(const nlohmann::json& v) {
  return v.is_string() && (v == "NaN" || v == "Infinity" || v == "-Infinity");
}

// A finite number, or (where `null_ok`) null. Throws naming `where`.
std::optional<double> number_in(const nlohmann::json& v, const std::string& where, bool null_ok) {
  if (v.is_null() && null_ok) return std::nullopt;
  if (non_number_word(v)) throw InputError(where + ": expected a finite number, got " + v.get<std::string>());
  if (!v.is_number()) {
    throw InputError(where + ": expected a number" + (null_ok ? " or null (a blocked key)" : "") + ", got " + quoted(v));
  }
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw InputError(where + ": expected a finite number, got " + in_quotes(v.dump()));
  return x;
}

long long whole_in(const nlohmann::json& v, const std::string& where, long long count, const char* what) {
  const std::string range = std::string(what) + ", a whole number from 0 to " + std::to_string(count - 1);
  if (!v.is_number()) throw InputError(where + ": expected " + range + ", got " + quoted(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x != std::floor(x) || x < 0 || x >= static_cast<double>(count)) {
    throw InputError(where + ": expected " + range + ", got " + in_quotes(v.dump()));
  }
  return static_cast<long long>(x);
}

std::vector<std::optional<double>> number_list(const nlohmann::json& v, long long count, const std::string& where,
                                               bool null_ok) {
  if (!v.is_array() || static_cast<long long>(v.size()) != count) {
    throw InputError(where + ": expected a list of " + std::to_string(count) + " numbers, got " + quoted(v));
  }
  std::vector<std::optional<double>> out;
  for (size_t k = 0; k < v.size(); ++k) out.push_back(number_in(v[k], where + "[" + std::to_string(k) + "]", null_ok));
  return out;
}

AnswerValue cells_in(const nlohmann::json& v, const Exercise& e, const std::string& where) {
  if (!v.is_array()) throw InputError(where + ": expected a list of [query, key] cells, got " + quoted(v));
  std::vector<std::pair<long long, long long>> cells;
  for (size_t k = 0; k < v.size(); ++k) {
    const std::string at = where + "[" + std::to_string(k) + "]";
    if (!v[k].is_array() || v[k].size() != 2) throw InputError(at + ": expected a cell [query, key], got " + quoted(v[k]));
    cells.emplace_back(whole_in(v[k][0], at, e.given.Q.rows(), "a query"), whole_in(v[k][1], at, e.given.K.rows(), "a key"));
  }
  return AnswerValue::cells(cells);
}

std::string verdict(const ExercisePart& part, const PartGrade& g) {
  if (g.correct) return "Right: " + answer_text(part.expected, part.kind, part.decimals) + ".";
  return "Not quite: the answer is " + answer_text(part.expected, part.kind, part.decimals) + " and yours is " +
         answer_text(g.given, part.kind, part.decimals) + ". " + mistake_sentence(*g.diagnosis);
}

}  // namespace

AnswerValue parse_part_answer(const nlohmann::json& v, const ExercisePart& p, const Exercise& e, std::string_view where) {
  const std::string at = std::string(where) + ": part " + p.id;
  switch (p.kind) {
    case PartKind::Number: return AnswerValue::number(*number_in(v, at, false));
    case PartKind::ArgmaxKey: return AnswerValue::number(static_cast<double>(whole_in(v, at, e.given.K.rows(), "a key")));
    case PartKind::Blocked: return cells_in(v, e, at);
    case PartKind::Matrix: {
      if (!v.is_array() || static_cast<long long>(v.size()) != p.shape[0]) {
        throw InputError(at + ": expected a list of " + std::to_string(p.shape[0]) + " rows, got " + quoted(v));
      }
      AnswerValue a;
      a.shape = p.shape;
      for (size_t i = 0; i < v.size(); ++i) {
        for (auto& x : number_list(v[i], p.shape[1], at + "[" + std::to_string(i) + "]", false)) a.values.push_back(x);
      }
      return a;
    }
    default: return AnswerValue::row(number_list(v, p.shape[0], at, p.kind == PartKind::LogitsRow));
  }
}

Answers parse_answers(std::string_view json_text, const Exercise& e, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(bare_non_numbers_quoted(json_text), source);
  if (!j.is_object() || !j.contains("parts") || !j.at("parts").is_object()) {
    throw InputError(src + ": an answer is an object {\"parts\": {\"a\": …, \"b\": …}}");
  }
  const nlohmann::json& parts = j.at("parts");
  std::string ids;
  for (const ExercisePart& p : e.parts) ids += (ids.empty() ? "" : ", ") + p.id;
  for (const auto& item : parts.items()) {
    const bool known = std::any_of(e.parts.begin(), e.parts.end(), [&](const ExercisePart& p) { return p.id == item.key(); });
    if (!known) throw InputError(src + ": there is no part " + in_quotes(item.key()) + "; the parts are " + ids);
  }
  Answers answers;
  for (const ExercisePart& p : e.parts) {
    if (!parts.contains(p.id)) throw InputError(src + ": part " + p.id + " is missing; answer every part (" + ids + ")");
    answers[p.id] = parse_part_answer(parts.at(p.id), p, e, src);
  }
  return answers;
}

PartGrade grade_part(const ExercisePart& part, const AnswerValue& answer) {
  PartGrade g;
  g.id = part.id;
  g.kind = part.kind;
  g.decimals = part.decimals;
  g.expected = part.expected;
  g.given = answer;
  g.correct = answer_matches(answer, part.expected, part.kind, part.decimals);
  if (!g.correct && part.kind == PartKind::ArgmaxKey && !answer.values.empty() && answer.values[0]) {
    const long long key = std::llround(*answer.values[0]);
    g.correct = std::find(part.tied_keys.begin(), part.tied_keys.end(), key) != part.tied_keys.end();
  }
  if (!g.correct) {
    g.diagnosis = Mistake::Arithmetic;
    // The order of kMistakeOrder decides between mistakes that give the same numbers.
    for (const Mistake m : kMistakeOrder) {
      const bool explains = std::any_of(part.mistakes.begin(), part.mistakes.end(), [&](const MistakeAnswer& c) {
        return c.mistake == m && answer_matches(answer, c.value, part.kind, part.decimals);
      });
      if (explains) {
        g.diagnosis = m;
        break;
      }
    }
  }
  g.verdict = verdict(part, g);
  g.working = part.working;
  return g;
}

Grade grade_exercise(const Exercise& e, const Answers& answers) {
  Grade g;
  g.lesson = e.lesson;
  g.seed = e.seed;
  for (const ExercisePart& p : e.parts) {
    g.parts.push_back(grade_part(p, answers.at(p.id)));
    g.score += g.parts.back().correct;
  }
  g.of = static_cast<int>(e.parts.size());
  return g;
}

nlohmann::ordered_json grade_to_json(const Grade& g) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const PartGrade& p : g.parts) {
    nlohmann::ordered_json explanation = nlohmann::ordered_json::array({p.verdict});
    for (const std::string& l : p.working) explanation.push_back(l);
    parts.push_back({{"id", p.id},
                     {"correct", p.correct},
                     {"expected", answer_to_json(p.expected, p.kind)},
                     {"given", answer_to_json(p.given, p.kind)},
                     {"diagnosis", p.diagnosis ? nlohmann::ordered_json(mistake_name(*p.diagnosis)) : nlohmann::ordered_json()},
                     {"explanation", explanation}});
  }
  return {{"lesson", g.lesson}, {"seed", g.seed}, {"score", g.score}, {"of", g.of}, {"parts", parts}};
}

void write_grade_text(std::ostream& out, const Grade& g) {
  out << "Score " << g.score << " of " << g.of << "  [exercise " << g.lesson << ", seed " << g.seed << "]\n";
  for (const PartGrade& p : g.parts) {
    out << "\n(" << p.id << ") " << (p.correct ? "✓ " : "✗ ") << p.verdict;
    if (p.diagnosis) out << " [" << mistake_name(*p.diagnosis) << "]";
    out << "\n";
    if (p.correct) continue;
    out << "    The working:\n";
    for (const std::string& l : p.working) out << "      " << l << "\n";
  }
}

}  // namespace attnlab
