// The document's head by the Model window's detector.
#include "engine/lessons/model_heads.hpp"

#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/plain.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {

model::HeadVerdict document_head_verdict(const Scenario& s, const Result& r) {
  std::vector<int> ids;
  const auto labels = display_tokens(s.query_tokens, r.n);
  for (const auto& l : labels) ids.push_back(static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin()));
  return model::classify_head(r.weights, ids);
}

ModelHeadsNumbers compute_model_heads(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  ModelHeadsNumbers n;
  n.example = document_head_verdict(s, r);
  return n;
}

nlohmann::ordered_json model_heads_to_json(const ModelHeadsNumbers& n, const Scenario&, const Result& r, const LessonDetail&) {
  return head_verdict_json(n.example, r);
}

nlohmann::ordered_json head_verdict_json(const model::HeadVerdict& v, const Result& r) {
  nlohmann::ordered_json out = pipeline_json(r);
  out["example_head"] = {{"kind", std::string(model::head_kind_name(v.kind))}, {"score", short_double(v.score)}};
  out["get_gpt2"] = "attnlab model ~/.cache/huggingface/hub/models--gpt2/snapshots/<revision> --text \"...\": the folder holds "
                    "config.json, model.safetensors, vocab.json and merges.txt";
  return out;
}

}  // namespace attnlab
