// The compute JSON object and the human-readable text report.
#include "engine/io/result_format.hpp"

#include "engine/attention/overflow_notes.hpp"
#include "engine/attention/stats.hpp"

#include "engine/text/text_format.hpp"
#include "engine/cpu/dense.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace attnlab {

namespace {

// A stage to print: a kept matrix, or one derived cell by cell from another (logits from scores,
// saturation from weights: compute_cpu may leave those out to save 4·n·m bytes each).
struct Cells {
  const Matrix* M = nullptr;
  enum class From { Kept, Scores, Weights } from = From::Kept;
  const Mask* mask = nullptr;
  double divisor = 1;
  Eigen::Index rows() const { return M->rows(); }
  Eigen::Index cols() const { return M->cols(); }
  float operator()(Eigen::Index i, Eigen::Index j) const {
    const float v = (*M)(i, j);
    switch (from) {
      case From::Kept: return v;
      case From::Scores: return logit_of(v, mask->is_blocked(i, j), divisor);
      case From::Weights: return saturation_of(v);
    }
    return v;
  }
};

Cells kept(const Matrix& M) { return Cells{&M}; }
Cells logits_cells(const Scenario& s, const Result& r) {
  if (r.logits.size() > 0 || r.scores.size() == 0) return kept(r.logits);
  return Cells{&r.scores, Cells::From::Scores, &s.options.mask, r.effective_temperature};
}
Cells saturation_cells(const Result& r) {
  if (r.saturation.size() > 0 || r.weights.size() == 0) return kept(r.saturation);
  return Cells{&r.weights, Cells::From::Weights};
}

// Writes the text of items 0 … count − 1 to `out` in order, `format(i, text)` appending item i's.
// Many items (a streamed 100 000-row output: 6.4 million numbers) are formatted in parallel, a
// batch of blocks at a time, and written in order: the same bytes as one thread writes.
void write_in_order(std::ostream& out, Eigen::Index count, const std::function<void(Eigen::Index, std::string&)>& format) {
  constexpr Eigen::Index kBlock = 256;
  const Eigen::Index blocks = (count + kBlock - 1) / kBlock;
  std::vector<std::string> text(static_cast<size_t>(std::min<Eigen::Index>(blocks, 4 * omp_get_max_threads())));
  for (Eigen::Index b0 = 0; b0 < blocks; b0 += static_cast<Eigen::Index>(text.size())) {
    const Eigen::Index b1 = std::min(blocks, b0 + static_cast<Eigen::Index>(text.size()));
#pragma omp parallel for schedule(dynamic, 1) if (b1 - b0 > 1)
    for (Eigen::Index b = b0; b < b1; ++b) {
      std::string& t = text[static_cast<size_t>(b - b0)];
      t.clear();
      for (Eigen::Index i = b * kBlock; i < std::min(count, (b + 1) * kBlock); ++i) format(i, t);
    }
    for (Eigen::Index b = b0; b < b1; ++b) out << text[static_cast<size_t>(b - b0)];
  }
}

void matrix_json_compact(std::ostream& out, const Cells& M) {
  out << '[';
  write_in_order(out, M.rows(), [&M](Eigen::Index i, std::string& t) {
    if (i) t += ",\n  ";
    t += '[';
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (j) t += ',';
      append_float_json(t, M(i, j));
    }
    t += ']';
  });
  out << ']';
}

void stats_json(std::ostream& out, const MomentStats& s) {
  out << "{\"mean\": " << double_json(s.mean) << ", \"std\": " << double_json(s.std) << ", \"min\": "
      << double_json(s.min) << ", \"max\": " << double_json(s.max) << ", \"count\": " << s.count
      << ", \"range_count\": " << s.range_count << "}";
}

// The notes a report prints: why any ∞ is there, and what the scores' min and max cover when that
// is not every cell (a streamed result under a mask).
std::vector<std::string> report_notes(const OverflowNotes& overflow, const Result& r) {
  std::vector<std::string> notes = overflow.sentences;
  if (std::string range = score_range_note(r); !range.empty()) notes.push_back(std::move(range));
  return notes;
}

// Shows at most `limit` indices: the first ones, a gap marker (-1), and the last ones.
std::vector<Eigen::Index> shown(Eigen::Index count, Eigen::Index limit) {
  std::vector<Eigen::Index> idx;
  if (count <= limit) {
    for (Eigen::Index i = 0; i < count; ++i) idx.push_back(i);
    return idx;
  }
  const Eigen::Index head = limit / 2, tail = limit - head - 1;
  for (Eigen::Index i = 0; i < head; ++i) idx.push_back(i);
  idx.push_back(-1);
  for (Eigen::Index i = count - tail; i < count; ++i) idx.push_back(i);
  return idx;
}

std::string fit(const std::string& s, size_t width) {
  // Token labels may be UTF-8; count code points for alignment.
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  if (cps > width) {
    std::string cut;
    size_t seen = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++seen > width - 1) break;
      cut += s[i];
    }
    return cut + "…";
  }
  return std::string(width - cps, ' ') + s;
}

// `bare_zero`: print exact zeros as "0" (weights and saturation, where an exact zero is a
// blocked cell or exp(−∞) and must stand apart from a rounded 0.0000).
std::string cell_text(float v, int decimals, bool bare_zero) {
  if (v == 0 && bare_zero) return "0";
  return format_number(v, NumberUse::Terminal, decimals);
}

void matrix_text(std::ostream& out, const Cells& M, const std::vector<std::string>& row_labels,
                 const std::vector<std::string>& col_labels, bool bare_zero = false) {
  constexpr Eigen::Index kLimit = 12;
  const auto rows = shown(M.rows(), kLimit), cols = shown(M.cols(), kLimit);
  size_t label_w = 1, cell_w = 6;
  for (auto i : rows) if (i >= 0) label_w = std::max(label_w, std::min<size_t>(12, row_labels[static_cast<size_t>(i)].size()));
  for (auto i : rows) {
    for (auto j : cols) {
      if (i >= 0 && j >= 0) cell_w = std::max(cell_w, cell_text(M(i, j), 4, bare_zero).size());
    }
  }
  for (auto j : cols) if (j >= 0) cell_w = std::max(cell_w, std::min<size_t>(10, col_labels[static_cast<size_t>(j)].size()));
  std::string line = "  " + std::string(label_w, ' ');
  for (auto j : cols) line += "  " + (j < 0 ? fit("…", cell_w) : fit(col_labels[static_cast<size_t>(j)], cell_w));
  out << line << '\n';
  for (auto i : rows) {
    line = "  " + (i < 0 ? fit("⋮", label_w) : fit(row_labels[static_cast<size_t>(i)], label_w));
    for (auto j : cols) {
      std::string cell = i < 0 ? "⋮" : j < 0 ? "…" : cell_text(M(i, j), 4, bare_zero);
      line += "  " + fit(cell, cell_w);
    }
    out << line << '\n';
  }
}

std::string num(double v, int decimals = 4) { return format_number(v, NumberUse::Statistic, decimals); }

}  // namespace

void write_result_json(std::ostream& out, const Scenario& s, const Result& r, const FormatOptions& f) {
  const ComputedBy& by = r.computed_by;
  out << "{\n\"title\": " << json_string(s.title) << ",\n\"backend\": " << json_string(f.backend)
      << ",\n\"computed_by\": {\"scores\": " << json_string(backend_kind_name(by.scores))
      << ", \"weights\": " << json_string(backend_kind_name(by.weights))
      << ", \"output\": " << json_string(backend_kind_name(by.output)) << ", \"why\": " << json_string(by.why) << "}"
      << ",\n\"n\": " << r.n << ", \"m\": " << r.m << ", \"d_k\": " << r.d_k << ", \"d_v\": " << r.d_v
      << ",\n\"scale\": " << (s.options.scale ? "true" : "false") << ", \"scale_divisor\": " << double_json(r.scale_divisor)
      << ", \"temperature\": " << double_json(s.options.temperature)
      << ", \"effective_temperature\": " << double_json(r.effective_temperature)
      << ",\n\"normalizer\": " << json_string(normalizer_name(s.options.normalizer))
      << ",\n\"mask\": " << mask_to_json(s.options.mask) << ",\n";
  if (s.options.rope) {
    // The rotation used, its positions written out, and the rows the scores were made of.
    RopeSettings used = *s.options.rope;
    used.query_positions = rope_positions(used.query_positions, r.n);
    used.key_positions = rope_positions(used.key_positions, r.m);
    out << "\"rope\": " << rope_settings_json(used) << ",\n\"rotated_q\": ";
    matrix_json_compact(out, kept(r.rotated_q));
    out << ",\n\"rotated_k\": ";
    matrix_json_compact(out, kept(r.rotated_k));
    out << ",\n";
  }
  if (!f.summary && r.dense) {
    out << "\"scores\": ";
    matrix_json_compact(out, kept(r.scores));
    out << ",\n\"logits\": ";
    matrix_json_compact(out, logits_cells(s, r));
    out << ",\n\"weights\": ";
    matrix_json_compact(out, kept(r.weights));
    out << ",\n";
  }
  out << "\"output\": ";
  matrix_json_compact(out, kept(r.output));
  if (!f.summary && r.dense) {
    out << ",\n\"saturation\": ";
    matrix_json_compact(out, saturation_cells(r));
  }
  out << ",\n\"rows\": [";
  write_in_order(out, static_cast<Eigen::Index>(r.rows.size()), [&r](Eigen::Index i, std::string& t) {
    const RowDiagnostics& d = r.rows[static_cast<size_t>(i)];
    const auto flag = [&t](const char* name, bool on) { t.append(", \"").append(name).append(on ? "\": true" : "\": false"); };
    t += i ? ",\n  {\"max_weight\": " : "{\"max_weight\": ";
    append_float_json(t, d.max_weight);
    t += ", \"entropy\": ";
    append_float_json(t, d.entropy);
    t += ", \"effective_keys\": ";
    append_float_json(t, d.effective_keys);
    t += ", \"jacobian_norm\": ";
    append_float_json(t, d.jacobian_norm);
    flag("saturated", d.saturated);
    flag("fully_masked", d.fully_masked);
    flag("padding", d.padding);
    flag("scores_recomputed", d.scores_recomputed);
    t += '}';
  });
  out << "],\n\"stats\": {\"scores\": ";
  stats_json(out, r.stats.scores);
  out << ", \"logits\": ";
  stats_json(out, r.stats.logits);
  // Why any ∞ is there, and which scores were recomputed in double: the text report's notes.
  const OverflowNotes notes = overflow_notes(r, r.dense ? mask_grid(s.options.mask, r.n, r.m) : BlockGrid(),
                                             display_tokens(s.query_tokens, r.n));
  const std::vector<std::string> sentences = report_notes(notes, r);
  out << "},\n\"notes\": [";
  for (size_t k = 0; k < sentences.size(); ++k) out << (k ? ", " : "") << json_string(sentences[k]);
  out << "]\n}\n";
}

void write_result_text(std::ostream& out, const Scenario& s, const Result& r, const FormatOptions& f) {
  const auto qt = display_tokens(s.query_tokens, r.n), kt = display_tokens(s.key_tokens, r.m);
  std::vector<std::string> dims;
  for (Eigen::Index j = 0; j < r.d_v; ++j) dims.push_back("d" + std::to_string(j + 1));
  if (!s.title.empty()) {
    size_t title_cps = 0;  // UTF-8 code points, so that "—" or "ü" count once
    for (unsigned char c : s.title) title_cps += (c & 0xC0) != 0x80;
    out << s.title << "\n" << std::string(std::min<size_t>(title_cps, 72), '=') << "\n";
  }
  out << "n = " << r.n << " queries, m = " << r.m << " keys, d_k = " << r.d_k << ", d_v = " << r.d_v << "; backend "
      << f.backend << "\n";
  if (!r.computed_by.why.empty()) out << "(" << r.computed_by.why << ")\n";
  out << "scaling " << (s.options.scale ? "on (÷ √" + std::to_string(r.d_k) + " = " + num(r.scale_divisor, 3) + ")" : "off")
      << ", temperature " << num(s.options.temperature, 3) << ", effective temperature s·T = "
      << num(r.effective_temperature, 3) << "\nmask " << mask_spec(s.options.mask) << ", normalizer "
      << normalizer_name(s.options.normalizer) << "\n\n";
  const std::string norm(normalizer_name(s.options.normalizer));
  if (!f.summary && r.dense) {
    out << "scores  S = Q·Kᵀ\n";
    matrix_text(out, kept(r.scores), qt, kt);
    out << "\nlogits  L = S / " << num(r.effective_temperature, 3) << " (blocked cells are -inf)\n";
    matrix_text(out, logits_cells(s, r), qt, kt);
    out << "\nweights  A = " << norm << "(L), row by row\n";
    matrix_text(out, kept(r.weights), qt, kt, true);
  }
  out << "\noutput  O = A·V\n";
  matrix_text(out, kept(r.output), qt, dims);
  if (!f.summary && r.dense) {
    out << "\nsaturation  a(1−a) per cell (0 = pinned at 0 or 1, 0.25 = most sensitive)\n";
    matrix_text(out, saturation_cells(r), qt, kt, true);
  }
  // Why any ∞ above is there (float32 overflow), as the GUI says it: one sentence per kind.
  const OverflowNotes notes =
      overflow_notes(r, r.dense ? mask_grid(s.options.mask, r.n, r.m) : BlockGrid(), qt);
  out << "\nrows\n";
  size_t label_w = 5;
  for (const auto& t : qt) label_w = std::max(label_w, std::min<size_t>(12, t.size()));
  out << "  " << fit("query", label_w) << "  max weight   entropy  eff. keys  Jacobian  flags\n";
  const auto idx = shown(r.n, 24);
  for (auto i : idx) {
    if (i < 0) {
      out << "  " << fit("⋮", label_w) << "\n";
      continue;
    }
    const auto& d = r.rows[static_cast<size_t>(i)];
    std::string flags;
    if (d.saturated) flags += " saturated";
    if (d.fully_masked) flags += " fully-masked";
    if (d.padding) flags += " padding";
    if (!notes.rows.empty() && notes.rows[static_cast<size_t>(i)] != RowOverflow::None) {
      flags += std::string(" ") + row_overflow_label(notes.rows[static_cast<size_t>(i)]);
    }
    out << "  " << fit(qt[static_cast<size_t>(i)], label_w) << "  " << fixed_decimals(d.max_weight, 4, 10) << "  "
        << fixed_decimals(d.entropy, 4, 8) << "  " << fixed_decimals(d.effective_keys, 3, 9) << "  "
        << fixed_decimals(d.jacobian_norm, 4, 8) << (flags.empty() ? "" : " " + flags) << "\n";
  }
  out << "\nstats\n  scores: mean " << num(r.stats.scores.mean) << ", std " << num(r.stats.scores.std) << ", min "
      << num(r.stats.scores.min) << ", max " << num(r.stats.scores.max) << "\n  logits: mean " << num(r.stats.logits.mean)
      << ", std " << num(r.stats.logits.std) << ", min " << num(r.stats.logits.min) << ", max " << num(r.stats.logits.max)
      << " (over " << r.stats.logits.count << " unblocked cells)\n";
  if (const std::vector<std::string> sentences = report_notes(notes, r); !sentences.empty()) {
    out << "\nnotes\n";
    for (const std::string& sentence : sentences) out << "  " << sentence << "\n";
  }
}

}  // namespace attnlab
