// "What the KV cache holds" (engine/lessons/kv_cache.hpp; "QKV, Scaled Dot-Product & Causal
// Masking", Section 2.3): in four parts, one at a time so that each fits a projector. The same
// numbers with and without the cache (and a check on the model the Model window has open), the
// cost of a token each way (Measure times it on that model), the cache's bytes per token for real
// models' shapes, multi-head against grouped-query (the gqa lesson), and exposure bias: teacher
// forcing against the model fed its own draws, token by token.
#include "gui/lessons/kv_cache_page.hpp"

#include "engine/lessons/presets.hpp"
#include "engine/model/model_report.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

// A cache's bytes per token in KiB: a decimal below 10 KiB.
std::string kib(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  return bytes_in(b, ByteUnit::KiB, b < 10 * 1024 ? 1 : 0);
}

// [Part 1] The same numbers with and without the cache.
void draw_same_numbers(KvCacheUi& ui, const ModelUi& m, const KvCacheNumbers& n, const Palette& pal) {
  const CacheCheck& c = n.check;
  text_wrapped("The pipeline's last row (the newest token) from its own query and the kept K and V alone differs from the whole "
               "computation by %s: under the causal mask no earlier row ever sees a later token, so nothing before it changes.",
               significant(n.last_row_difference, 2).c_str());
  text_wrapped("The built-in %s model wrote %zu tokens over its cache, and again by running its whole text at every step:", n.model.c_str(),
               c.cached.size());
  const float lw = lesson_label_width({"the text", "with the cache", "whole text again"});
  lesson_token_row("the text", lw, c.prompt, nullptr, -1, pal);
  lesson_token_row("with the cache", lw, c.cached, nullptr, -1, pal);
  lesson_token_row("whole text again", lw, c.whole, &c.cached, -1, pal);
  text_wrapped("The largest difference between their logits: %s, at logits up to %s (float32's rounding allows %s).",
               significant(c.largest_difference, 2).c_str(), three_digits(c.largest_logit).c_str(), significant(c.bound, 2).c_str());
  if (!m.model || m.ids.empty()) return;
  if (ImGui::Button("Check the open model")) {
    try {
      ui.check = check_open_model(*m.model, m.ids);
      ui.model = m.model->display_name();
      ui.error.clear();
    } catch (const InputError& e) {
      ui.error = e.what();
    }
  }
  if (ui.check) {
    ImGui::SameLine();
    text_wrapped("%s, %zu tokens after %zu: largest difference %s (bound %s), %s tokens", ui.model.c_str(), ui.check->cached.size(),
                 ui.check->prompt.size(), significant(ui.check->largest_difference, 2).c_str(), significant(ui.check->bound, 2).c_str(),
                 ui.check->cached == ui.check->whole ? "the same" : "other");
  }
}

// [Part 2] The cost of one more token, counted and measured.
void draw_cost(KvCacheUi& ui, const ModelUi& m, const KvCacheNumbers& n) {
  const bool open = m.model && !m.ids.empty();
  const CacheCost& shown = ui.cost ? *ui.cost : n.cost;
  const std::string on = ui.cost ? ui.model : n.model;
  text_wrapped("The %s model writing one more token after a text of %lld tokens: over the cache only the new position runs "
               "(its q, k, v, one row of scores over the kept keys, its MLP); without the cache the whole text runs again.",
               on.c_str(), static_cast<long long>(shown.prompt));
  if (ImGui::BeginTable("kv_cost", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("one more token");
    ImGui::TableSetupColumn("FLOPs");
    ImGui::TableSetupColumn("measured");
    ImGui::TableHeadersRow();
    for (const bool cached : {true, false}) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(cached ? "over the cache" : "whole text again");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(three_digits(cached ? shown.flops_cached : shown.flops_whole).c_str());
      ImGui::TableNextColumn();
      const double ms = cached ? shown.ms_cached : shown.ms_whole;
      ImGui::TextUnformatted(ms > 0 ? (fixed_decimals(ms, ms < 10 ? 2 : 0) + " ms").c_str() : "-");
    }
    ImGui::EndTable();
  }
  text_wrapped("The cache saves %s× the FLOPs%s.", fixed_decimals(shown.flops_whole / shown.flops_cached, 1).c_str(),
               shown.ms_cached > 0 ? (", and " + fixed_decimals(shown.ms_whole / shown.ms_cached, 1) + "× the time here").c_str() : "");
  if (ImGui::Button("Measure")) {
    try {
      // Three tokens after the open model's text (at most 256 of it), else after the lesson's prompt.
      ui.cost = measure_cache_cost(open ? m.model.get() : nullptr, m.ids, n);
      ui.model = open ? m.model->display_name() : n.model;
      ui.error.clear();
    } catch (const InputError& e) {
      ui.error = e.what();
    }
  }
  ImGui::SameLine();
  ImGui::TextDisabled("times a token on %s", open ? m.model->display_name().c_str() : n.model.c_str());
}

// [Part 3] The cache's bytes per token: every layer's K and V, one per K/V head (gqa.hpp's
// cache_row), the open model's among the lesson's.
void draw_bytes(const ModelUi& m, const KvCacheNumbers& n, Commands& out) {
  const std::vector<KvCacheRow> rows = caches_with_open_model(n, m.model.get());
  if (ImGui::BeginTable("kv_bytes", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("model");
    ImGui::TableSetupColumn("heads: query / K,V");
    ImGui::TableSetupColumn("a token");
    ImGui::TableSetupColumn("a K,V head per query head");
    ImGui::TableHeadersRow();
    for (const KvCacheRow& r : rows) {
      const KvCacheConfig& c = r.config;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.name.c_str());
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("%lld layers, d_head %lld; %s at %lld tokens", c.layers, c.head_dim,
                          bytes_in(static_cast<double>(r.context_bytes), ByteUnit::GiB, 2).c_str(), n.context);
      }
      ImGui::TableNextColumn();
      ImGui::Text("%lld / %lld", c.heads, c.kv_heads);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(kib(r.bytes_per_token).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.kv_heads == c.heads ? "the same" : (kib(r.mha_bytes_per_token) + ", " + fixed_decimals(r.saving, 0) + "×").c_str());
    }
    ImGui::EndTable();
  }
  text_wrapped("bfloat16: 2 × layers × K/V heads × d_head numbers a token (hover a model for its cache at %lld tokens). "
               "Grouped-query attention lets several query heads read one K/V head: the cache is heads ÷ K/V heads times smaller.",
               n.context);
  const auto presets = list_presets();
  if (std::any_of(presets.begin(), presets.end(), [](const PresetInfo& p) { return p.name == "gqa"; })) {
    if (ImGui::Button("Open the gqa lesson")) out.push_back(LoadPreset{"gqa"});
  } else {
    ImGui::TextDisabled("The gqa lesson shows grouped-query attention.");
  }
}

// [Part 4] Exposure bias: the true text in (teacher forcing) against the model's own draws in.
// Its button, on the parts' line (a projector's height has no line to spare for it).
void try_exposure_button(const KvCacheNumbers& n, Commands& out) {
  const ExposureBias& e = n.exposure;
  if (ImGui::Button("Try it in the Model window")) {
    // The lesson's model on its text, with its temperature and seed: Generate writes the lesson's draws.
    out.push_back(OpenInModelWindow{n.model, probe_text(e.prompt)});
    out.push_back(SetGenerateSettings{e.temperature, static_cast<int>(e.truth.size()), e.seed});
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Opens the %s model on this text with T = %s; press Generate there", n.model.c_str(),
                      significant(e.temperature, 6).c_str());
  }
}

void draw_exposure(const KvCacheNumbers& n, const Palette& pal, bool presenter) {
  const ExposureBias& e = n.exposure;
  // On a projector the band under the page says what teacher forcing is (look_at_band.hpp).
  if (presenter) {
    text_wrapped_unformatted("Yellow: not the true text's token.");
  } else {
    text_wrapped("Training reads the true text (teacher forcing); writing reads the model's own draws. On a text of the %s model's "
                 "task (yellow: not the true text's token):", n.model.c_str());
  }
  const float lw = lesson_label_width({"the text", "goes on", "teacher forcing", "its own draws", "then its best"});
  lesson_token_row("the text", lw, e.prompt, nullptr, -1, pal);
  lesson_token_row("goes on", lw, e.truth, nullptr, -1, pal);
  lesson_token_row("teacher forcing", lw, e.teacher, &e.truth, -1, pal);
  lesson_token_row("its own draws", lw, e.drawn, &e.truth, e.first_mistake, pal);
  if (e.first_mistake >= 0) {
    // The greedy tokens after the first mistake, under the steps they continue.
    std::vector<int> after(e.drawn.begin(), e.drawn.begin() + e.first_mistake + 1);
    after.insert(after.end(), e.greedy_after.begin(), e.greedy_after.end());
    lesson_token_row("then its best", lw, after, &e.truth, e.first_mistake, pal);
    const auto at = static_cast<std::size_t>(e.first_mistake);
    text_wrapped("Drawn at T = %s (seed %llu): at step %d it drew %d, which the model gave %s (%s after T). Right: teacher forcing "
                 "%d of %zu, its own draws %d; from that draw on, its most probable tokens %d of %zu.",
                 significant(e.temperature, 6).c_str(), static_cast<unsigned long long>(e.seed), e.first_mistake + 1, e.drawn[at],
                 significant(e.drawn_model_prob[at], 2).c_str(), significant(e.drawn_prob[at], 2).c_str(), e.teacher_correct,
                 e.truth.size(), e.drawn_correct, e.greedy_after_correct, e.greedy_after.size());
    if (const Shifted& s = e.greedy_after_shifted; s.matches > 0) {
      // Wrong in place is not wrong: a model that skipped a token writes the true text early.
      const char* how = s.shift > 0 ? "early: it skipped" : "late: it put in";
      const int by = std::abs(s.shift);
      text_wrapped("Shifted, not wrong: %d of them are the true text %d position%s %s %d token%s and went on with the right ones.",
                   s.matches, by, by == 1 ? "" : "s", how, by, by == 1 ? "" : "s");
    }
  } else {
    text_wrapped("Drawn at T = %s (seed %llu), every draw was right: teacher forcing got %d of %zu.", significant(e.temperature, 6).c_str(),
                 static_cast<unsigned long long>(e.seed), e.teacher_correct, e.truth.size());
  }
}

}  // namespace

void draw_kv_cache_page(const PageInputs& in, const KvCacheNumbers* numbers, KvCacheUi& ui, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const Palette pal = palette(in.ctx.view);
  const char* parts[] = {"Same numbers", "Cost", "Bytes", "Exposure bias"};
  for (int i = 0; i < 4; ++i) {
    if (i) ImGui::SameLine();
    if (ImGui::RadioButton(parts[i], ui.part == i)) ui.part = i;
  }
  if (ui.part == 3) {
    ImGui::SameLine(0, ImGui::GetFontSize());
    try_exposure_button(*numbers, out);
  }
  switch (ui.part) {
    case 0: draw_same_numbers(ui, in.model, *numbers, pal); break;
    case 1: draw_cost(ui, in.model, *numbers); break;
    case 2: draw_bytes(in.model, *numbers, out); break;
    default: draw_exposure(*numbers, pal, in.ctx.view.presenter); break;
  }
  error_text(pal.error, ui.error);
}

}  // namespace attnlab::gui
