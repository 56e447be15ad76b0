// The document under each of the lesson's masks.
#include "engine/lessons/mask_family.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <algorithm>

namespace attnlab {

MaskFamilyParams mask_family_params(const LessonFields& f) {
  MaskFamilyParams p;
  p.masks = f.strings("masks", p.masks);
  return p;
}

MaskFamilyNumbers compute_mask_family(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  MaskFamilyNumbers n;
  n.specs = mask_family_params(LessonFields(s.lesson)).masks;
  for (const std::string& spec : n.specs) {
    n.variants.push_back(document_variant(backend, s, [&spec](Problem& p) {
      p.options.mask = parse_mask_spec(spec, "lesson.masks");
      validate_mask(p.options.mask, p.Q.rows(), p.K.rows(), "lesson.masks");
    }));
  }
  return n;
}

nlohmann::ordered_json mask_family_to_json(const MaskFamilyNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t k = 0; k < n.specs.size(); ++k) {
    const Result& r = computed(n.variants[k]);
    const BlockGrid& g = n.variants[k].blocked;
    nlohmann::ordered_json grid = nlohmann::ordered_json::array();
    for (Eigen::Index i = 0; i < g.rows(); ++i) {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (Eigen::Index c = 0; c < g.cols(); ++c) row.push_back(static_cast<int>(g(i, c)));
      grid.push_back(row);
    }
    nlohmann::ordered_json padding_rows = nlohmann::ordered_json::array();
    for (Eigen::Index i = 0; i < r.n; ++i) {
      if (r.rows[static_cast<size_t>(i)].padding) padding_rows.push_back(i);
    }
    list.push_back({{"mask", n.specs[k]}, {"blocked", grid}, {"weights", matrix_to_json(r.weights)},
                    {"row_sums", row_sums_json(r.weights)}, {"padding_rows", padding_rows}});
  }
  return {{"masks", list}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise mask_family_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const Eigen::Index n = std::min<Eigen::Index>(s.Q.rows(), 5);
  std::vector<Mask> masks;
  for (const std::string& spec : mask_family_params(LessonFields(s.lesson)).masks) {
    const Mask m = parse_mask_spec(spec, "lesson.masks");
    if (m.kind != MaskKind::None && m.kind != MaskKind::Custom && m.param <= n) masks.push_back(m);
  }
  if (masks.empty()) masks.push_back(parse_mask_spec("causal"));
  const std::vector<std::string> tokens = first_tokens(s.query_tokens, n);
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const Mask mask = rnd.pick(masks);
    const MatrixD given_q = rnd.integers(n, 2, -2, 2), given_k = rnd.integers(n, 2, -2, 2), given_v = rnd.integers(n, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1, mask), tokens, tokens);
    const Exercise& e = d.exercise();
    std::vector<Eigen::Index> masked, open;
    for (Eigen::Index i = 0; i < n; ++i) {
      Eigen::Index hidden = 0;
      for (Eigen::Index j = 0; j < n; ++j) hidden += mask.is_blocked(i, j);
      if (hidden > 0 && n - hidden >= 2) masked.push_back(i);
      if (n - hidden >= 2) open.push_back(i);
    }
    if (masked.empty()) return false;
    const Eigen::Index row = rnd.pick(masked), other = rnd.pick(open);
    if (other == row || !d.clear_argmax(other)) return false;
    d.blocked_part("Which cells does this " + std::string(mask_kind_name(mask.kind)) +
                   " mask block? List every [query row, key] pair it hides.");
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + " under this mask, " + to_decimals(2) + ".");
    d.row_part(PartKind::ArgmaxKey, other, 0, "Which key does " + query_label(e, other) + " attend to most under this mask? "
               "Its number, counted from 0.");
    return true;
  });
}

}  // namespace attnlab
