// The document with one change (another mask, normalizer, scaling, temperature), computed on the
// backend a lesson is given: what the compare-scaling, scaling-lab, self-cross, mask-family,
// temperature and normalizers pages set side by side.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"

#include <string>
#include <utility>

namespace attnlab {

struct LessonVariant {
  Options options;     // the variant's options
  Result result;
  BlockGrid blocked;   // n × m, the variant's mask
  std::string error;   // why it could not be computed (bad input, a backend failure); result is empty then
  bool ok() const { return error.empty(); }
};

// `p` computed on `backend`, its refusal or failure kept as the variant's sentence.
LessonVariant compute_variant(Backend& backend, const Problem& p);

// The document's problem with `change` applied (a function of Problem&), computed; a change the
// problem refuses is kept as the variant's sentence too.
template <class Change>
LessonVariant document_variant(Backend& backend, const Scenario& s, Change&& change) {
  try {
    Problem p = s.problem();
    std::forward<Change>(change)(p);
    return compute_variant(backend, p);
  } catch (const InputError& e) {
    LessonVariant v;
    v.error = e.what();
    return v;
  }
}

// A variant's result; one that could not be computed makes the report fail with its sentence.
const Result& computed(const LessonVariant& v);

}  // namespace attnlab
