// A sequence over a KV cache, generation step by step, and its run as `attnlab model` reports it;
// see generate.hpp.
#include "engine/model/generate.hpp"

#include "engine/model/decoder_blocks.hpp"
#include "engine/model/families.hpp"
#include "engine/text/text_format.hpp"
#include "engine/text/utf8.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>
#include <string>

namespace attnlab::model {

namespace {

void append_rows(std::vector<float>& to, const Matrix& from) {
  const std::size_t at = to.size();
  to.resize(at + static_cast<std::size_t>(from.size()));
  std::memcpy(to.data() + at, from.data(), static_cast<std::size_t>(from.size()) * sizeof(float));
}

Matrix rows_matrix(const std::vector<float>& rows, std::int64_t cols) {
  if (rows.empty()) return {};
  const auto n = static_cast<Eigen::Index>(rows.size() / static_cast<std::size_t>(cols));
  Matrix m(n, static_cast<Eigen::Index>(cols));
  std::memcpy(m.data(), rows.data(), rows.size() * sizeof(float));
  return m;
}

}  // namespace

CachedSequence::CachedSequence(const LanguageModel& model, SequenceOptions options) : model_(&model), options_(options) {
  const ModelConfig& c = model.config();
  rows_.assign(static_cast<std::size_t>(c.n_layer), std::vector<CausalWeights>(static_cast<std::size_t>(c.n_head)));
  qkv_.assign(static_cast<std::size_t>(c.n_layer), std::vector<QkvRows>(static_cast<std::size_t>(c.n_head)));
}

void CachedSequence::cut(std::int64_t keep) {
  if (keep >= size()) return;
  cache_.truncate(keep);
  ids_.resize(static_cast<std::size_t>(keep));
  logits_.clear();
  const auto dh = static_cast<std::size_t>(model_->config().d_head);
  for (auto& layer : rows_) {
    for (auto& h : layer) h.truncate(keep);
  }
  for (auto& layer : qkv_) {
    for (auto& h : layer) {
      for (auto* m : {&h.q, &h.k, &h.v}) m->resize(std::min(m->size(), static_cast<std::size_t>(keep) * dh));
    }
  }
}

bool CachedSequence::run(const std::vector<int>& ids, const LayerProgress& progress) {
  const std::int64_t max = options_.qkv_max_positions;
  if (options_.keep_all_qkv && !all_qkv_dropped_ && max > 0 && size() + static_cast<std::int64_t>(ids.size()) > max) {
    all_qkv_dropped_ = true;
    for (std::size_t l = 0; l < qkv_.size(); ++l) {
      for (std::size_t h = 0; h < qkv_[l].size(); ++h) {
        if (static_cast<int>(l) != options_.qkv_layer || static_cast<int>(h) != options_.qkv_head) qkv_[l][h] = {};
      }
    }
  }
  ForwardOptions opt;
  opt.keep_weights = options_.keep_weights;
  opt.keep_all_qkv = options_.keep_all_qkv && !all_qkv_dropped_;
  opt.qkv_layer = options_.qkv_layer;
  opt.qkv_head = options_.qkv_head;
  opt.top_k = 0;
  opt.keep_logits = true;
  opt.progress = progress;
  ForwardTrace t = model_->forward(ids, opt, &cache_);
  if (t.cancelled) return false;
  for (std::size_t l = 0; l < t.heads.size(); ++l) {
    for (std::size_t h = 0; h < t.heads[l].size(); ++h) {
      const HeadTrace& ht = t.heads[l][h];
      if (!ht.weights.empty()) rows_[l][h].append(ht.weights);
      if (ht.q.size() > 0) {
        append_rows(qkv_[l][h].q, ht.q);
        append_rows(qkv_[l][h].k, ht.k);
        append_rows(qkv_[l][h].v, ht.v);
      }
    }
  }
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  logits_ = std::move(t.logits);
  return true;
}

std::int64_t CachedSequence::reused(const std::vector<int>& ids) const {
  const auto n = static_cast<std::int64_t>(ids.size());
  std::int64_t same = 0;
  while (same < size() && same < n && ids_[static_cast<std::size_t>(same)] == ids[static_cast<std::size_t>(same)]) ++same;
  if (same == n && n == size() && !logits_.empty()) return n;  // nothing changed
  // The last position runs again when nothing after it changed: its logits were not kept.
  return std::max<std::int64_t>(0, std::min(same, n - 1));
}

std::int64_t CachedSequence::assign(const std::vector<int>& ids, std::string_view what, const LayerProgress& progress) {
  model_->check_ids(ids, what);
  const auto n = static_cast<std::int64_t>(ids.size());
  const std::int64_t same = reused(ids);
  if (same == n) return 0;
  cut(same);
  return run({ids.begin() + same, ids.end()}, progress) ? n - same : -1;
}

bool CachedSequence::push(int id, const LayerProgress& progress) { return run({id}, progress); }

ForwardTrace CachedSequence::trace(int top_k) const {
  const ModelConfig& c = model_->config();
  const std::int64_t n = size();
  ForwardTrace t;
  t.ids = ids_;
  t.heads.assign(static_cast<std::size_t>(c.n_layer), std::vector<HeadTrace>(static_cast<std::size_t>(c.n_head)));
  for (std::size_t l = 0; l < t.heads.size(); ++l) {
    for (std::size_t h = 0; h < t.heads[l].size(); ++h) {
      HeadTrace& ht = t.heads[l][h];
      if (rows_[l][h].rows() == n) ht.weights = rows_[l][h];
      const QkvRows& kept = qkv_[l][h];
      if (kept.q.size() != static_cast<std::size_t>(n * c.d_head)) continue;  // dropped, or not kept from the start
      ht.q = rows_matrix(kept.q, c.d_head);
      ht.k = rows_matrix(kept.k, c.d_head);
      ht.v = rows_matrix(kept.v, c.d_head);
    }
  }
  t.logits = logits_;
  if (!logits_.empty()) t.next_tokens = blocks::top_tokens(logits_, top_k);
  return t;
}

void check_generate(const LanguageModel& model, std::int64_t prompt, int count) {
  const ModelConfig& c = model.config();
  if (count < 1) throw InputError("--generate " + std::to_string(count) + ": give how many tokens to write, 1 or more");
  if (prompt + count > c.n_ctx) {
    const char* field = family_spec(c.family).context_field;
    throw InputError("--generate " + std::to_string(count) + ": the text's " + std::to_string(prompt) + " tokens and " + std::to_string(count) +
                     " more make " + std::to_string(prompt + count) + ", more than this model's " + std::to_string(c.n_ctx) + " positions (" +
                     field + "); write at most " + std::to_string(std::max<std::int64_t>(0, c.n_ctx - prompt)));
  }
}

std::vector<DrawnToken> generate(CachedSequence& seq, Sampler& sampler, const GenerateOptions& opt,
                                 const std::function<bool(const DrawnToken&)>& written) {
  if (seq.logits().empty()) throw std::logic_error("generate: the sequence has no logits to draw from");
  check_generate(seq.model(), seq.size(), opt.count);
  std::vector<DrawnToken> out;
  for (int i = 0; i < opt.count; ++i) {
    DrawnToken t = sampler.next(seq.logits(), opt.sampling, opt.candidates);
    if (!seq.push(t.id, opt.progress)) break;
    out.push_back(std::move(t));
    if (written && !written(out.back())) break;
  }
  return out;
}

std::string append_tokens_text(const LanguageModel& model, std::string text, const std::vector<int>& ids) {
  if (!model.tokenizer()) {
    // No tokenizer: the text is its ids, as the Model window's box takes them.
    for (const int id : ids) {
      while (!text.empty() && (text.back() == ' ' || text.back() == ',' || text.back() == '\n')) text.pop_back();
      text += (text.empty() ? "" : ", ") + std::to_string(id);
    }
    return text;
  }
  if (model.config().is_toy()) {
    for (const int id : ids) text += (text.empty() || text.back() == ' ' ? "" : " ") + model.token_text(id);
    return text;
  }
  std::string bytes;
  for (const int id : ids) bytes += model.token_bytes(id);
  return text + printable_utf8(bytes);
}

std::int64_t kv_cache_bytes_per_token(const ModelConfig& c) {
  return static_cast<std::int64_t>(2) * c.n_layer * c.kv_width() * static_cast<std::int64_t>(sizeof(float));
}

ModelRun sequence_run(const CachedSequence& seq, std::vector<DrawnToken> generated, int top_k) {
  ModelRun run;
  run.trace = seq.trace(top_k);
  run.kinds = classify_heads(run.trace);
  run.generated = std::move(generated);
  return run;
}

void write_generated_json(std::ostream& out, const LanguageModel& model, const std::vector<DrawnToken>& generated) {
  const auto token = [&](int id, double prob, double model_prob) {
    out << "{\"id\": " << id << ", \"text\": " << json_string(model.token_text(id)) << ", \"prob\": " << double_json(prob)
        << ", \"model_prob\": " << double_json(model_prob);
  };
  out << ",\n\"generated\": [";
  for (std::size_t i = 0; i < generated.size(); ++i) {
    const DrawnToken& t = generated[i];
    out << (i ? ",\n " : "\n ");
    token(t.id, t.prob, t.model_prob);
    out << ", \"distribution\": [";
    for (std::size_t c = 0; c < t.candidates.size(); ++c) {
      out << (c ? ", " : "");
      token(t.candidates[c].id, t.candidates[c].prob, t.candidates[c].model_prob);
      out << "}";
    }
    out << "]}";
  }
  out << "]";
}

void write_generated_text(std::ostream& out, const LanguageModel& model, const std::vector<DrawnToken>& generated) {
  std::vector<int> ids;
  for (const DrawnToken& t : generated) ids.push_back(t.id);
  const std::string text = append_tokens_text(model, "", ids);
  out << "\nGenerated " << generated.size() << (generated.size() == 1 ? " token: " : " tokens: ") << json_string(text) << "\n"
      << "  (prob: in the distribution it was drawn from; model: the model's own, at temperature 1)\n";
  for (std::size_t i = 0; i < generated.size(); ++i) {
    const DrawnToken& t = generated[i];
    out << "  " << i << "  " << t.id << "  prob " << fixed_decimals(t.prob, 4) << "  model " << fixed_decimals(t.model_prob, 4) << "  "
        << model.quoted_token(t.id) << "\n";
  }
}

}  // namespace attnlab::model
