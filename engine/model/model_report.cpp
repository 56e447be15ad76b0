// `attnlab model`'s JSON and text, the head kinds of a run, lifting a head, built-in models, and
// MODEL as the command line names it (a folder, a built-in model, a Hugging Face repo id).
#include "engine/model/model_report.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/text/text_format.hpp"

#include "engine/model/decoder_model.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/hf_cache.hpp"
#include "engine/model/intervention_report.hpp"
#include "engine/model/local_stores.hpp"
#include "engine/model/training_tasks.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <charconv>
#include <ostream>
#include <sstream>

namespace attnlab_models {
const std::map<std::string, std::string_view>& files();
}

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

// Rows of numbers, [[…],[…]]: a Matrix, or a head's kept weights with the mask's zeros written out.
template <class M>
void matrix_compact(std::ostream& out, const M& m) {
  out << '[';
  for (std::int64_t i = 0; i < m.rows(); ++i) {
    out << (i ? ",[" : "[");
    for (std::int64_t j = 0; j < m.cols(); ++j) out << (j ? "," : "") << float_json(m(i, j));
    out << ']';
  }
  out << ']';
}

std::string fixed(double v, int decimals) { return fixed_decimals(v, decimals); }

}  // namespace

ModelRun run_model(const LanguageModel& model, const std::vector<int>& ids, const ForwardOptions& options) {
  ModelRun run;
  run.trace = model.forward(ids, options);
  if (options.keep_weights && !run.trace.cancelled) run.kinds = classify_heads(run.trace);
  return run;
}

ModelRun run_experiment(const LanguageModel& model, const std::vector<int>& ids, ForwardOptions options, const Experiment& e) {
  const auto same_length = [&](const std::vector<int>& other, const char* what) {
    if (other.size() != ids.size()) {
      throw InputError(std::string(what) + ": " + std::to_string(other.size()) + " tokens where the text has " + std::to_string(ids.size()) +
                       "; give a second text of the same token count, as the heads are compared position by position");
    }
  };
  std::optional<InterventionResult> intervention;
  if (!e.ablate.empty() || !e.patch.empty()) {
    InterventionResult r;
    if (!e.patch.empty()) {
      same_length(e.patch_ids, "the patch's second text");
      ForwardOptions source;
      source.keep_weights = false;
      source.keep_outputs = true;
      source.top_k = 0;
      options.edits = patch_edits(e.patch, model.forward(e.patch_ids, source));
      r.patch = true;
      r.heads = e.patch;
      r.ablation = HeadEdit::Kind::Replace;
    } else {
      options.edits = ablation_edits(e.ablate, e.ablation);
      r.heads = e.ablate;
      r.ablation = e.ablation;
    }
    ForwardOptions clean;
    clean.keep_weights = false;
    clean.top_k = options.top_k;
    r.clean_next_tokens = model.forward(ids, clean).next_tokens;
    intervention = std::move(r);
  }
  options.lens_position = e.lens_position;
  ModelRun run = run_model(model, ids, options);
  run.intervention = std::move(intervention);
  run.lens_position = e.lens_position;
  if (!e.compare_ids.empty()) {
    same_length(e.compare_ids, "the compared text");
    ForwardOptions second = options;
    second.lens_position = -1;
    second.keep_weights = true;
    ComparisonResult c;
    c.trace = model.forward(e.compare_ids, second);
    c.heads = compare_heads(run.trace, c.trace);
    run.comparison = std::move(c);
  }
  return run;
}

std::vector<std::vector<HeadVerdict>> classify_heads(const ForwardTrace& trace) {
  std::vector<std::pair<int, int>> heads;  // (layer, head), one task each
  std::vector<std::vector<HeadVerdict>> kinds;
  for (std::size_t l = 0; l < trace.heads.size(); ++l) {
    kinds.emplace_back(trace.heads[l].size());
    for (std::size_t h = 0; h < trace.heads[l].size(); ++h) {
      if (trace.heads[l][h].weights.empty()) return {};
      heads.emplace_back(static_cast<int>(l), static_cast<int>(h));
    }
  }
  // Each head's spread score reads every kept weight (a logarithm each): one task per head.
  const TokenRepeats repeats = token_repeats(trace.ids);
  const auto count = static_cast<std::int64_t>(heads.size());
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t t = 0; t < count; ++t) {
    const auto [l, h] = heads[static_cast<std::size_t>(t)];
    kinds[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] =
        classify_head(trace.heads[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)].weights, repeats);
  }
  return kinds;
}

void check_head(const LanguageModel& model, int layer, int head) {
  const auto& c = model.config();
  if (layer < 0 || layer >= c.n_layer) {
    throw InputError("--layer " + std::to_string(layer) + ": this model has layers 0 to " + std::to_string(c.n_layer - 1));
  }
  if (head < 0 || head >= c.n_head) {
    throw InputError("--head " + std::to_string(head) + ": this model has heads 0 to " + std::to_string(c.n_head - 1));
  }
}

std::string head_title(const LanguageModel& model, int layer, int head) {
  return model.display_name() + " · layer " + std::to_string(layer) + " · head " + std::to_string(head);
}

std::vector<std::string> token_labels(const LanguageModel& model, const std::vector<int>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (int id : ids) out.push_back(model.token_label(id));
  return out;
}

Scenario lift_head(const LanguageModel& model, const ModelRun& run, int layer, int head) {
  check_head(model, layer, head);
  const HeadTrace& h = run.trace.heads.at(static_cast<std::size_t>(layer)).at(static_cast<std::size_t>(head));
  if (h.q.size() == 0) throw std::logic_error("lift_head: the run did not keep this head's q, k, v");
  // A window as long as the text or longer hides nothing the causal mask does not.
  const int window = model.config().window(layer) < static_cast<int>(h.q.rows()) ? model.config().window(layer) : 0;
  Scenario s;
  s.title = head_title(model, layer, head);
  // A grouped head shares its keys and values: the text names the group rather than "its own" (issue 69).
  const ModelConfig& c = model.config();
  const std::string kv = c.n_kv_head > 0 && c.n_kv_head < c.n_head
                             ? "its own queries and the keys and values of K/V head " + std::to_string(c.kv_group(head)) + ", which query heads " +
                                   std::to_string(c.kv_group(head) * (c.n_head / c.n_kv_head)) + " to " +
                                   std::to_string((c.kv_group(head) + 1) * (c.n_head / c.n_kv_head) - 1) + " share,"
                             : "its own queries, keys and values";
  s.description = "Layer " + std::to_string(layer) + ", head " + std::to_string(head) + " of " + model.display_name() + ": " + kv +
                  " on this text, with the " + (window ? "sliding window" : "causal mask") + " the model uses.";
  s.Q = h.q;
  s.K = h.k;
  s.V = h.v;
  s.query_tokens = token_labels(model, run.trace.ids);
  s.key_tokens = s.query_tokens;
  s.options.scale = true;
  s.options.temperature = 1.0;
  s.options.mask.kind = window ? MaskKind::Window : MaskKind::Causal;
  s.options.mask.param = window;
  s.options.rope = model.rope();
  return s;
}

void write_next_tokens_json(std::ostream& out, const LanguageModel& model, const std::vector<NextToken>& tokens) {
  out << "[";
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    out << (i ? ",\n " : "\n ") << "{\"id\": " << tokens[i].id << ", \"text\": " << json_string(model.token_text(tokens[i].id))
        << ", \"prob\": " << float_json(tokens[i].prob) << "}";
  }
  out << "]";
}

void write_model_json(std::ostream& out, const LanguageModel& model, const ModelRun& run, int layer, int head) {
  const auto& c = model.config();
  const auto& ids = run.trace.ids;
  const bool rope = c.positions == PositionKind::Rope;
  out << "{\n\"model\": {\"name\": " << json_string(model.display_name()) << ", \"family\": " << json_string(model.family())
      << ", \"n_layer\": " << c.n_layer << ", \"n_head\": " << c.n_head << ", \"n_kv_head\": " << c.n_kv_head << ", \"d_model\": " << c.d_model
      << ", \"d_head\": " << c.d_head << ", \"n_ctx\": " << c.n_ctx << ", \"vocab_size\": " << c.vocab_size << ", \"parameters\": "
      << model.parameters() << ", \"tensor_type\": " << json_string(model.tensor_type()) << ", \"positions\": " << (rope ? "\"rope\"" : "\"learned\"") << ", \"rope_theta\": "
      << (rope ? double_json(c.rope_theta) : "null") << ", \"sliding_window\": " << (c.sliding_window ? std::to_string(c.sliding_window) : "null")
      << ", \"task\": " << (c.is_toy() ? c.task_json : "null") << "},\n\"tokens\": [";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out << (i ? ", " : "") << "{\"id\": " << ids[i] << ", \"text\": " << json_string(model.token_text(ids[i])) << "}";
  }
  out << "],\n\"attention\": [";
  for (std::size_t l = 0; l < run.trace.heads.size(); ++l) {
    out << (l ? ",\n [" : "\n [");
    for (std::size_t h = 0; h < run.trace.heads[l].size(); ++h) {
      out << (h ? ",\n  " : "\n  ");
      matrix_compact(out, run.trace.heads[l][h].weights);
    }
    out << "]";
  }
  out << "],\n\"heads\": [";
  for (std::size_t l = 0; l < run.kinds.size(); ++l) {
    out << (l ? ",\n [" : "\n [");
    for (std::size_t h = 0; h < run.kinds[l].size(); ++h) {
      const HeadVerdict& v = run.kinds[l][h];
      out << (h ? ", " : "") << "{\"kind\": " << json_string(head_kind_name(v.kind)) << ", \"score\": " << double_json(v.score)
          << ", \"kv_group\": " << c.kv_group(static_cast<int>(h)) << "}";
    }
    out << "]";
  }
  out << "],\n\"next_token\": ";
  write_next_tokens_json(out, model, run.trace.next_tokens);
  if (layer >= 0 && head >= 0) {
    const HeadTrace& h = run.trace.heads.at(static_cast<std::size_t>(layer)).at(static_cast<std::size_t>(head));
    out << ",\n\"layer\": " << layer << ", \"head\": " << head << ",\n\"q\": ";
    matrix_compact(out, h.q);
    out << ",\n\"k\": ";
    matrix_compact(out, h.k);
    out << ",\n\"v\": ";
    matrix_compact(out, h.v);
  }
  if (!run.generated.empty()) write_generated_json(out, model, run.generated);
  if (!run.links.empty()) write_links_json(out, run.links);
  write_experiment_json(out, model, run);
  out << "\n}\n";
}

void write_model_text(std::ostream& out, const LanguageModel& model, const ModelRun& run, int layer, int head) {
  const auto& c = model.config();
  const auto& ids = run.trace.ids;
  out << model.display_name() << ": " << c.n_layer << " layers × " << c.n_head << " heads, d_model " << c.d_model << ", d_head " << c.d_head
      << ", " << model.parameters() << " parameters\n";
  if (c.n_kv_head != c.n_head) out << "  " << c.n_head / c.n_kv_head << " query heads share each of " << c.n_kv_head << " K/V heads\n";
  if (c.positions == PositionKind::Rope) out << "  rotary positions, theta " << fixed(c.rope_theta, 0) << "\n";
  if (c.sliding_window) out << "  sliding window of " << c.sliding_window << " positions\n";
  out << "\n";
  out << "Tokens (" << ids.size() << "):\n";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    out << "  " << i << "  " << ids[i] << "  " << model.quoted_token(ids[i]) << "\n";
  }
  if (!run.kinds.empty()) {
    // Compact enough for GPT-2 small's 12 heads on one line: a short name and the score.
    const auto short_name = [](HeadKind k) -> std::string {
      switch (k) {
        case HeadKind::PreviousToken: return "prev";
        case HeadKind::Induction: return "induct";
        case HeadKind::FirstToken: return "first";
        default: return std::string(head_kind_name(k));
      }
    };
    constexpr std::size_t kCell = 12;
    out << "\nHead kinds (score), layers down, heads across (prev = previous-token, induct = induction,\n"
           "first = first-token; docs/MODELS.md):\n      ";
    for (int h = 0; h < c.n_head; ++h) {
      std::string label = "H" + std::to_string(h);
      out << label << std::string(std::max<std::size_t>(1, kCell - label.size()), ' ');
    }
    out << "\n";
    for (std::size_t l = 0; l < run.kinds.size(); ++l) {
      std::string label = "L" + std::to_string(l);
      out << "  " << label << std::string(label.size() < 4 ? 4 - label.size() : 1, ' ');
      for (const HeadVerdict& v : run.kinds[l]) {
        std::string cell = short_name(v.kind) + " " + fixed(v.score, 2);
        out << cell << std::string(std::max<std::size_t>(1, kCell - cell.size()), ' ');
      }
      out << "\n";
    }
  }
  if (!run.generated.empty()) {
    if (run.cache) {
      out << "\nWritten over a cache that keeps the first " << run.cache->sinks << " and the last " << run.cache->window
          << " positions (the heads above are the text's own):\n";
      write_generated_text(out, model, run.generated, ids.size());
    } else {
      write_generated_text(out, model, run.generated, ids.size() - run.generated.size());
    }
  }
  if (run.intervention) {
    write_intervention_text(out, model, run);
  } else {
    out << "\nNext token after " << model.quoted_token(ids.back()) << ":\n";
    for (const NextToken& t : run.trace.next_tokens) {
      out << "  " << fixed(t.prob, 4) << "  " << t.id << "  " << model.quoted_token(t.id) << "\n";
    }
  }
  write_comparison_text(out, model, run);
  write_lens_text(out, model, run);
  if (layer >= 0 && head >= 0) {
    const HeadVerdict* v = run.kinds.empty() ? nullptr : &run.kinds[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)];
    out << "\nL" << layer << "H" << head;
    if (v) {
      out << ": " << head_kind_name(v->kind) << " (previous-token " << fixed(v->scores.previous_token, 2) << ", induction "
          << (v->scores.induction_rows ? fixed(v->scores.induction, 2) : "n/a") << ", first-token " << fixed(v->scores.first_token, 2)
          << ", self " << fixed(v->scores.self, 2) << ", broad " << fixed(v->scores.broad, 2) << ")";
    }
    if (model.rope()) {
      out << "\n  (its q and k before the rotation, and its K/V group's k and v: --format json)\n";
    } else {
      out << "\n  (its q, k, v: --format json; the whole pipeline: attnlab compute --model … --layer " << layer << " --head " << head
          << ")\n";
    }
  }
}

namespace {

// A built-in model's embedded files, by name (assets/models/NAME/, embedded as NAME.FILE).
std::optional<ModelFiles> builtin_files(const std::string& name) {
  const auto& files = attnlab_models::files();
  const auto at = [&](const char* file) -> std::optional<std::string_view> {
    const auto it = files.find(name + "." + file);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  const auto config = at("config.json"), vocab = at("vocab.json"), weights = at("model.safetensors");
  if (!config || !vocab || !weights) return std::nullopt;
  return ModelFiles{*config, *vocab, *weights, nullptr};
}

std::string builtin_title(const std::string& name) {
  if (name == "induction") return "Copies a repeated sequence: a previous-token head in layer 0, an induction head in layer 1";
  if (name == "sort") return "Sorts a sequence of numbers: each sorted position attends to the next number up";
  return "A model trained by attnlab train";
}

}  // namespace

std::vector<BuiltinModel> builtin_models() {
  std::vector<BuiltinModel> out;
  const std::string suffix = ".config.json";
  for (const auto& [file, text] : attnlab_models::files()) {
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string name = file.substr(0, file.size() - suffix.size());
    const ModelConfig c = parse_model_config(text, name + "/config.json");
    BuiltinModel m;
    m.name = name;
    m.task = c.is_toy() ? std::string(task_name(parse_task_json(c.task_json, name + "/config.json").kind)) : "";
    m.title = builtin_title(name);
    m.n_layer = c.n_layer;
    m.n_head = c.n_head;
    m.parameters = parameter_count(c);
    out.push_back(m);
  }
  return out;
}

std::unique_ptr<LanguageModel> open_model(const std::string& spec) {
  if (spec.empty()) {
    throw InputError("--model: give a model folder, a .safetensors or .gguf file, a built-in model's name, a Hugging Face repo id, "
                     "ollama:NAME or lmstudio:PUBLISHER/REPO");
  }
  // The stores' names first: "ollama:…" and "lmstudio:…" are never folders a user made.
  if (is_ollama_spec(spec)) return DecoderModel::open_gguf(find_ollama_model(spec), spec);
  if (is_lmstudio_spec(spec)) return DecoderModel::open_gguf(find_lmstudio_model(spec), spec);
  // A folder or file of that name comes first: a built-in model's name and a repo id are
  // fallbacks, so that a folder the user made called "sort" or "gpt2" still opens.
  std::error_code ec;
  if (fs::exists(spec, ec)) return DecoderModel::open(spec);
  if (auto files = builtin_files(spec)) return DecoderModel::open_memory(*files, spec);
  if (is_repo_id(spec)) {
    if (auto snapshot = find_in_hf_cache(spec)) return DecoderModel::open(*snapshot, spec);
    throw InputError(hf_cache_miss(spec));
  }
  return DecoderModel::open(spec);
}

std::vector<int> parse_ids(std::string_view list, std::string_view what) {
  std::vector<int> ids;
  const std::string w(what);
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(at, comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 0 || v > 1'000'000'000) {
      throw InputError(w + ": '" + one_line(item) + "' is not a token id (give whole numbers separated by commas, e.g. 15496,995)");
    }
    ids.push_back(static_cast<int>(v));
    at = comma + 1;
  }
  return ids;
}

}  // namespace attnlab::model
