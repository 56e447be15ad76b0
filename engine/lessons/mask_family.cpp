// The document under each of the lesson's masks.
#include "engine/lessons/mask_family.hpp"

#include "engine/lessons/lesson_json.hpp"

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

}  // namespace attnlab
