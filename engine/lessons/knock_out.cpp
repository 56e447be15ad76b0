// The knock-out lesson's numbers; see knock_out.hpp.
#include "engine/lessons/knock_out.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/lesson_variant.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/training_tasks.hpp"

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

// The heads of `kind` by the detector's verdicts, in the order of the model.
std::vector<model::HeadIndex> heads_of_kind(const std::vector<KnockOutHead>& heads, model::HeadKind kind) {
  std::vector<model::HeadIndex> out;
  for (const KnockOutHead& h : heads) {
    if (h.verdict.kind == kind) out.push_back(h.head);
  }
  return out;
}

nlohmann::ordered_json knock_out_run_json(const KnockOutRun& run) {
  nlohmann::ordered_json heads = nlohmann::ordered_json::array();
  for (const model::HeadIndex& h : run.heads) heads.push_back(head_label(h));
  const double accuracy = run.accuracy.value();
  return {{"heads", heads},
          {"accuracy", accuracy},
          {"percent", 100 * accuracy},
          {"right", run.accuracy.right},
          {"counted", run.accuracy.counted},
          {"predicted", run.predicted},
          {"prob", run.prob}};
}

// The lowest and highest accuracy, in percent, of the heads of `kind` each knocked out alone: how
// much one of several heads of a kind matters by itself ({} when the model has none).
nlohmann::ordered_json alone_range_json(const std::vector<KnockOutHead>& heads, model::HeadKind kind) {
  std::vector<double> percents;
  for (const KnockOutHead& h : heads) {
    if (h.verdict.kind == kind) percents.push_back(100 * h.alone.accuracy.value());
  }
  if (percents.empty()) return nlohmann::ordered_json::object();
  const auto [lo, hi] = std::minmax_element(percents.begin(), percents.end());
  return {{"count", percents.size()}, {"lowest_percent", *lo}, {"highest_percent", *hi}};
}

// The pipeline's last query: its strongest key, and its weight there with every key zero.
HandMadeKnockOut hand_made_knock_out(const Scenario& s, const Result& r, Backend& backend) {
  if (r.n < 1 || r.weights.rows() != r.n) throw InputError("the knock-out lesson needs the pipeline's weights (a dense result)");
  HandMadeKnockOut h;
  h.row = r.n - 1;
  r.weights.row(h.row).maxCoeff(&h.key);
  h.weight = r.weights(h.row, h.key);
  const LessonVariant zero_keys = document_variant(backend, s, [](Problem& p) { p.K.setZero(); });
  h.knocked_out_weight = computed(zero_keys).weights(h.row, h.key);
  return h;
}

}  // namespace

std::string head_label(const model::HeadIndex& h) { return "L" + std::to_string(h.layer) + "H" + std::to_string(h.head); }

std::string head_labels(const std::vector<model::HeadIndex>& heads) {
  if (heads.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (i > 0) out += i + 1 == heads.size() ? " and " : ", ";
    out += head_label(heads[i]);
  }
  return out;
}

KnockOutProbe knock_out_probe(const model::LanguageModel& m) {
  const model::TaskSpec task = model::parse_task_json(m.config().task_json, m.display_name());
  if (task.kind != model::TaskKind::Induction) throw InputError(m.display_name() + ": the knock-out lesson needs a model trained on the induction task");
  KnockOutProbe p;
  p.ids = model::probe_sequence(task);
  // The probe is L tokens then their copy; the copy's middle predicts a token the model can only copy.
  p.position = task.length + task.length / 2;
  p.truth = p.ids.at(static_cast<std::size_t>(p.position) + 1);
  return p;
}

KnockOutRun knock_out(const model::LanguageModel& m, const KnockOutProbe& probe, std::vector<model::HeadIndex> heads, int sequences,
                      std::uint64_t seed) {
  KnockOutRun run;
  run.heads = std::move(heads);
  const std::vector<model::HeadEdit> edits = model::ablation_edits(run.heads, model::HeadEdit::Kind::Zero);
  run.accuracy = model::task_accuracy(m, edits, sequences, seed);
  model::ForwardOptions o;
  o.keep_weights = false;
  o.top_k = 0;
  o.keep_predictions = true;
  o.edits = edits;
  const model::NextToken next = m.forward(probe.ids, o).predictions.at(static_cast<std::size_t>(probe.position));
  run.predicted = next.id;
  run.prob = next.prob;
  return run;
}

KnockOutRun knock_out(const KnockOutNumbers& n, std::vector<model::HeadIndex> heads) {
  return knock_out(*model::open_model(n.model), n.probe, std::move(heads), n.sequences, n.seed);
}

KnockOutNumbers compute_knock_out(const Scenario& s, const Result& r, Backend& backend, const LessonDetail&) {
  KnockOutNumbers n;
  n.hand_made = hand_made_knock_out(s, r, backend);
  n.model = std::string(kKnockOutModel);
  n.sequences = kKnockOutSequences;
  n.seed = kKnockOutSeed;
  const auto m = model::open_model(n.model);
  n.probe = knock_out_probe(*m);
  // The heads' kinds on the probe, as the Model window names them.
  const model::ModelRun probe_run = model::run_model(*m, n.probe.ids, {});
  for (std::size_t l = 0; l < probe_run.kinds.size(); ++l) {
    for (std::size_t h = 0; h < probe_run.kinds[l].size(); ++h) {
      const model::HeadIndex head{static_cast<int>(l), static_cast<int>(h)};
      n.heads.push_back({head, probe_run.kinds[l][h], knock_out(*m, n.probe, {head}, n.sequences, n.seed)});
    }
  }
  n.as_is = knock_out(*m, n.probe, {}, n.sequences, n.seed);
  n.induction_out = knock_out(*m, n.probe, heads_of_kind(n.heads, model::HeadKind::Induction), n.sequences, n.seed);
  n.previous_out = knock_out(*m, n.probe, heads_of_kind(n.heads, model::HeadKind::PreviousToken), n.sequences, n.seed);
  return n;
}

nlohmann::ordered_json knock_out_to_json(const KnockOutNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  using json = nlohmann::ordered_json;
  const HandMadeKnockOut& h = n.hand_made;
  json heads = json::array();
  for (const KnockOutHead& k : n.heads) {
    heads.push_back({{"name", head_label(k.head)},
                     {"layer", k.head.layer},
                     {"head", k.head.head},
                     {"kind", std::string(model::head_kind_name(k.verdict.kind))},
                     {"score", k.verdict.score},
                     {"alone_out", knock_out_run_json(k.alone)}});
  }
  json probe_ids = json::array();
  for (const int id : n.probe.ids) probe_ids.push_back(id);
  return {{"hand_made", {{"row", h.row}, {"key", h.key}, {"weight", h.weight}, {"knocked_out_weight", h.knocked_out_weight}}},
          {"model", n.model},
          {"sequences", n.sequences},
          {"seed", n.seed},
          {"positions", n.as_is.accuracy.counted},
          {"probe", {{"ids", probe_ids}, {"position", n.probe.position}, {"token", n.probe.ids.at(static_cast<std::size_t>(n.probe.position))},
                     {"truth", n.probe.truth}}},
          {"heads", heads},
          {"induction_heads", head_labels(n.induction_out.heads)},
          {"previous_heads", head_labels(n.previous_out.heads)},
          {"induction_alone", alone_range_json(n.heads, model::HeadKind::Induction)},
          {"as_is", knock_out_run_json(n.as_is)},
          {"induction_out", knock_out_run_json(n.induction_out)},
          {"previous_out", knock_out_run_json(n.previous_out)}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise knock_out_exercise(const ExerciseRequest& request) {
  const std::vector<std::string> letters{"A", "B", "C", "D", "E", "F", "G", "H"};
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    // `fresh` new symbols, each a direction of its own, then the first two again.
    const Eigen::Index fresh = rnd.integer(3, 4);
    std::vector<Eigen::Index> symbol_at;
    for (Eigen::Index i = 0; i < fresh; ++i) symbol_at.push_back(i);
    symbol_at.insert(symbol_at.end(), {0, 1});
    std::vector<std::string> names;
    while (static_cast<Eigen::Index>(names.size()) < fresh) {
      const std::string& letter = rnd.pick(letters);
      if (std::find(names.begin(), names.end(), letter) == names.end()) names.push_back(letter);
    }
    const double length = static_cast<double>(rnd.integer(2, 6)) / 2;
    const auto n = static_cast<Eigen::Index>(symbol_at.size());
    MatrixD Q = MatrixD::Zero(n, fresh), K = MatrixD::Zero(n, fresh), V = MatrixD::Zero(n, fresh);
    std::vector<std::string> tokens;
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index symbol = symbol_at[static_cast<std::size_t>(i)];
      tokens.push_back(names[static_cast<std::size_t>(symbol)]);
      Q(i, symbol) = length;
      V(i, symbol) = 1;
      if (i > 0) K(i, symbol_at[static_cast<std::size_t>(i - 1)]) = length;
    }
    d.set_given(Q, K, V, exercise_options(true, 1, causal), tokens, tokens);
    Exercise& e = d.exercise();
    e.facts.push_back("an induction head made by hand: query i is its token's direction (one per symbol); key j is the direction of "
                      "the token before j, which a previous-token head in an earlier layer wrote there; value j is token j's direction");
    // The repeat's first row: its symbol's earlier occurrence is token 0, so key 1 answers it.
    const Eigen::Index row = n - 2;
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + ", " + to_decimals(2) + ".");
    d.row_part(PartKind::OutputRow, row, output_decimals(V),
               "Its output, " + to_decimals(output_decimals(V)) + ": which symbol's direction does the head copy forward?");
    const double even = 1.0 / static_cast<double>(row + 1), even_all = 1.0 / static_cast<double>(n);
    d.number_part("Knock out the previous-token head: nothing is written into the keys, so every key is 0. What weight does " +
                      query_label(e, row) + " give " + key_label(e, 1) + " now, " + to_decimals(2) + "?",
                  even, 2, {mistake_number(Mistake::NoMask, even_all)},
                  {"every key is 0, so every score of " + query_label(e, row) + " is 0, and so is every logit",
                   "the softmax of equal logits is even over the " + count_of(row + 1, "key") + " the causal mask leaves visible: 1 / " +
                       std::to_string(row + 1) + " = " + hand_number(even),
                   "the head no longer finds the token after the earlier " + tokens[static_cast<std::size_t>(row)] +
                       ": the induction head fails without the previous-token head"});
    return true;
  });
}

}  // namespace attnlab
