// `attnlab models` (the built-in models) and `attnlab model` (a language model's every head, its
// head kinds and next tokens, as JSON or text, whatever its family): docs/CLI.md's "Real models" and
// "Model families" contracts, docs/MODELS.md.
#include "cli/commands.hpp"
#include "cli/model_generate.hpp"
#include "cli/progress.hpp"
#include "engine/cpu/fma_peak.hpp"
#include "engine/text/text_format.hpp"
#include "engine/model/model_report.hpp"

#include <chrono>
#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List the built-in models: name, task, layers × heads, parameters");
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("--format", *format, "json | text")->check(CLI::IsMember({"json", "text"}));
  return [format]() {
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
  struct Args {
    std::string model, text, ids, save, link, format = "text";
    int layer = -1, head = -1, top = 10;
    bool have_text = false, force = false, timing = false;
    GenerateArgs generate;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("MODEL", a->model,
                  "A model folder in the Hugging Face layout (GPT-2, Llama, Mistral, Qwen2, Qwen3), its .safetensors file, a built-in "
                  "model, or a Hugging Face repo id in the local cache (HuggingFaceTB/SmolLM2-135M)")
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
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto m = model::open_model(a->model);
    const auto t1 = Clock::now();
    if (a->layer >= 0) model::check_head(*m, a->layer, a->head);
    std::vector<int> ids;
    if (a->have_text) {
      ids = m->tokenize(a->text, "--text");
    } else {
      ids = model::parse_ids(a->ids, "--ids");
      m->check_ids(ids, "--ids");
    }
    const bool link = cmd->count("--link") > 0;
    std::pair<int, int> link_at{-1, -1};
    if (link) {
      link_at = model::parse_link(a->link, "--link");
      model::check_link(link_at.first, link_at.second, static_cast<int>(ids.size()), "--link");
    }
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
      run.trace = m->forward(ids, opt);
      const auto t3 = Clock::now();
      if (a->timing) {
        print_forward_timing(*m, static_cast<std::int64_t>(ids.size()), load_ms, std::chrono::duration<double, std::milli>(t3 - t2).count(),
                             process_cpu_ms() - cpu0);
      }
      run.kinds = model::classify_heads(run.trace);
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
