// `attnlab models` (the built-in models) and `attnlab model` (a language model's every head, its
// head kinds and next tokens, as JSON or text, whatever its family): docs/CLI.md's "Real models" and
// "Model families" contracts, docs/MODELS.md.
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "engine/cpu/fma_peak.hpp"
#include "engine/io/text_format.hpp"
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
    std::string model, text, ids, save, format = "text";
    int layer = -1, head = -1, top = 10;
    bool have_text = false, force = false, timing = false;
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
  cmd->add_option("--top", a->top, "How many next tokens to list (default 10)");
  cmd->add_option("--save", a->save, "Write the model's files to DIR");
  cmd->add_flag("--force", a->force, "With --save: replace existing files");
  cmd->add_option("--format", a->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--timing", a->timing,
                "Also print the load and forward times, the forward's matrix-product GFLOP/s and its fraction of the FMA peak (stderr)");
  return [a]() {
    if (a->have_text == !a->ids.empty()) throw InputError("give the input as --text TEXT or as --ids I,J,…, one of them");
    if ((a->layer >= 0 || a->head >= 0) != (a->layer >= 0 && a->head >= 0) || a->layer < -1 || a->head < -1) {
      throw InputError("--layer L and --head H go together, both from 0");
    }
    if (a->top < 0 || a->top > 1'000'000) throw InputError("--top " + std::to_string(a->top) + ": give a count from 0 up");
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
    model::ForwardOptions opt;
    opt.qkv_layer = a->layer;
    opt.qkv_head = a->head;
    opt.top_k = a->top;
    const auto t2 = Clock::now();
    const auto run = model::run_model(*m, ids, opt);
    const auto t3 = Clock::now();
    if (a->timing) {
      // The forward's matrix products, as docs/PERFORMANCE.md counts them (GPT-2: per layer 24·n·d²
      // for the four Conv1D products and 4·n²·d for QKᵀ and AV over every head, the full n × n,
      // which is what runs; plus 2·d·V for the next-token logits of the last position).
      const double flops = m->forward_flops(static_cast<std::int64_t>(ids.size()));
      const double load_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      const double forward_ms = std::chrono::duration<double, std::milli>(t3 - t2).count();
      const FmaPeak& peak = machine_fma_peak();
      const double gflops = flops / forward_ms * 1e-6;
      std::cerr << "timing: load " << fixed_decimals(load_ms, 1) << " ms, forward " << fixed_decimals(forward_ms, 1) << " ms ("
                << fixed_decimals(gflops, 1) << " GFLOP/s, " << fixed_decimals(gflops / peak.gflops, 3) << " of the FMA peak "
                << fixed_decimals(peak.gflops, 1) << " GFLOP/s on " << peak.threads << " threads)\n";
    }
    if (!a->save.empty()) m->save(a->save, a->force);
    if (a->format == "json") model::write_model_json(std::cout, *m, run, a->layer, a->head);
    else model::write_model_text(std::cout, *m, run, a->layer, a->head);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
