// "What heads do in a trained model" ("QKV, Scaled Dot-Product & Causal Masking", Section 2.3,
// Figure 2.3.1): the hand-made previous-token head of the pipeline named by the detector the Model
// window uses, then the open model's heads counted by kind with the clearest of each kind one click
// from the lab. With no model open it opens the built-in `induction` model on its probe sequence, so
// a fresh install shows real learned heads. With a GPT-2 or a Llama-family model open it asks the
// course text's question, which heads connect "it" to "animal" in "The animal didn't cross the
// street because it was too tired", and lists them; until then it says how the Hugging Face cache
// provides one (docs/MODELS.md).
#include "gui/lessons/model_heads_page.hpp"

#include "engine/model/head_kinds.hpp"
#include "engine/model/hf_cache.hpp"
#include "engine/model/training_tasks.hpp"
#include "engine/text/text_format.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace attnlab::gui {

namespace {

// The course text's sentence and its question ("QKV, Scaled Dot-Product & Causal Masking", 2.3).
constexpr const char* kAnimalSentence = "The animal didn't cross the street because it was too tired";

// With no model open, the built-in induction model (issue 18) on its own task's probe sequence, once:
// the heads a fresh install can show without GPT-2. The Model window stays as it is (this page lists
// the heads); a failure leaves the sentence in the Model window and the hint below.
void open_builtin_induction(ModelHeadsUi& ui, const ModelUi& m, Commands& out) {
  if (ui.builtin_model_tried || m.model) return;
  ui.builtin_model_tried = true;
  const auto builtins = model::builtin_models();
  if (std::none_of(builtins.begin(), builtins.end(), [](const model::BuiltinModel& b) { return b.name == "induction"; })) return;
  std::string text = m.text;
  try {
    const auto probe_model = model::open_model("induction");
    const model::TaskSpec task = model::parse_task_json(probe_model->config().task_json, "the built-in induction model");
    text = probe_text(model::probe_sequence(task));
  } catch (const InputError&) {
    // Opening it in the Model window says why there.
  }
  out.push_back(OpenInModelWindow{"induction", text, 0, 0, false});
}

// Whether the animal question has been asked of the open model: its sentence in the window, "it"
// and "animal" chosen.
bool animal_question_asked(const ModelUi& m) { return m.text == kAnimalSentence && m.link.query >= 0 && m.link.key >= 0; }

// With a real language model open: the sentence in the Model window and "it" → "animal" chosen,
// then the heads that link them (the Model window outlines them too).
void draw_animal_question(const ModelUi& m, Commands& out) {
  text_wrapped("\"%s\": which heads connect \"it\" to \"animal\"? (\"QKV, Scaled Dot-Product & Causal Masking\", 2.3)", kAnimalSentence);
  if (!animal_question_asked(m)) {
    if (ImGui::Button("Ask the model")) {
      out.push_back(AskWhichHeadsLink{kAnimalSentence, "it", "animal"});
      out.push_back(ShowWindow{"Model"});
    }
    return;
  }
  if (m.link.ranking.empty()) {
    text_wrapped_unformatted(m.job ? "Running the model on the sentence…" : "Waiting for the model's run.");
    return;
  }
  const auto& r = m.link.ranking;
  const std::size_t shown = std::min<std::size_t>(5, r.size());
  text_wrapped("The %s of %s that put the most weight from \"it\" on \"animal\" (outlined in the Model window's grid):",
               count_of(static_cast<long long>(shown), "head").c_str(), count_of(static_cast<long long>(r.size()), "head").c_str());
  for (std::size_t i = 0; i < shown; ++i) {
    ImGui::Text("#%zu  L%dH%d  %s", i + 1, r[i].layer, r[i].head, format_number(r[i].weight, NumberUse::Cell, 3).c_str());
    ImGui::SameLine();
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton("Show")) {
      out.push_back(ChooseModelHead{r[i].layer, r[i].head, true});
      out.push_back(ShowWindow{"Model"});
    }
    ImGui::PopID();
  }
}

// Without one: where the families' models come from (the Hugging Face cache, never downloaded here).
void draw_how_to_get_a_model(Commands& out, bool presenter) {
  if (presenter) {
    // A projector's height holds the page and the "look at" band, not the cache's whereabouts (the
    // Open model… dialog and normal mode say them).
    text_wrapped("Which heads connect \"it\" to \"animal\" (\"QKV, Scaled Dot-Product & Causal Masking\", 2.3) needs a model "
                 "trained on text: a GPT-2 or a Llama-family model, opened from the Hugging Face cache.");
  } else {
    text_wrapped("The course text asks which heads connect \"it\" to \"animal\" in \"%s\". That needs a model trained on text: a "
                 "GPT-2 or a Llama-family model (Llama, Mistral, Qwen2, Qwen3). Attention Lab never downloads; it reads the Hugging Face "
                 "cache (%s): `huggingface-cli download gpt2` (or HuggingFaceTB/SmolLM2-135M) on a computer with a network fills it, and "
                 "`attnlab gui --model gpt2` or File > Open model… opens it.",
                 kAnimalSentence, model::hf_hub_cache().string().c_str());
  }
  if (ImGui::Button("Open model…")) {
    out.push_back(ShowWindow{"Model"});
    out.push_back(ChooseFile{FilePurpose::OpenModel, ""});
  }
}

// The open model's heads counted by kind, each kind's clearest one a click from the lab.
void draw_heads_by_kind(const ModelUi& m, Commands& out) {
  // Count the kinds and find each kind's clearest head.
  constexpr int kKinds = 6;
  std::array<int, kKinds> count{};
  std::array<std::pair<int, int>, kKinds> best;
  std::array<double, kKinds> best_score{};
  best.fill({-1, -1});
  for (std::size_t l = 0; l < m.run->kinds.size(); ++l) {
    for (std::size_t h = 0; h < m.run->kinds[l].size(); ++h) {
      const auto& v = m.run->kinds[l][h];
      const int k = static_cast<int>(v.kind);
      ++count[static_cast<std::size_t>(k)];
      if (best[static_cast<std::size_t>(k)].first < 0 || v.score > best_score[static_cast<std::size_t>(k)]) {
        best[static_cast<std::size_t>(k)] = {static_cast<int>(l), static_cast<int>(h)};
        best_score[static_cast<std::size_t>(k)] = v.score;
      }
    }
  }
  char line[200];
  std::snprintf(line, sizeof line, "%s on %s: %s in all.", m.model->display_name().c_str(),
                count_of(static_cast<long long>(m.run->trace.ids.size()), "token").c_str(),
                count_of(m.model->config().n_layer * m.model->config().n_head, "head").c_str());
  text_wrapped_unformatted(line);
  // Columns: the kind, how many heads, the clearest one, its button.
  const float x0 = ImGui::GetCursorPosX(), x1 = x0 + ImGui::CalcTextSize("previous-token ").x,
              x2 = x1 + ImGui::CalcTextSize("000 heads  ").x;
  for (int k = 0; k < kKinds; ++k) {
    if (count[static_cast<std::size_t>(k)] == 0) continue;
    const auto [l, h] = best[static_cast<std::size_t>(k)];
    ImGui::TextUnformatted(std::string(model::head_kind_name(static_cast<model::HeadKind>(k))).c_str());
    ImGui::SameLine(x1);
    ImGui::TextUnformatted(count_of(count[static_cast<std::size_t>(k)], "head").c_str());
    ImGui::SameLine(x2);
    std::snprintf(line, sizeof line, "clearest L%dH%d (%s)", l, h, fixed_decimals(best_score[static_cast<std::size_t>(k)], 2).c_str());
    ImGui::TextUnformatted(line);
    ImGui::SameLine();
    ImGui::PushID(k);
    if (ImGui::SmallButton("Open in the lab")) out.push_back(LiftModelHead{l, h});
    ImGui::PopID();
  }
}

}  // namespace

void draw_model_heads_page(const PageInputs& in, const ModelHeadsNumbers* numbers, ModelHeadsUi& ui, Commands& out) {
  if (numbers && in.ctx.results.result.weights.rows() >= 2) {
    const model::HeadVerdict& v = numbers->example;
    char line[160];
    std::snprintf(line, sizeof line, "The pipeline's head, by the Model window's detector: %s, score %s.",
                  std::string(model::head_kind_name(v.kind)).c_str(), fixed_decimals(v.score, 2).c_str());
    text_wrapped_unformatted(line);
  }
  const ModelUi& m = in.model;
  open_builtin_induction(ui, m, out);
  // The Model window's run as it finishes (its window may be closed), and the ranking of the heads
  // that link "it" to "animal" once that question is asked.
  out.push_back(FollowModelRun{m.model && !m.model->config().is_toy() && animal_question_asked(m)});
  if (!m.model) {
    draw_how_to_get_a_model(out, in.ctx.view.presenter);
    return;
  }
  if (m.model->config().is_toy()) {
    text_wrapped_unformatted("This is one of Attention Lab's own models, trained in the app to copy spans of random symbols (the "
                             "Training window, F2, trains one while you watch).");
    draw_how_to_get_a_model(out, in.ctx.view.presenter);
  } else {
    draw_animal_question(m, out);
  }
  if (ImGui::Button("Show the Model window")) out.push_back(ShowWindow{"Model"});
  if (!m.run || m.run->kinds.empty()) {
    text_wrapped_unformatted(m.job ? "Running the model on its text…" : "Type a text in the Model window to see its heads.");
    return;
  }
  draw_heads_by_kind(m, out);
}

}  // namespace attnlab::gui
