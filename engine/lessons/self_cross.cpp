// The document and its self-attention twin.
#include "engine/lessons/self_cross.hpp"

#include "engine/lessons/lesson_json.hpp"

namespace attnlab {

Scenario self_attention_twin(const Scenario& cross) {
  Scenario s = cross;
  s.Q = cross.K;
  s.query_tokens = cross.key_tokens;
  s.title = "Self-attention over the keys' sequence";
  s.lesson = LessonSpec{};
  // A mask written for n × m may not fit m × m; self-attention here is bidirectional.
  if (s.options.mask.kind == MaskKind::Custom) s.options.mask = Mask{};
  return s;
}

SelfCrossNumbers compute_self_cross(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  SelfCrossNumbers n;
  n.self_twin = self_attention_twin(s);
  n.cross = compute_variant(backend, s.problem());
  n.self = compute_variant(backend, n.self_twin.problem());
  return n;
}

nlohmann::ordered_json self_cross_to_json(const SelfCrossNumbers& n, const Scenario& s, const Result&, const LessonDetail&) {
  const Result& rc = computed(n.cross);
  const Result& rs = computed(n.self);
  return {{"cross", {{"shape", {rc.n, rc.m}}, {"square", rc.n == rc.m}, {"weights", matrix_to_json(rc.weights)},
                     {"query_tokens", display_tokens(s.query_tokens, rc.n)}, {"key_tokens", display_tokens(s.key_tokens, rc.m)}}},
          {"self", {{"shape", {rs.n, rs.m}}, {"square", rs.n == rs.m}, {"weights", matrix_to_json(rs.weights)},
                    {"tokens", display_tokens(n.self_twin.query_tokens, rs.n)}}}};
}

}  // namespace attnlab
