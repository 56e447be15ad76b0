// Variants of the document, computed on a lesson's backend.
#include "engine/lessons/lesson_variant.hpp"

#include <new>

namespace attnlab {

LessonVariant compute_variant(Backend& backend, const Problem& p) {
  LessonVariant v;
  v.options = p.options;
  try {
    v.result = backend.compute(p);
    v.blocked = mask_grid(p.options.mask, v.result.n, v.result.m);
  } catch (const InputError& e) {
    v.error = e.what();
  } catch (const std::bad_alloc&) {
    v.error = "this view's computation ran out of memory";
  } catch (const std::exception& e) {
    v.error = "the " + backend.description() + " backend failed: " + e.what();
  }
  return v;
}

const Result& computed(const LessonVariant& v) {
  if (!v.ok()) throw InputError(v.error);
  return v.result;
}

}  // namespace attnlab
