// The interventions' part of `attnlab model`'s JSON and text (intervention_report.hpp).
#include "engine/model/intervention_report.hpp"

#include "engine/text/text_format.hpp"
#include "engine/text/utf8.hpp"

#include <algorithm>
#include <ostream>

namespace attnlab::model {

namespace {

std::string head_label(const HeadIndex& h) { return "L" + std::to_string(h.layer) + "H" + std::to_string(h.head); }

// "zero-ablated heads L1H0, L1H2" / "heads L1H0 patched from the second text".
std::string intervention_sentence(const InterventionResult& r) {
  std::string heads;
  for (std::size_t i = 0; i < r.heads.size(); ++i) heads += (i ? ", " : "") + head_label(r.heads[i]);
  const std::string noun = r.heads.size() == 1 ? "head " : "heads ";
  if (r.patch) return noun + heads + " patched in from the second text";
  return noun + heads + " ablated (" + std::string(ablation_name(r.ablation)) + ")";
}

// One token and its probability, padded to `width` characters for a column.
std::string token_cell(const LanguageModel& model, const NextToken& t, std::size_t width) {
  std::string cell = fixed_decimals(t.prob, 4) + "  " + model.quoted_token(t.id);
  std::size_t shown = 0;  // characters, not bytes: a token may be any script
  for (std::size_t i = 0; i < cell.size(); i += std::max<std::size_t>(1, utf8_char_length(cell, i))) ++shown;
  if (width == 0) return cell;
  return cell + std::string(shown < width ? width - shown : 1, ' ');
}

}  // namespace

void write_experiment_json(std::ostream& out, const LanguageModel& model, const ModelRun& run) {
  if (run.cache) out << ",\n\"cache\": {\"window\": " << run.cache->window << ", \"sinks\": " << run.cache->sinks << "}";
  if (run.intervention) {
    const InterventionResult& r = *run.intervention;
    out << ",\n\"intervention\": {\"kind\": " << (r.patch ? "\"patch\"" : "\"ablate\"") << ", \"heads\": [";
    for (std::size_t i = 0; i < r.heads.size(); ++i) out << (i ? ", " : "") << "[" << r.heads[i].layer << ", " << r.heads[i].head << "]";
    out << "], \"ablation\": " << (r.patch ? "null" : json_string(ablation_name(r.ablation))) << "},\n\"clean_next_token\": ";
    write_next_tokens_json(out, model, r.clean_next_tokens);
  }
  if (run.comparison) {
    const ComparisonResult& c = *run.comparison;
    out << ",\n\"compare\": {\"tokens\": [";
    for (std::size_t i = 0; i < c.trace.ids.size(); ++i) {
      out << (i ? ", " : "") << "{\"id\": " << c.trace.ids[i] << ", \"text\": " << json_string(model.token_text(c.trace.ids[i])) << "}";
    }
    out << "],\n \"next_token\": ";
    write_next_tokens_json(out, model, c.trace.next_tokens);
    out << ",\n \"heads\": [";
    for (std::size_t l = 0; l < c.heads.size(); ++l) {
      out << (l ? ",\n  [" : "\n  [");
      for (std::size_t h = 0; h < c.heads[l].size(); ++h) {
        out << (h ? ", " : "") << "{\"max_abs_diff\": " << float_json(static_cast<float>(c.heads[l][h].max_abs_diff))
            << ", \"argmax_changed\": " << (c.heads[l][h].argmax_changed ? "true" : "false") << "}";
      }
      out << "]";
    }
    out << "]}";
  }
  if (run.lens_position >= 0) {
    out << ",\n\"logit_lens_position\": " << run.lens_position << ",\n\"logit_lens\": [";
    for (std::size_t l = 0; l < run.trace.lens.size(); ++l) {
      out << (l ? ",\n " : "\n ") << "{\"layer\": " << l << ", \"top\": ";
      write_next_tokens_json(out, model, run.trace.lens[l]);
      out << "}";
    }
    out << "]";
  }
}

void write_intervention_text(std::ostream& out, const LanguageModel& model, const ModelRun& run) {
  const InterventionResult& r = *run.intervention;
  constexpr std::size_t kColumn = 28;
  out << "\nNext token after " << model.quoted_token(run.trace.ids.back()) << ", " << intervention_sentence(r) << ":\n";
  out << "  " << std::string("the model as it is") + std::string(kColumn - 18, ' ') << "changed\n";
  const std::size_t rows = std::max(r.clean_next_tokens.size(), run.trace.next_tokens.size());
  for (std::size_t i = 0; i < rows; ++i) {
    out << "  " << (i < r.clean_next_tokens.size() ? token_cell(model, r.clean_next_tokens[i], kColumn) : std::string(kColumn, ' '));
    if (i < run.trace.next_tokens.size()) out << token_cell(model, run.trace.next_tokens[i], 0);
    out << "\n";
  }
}

void write_comparison_text(std::ostream& out, const LanguageModel& model, const ModelRun& run) {
  if (!run.comparison) return;
  const ComparisonResult& c = *run.comparison;
  out << "\nThe second text (" << c.trace.ids.size() << " tokens):";
  for (const int id : c.trace.ids) out << " " << model.quoted_token(id);
  out << "\nIts next token:";
  for (std::size_t i = 0; i < std::min<std::size_t>(c.trace.next_tokens.size(), 5); ++i) {
    out << (i ? ", " : " ") << model.quoted_token(c.trace.next_tokens[i].id) << " " << fixed_decimals(c.trace.next_tokens[i].prob, 4);
  }
  out << "\nHeads whose strongest key changes for some query (largest weight difference):";
  bool any = false;
  for (std::size_t l = 0; l < c.heads.size(); ++l) {
    for (std::size_t h = 0; h < c.heads[l].size(); ++h) {
      if (!c.heads[l][h].argmax_changed) continue;
      out << (any ? ", " : " ") << head_label({static_cast<int>(l), static_cast<int>(h)}) << " " << fixed_decimals(c.heads[l][h].max_abs_diff, 2);
      any = true;
    }
  }
  out << (any ? "\n" : " none\n");
}

void write_lens_text(std::ostream& out, const LanguageModel& model, const ModelRun& run) {
  if (run.lens_position < 0) return;
  const auto& ids = run.trace.ids;
  out << "\nLogit lens after " << model.quoted_token(ids[static_cast<std::size_t>(run.lens_position)]) << " (position " << run.lens_position
      << "): what the model would predict if it stopped after each layer\n";
  for (std::size_t l = 0; l < run.trace.lens.size(); ++l) {
    out << "  L" << l << " ";
    const auto& top = run.trace.lens[l];
    for (std::size_t i = 0; i < std::min<std::size_t>(top.size(), 5); ++i) {
      out << (i ? ", " : " ") << model.quoted_token(top[i].id) << " " << fixed_decimals(top[i].prob, 3);
    }
    out << "\n";
  }
}

}  // namespace attnlab::model
