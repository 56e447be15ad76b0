// The worked example's lines, cell by cell.
#include "engine/lessons/worked_example.hpp"

#include "engine/attention/explain.hpp"
#include "engine/lessons/plain.hpp"

namespace attnlab {

WorkedExampleNumbers compute_worked_example(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  const Problem p = s.problem();
  WorkedExampleNumbers w;
  for (Eigen::Index i = 0; i < r.n; ++i) {
    std::vector<std::vector<std::string>> keys;
    for (Eigen::Index j = 0; j < r.m; ++j) keys.push_back(explain_weight(p, r, i, j));
    w.weight_lines.push_back(std::move(keys));
    w.output_lines.push_back(explain_output(p, r, i));
  }
  return w;
}

nlohmann::ordered_json worked_example_to_json(const WorkedExampleNumbers& w, const Scenario&, const Result& r,
                                              const LessonDetail&) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < w.weight_lines.size(); ++i) {
    const auto& keys = w.weight_lines[i];
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    // Every score and logit of the row, then the row's exps once, then each quotient.
    for (const auto& k : keys) {
      lines.push_back(k[0]);
      lines.push_back(k[1]);
    }
    if (!keys.empty() && keys[0].size() > 3) lines.push_back(keys[0][2]);
    for (const auto& k : keys) lines.push_back(k.back());
    for (const auto& l : w.output_lines[i]) lines.push_back(l);
    rows.push_back(lines);
  }
  nlohmann::ordered_json j = pipeline_json(r);
  j["explain"] = rows;
  return j;
}

}  // namespace attnlab
