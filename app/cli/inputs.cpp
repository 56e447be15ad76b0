// Resolving INPUT + OPTIONS into a validated Scenario.
#include "cli/inputs.hpp"

#include "engine/io/matrix_io.hpp"
#include "engine/lessons/presets.hpp"


namespace attnlab::cli {

void add_input_options(CLI::App& cmd, InputArgs& args, bool with_backend) {
  cmd.add_option("INPUT", args.scenario_path, "Scenario file (.json); default: the built-in default lesson");
  cmd.add_option("--preset", args.preset, "Built-in lesson by name (see `attnlab presets`)");
  cmd.add_option("--q", args.q_path, "Q matrix file (.npy or .csv), n × d_k");
  cmd.add_option("--k", args.k_path, "K matrix file (.npy or .csv), m × d_k");
  cmd.add_option("--v", args.v_path, "V matrix file (.npy or .csv), m × d_v");
  cmd.add_flag("--scale", args.scale, "Divide the scores by √d_k");
  cmd.add_flag("--no-scale", args.no_scale, "Do not divide the scores by √d_k");
  cmd.add_option("--temperature", args.temperature, "Softmax temperature T > 0");
  cmd.add_option("--mask", args.mask, "none | causal | padding:L | prefix:P | window:W");
  cmd.add_option("--normalizer", args.normalizer, "softmax | sparsemax | sigmoid | hardmax");
  if (with_backend) cmd.add_option("--backend", args.backend, "cpu | gpu | auto");
}

Scenario resolve_scenario(const InputArgs& a) {
  const bool have_files = !a.q_path.empty() || !a.k_path.empty() || !a.v_path.empty();
  const int sources = !a.scenario_path.empty() + !a.preset.empty() + have_files;
  if (sources > 1) {
    throw InputError("give one input: a scenario file, --preset NAME, or --q/--k/--v files");
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
