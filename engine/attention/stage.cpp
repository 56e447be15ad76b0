// Stage names as the command line and the files spell them.
#include "engine/attention/stage.hpp"

#include "engine/attention/attention.hpp"

#include <string>

namespace attnlab {

std::string_view stage_name(Stage s) {
  switch (s) {
    case Stage::Scores: return "scores";
    case Stage::Logits: return "logits";
    case Stage::Weights: return "weights";
    case Stage::Output: return "output";
    case Stage::Saturation: return "saturation";
    case Stage::Pipeline: return "pipeline";
  }
  return "?";
}

const Matrix& stage_matrix(const Result& r, Stage s) {
  switch (s) {
    case Stage::Scores: return r.scores;
    case Stage::Logits: return r.logits;
    case Stage::Weights: return r.weights;
    case Stage::Output: return r.output;
    case Stage::Saturation: return r.saturation;
    case Stage::Pipeline: break;  // a figure, not one matrix
  }
  return r.weights;
}

bool stage_is_signed(Stage s) { return s == Stage::Scores || s == Stage::Logits || s == Stage::Output; }

Stage parse_stage(std::string_view name, std::string_view where) {
  for (Stage s : {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output, Stage::Saturation, Stage::Pipeline}) {
    if (stage_name(s) == name) return s;
  }
  throw InputError(std::string(where) + ": unknown stage '" + std::string(name) +
                   "'; expected scores, logits, weights, output, saturation or pipeline");
}

}  // namespace attnlab
