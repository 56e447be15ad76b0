// Resolving INPUT + OPTIONS into a validated Scenario.
#include "cli/inputs.hpp"

#include "engine/io/matrix_io.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/model/model_report.hpp"

#include <charconv>


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
  cmd.add_option("--rope", args.rope_theta, "Rotary positions on, with base THETA (10000 in most models): Q and K rotated before the scores");
  cmd.add_option("--rope-offset", args.rope_offset, "With rotary positions: add P to every position (the scores stay: only distances matter)");
  cmd.add_flag("--no-rope", args.no_rope, "Rotary positions off (a lifted model head then shows its scores without positions)");
  if (with_backend) cmd.add_option("--backend", args.backend, "cpu | gpu | auto");
}

namespace {

// --model: the forward pass keeping only the chosen head's q, k, v (no n × n weights), lifted.
Scenario model_head_scenario(const InputArgs& a) {
  if (a.layer < 0 || a.head < 0) throw InputError("--model needs --layer L and --head H (both from 0) to choose a head");
  if (a.have_model_text == !a.model_ids.empty()) throw InputError("--model needs its input as --text TEXT or as --ids I,J,…, one of them");
  const auto m = model::open_model(a.model);
  model::check_head(*m, a.layer, a.head);
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
  return model::lift_head(*m, run, a.layer, a.head);
}

// --rope THETA, --rope-offset P and --no-rope over the scenario's rotary positions.
void apply_rope_options(const InputArgs& a, Scenario& s) {
  if (a.no_rope && (!a.rope_theta.empty() || !a.rope_offset.empty())) {
    throw InputError("--no-rope contradicts --rope and --rope-offset; give one or the other");
  }
  if (a.no_rope) s.options.rope.reset();
  if (!a.rope_theta.empty()) {
    if (!s.options.rope) s.options.rope = RopeSettings{};
    s.options.rope->theta = parse_positive_number(a.rope_theta, "--rope");
  }
  if (!a.rope_offset.empty()) {
    if (!s.options.rope) throw InputError("--rope-offset moves the positions of rotary positions: turn them on with --rope THETA");
    std::int64_t p = -1;
    const auto [end, ec] = std::from_chars(a.rope_offset.data(), a.rope_offset.data() + a.rope_offset.size(), p);
    if (ec != std::errc() || end != a.rope_offset.data() + a.rope_offset.size() || p < 0 || p > (std::int64_t{1} << 50)) {
      throw InputError("--rope-offset: positions are whole numbers from 0, not '" + a.rope_offset + "'");
    }
    RopeSettings& r = *s.options.rope;
    r.query_positions = rope_positions(r.query_positions, s.Q.rows());
    r.key_positions = rope_positions(r.key_positions, s.K.rows());
    for (auto& q : r.query_positions) q += p;
    for (auto& k : r.key_positions) k += p;
  }
}

}  // namespace

Scenario resolve_scenario(const InputArgs& a) {
  const bool have_files = !a.q_path.empty() || !a.k_path.empty() || !a.v_path.empty();
  const bool have_model = !a.model.empty();
  const int sources = !a.scenario_path.empty() + !a.preset.empty() + have_files + have_model;
  if (sources > 1) {
    throw InputError("--preset, --q/--k/--v or --model: give one input, or a scenario file");
  }
  if (!have_model && (a.have_model_text || !a.model_ids.empty() || a.layer != -1 || a.head != -1)) {
    throw InputError("--text, --ids, --layer and --head choose a head of a model: give --model too");
  }
  if (a.scale && a.no_scale) throw InputError("--scale and --no-scale contradict each other; give one");
  Scenario s;
  if (!a.scenario_path.empty()) {
    s = load_scenario(a.scenario_path);
    check_lesson_fields(s.lesson);
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
  if (!a.temperature.empty()) s.options.temperature = parse_positive_number(a.temperature, "--temperature");
  if (!a.mask.empty()) s.options.mask = parse_mask_spec(a.mask, "--mask");
  if (!a.normalizer.empty()) s.options.normalizer = parse_normalizer(a.normalizer, "--normalizer");
  apply_rope_options(a, s);
  // Overrides can invalidate a mask parameter against the matrix size; say which flag did it.
  if (!a.mask.empty()) validate_mask(s.options.mask, s.Q.rows(), s.K.rows(), "--mask");
  validate_scenario(s, !a.scenario_path.empty() ? a.scenario_path : !a.preset.empty() ? "preset " + a.preset : "input");
  return s;
}

}  // namespace attnlab::cli
