// Interventions on heads: parsing the command line's head lists, the edits a forward applies, and
// two texts compared head by head (interventions.hpp).
#include "engine/model/interventions.hpp"

#include "engine/model/training_tasks.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace attnlab::model {

namespace {

std::string head_name(int layer, int head) { return std::to_string(layer) + "." + std::to_string(head); }

}  // namespace

std::vector<HeadIndex> parse_heads(std::string_view list, const ModelConfig& config, std::string_view what) {
  const std::string flag(what);
  const std::string example = "give heads as L.H, layer and head from 0, separated by commas (e.g. 1.0,1.2)";
  std::vector<HeadIndex> heads;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string_view item = list.substr(at, comma - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    at = comma + 1;
    if (item.empty()) {
      if (list.find_first_not_of(' ') == std::string_view::npos) throw InputError(flag + ": names no head; " + example);
      throw InputError(flag + " '" + one_line(list) + "': an empty item; " + example);
    }
    const auto number = [&](std::string_view digits) {
      int v = -1;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || v < 0) {
        throw InputError(flag + " '" + one_line(item) + "': " + example);
      }
      return v;
    };
    const std::size_t dot = item.find('.');
    if (dot == std::string_view::npos) throw InputError(flag + " '" + one_line(item) + "': " + example);
    const HeadIndex h{number(item.substr(0, dot)), number(item.substr(dot + 1))};
    if (h.layer >= config.n_layer) {
      throw InputError(flag + " " + head_name(h.layer, h.head) + ": this model has layers 0 to " + std::to_string(config.n_layer - 1));
    }
    if (h.head >= config.n_head) {
      throw InputError(flag + " " + head_name(h.layer, h.head) + ": this model has heads 0 to " + std::to_string(config.n_head - 1) +
                       " in each layer");
    }
    if (std::find(heads.begin(), heads.end(), h) != heads.end()) {
      throw InputError(flag + ": head " + head_name(h.layer, h.head) + " is named twice");
    }
    heads.push_back(h);
  }
  return heads;
}

HeadEdit::Kind parse_ablation(std::string_view name, std::string_view what) {
  if (name == "zero") return HeadEdit::Kind::Zero;
  if (name == "mean") return HeadEdit::Kind::Mean;
  if (name == "uniform") return HeadEdit::Kind::Uniform;
  throw InputError(std::string(what) + " '" + one_line(name) + "': give zero, mean or uniform");
}

std::string_view ablation_name(HeadEdit::Kind kind) {
  switch (kind) {
    case HeadEdit::Kind::Zero: return "zero";
    case HeadEdit::Kind::Mean: return "mean";
    case HeadEdit::Kind::Uniform: return "uniform";
    case HeadEdit::Kind::Replace: return "replace";
  }
  return "";
}

std::vector<HeadEdit> ablation_edits(const std::vector<HeadIndex>& heads, HeadEdit::Kind kind) {
  std::vector<HeadEdit> edits;
  for (const HeadIndex& h : heads) edits.push_back(HeadEdit{h.layer, h.head, kind, {}, {}});
  return edits;
}

std::vector<HeadEdit> patch_edits(const std::vector<HeadIndex>& heads, const ForwardTrace& source) {
  std::vector<HeadEdit> edits;
  for (const HeadIndex& h : heads) {
    const Matrix& output = source.heads.at(static_cast<std::size_t>(h.layer)).at(static_cast<std::size_t>(h.head)).output;
    if (output.size() == 0) throw std::logic_error("patch_edits: the source forward did not keep its heads' outputs");
    edits.push_back(HeadEdit{h.layer, h.head, HeadEdit::Kind::Replace, output, {}});
  }
  return edits;
}

void check_edits(const std::vector<HeadEdit>& edits, const ModelConfig& config, std::int64_t n) {
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const HeadEdit& e = edits[i];
    const std::string name = "head " + head_name(e.layer, e.head);
    if (e.layer < 0 || e.layer >= config.n_layer || e.head < 0 || e.head >= config.n_head) {
      throw InputError(name + ": this model has layers 0 to " + std::to_string(config.n_layer - 1) + " and heads 0 to " +
                       std::to_string(config.n_head - 1));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (edits[j].layer == e.layer && edits[j].head == e.head) throw InputError(name + ": changed twice in one forward");
    }
    if (e.kind == HeadEdit::Kind::Replace && e.weights.size() > 0 && (e.weights.rows() != n || e.weights.cols() < n)) {
      throw InputError(name + ": its replacement weights are " + std::to_string(e.weights.rows()) + " × " + std::to_string(e.weights.cols()) +
                       ", where the forward needs " + std::to_string(n) + " rows of at least " + std::to_string(n) + " keys");
    }
    if (e.kind == HeadEdit::Kind::Replace && (e.output.rows() != n || e.output.cols() != config.d_head)) {
      throw InputError(name + ": its replacement output is " + std::to_string(e.output.rows()) + " × " + std::to_string(e.output.cols()) +
                       ", where the forward needs " + std::to_string(n) + " × " + std::to_string(config.d_head) +
                       " (one row per token: the texts must have the same token count)");
    }
  }
}

void apply_head_edit(const HeadEdit& edit, const blocks::AttentionShape& shape, const float* v, std::int64_t ldv, float* out, std::int64_t ldo,
                     CausalWeights* weights) {
  const std::int64_t n = shape.n, dh = shape.d_head;
  float* column = out + static_cast<std::int64_t>(edit.head) * dh;
  const auto row = [&](std::int64_t i) { return column + i * ldo; };
  switch (edit.kind) {
    case HeadEdit::Kind::Zero:
      for (std::int64_t i = 0; i < n; ++i) std::fill(row(i), row(i) + dh, 0.0f);
      return;
    case HeadEdit::Kind::Mean: {
      std::vector<double> mean(static_cast<std::size_t>(dh), 0.0);
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t c = 0; c < dh; ++c) mean[static_cast<std::size_t>(c)] += row(i)[c];
      }
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t c = 0; c < dh; ++c) row(i)[c] = static_cast<float>(mean[static_cast<std::size_t>(c)] / static_cast<double>(n));
      }
      return;
    }
    case HeadEdit::Kind::Uniform: {
      const std::int64_t group = edit.head / (shape.n_head / shape.n_kv_head);
      const float* values = v + group * dh;
      std::vector<double> sum(static_cast<std::size_t>(dh));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t query = shape.start + i;
        const std::int64_t first = shape.window > 0 ? std::max<std::int64_t>(0, query - shape.window + 1) : 0;
        const std::int64_t count = query - first + 1;
        std::fill(sum.begin(), sum.end(), 0.0);
        for (std::int64_t j = first; j <= query; ++j) {
          for (std::int64_t c = 0; c < dh; ++c) sum[static_cast<std::size_t>(c)] += values[j * ldv + c];
        }
        for (std::int64_t c = 0; c < dh; ++c) row(i)[c] = static_cast<float>(sum[static_cast<std::size_t>(c)] / static_cast<double>(count));
        if (weights) {
          float* w = weights->row(i);
          for (std::int64_t j = 0; j <= query; ++j) w[j] = j < first ? 0.0f : static_cast<float>(1.0 / static_cast<double>(count));
        }
      }
      return;
    }
    case HeadEdit::Kind::Replace:
      for (std::int64_t i = 0; i < n; ++i) {
        std::memcpy(row(i), edit.output.row(i).data(), static_cast<std::size_t>(dh) * sizeof(float));
        if (weights && edit.weights.size() > 0) {
          // The causal part of each row: a lab without the mask may have weighed later keys too.
          const std::int64_t keys = std::min(weights->row_length(i), static_cast<std::int64_t>(edit.weights.cols()));
          for (std::int64_t j = 0; j < keys; ++j) weights->row(i)[j] = edit.weights(i, j);
        }
      }
      return;
  }
}

TaskAccuracy task_accuracy(const LanguageModel& model, const std::vector<HeadEdit>& edits, int sequences, std::uint64_t seed) {
  const ModelConfig& c = model.config();
  if (!c.is_toy()) throw InputError(model.display_name() + ": not a model trained on a task here, so it has no task to be judged on");
  TaskGenerator tasks(parse_task_json(c.task_json, model.display_name() + "/config.json"), seed);
  const TaskBatch batch = tasks.judged(sequences);
  ForwardOptions options;
  options.keep_weights = false;
  options.top_k = 0;
  options.keep_predictions = true;
  options.edits = edits;
  TaskAccuracy accuracy;
  const auto length = static_cast<std::size_t>(batch.length);
  for (std::size_t row = 0; row < static_cast<std::size_t>(batch.batch); ++row) {
    const std::vector<int> ids(batch.ids.begin() + static_cast<std::ptrdiff_t>(row * length),
                               batch.ids.begin() + static_cast<std::ptrdiff_t>((row + 1) * length));
    const ForwardTrace trace = model.forward(ids, options);
    for (std::size_t t = 0; t + 1 < length; ++t) {
      if (!batch.in_accuracy[row * (length - 1) + t]) continue;
      ++accuracy.counted;
      accuracy.right += trace.predictions[t].id == ids[t + 1];
    }
  }
  return accuracy;
}

std::int64_t strongest_key(const CausalWeights& weights, std::int64_t row) {
  const float* w = weights.row(row);
  return std::max_element(w, w + weights.row_length(row)) - w;
}

std::vector<std::vector<HeadComparison>> compare_heads(const ForwardTrace& a, const ForwardTrace& b) {
  if (a.ids.size() != b.ids.size()) {
    throw InputError("the two texts have " + std::to_string(a.ids.size()) + " and " + std::to_string(b.ids.size()) +
                     " tokens; a comparison reads them position by position, so give texts of the same token count");
  }
  std::vector<std::vector<HeadComparison>> out(a.heads.size());
  for (std::size_t l = 0; l < a.heads.size(); ++l) {
    for (std::size_t h = 0; h < a.heads[l].size(); ++h) {
      const CausalWeights &wa = a.heads[l][h].weights, &wb = b.heads[l][h].weights;
      HeadComparison c;
      c.max_abs_diff = max_abs_difference(wa, wb);
      for (std::int64_t i = 0; i < wa.rows() && !c.argmax_changed; ++i) c.argmax_changed = strongest_key(wa, i) != strongest_key(wb, i);
      out[l].push_back(c);
    }
  }
  return out;
}

}  // namespace attnlab::model
