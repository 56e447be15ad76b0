// `attnlab models` (the built-in models) and `attnlab model` (a language model's every head, its
// head kinds and next tokens, as JSON or text, whatever its family): docs/CLI.md's "Real models" and
// "Model families" contracts, docs/MODELS.md.
#include "cli/commands.hpp"
#include "cli/model_generate.hpp"
#include "cli/progress.hpp"
#include "engine/cpu/fma_peak.hpp"
#include "engine/text/text_format.hpp"
#include "engine/model/local_stores.hpp"
#include "engine/model/model_report.hpp"

#include <chrono>
#include <functional>
#include <iostream>
#include <memory>

namespace attnlab::cli {

namespace {

// `models --local`: what the Hugging Face cache, Ollama's stores and LM Studio's folder hold.
void print_local_models(const std::string& format) {
  const auto models = model::list_local_models();
  const auto folders = model::local_model_folders();
  if (format == "json") {
    std::cout << "{\"models\": [";
    for (std::size_t i = 0; i < models.size(); ++i) {
      const auto& m = models[i];
      std::cout << (i ? ",\n  " : "\n  ") << "{\"name\": " << json_string(m.name) << ", \"source\": " << json_string(m.source)
                << ", \"family\": " << json_string(m.family) << ", \"parameters\": " << m.parameters << ", \"tensor_type\": "
                << json_string(m.tensor_type) << ", \"bytes\": " << m.bytes << ", \"path\": " << json_string(m.path.string())
                << ", \"opens\": " << (m.opens ? "true" : "false") << ", \"why_not\": " << (m.opens ? "null" : json_string(m.why_not)) << "}";
    }
    std::cout << "],\n\"searched\": [";
    for (std::size_t i = 0; i < folders.size(); ++i) std::cout << (i ? ", " : "") << json_string(folders[i].string());
    std::cout << "]}\n";
    return;
  }
  if (models.empty()) std::cout << "No models found.\n";
  for (const auto& m : models) {
    std::cout << m.name << "  " << (m.family.empty() ? "?" : m.family) << "  " << count_in_words(static_cast<double>(m.parameters)) << " parameters  "
              << (m.tensor_type.empty() ? "?" : m.tensor_type) << "  " << human_bytes(static_cast<double>(m.bytes)) << "\n";
    if (!m.opens) std::cout << "    does not open: " << m.why_not << "\n";
  }
  std::cout << "(searched ";
  for (std::size_t i = 0; i < folders.size(); ++i) std::cout << (i ? ", " : "") << folders[i].string();
  std::cout << ")\n";
}

// The interventions' options that only go with others (docs/CLI.md, "Interventions"), checked before
// the model loads. `given(option)`: whether the command line names it.
void check_experiment_args(const std::function<bool(const char*)>& given, bool generate) {
  const auto needs = [&](const char* option, const char* partner, const std::string& why) {
    if (given(option) && !given(partner)) throw InputError(std::string(option) + " goes with " + partner + ": " + why);
  };
  needs("--ablation", "--ablate", "it says how --ablate's heads are knocked out");
  needs("--position", "--logit-lens", "it names the position the logit lens reads");
  if ((given("--from-text") || given("--from-ids")) && !given("--patch")) {
    throw InputError("--from-text and --from-ids give --patch its second text; name the heads to patch with --patch L.H");
  }
  if (given("--patch") && given("--from-text") == given("--from-ids")) {
    throw InputError("--patch: give the second text the heads' outputs come from as one of --from-text T2 or --from-ids I,J,…");
  }
  if (given("--ablate") && given("--patch")) throw InputError("--ablate and --patch: one intervention at a time, ablate or patch");
  if (given("--compare-text") && given("--compare-ids")) throw InputError("--compare-text and --compare-ids: give the second text as one of them");
  if (generate && (given("--ablate") || given("--patch") || given("--compare-text") || given("--compare-ids") || given("--logit-lens"))) {
    throw InputError("--generate runs the model as it is; --ablate, --patch, --compare-text and --logit-lens read one forward, without it");
  }
}

// `model`'s options as the command line gives them.
struct ModelArgs {
  std::string model, text, ids, save, link, format = "text";
  int layer = -1, head = -1, top = 10;
  bool have_text = false, force = false, timing = false;
  // Interventions (docs/CLI.md): each second text as --…-text or --…-ids.
  std::string ablate, ablation = "zero", patch, from_text, from_ids, compare_text, compare_ids;
  bool logit_lens = false;
  std::int64_t position = -1;
  GenerateArgs generate;
};

// A text as ids: tokenized (--text, --from-text, --compare-text), or parsed and checked (--ids, …).
std::vector<int> text_or_ids(const model::LanguageModel& m, bool as_text, const std::string& text, const std::string& ids, const char* text_flag,
                             const char* ids_flag) {
  if (as_text) return m.tokenize(text, text_flag);
  std::vector<int> out = model::parse_ids(ids, ids_flag);
  m.check_ids(out, ids_flag);
  return out;
}

// The interventions the options ask for on `ids`, heads and second texts checked against the model.
model::Experiment read_experiment(const model::LanguageModel& m, const std::vector<int>& ids, const ModelArgs& a,
                                  const std::function<bool(const char*)>& given) {
  model::Experiment experiment;
  if (given("--ablate")) {
    experiment.ablate = model::parse_heads(a.ablate, m.config(), "--ablate");
    experiment.ablation = model::parse_ablation(a.ablation, "--ablation");
  }
  if (given("--patch")) {
    experiment.patch = model::parse_heads(a.patch, m.config(), "--patch");
    experiment.patch_ids = text_or_ids(m, given("--from-text"), a.from_text, a.from_ids, "--from-text", "--from-ids");
  }
  if (given("--compare-text") || given("--compare-ids")) {
    experiment.compare_ids = text_or_ids(m, given("--compare-text"), a.compare_text, a.compare_ids, "--compare-text", "--compare-ids");
  }
  if (a.logit_lens) {
    const auto n = static_cast<std::int64_t>(ids.size());
    if (given("--position") && (a.position < 0 || a.position >= n)) {
      throw InputError("--position " + std::to_string(a.position) + ": the text has positions 0 to " + std::to_string(n - 1));
    }
    experiment.lens_position = given("--position") ? a.position : n - 1;
  }
  return experiment;
}

}  // namespace

Runner add_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in models (name, task, layers × heads, parameters), or with --local the models on disk");
  auto format = std::make_shared<std::string>("text");
  auto local = std::make_shared<bool>(false);
  cmd->add_option("--format", *format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--local", *local,
                "List the models in the Hugging Face cache, Ollama's store and LM Studio's folder: the name to pass as MODEL, family, "
                "parameters, tensor type, file size");
  return [format, local]() {
    if (*local) {
      print_local_models(*format);
      return kExitOk;
    }
    const auto models = model::builtin_models();
    if (*format == "json") {
      std::cout << "{\"models\": [";
      for (std::size_t i = 0; i < models.size(); ++i) {
        const auto& m = models[i];
        std::cout << (i ? ",\n  " : "\n  ") << "{\"name\": " << json_string(m.name) << ", \"task\": " << json_string(m.task)
                  << ", \"n_layer\": " << m.n_layer << ", \"n_head\": " << m.n_head << ", \"parameters\": " << m.parameters << "}";
      }
      std::cout << "]}\n";
    } else if (models.empty()) {
      std::cout << "No built-in models in this build. Open a GPT-2 folder instead: attnlab model DIR --text \"…\"\n";
    } else {
      for (const auto& m : models) {
        std::cout << m.name << "  " << m.task << "  " << m.n_layer << " × " << m.n_head << "  " << m.parameters << "\n";
      }
    }
    return kExitOk;
  };
}

Runner add_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "Run a language model on a text: every head's attention, its kind, the next tokens");
  auto a = std::make_shared<ModelArgs>();
  cmd->add_option("MODEL", a->model,
                  "A model folder in the Hugging Face layout (GPT-2, Llama, Mistral, Qwen2, Qwen3), its .safetensors file, a .gguf file, "
                  "ollama:NAME[:TAG] or lmstudio:PUBLISHER/REPO (attnlab models --local lists them), a built-in model, or a Hugging Face "
                  "repo id in the local cache (HuggingFaceTB/SmolLM2-135M)")
      ->required();
  cmd->add_option("--text", a->text, "The text to tokenize and run")->each([a](const std::string&) { a->have_text = true; });
  cmd->add_option("--ids", a->ids, "Token ids instead of text: 15496,995");
  cmd->add_option("--layer", a->layer, "Layer L (from 0): adds that head's q, k, v");
  cmd->add_option("--head", a->head, "Head H (from 0), with --layer");
  cmd->add_option("--top", a->top, "How many next tokens (and with --link, heads) to list (default 10)");
  cmd->add_option("--link", a->link, "I,J: rank every head by its weight from query token I to key token J (0-based; the later one is the query)");
  cmd->add_option("--save", a->save, "Write the model's files to DIR");
  cmd->add_flag("--force", a->force, "With --save: replace existing files");
  cmd->add_option("--format", a->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--ablate", a->ablate, "L.H[,L.H…]: knock out these heads (layer.head, from 0) and show the next tokens before and after");
  cmd->add_option("--ablation", a->ablation,
                  "With --ablate: zero (the head's output set to 0), mean (its mean over the text's positions) or uniform (uniform weights "
                  "over the keys it may see); default zero");
  cmd->add_option("--patch", a->patch, "L.H[,L.H…]: give these heads their outputs on a second text (--from-text or --from-ids)");
  cmd->add_option("--from-text", a->from_text, "With --patch: the second text, of the same token count");
  cmd->add_option("--from-ids", a->from_ids, "With --patch: the second text as token ids");
  cmd->add_option("--compare-text", a->compare_text, "A second text of the same token count: every head's weights compared with this one's");
  cmd->add_option("--compare-ids", a->compare_ids, "The compared text as token ids");
  cmd->add_flag("--logit-lens", a->logit_lens, "After each layer, what the model would predict if it stopped there");
  cmd->add_option("--position", a->position, "With --logit-lens: the token position (from 0) read; default the last");
  add_generate_options(*cmd, a->generate);
  cmd->add_flag("--timing", a->timing,
                "Also print the load and forward times, the forward's matrix-product GFLOP/s and its fraction of the FMA peak, and with "
                "--generate the milliseconds per generated token against running the whole sequence again (stderr)");
  return [a, cmd]() {
    if (a->have_text == !a->ids.empty()) throw InputError("--text or --ids: give the input as one of them, --text TEXT or --ids I,J,…");
    if ((a->layer >= 0 || a->head >= 0) != (a->layer >= 0 && a->head >= 0) || a->layer < -1 || a->head < -1) {
      throw InputError("--layer L and --head H go together, both from 0");
    }
    if (a->top < 0 || a->top > 1'000'000) throw InputError("--top " + std::to_string(a->top) + ": give a count from 0 up");
    check_generate_args(a->generate);
    const auto given = [&](const char* option) { return cmd->count(option) > 0; };
    check_experiment_args(given, a->generate.count > 0);
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto m = model::open_model(a->model);
    const auto t1 = Clock::now();
    if (a->layer >= 0) model::check_head(*m, a->layer, a->head);
    const std::vector<int> ids = text_or_ids(*m, a->have_text, a->text, a->ids, "--text", "--ids");
    const bool link = cmd->count("--link") > 0;
    std::pair<int, int> link_at{-1, -1};
    if (link) {
      link_at = model::parse_link(a->link, "--link");
      model::check_link(link_at.first, link_at.second, static_cast<int>(ids.size()), "--link");
    }
    const model::Experiment experiment = read_experiment(*m, ids, *a, given);
    model::ForwardOptions opt;
    opt.qkv_layer = a->layer;
    opt.qkv_head = a->head;
    opt.top_k = a->top;
    const double load_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    model::ModelRun run;
    if (a->generate.count > 0) {
      run = run_generation(*m, ids, opt, a->generate, a->timing, load_ms);
    } else {
      const double cpu0 = process_cpu_ms();
      const auto t2 = Clock::now();
      run = model::run_experiment(*m, ids, opt, experiment);
      const auto t3 = Clock::now();
      if (a->timing) {
        print_forward_timing(*m, static_cast<std::int64_t>(ids.size()), load_ms, std::chrono::duration<double, std::milli>(t3 - t2).count(),
                             process_cpu_ms() - cpu0);
      }
    }
    if (!a->save.empty()) m->save(a->save, a->force);
    if (link) run.links = model::rank_head_links(run.trace, link_at.first, link_at.second);
    if (a->format == "json") {
      model::write_model_json(std::cout, *m, run, a->layer, a->head);
    } else {
      model::write_model_text(std::cout, *m, run, a->layer, a->head);
      if (!run.links.empty()) {
        model::write_links_text(std::cout, run.links, a->top, m->token_label(ids[static_cast<std::size_t>(link_at.first)]),
                                m->token_label(ids[static_cast<std::size_t>(link_at.second)]), link_at.first, link_at.second);
      }
    }
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
