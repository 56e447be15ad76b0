// Resolving INPUT + OPTIONS into a validated Scenario.
#include "cli/inputs.hpp"

#include "engine/io/matrix_io.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/model/model_report.hpp"


namespace attnlab::cli {

void add_input_options(CLI::App& cmd, InputArgs& args, bool with_backend) {
  cmd.add_option("INPUT", args.scenario_path, "Scenario file (.json); default: the built-in default lesson");
  cmd.add_option("--preset", args.preset, "Built-in lesson by name (see `attnlab presets`)");
  cmd.add_option("--q", args.q_path, "Q matrix file (.npy or .csv), n × d_k");
  cmd.add_option("--k", args.k_path, "K matrix file (.npy or .csv), m × d_k");
  cmd.add_option("--v", args.v_path, "V matrix file (.npy or .csv), m × d_v");
  cmd.add_option("--model", args.model,
                 "One head of a model (folder, .safetensors, built-in, or a Hugging Face repo id in the local cache) as Q, K, V; with --layer, --head")
      ->group("Model input");
  cmd.add_option("--text", args.model_text, "With --model: the text to run")
      ->each([&args](const std::string&) { args.have_model_text = true; })
      ->group("Model input");
  cmd.add_option("--ids", args.model_ids, "With --model: token ids instead of text (15496,995)")->group("Model input");
  cmd.add_option("--layer", args.layer, "With --model: the layer, from 0")->group("Model input");
  cmd.add_option("--head", args.head, "With --model: the head, from 0")->group("Model input");
  cmd.add_flag("--scale", args.scale, "Divide the scores by √d_k");
  cmd.add_flag("--no-scale", args.no_scale, "Do not divide the scores by √d_k");
  cmd.add_option("--temperature", args.temperature, "Softmax temperature T > 0");
  cmd.add_option("--mask", args.mask, "none | causal | padding:L | prefix:P | window:W");
  cmd.add_option("--normalizer", args.normalizer, "softmax | sparsemax | sigmoid | hardmax");
  if (with_backend) cmd.add_option("--backend", args.backend, "cpu | gpu | auto");
}

namespace {

// --model: the forward pass keeping only the chosen head's q, k, v (no n × n weights), lifted.
Scenario model_head_scenario(const InputArgs& a) {
  if (a.layer < 0 || a.head < 0) throw InputError("--model needs --layer L and --head H (both from 0) to choose a head");
  if (a.have_model_text == !a.model_ids.empty()) throw InputError("--model needs its input as --text TEXT or as --ids I,J,…, one of them");
  const auto m = model::open_model(a.model);
  model::check_liftable(*m, a.layer, a.head, "--model");
  std::vector<int> ids;
  if (a.have_model_text) {
    ids = m->tokenize(a.model_text, "--text");
  } else {
    ids = model::parse_ids(a.model_ids, "--ids");
    m->check_ids(ids, "--ids");
  }
  model::ForwardOptions opt;
  opt.keep_weights = false;
  opt.qkv_layer = a.layer;
  opt.qkv_head = a.head;
  opt.top_k = 0;
  const model::ModelRun run = model::run_model(*m, ids, opt);
  return model::lift_head(*m, run, a.layer, a.head).lab_scenario("--model");
}

}  // namespace

Scenario resolve_scenario(const InputArgs& a) {
  const bool have_files = !a.q_path.empty() || !a.k_path.empty() || !a.v_path.empty();
  const bool have_model = !a.model.empty();
  const int sources = !a.scenario_path.empty() + !a.preset.empty() + have_files + have_model;
  if (sources > 1) {
    throw InputError("give one input: a scenario file, --preset NAME, --q/--k/--v files, or --model");
  }
  if (!have_model && (a.have_model_text || !a.model_ids.empty() || a.layer != -1 || a.head != -1)) {
    throw InputError("--text, --ids, --layer and --head choose a head of a model: give --model too");
  }
  if (a.scale && a.no_scale) throw InputError("--scale and --no-scale contradict each other; give one");
  Scenario s;
  if (!a.scenario_path.empty()) {
    s = load_scenario(a.scenario_path);
  } else if (!a.preset.empty()) {
    s = load_preset(a.preset);
  } else if (have_files) {
    if (a.q_path.empty() || a.k_path.empty() || a.v_path.empty()) {
      throw InputError("--q, --k and --v go together: give all three matrix files");
    }
    s.Q = load_matrix(a.q_path);
    s.K = load_matrix(a.k_path);
    s.V = load_matrix(a.v_path);
    s.title = "Q, K, V from files";
    // Name the files in shape errors, which are the likeliest mistake with separate files.
    if (s.Q.cols() != s.K.cols()) {
      throw InputError(a.q_path + " has " + std::to_string(s.Q.cols()) + " columns but " + a.k_path + " has " +
                       std::to_string(s.K.cols()) + ": Q and K must have the same width (d_k)");
    }
    if (s.K.rows() != s.V.rows()) {
      throw InputError(a.k_path + " has " + std::to_string(s.K.rows()) + " rows but " + a.v_path + " has " +
                       std::to_string(s.V.rows()) + ": K and V need one row per key");
    }
  } else if (have_model) {
    s = model_head_scenario(a);
  } else {
    s = default_scenario();
  }
  if (a.scale) s.options.scale = true;
  if (a.no_scale) s.options.scale = false;
  if (!a.temperature.empty()) s.options.temperature = parse_temperature(a.temperature, "--temperature");
  if (!a.mask.empty()) s.options.mask = parse_mask_spec(a.mask, "--mask");
  if (!a.normalizer.empty()) s.options.normalizer = parse_normalizer(a.normalizer, "--normalizer");
  // Overrides can invalidate a mask parameter against the matrix size; say which flag did it.
  if (!a.mask.empty()) validate_mask(s.options.mask, s.Q.rows(), s.K.rows(), "--mask");
  validate_scenario(s, !a.scenario_path.empty() ? a.scenario_path : !a.preset.empty() ? "preset " + a.preset : "input");
  return s;
}

}  // namespace attnlab::cli
