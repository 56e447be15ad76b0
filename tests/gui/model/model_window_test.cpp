// The Model window on an ImGui context with no window (docs/MODELS.md): a small GPT-2 written
// here opens, its run fills the layers × heads grid, keys and clicks choose a head, "Open in the
// lab" lifts it into the document with its banner, undo takes both away, and bad input is refused
// in place keeping the last good state; the enlarged map labels its keys (upright when long), the
// mouse over a cell says its query, key and weight, and two chips rank the heads linking them, the
// top ones outlined, the ranking saved as CSV.
#include "engine/lessons/presets.hpp"
#include "gui/model_window/head_map_view.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/sampling.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/intervention_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/model_window/model_window.hpp"
#include "gui/persistence/open_save.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/state/edits.hpp"
#include "gui/widgets/drawn_text.hpp"
#include "headless_imgui.hpp"
#include "model/model_window_fixture.hpp"
#include "support/files.hpp"

#include <gtest/gtest.h>
#include <imgui_internal.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

namespace attnlab::gui {
namespace {

namespace fs = std::filesystem;

constexpr int kLayers = 2, kHeads = 3, kEmbd = 12, kPositions = 160;

// GPT-2's byte-to-character map (docs/MODELS.md, "Tokenizer"), for a vocabulary of the 256 bytes.
std::string byte_symbol(int b) {
  static_assert(kEmbd % kHeads == 0);
  int next = 0;
  for (int c = 0; c < 256; ++c) {
    const bool self = (c >= '!' && c <= '~') || (c >= 0xa1 && c <= 0xac) || (c >= 0xae && c <= 0xff);
    const unsigned cp = self ? static_cast<unsigned>(c) : static_cast<unsigned>(256 + next++);
    if (c == b) {
      std::string s;
      if (cp < 0x80) s += static_cast<char>(cp);
      else s += static_cast<char>(0xc0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3f));
      return s;
    }
  }
  return "";
}

// A random GPT-2 with a byte-level vocabulary: every byte is a token, and the merges make " it" and
// " animal" one token each (the model-heads lesson's words).
constexpr int kVocab = 264;
fs::path write_model(const fs::path& dir) {
  fs::create_directories(dir);
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_symbol(b)] = b;
  const std::string sp = byte_symbol(' ');
  const std::vector<std::pair<std::string, std::string>> merges = {{sp, "a"}, {sp + "a", "n"}, {sp + "an", "i"}, {sp + "ani", "m"},
                                                                   {sp + "anim", "a"}, {sp + "anima", "l"}, {sp, "i"}, {sp + "i", "t"}};
  std::ofstream merges_file(dir / "merges.txt");
  merges_file << "#version: 0.2\n";
  for (std::size_t k = 0; k < merges.size(); ++k) {
    merges_file << merges[k].first << " " << merges[k].second << "\n";
    vocab[merges[k].first + merges[k].second] = 256 + static_cast<int>(k);
  }
  merges_file.close();
  std::ofstream(dir / "vocab.json") << vocab.dump();
  std::ofstream(dir / "config.json") << nlohmann::json{{"n_layer", kLayers}, {"n_head", kHeads}, {"n_embd", kEmbd},
                                                       {"n_positions", kPositions}, {"vocab_size", kVocab}}
                                            .dump();
  const std::int64_t d = kEmbd;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {{"wte.weight", {kVocab, d}}, {"wpe.weight", {kPositions, d}},
                                                                           {"ln_f.weight", {d}}, {"ln_f.bias", {d}}};
  for (int l = 0; l < kLayers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    for (const auto& [n, s] : std::vector<std::pair<std::string, std::vector<std::int64_t>>>{
             {"ln_1.weight", {d}}, {"ln_1.bias", {d}}, {"attn.c_attn.weight", {d, 3 * d}}, {"attn.c_attn.bias", {3 * d}},
             {"attn.c_proj.weight", {d, d}}, {"attn.c_proj.bias", {d}}, {"ln_2.weight", {d}}, {"ln_2.bias", {d}},
             {"mlp.c_fc.weight", {d, 4 * d}}, {"mlp.c_fc.bias", {4 * d}}, {"mlp.c_proj.weight", {4 * d, d}}, {"mlp.c_proj.bias", {d}}}) {
      shapes.emplace_back(h + n, s);
    }
  }
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  for (const auto& [name, shape] : shapes) {
    std::int64_t count = 1;
    for (auto s : shape) count *= s;
    const bool norm_weight = name.find("ln_") != std::string::npos && name.find("weight") != std::string::npos;
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {data.size(), data.size() + 4 * count}}};
    for (std::int64_t i = 0; i < count; ++i) {
      const float v = norm_weight ? 1.0f : normal(rng);
      data.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  std::string text = header.dump();
  while (text.size() % 8) text += ' ';
  std::ofstream out(dir / "model.safetensors", std::ios::binary);
  const std::uint64_t len = text.size();
  out.write(reinterpret_cast<const char*>(&len), 8);
  out << text << data;
  return dir;
}

class ModelWindow : public ModelWindowTest {
protected:
  void SetUp() override {
    ModelWindowTest::SetUp();
    dir = fresh_test_dir("attnlab_model_window");
    write_model(dir);
  }
  void TearDown() override {
    ModelWindowTest::TearDown();
    fs::remove_all(dir);
  }
  // The built-in induction model on a text whose second '2' the model copies '7' after, the run
  // done; false in a build without built-in models.
  bool open_induction() {
    if (model::builtin_models().empty()) return false;
    apply_commands(state, services, open_model_file(state.model, "induction", state.platform.threads));
    set_model_text(state.model, "3 9 14 2 7 11 3 9 14 2", state.platform.threads);
    wait_for_run();
    return true;
  }
  fs::path dir;
};

TEST_F(ModelWindow, OpensAndFillsTheGrid) {
  frame();  // no model: the hint and the open row
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  ASSERT_TRUE(state.model.error.empty()) << state.model.error;
  ASSERT_TRUE(state.model.model);
  wait_for_run();
  ASSERT_TRUE(state.model.run);
  ASSERT_EQ(state.model.run->kinds.size(), static_cast<std::size_t>(kLayers));
  EXPECT_EQ(state.model.run->kinds[0].size(), static_cast<std::size_t>(kHeads));
  EXPECT_EQ(state.model.run->trace.ids.size(), state.model.ids.size());
  EXPECT_EQ(state.model.run->trace.next_tokens.size(), 10u);
  frame();  // the grid, drawn
  // Retokenized as it is typed: a new text, a new run; an empty one is refused in place.
  set_model_text(state.model, "abcabc", state.platform.threads);
  EXPECT_EQ(state.model.ids, (std::vector<int>{'a', 'b', 'c', 'a', 'b', 'c'}));
  wait_for_run();
  EXPECT_EQ(state.model.run->trace.ids.size(), 6u);
  set_model_text(state.model, "", state.platform.threads);
  EXPECT_NE(state.model.error.find("no tokens"), std::string::npos) << state.model.error;
  EXPECT_EQ(state.model.ids.size(), 6u) << "the last good tokens stay";
  set_model_text(state.model, std::string(kPositions + 1, 'x'), state.platform.threads);
  EXPECT_NE(state.model.error.find("positions"), std::string::npos) << state.model.error;
  frame();
}

TEST_F(ModelWindow, ClickAndKeysChooseAHead) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  wait_for_run();
  step_head(state.model, 1);
  EXPECT_EQ(std::make_pair(state.model.layer, state.model.head), std::make_pair(0, 1));
  step_head(state.model, kHeads);
  EXPECT_EQ(std::make_pair(state.model.layer, state.model.head), std::make_pair(1, 1));
  step_head(state.model, -kHeads * kLayers);  // wraps around
  EXPECT_EQ(std::make_pair(state.model.layer, state.model.head), std::make_pair(1, 1));
  choose_head(state.model, 99, -4);  // clamped
  EXPECT_EQ(std::make_pair(state.model.layer, state.model.head), std::make_pair(kLayers - 1, 0));
  // A click on another head's map in the grid chooses and enlarges that head. The pointer finds it
  // over the window (a map's smallest side is 3 font heights).
  const auto [head, at] = find_head_map(ImVec2(0, 0), ImGui::GetIO().DisplaySize, ImGui::GetFontSize() * 3, kLayers, kHeads,
                                        {state.model.layer, state.model.head}, [&](ImVec2 p) { frame(p); });
  ASSERT_GE(head.first, 0) << "the pointer found no map of another head in the grid";
  EXPECT_FALSE(state.model.enlarged);
  frame(at, true);
  // While the press is held, the map still shows the cell under the pointer (its tooltip).
  EXPECT_EQ(std::make_pair(state.model.hover.layer, state.model.hover.head), head);
  frame(at, true);
  EXPECT_EQ(std::make_pair(state.model.hover.layer, state.model.hover.head), head);
  frame(at, false);
  EXPECT_TRUE(state.model.enlarged) << "the click on a map did not enlarge it";
  EXPECT_EQ(std::make_pair(state.model.layer, state.model.head), head);
  frame();  // the enlarged head
}

TEST_F(ModelWindow, OpenInTheLabLiftsTheHeadAndUndoReturns) {
  const std::string before = state.doc.scenario.title;
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  set_model_text(state.model, "the cat\nsat", state.platform.threads);
  wait_for_run();
  choose_head(state.model, 1, 2);
  apply_commands(state, services, lift_chosen_head(state.model));
  ASSERT_TRUE(state.model.error.empty()) << state.model.error;
  EXPECT_EQ(state.doc.scenario.title, "GPT-2 · layer 1 · head 2");
  EXPECT_EQ(model_banner(state.model, shown_scenario(state.results, state.doc)), "GPT-2 · layer 1 · head 2");
  EXPECT_EQ(state.doc.scenario.Q.rows(), 11);
  EXPECT_EQ(state.doc.scenario.Q.cols(), kEmbd / kHeads);
  EXPECT_EQ(state.doc.scenario.query_tokens[1], "h");
  // Labels read on one line, as the chips show the tokens: the space and the line break visible.
  EXPECT_EQ(state.doc.scenario.query_tokens[3], "·");
  EXPECT_EQ(state.doc.scenario.query_tokens[7], "↵");
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::Causal);
  // The lab computes the model's own weights for that head.
  const Result r = services.backend->compute(state.doc.scenario.problem());
  const Matrix own = state.model.run->trace.heads[1][2].weights.dense();
  EXPECT_LT((r.weights - own).cwiseAbs().maxCoeff(), 1e-5f);
  apply(state, services, Undo{});
  EXPECT_EQ(state.doc.scenario.title, before);
  EXPECT_TRUE(model_banner(state.model, shown_scenario(state.results, state.doc)).empty());
  apply(state, services, Redo{});
  EXPECT_EQ(model_banner(state.model, shown_scenario(state.results, state.doc)), "GPT-2 · layer 1 · head 2");
  // A long text's run keeps no q, k, v (model_job.cpp): the lifted head is recomputed, the same.
  const Matrix kept_q = state.doc.scenario.Q;
  state.model.run = std::make_shared<model::ModelRun>(model::run_model(*state.model.model, state.model.ids, model::ForwardOptions{}));
  ASSERT_EQ(state.model.run->trace.heads[0][1].q.size(), 0);
  choose_head(state.model, 0, 1);
  apply_commands(state, services, lift_chosen_head(state.model));
  EXPECT_EQ(state.doc.scenario.title, "GPT-2 · layer 0 · head 1");
  choose_head(state.model, 1, 2);
  apply_commands(state, services, lift_chosen_head(state.model));
  EXPECT_EQ(state.doc.scenario.Q, kept_q);
}

// Nothing in the window runs past its right edge, where ImGui cuts it off: a Hugging Face cache's
// folder (longer than the window is wide) goes under the model's line, broken at the edge, and the
// keys' hint is left out of a row that has no room for it (a projector's text is that large).
TEST_F(ModelWindow, NothingRunsPastTheRightEdge) {
  const fs::path deep = dir / "models--HuggingFaceTB--SmolLM2-135M" / "snapshots" / std::string(40, 'c');
  write_model(deep);
  ImGui::GetIO().DisplaySize = ImVec2(600, 700);
  apply_commands(state, services, open_model_file(state.model, deep.string(), state.platform.threads));
  ASSERT_TRUE(state.model.error.empty()) << state.model.error;
  wait_for_run();
  frame();
  frame();
  const ImGuiWindow* w = ImGui::FindWindowByName("Model");
  ASSERT_NE(w, nullptr);
  ASSERT_GT(ImGui::CalcTextSize(deep.string().c_str()).x, w->InnerRect.GetWidth()) << "the path must not fit";
  EXPECT_LE(w->ContentSize.x + w->WindowPadding.x * 2 - w->InnerRect.GetWidth(), 2.0f) << "cut at the right edge";
}

TEST_F(ModelWindow, ADroppedFolderOrSafetensorsOpens) {
  apply(state, services, OpenFile{(dir / "model.safetensors").string()});
  ASSERT_TRUE(state.model.model) << state.model.error;
  EXPECT_TRUE(window_open(state.view, "Model"));
  state.model.model.reset();
  apply(state, services, OpenFile{dir.string()});
  EXPECT_TRUE(state.model.model) << state.model.error;
  wait_for_run();
}

// A folder without its tokenizer opens (the dry run's `gui --model DIR` exited): the text box then
// takes token ids, as `attnlab model --ids` does, and Generate adds ids to it.
TEST_F(ModelWindow, AFolderWithoutATokenizerRunsOnTokenIds) {
  fs::remove(dir / "vocab.json");
  fs::remove(dir / "merges.txt");
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  ModelUi& m = state.model;
  ASSERT_TRUE(m.model) << m.error;
  EXPECT_EQ(m.model->tokenizer(), nullptr);
  EXPECT_TRUE(m.error.empty()) << "the default text is no ids: the box starts empty, not refused: " << m.error;
  EXPECT_TRUE(m.text.empty()) << m.text;
  frame();
  bool asks = false;
  for (const DrawnText& t : drawn_texts(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts)) asks = asks || t.text.find("token ids") != std::string::npos;
  EXPECT_TRUE(asks) << "the window says to type token ids";
  set_model_text(m, "5, 17, 42, 8", false);
  ASSERT_TRUE(m.error.empty()) << m.error;
  wait_for_run();
  ASSERT_TRUE(m.run);
  EXPECT_EQ(m.run->trace.ids, (std::vector<int>{5, 17, 42, 8}));
  // Words are refused in place, naming the missing file; the last good ids stay.
  set_model_text(m, "hello", false);
  EXPECT_NE(m.error.find("vocab.json"), std::string::npos) << m.error;
  EXPECT_EQ(m.ids, (std::vector<int>{5, 17, 42, 8}));
  set_model_text(m, "5, 17, 42, 8", false);
  wait_for_run();
  m.generate.sampling.temperature = 0;
  generate_tokens(m, 2, false);
  wait_for_run();
  ASSERT_EQ(m.ids.size(), 6u);
  EXPECT_EQ(m.text, "5, 17, 42, 8, " + std::to_string(m.ids[4]) + ", " + std::to_string(m.ids[5]));
  EXPECT_EQ(text_ids(*m.model, m.text), m.ids) << "the box's ids are the run's";
}

TEST_F(ModelWindow, BadModelsAreRefusedInPlace) {
  apply_commands(state, services, open_model_file(state.model, (dir / "no-such-folder").string(), state.platform.threads));
  EXPECT_NE(state.model.error.find("no such model"), std::string::npos) << state.model.error;
  EXPECT_FALSE(state.model.model);
  frame();
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  wait_for_run();
  const auto good = state.model.model;
  // A truncated weights file.
  fs::resize_file(dir / "model.safetensors", fs::file_size(dir / "model.safetensors") / 2);
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  EXPECT_NE(state.model.error.find("past the end"), std::string::npos) << state.model.error;
  EXPECT_EQ(state.model.model, good);
  frame();
}

TEST_F(ModelWindow, EnlargedMapLabelsItsKeysUprightWhenLong) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  set_model_text(state.model, "abcabcab", state.platform.threads);
  wait_for_run();
  choose_head(state.model, 1, 0);
  state.model.enlarged = true;
  frame();
  const KeyLabelLayout& keys = state.model.drawn_keys;
  ASSERT_GT(keys.size, 0) << "no key labels on an 8-token map";
  ASSERT_EQ(keys.labels.size(), 8u);
  EXPECT_EQ(keys.labels[0], "a");
  EXPECT_EQ(keys.labels[2], "c");
  EXPECT_FALSE(keys.upright) << "one letter fits a column";
  // The layout itself: short labels flat, long ones upright and cut, none in columns too narrow.
  const float fs = ImGui::GetFontSize();
  const KeyLabelLayout flat = key_label_layout({"a", "b"}, fs * 3);
  EXPECT_FALSE(flat.upright);
  EXPECT_GT(flat.band, 0);
  const KeyLabelLayout upright = key_label_layout({"a", " internationalization", "b"}, fs * 1.2f);
  EXPECT_TRUE(upright.upright);
  EXPECT_EQ(upright.labels[0], "a");
  EXPECT_EQ(upright.labels[1], " internation…");
  EXPECT_GT(upright.band, ImGui::CalcTextSize(" internation").x * upright.size / fs);
  EXPECT_EQ(key_label_layout({"a"}, 2.0f).size, 0) << "a 2-pixel column has no room for a label";
  // A longer text: a label for each of its keys.
  set_model_text(state.model, std::string(24, 'x'), state.platform.threads);
  wait_for_run();
  state.model.enlarged = true;
  frame();
  EXPECT_EQ(state.model.drawn_keys.labels.size(), 24u);
  state.model.enlarged = false;
  frame();
  EXPECT_TRUE(state.model.drawn_keys.labels.empty()) << "the grid draws no key labels";
}

TEST_F(ModelWindow, TheMouseOverACellSaysItsQueryKeyAndWeight) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  set_model_text(state.model, "the cat", state.platform.threads);
  wait_for_run();
  // In the grid, and in the enlarged map.
  for (const bool enlarged : {false, true}) {
    state.model.enlarged = enlarged;
    choose_head(state.model, 1, 2);
    bool found = false;
    for (float y = 60; y < 700 && !found; y += 7) {
      for (float x = 20; x < 1000 && !found; x += 7) {
        frame(ImVec2(x, y));
        found = state.model.hover.query >= 0;
      }
    }
    ASSERT_TRUE(found) << "no cell under the mouse anywhere (enlarged " << enlarged << ")";
    const HeadHover h = state.model.hover;
    if (enlarged) {
      EXPECT_EQ(std::make_pair(h.layer, h.head), std::make_pair(1, 2)) << "the enlarged map is the chosen head";
    }
    const auto lines = cell_hover_lines(state.model, h.layer, h.head, h.query, h.key);
    const auto& ids = state.model.run->trace.ids;
    const std::string q = state.model.model->token_label(ids[static_cast<std::size_t>(h.query)]);
    const std::string k = state.model.model->token_label(ids[static_cast<std::size_t>(h.key)]);
    const model::CausalWeights& A = state.model.run->trace.heads[static_cast<std::size_t>(h.layer)][static_cast<std::size_t>(h.head)].weights;
    const std::string weight = h.key > h.query ? "blocked (causal)" : "weight " + format_number(A(h.query, h.key), NumberUse::Cell, 3);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind("L" + std::to_string(h.layer) + "H" + std::to_string(h.head) + " · ", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1], "query " + std::to_string(h.query) + " '" + q + "' → key " + std::to_string(h.key) + " '" + k + "': " + weight);
  }
}

TEST_F(ModelWindow, TwoChipsRankEveryHeadAndTheGridOutlinesTheTop) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  set_model_text(state.model, "the cat sat on the mat", state.platform.threads);
  wait_for_run();
  // A real click on a chip: sweep the chips' band until one takes it.
  for (float y = 100; y < 400 && state.model.link.query < 0; y += 6) {
    for (float x = 20; x < 1200 && state.model.link.query < 0; x += 11) {
      frame(ImVec2(x, y), false);
      frame(ImVec2(x, y), true);
      frame(ImVec2(x, y), false);
    }
  }
  ASSERT_GE(state.model.link.query, 0) << "no chip took a click";
  // The query "mat" (the last token), then the key "cat": clicked the other way round, they swap.
  clear_link(state.model);
  const int cat = 4, mat = static_cast<int>(state.model.ids.size()) - 1;
  click_token_chip(state.model, cat);
  click_token_chip(state.model, mat);
  EXPECT_EQ(state.model.link.query, mat);
  EXPECT_EQ(state.model.link.key, cat);
  EXPECT_FALSE(state.model.link.notice.empty()) << "the swap is said";
  frame();
  const auto& r = state.model.link.ranking;
  ASSERT_EQ(r.size(), static_cast<std::size_t>(kLayers * kHeads));
  std::vector<double> expected;
  for (int l = 0; l < kLayers; ++l) {
    for (int h = 0; h < kHeads; ++h) expected.push_back(state.model.run->trace.heads[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)].weights(mat, cat));
  }
  std::sort(expected.rbegin(), expected.rend());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].weight, expected[i]) << i;
    EXPECT_EQ(r[i].weight, state.model.run->trace.heads[static_cast<std::size_t>(r[i].layer)][static_cast<std::size_t>(r[i].head)].weights(mat, cat));
  }
  // The grid outlines the top `outlined` heads that give the key more than an even share of the
  // query's keys, ranked, and no other.
  state.model.link.outlined = 2;
  const double even = 1.0 / (mat + 1);
  EXPECT_EQ(even_share(state.model), even);
  int outlined = 0;
  for (int l = 0; l < kLayers; ++l) {
    for (int h = 0; h < kHeads; ++h) {
      const int rank = outlined_rank(state.model, l, h);
      if (rank < 0) continue;
      ++outlined;
      EXPECT_EQ(std::make_pair(r[static_cast<std::size_t>(rank)].layer, r[static_cast<std::size_t>(rank)].head), std::make_pair(l, h));
    }
  }
  EXPECT_EQ(outlined, (r[0].weight > even) + (r[0].weight > even && r[1].weight > even));
  // A key no head gives more than an even share: nothing is outlined, and the panel says why.
  const std::vector<model::HeadLink> ranked = r;
  for (model::HeadLink& k : state.model.link.ranking) k.weight = even / 2;
  for (int l = 0; l < kLayers; ++l) {
    for (int h = 0; h < kHeads; ++h) EXPECT_EQ(outlined_rank(state.model, l, h), -1);
  }
  state.model.link.ranking = ranked;
  frame();
  // The CSV holds every head in the ranking's order.
  const std::string csv_path = (dir / "links.csv").string();
  Commands delivered;
  ASSERT_EQ(save_link_ranking(state.model, csv_path, delivered), "");
  apply_commands(state, services, delivered);
  std::ifstream csv(csv_path);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "rank,layer,head,weight");
  for (std::size_t i = 0; i < r.size() && std::getline(csv, line); ++i) {
    EXPECT_EQ(line.rfind(std::to_string(i + 1) + "," + std::to_string(r[i].layer) + "," + std::to_string(r[i].head) + ",", 0), 0u) << line;
  }
  EXPECT_FALSE(std::getline(csv, line)) << "more rows than heads";
  EXPECT_NE(save_link_ranking(state.model, (dir / "no" / "such" / "x.csv").string(), delivered), "");
  // A text changed before the query: other tokens now, so the pair goes; one changed after it keeps it.
  set_model_text(state.model, "the cat sat on the mat and", state.platform.threads);
  refresh_link_ranking(state.model);
  EXPECT_EQ(state.model.link.query, mat) << "text added after the query keeps the pair";
  set_model_text(state.model, "a cat sat on the mat and", state.platform.threads);
  refresh_link_ranking(state.model);
  EXPECT_LT(state.model.link.query, 0) << "a change before the query drops the pair";
  wait_for_run();
  frame();
}

// The model-heads lesson's question on a model whose tokenizer makes "it" and "animal" one token
// each: the sentence in the text box, "it" the query and "animal" the key, every head ranked; a
// word the tokenizer splits is said in place.
TEST_F(ModelWindow, TheLessonsQuestionLinksItToAnimal) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  wait_for_run();
  const std::string sentence = "The animal didn't cross the street because it was too tired";
  ASSERT_TRUE(ask_which_heads_link(state.model, sentence, "it", "animal", state.platform.threads)) << state.model.error;
  EXPECT_EQ(state.model.text, sentence);
  const auto& ids = state.model.ids;
  const int it = state.model.link.query, animal = state.model.link.key;
  ASSERT_GE(animal, 0);
  EXPECT_EQ(state.model.model->token_text(ids[static_cast<std::size_t>(it)]), " it");
  EXPECT_EQ(state.model.model->token_text(ids[static_cast<std::size_t>(animal)]), " animal");
  wait_for_run();
  refresh_link_ranking(state.model);
  EXPECT_EQ(state.model.link.ranking.size(), static_cast<std::size_t>(kLayers * kHeads));
  frame();
  EXPECT_FALSE(ask_which_heads_link(state.model, "the cat sat", "cat", "the", state.platform.threads));
  EXPECT_NE(state.model.error.find("\"cat\" one token"), std::string::npos) << state.model.error;
  EXPECT_LT(state.model.link.query, 0);
  wait_for_run();
}

// Every byte is a token of its own here, so "é" is two tokens and "😀" four. The text the window
// writes after the prompt joins their bytes: a character reads whole once its last piece is
// written (each piece alone is labelled \xNN), the text stays valid UTF-8 at every step, and
// editing it re-tokenizes into the same tokens.
TEST_F(ModelWindow, GeneratedBytesJoinIntoCharacters) {
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  wait_for_run();
  const model::LanguageModel& m = *state.model.model;
  const std::string base = "Say: ", text = "Grüße, 東京 😀!";
  const std::vector<int> ids = m.tokenize(text);
  ASSERT_GT(ids.size(), 20u);
  EXPECT_EQ(m.token_text(ids[2]), "\\xC3");
  std::string bytes;
  for (std::size_t k = 0; k <= ids.size(); ++k) {
    const std::vector<int> written(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k));
    const std::string shown = model::append_tokens_text(m, base, written);
    EXPECT_NO_THROW(model::check_utf8(shown)) << k << " tokens";
    // The characters complete so far, then the bytes of one still being written as \xNN.
    const std::size_t whole = std::min(invalid_utf8_at(bytes), bytes.size());
    std::string tail;
    for (std::size_t i = whole; i < bytes.size(); ++i) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(bytes[i]));
      tail += hex;
    }
    EXPECT_EQ(shown, base + bytes.substr(0, whole) + tail) << k << " tokens";
    if (k < ids.size()) bytes += m.token_bytes(ids[k]);
  }
  EXPECT_EQ(bytes, text);
  EXPECT_EQ(model::append_tokens_text(m, base, ids), base + text);

  // Generation on the window: whatever bytes the model draws, the text box holds valid UTF-8 that
  // tokenizes, and its generated part is the drawn tokens' bytes.
  set_model_text(state.model, base + "東", state.platform.threads);
  wait_for_run();
  const std::vector<int> prompt = state.model.ids;
  state.model.generate.sampling.temperature = 2;
  generate_tokens(state.model, 40, state.platform.threads);
  wait_for_run();
  ASSERT_TRUE(state.model.error.empty()) << state.model.error;
  const std::vector<int>& now = state.model.ids;
  ASSERT_EQ(now.size(), prompt.size() + 40);
  std::string drawn;
  for (std::size_t i = prompt.size(); i < now.size(); ++i) drawn += m.token_bytes(now[i]);
  EXPECT_EQ(state.model.text, base + "東" + printable_utf8(drawn));
  EXPECT_NO_THROW((void)m.tokenize(state.model.text));
}

}  // namespace
}  // namespace attnlab::gui

namespace attnlab::gui {

// The list of models on this computer: a Hugging Face cache holding the fixture's model and an LM
// Studio file that does not open, under a HOME of the test's own; the list offers both, the broken
// one disabled, and a click on the other opens it.
TEST_F(ModelWindow, TheModelsOnThisComputerAreOfferedAndAClickOpensOne) {
  const fs::path home = fresh_test_dir("attnlab_model_window_home");
  const fs::path snapshot = home / ".cache/huggingface/hub/models--lab--tiny/snapshots/abc123";
  fs::create_directories(snapshot);
  fs::create_directories(home / ".cache/huggingface/hub/models--lab--tiny/refs");
  std::ofstream(home / ".cache/huggingface/hub/models--lab--tiny/refs/main") << "abc123";
  for (const auto& e : fs::directory_iterator(dir)) fs::copy(e.path(), snapshot / e.path().filename());
  fs::create_directories(home / ".lmstudio/models/pub/repo");
  std::ofstream(home / ".lmstudio/models/pub/repo/broken.gguf") << "not a GGUF file";
  fs::create_directories(home / "ollama");
  const char* saved_home = std::getenv("HOME");
  const std::string old_home = saved_home ? saved_home : "";
  setenv("HOME", home.c_str(), 1);
  setenv("OLLAMA_MODELS", (home / "ollama").c_str(), 1);
  unsetenv("HF_HOME");
  unsetenv("HF_HUB_CACHE");

  frame();  // no model: the button that looks
  state.model.local_models = model::list_local_models();
  ASSERT_EQ(state.model.local_models->size(), 2u);
  const auto& found = *state.model.local_models;
  const auto hf = std::find_if(found.begin(), found.end(), [](const model::LocalModel& m) { return m.name == "lab/tiny"; });
  const auto lms = std::find_if(found.begin(), found.end(), [](const model::LocalModel& m) { return m.source == "lmstudio"; });
  ASSERT_NE(hf, found.end());
  ASSERT_NE(lms, found.end());
  EXPECT_TRUE(hf->opens) << hf->why_not;
  EXPECT_FALSE(lms->opens);
  EXPECT_NE(lms->why_not.find("GGUF"), std::string::npos) << lms->why_not;
  // Click down the window, below its title bar (two clicks there would fold it), until a row opens a
  // model (the disabled row opens nothing).
  for (float y = 40; y < 700 && !state.model.model && !state.model.job; y += 4) {
    frame(ImVec2(200, y), false);
    frame(ImVec2(200, y), true);
    frame(ImVec2(200, y), false);
  }
  wait_for_run();
  EXPECT_TRUE(state.model.model) << "no row opened a model: " << state.model.error;
  EXPECT_EQ(state.model.path, "lab/tiny");

  setenv("HOME", old_home.c_str(), 1);
  unsetenv("OLLAMA_MODELS");
  fs::remove_all(home);
}

}  // namespace attnlab::gui

namespace attnlab::gui {
namespace {

// Knock out (issue 71): the built-in induction model's induction heads out, the copy fails, the
// maps before them stay and the prediction shown is the changed model's beside the model as it is.
TEST_F(ModelWindow, KnockingOutTheInductionHeadsBreaksTheCopy) {
  if (!open_induction()) GTEST_SKIP() << "no built-in models in this build";
  ASSERT_TRUE(state.model.run);
  ASSERT_EQ(state.model.run->trace.next_tokens.front().id, 7) << "the model copies what followed '2' before";
  std::vector<model::HeadIndex> induction;
  for (int h = 0; h < state.model.model->config().n_head; ++h) {
    if (state.model.run->kinds[1][static_cast<std::size_t>(h)].kind == model::HeadKind::Induction) induction.push_back({1, h});
  }
  ASSERT_FALSE(induction.empty());
  for (const auto& h : induction) toggle_knock_out(state.model, h.layer, h.head);
  frame();
  const InterventionUi& iv = state.model.intervention;
  ASSERT_TRUE(iv.changed) << iv.error;
  EXPECT_EQ(shown_run(state.model), iv.changed.get());
  EXPECT_NE(iv.changed->trace.next_tokens.front().id, 7) << "the copy survived its induction heads";
  EXPECT_NEAR(iv.before[7], state.model.run->trace.next_tokens.front().prob, 1e-5);
  EXPECT_LT(iv.after[7], 0.2);
  for (int h = 0; h < state.model.model->config().n_head; ++h) {  // layer 0 runs before the heads knocked out
    EXPECT_EQ(max_abs_difference(iv.changed->trace.heads[0][static_cast<std::size_t>(h)].weights,
                                        state.model.run->trace.heads[0][static_cast<std::size_t>(h)].weights),
              0.0);
  }
  // The logit lens: one entry per layer, the last the changed model's prediction.
  state.model.intervention.lens = true;
  state.model.intervention.dirty = true;
  frame();
  ASSERT_TRUE(iv.changed);
  ASSERT_EQ(iv.changed->trace.lens.size(), 2u);
  EXPECT_EQ(iv.changed->trace.lens.back().front().id, iv.changed->trace.next_tokens.front().id);
  // A second text: the heads compared with the changed model's on the first; another length said.
  state.model.intervention.compare = true;
  state.model.intervention.second_text = "3 9 14 2 7";
  state.model.intervention.dirty = true;
  frame();
  EXPECT_NE(iv.error.find("same token count"), std::string::npos) << iv.error;
  EXPECT_FALSE(iv.second);
  state.model.intervention.second_text = state.model.text;  // the same text through the same changed model: no difference
  state.model.intervention.dirty = true;
  frame();
  ASSERT_TRUE(iv.second) << iv.error;
  ASSERT_EQ(iv.differences.size(), 2u);
  for (const auto& layer : iv.differences) {
    for (const auto& d : layer) EXPECT_TRUE(d.max_abs_diff == 0.0 && !d.argmax_changed);
  }
  state.model.intervention.second_text = "3 9 14 2 5 11 3 9 14 2";  // what followed '2' changed: the induction heads look elsewhere
  state.model.intervention.dirty = true;
  frame();
  ASSERT_TRUE(iv.second) << iv.error;
  EXPECT_TRUE(std::any_of(iv.differences[1].begin(), iv.differences[1].end(), [](const auto& d) { return d.max_abs_diff > 0.01; }));
  state.model.intervention.maps = InterventionUi::Maps::Second;
  EXPECT_EQ(shown_run(state.model), iv.second.get());
  frame();
  // Their difference: each cell |first − second|, its largest the comparison's.
  state.model.intervention.maps = InterventionUi::Maps::Difference;
  ASSERT_EQ(shown_run(state.model), iv.difference.get());
  for (std::size_t h = 0; h < iv.differences[1].size(); ++h) {
    const auto& d = iv.difference->trace.heads[1][h].weights;
    float largest = 0;
    for (std::int64_t i = 0; i < d.rows(); ++i) {
      for (std::int64_t j = 0; j <= i; ++j) largest = std::max(largest, d(i, j));
    }
    EXPECT_NEAR(largest, iv.differences[1][h].max_abs_diff, 1e-6);
  }
  frame();
  state.model.intervention.compare = false;
  // Restored, the window shows the model as it is; another model forgets the heads.
  for (const auto& h : induction) toggle_knock_out(state.model, h.layer, h.head);
  frame();
  EXPECT_EQ(shown_run(state.model), state.model.run.get());
  toggle_knock_out(state.model, 1, 0);
  apply_commands(state, services, open_model_file(state.model, dir.string(), state.platform.threads));
  EXPECT_TRUE(state.model.intervention.knocked_out.empty());
  wait_for_run();
  frame();
}

// The induction heads of layer 1 on the window's run, as the window names them.
std::vector<model::HeadIndex> induction_heads(const ModelUi& m) {
  std::vector<model::HeadIndex> heads;
  for (int h = 0; h < m.model->config().n_head; ++h) {
    if (m.run->kinds[1][static_cast<std::size_t>(h)].kind == model::HeadKind::Induction) heads.push_back({1, h});
  }
  return heads;
}

// Patching (issue 71): the induction heads' outputs taken from a text where '2' was followed by '5'
// make the model predict '5', as the engine's patch does; a patched head knocked out is no longer
// patched.
TEST_F(ModelWindow, PatchingTheInductionHeadsFromASecondTextMovesTheCopy) {
  if (!open_induction()) GTEST_SKIP() << "no built-in models in this build";
  ASSERT_TRUE(state.model.run);
  InterventionUi& iv = state.model.intervention;
  iv.compare = true;
  iv.second_text = "3 9 14 2 5 11 3 9 14 2";
  iv.dirty = true;
  frame();
  ASSERT_TRUE(iv.second) << iv.error;
  ASSERT_EQ(iv.second->trace.next_tokens.front().id, 5);
  const auto induction = induction_heads(state.model);
  ASSERT_FALSE(induction.empty());
  for (const auto& h : induction) toggle_patch(state.model, h.layer, h.head);
  frame();
  ASSERT_TRUE(changes_model(state.model)) << iv.error;
  EXPECT_EQ(iv.changed->trace.next_tokens.front().id, 5) << "the patched induction heads copy what the second text had";
  model::ForwardOptions keep;
  keep.keep_outputs = true;
  const model::ForwardTrace source = state.model.model->forward(text_ids(*state.model.model, iv.second_text), keep);
  model::ForwardOptions patch;
  patch.edits = model::patch_edits(induction, source);
  patch.keep_logits = true;
  const auto want = model::next_distribution(state.model.model->forward(state.model.run->trace.ids, patch).logits, {}).model;
  ASSERT_EQ(iv.after.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(iv.after[i], want[i], 1e-6) << "token " << i;
  toggle_knock_out(state.model, induction[0].layer, induction[0].head);
  EXPECT_FALSE(patched(state.model, induction[0].layer, induction[0].head));
  EXPECT_TRUE(knocked_out(state.model, induction[0].layer, induction[0].head));
  frame();
  EXPECT_TRUE(iv.error.empty()) << iv.error;
}

// The lab's edit put back (issue 71): a lifted head the lab has not changed leaves the prediction as
// it was; at another temperature the model's prediction is what the lab's output makes it, the
// head's map the lab's weights; on another text the window says the head no longer fits.
TEST_F(ModelWindow, TheLabsEditOfALiftedHeadGoesBackIntoTheModel) {
  if (!open_induction()) GTEST_SKIP() << "no built-in models in this build";
  const auto induction = induction_heads(state.model);
  ASSERT_FALSE(induction.empty());
  const model::HeadIndex h = induction.front();
  choose_head(state.model, h.layer, h.head);
  apply_commands(state, services, lift_chosen_head(state.model));
  recompute_if_needed(state, services);
  frame();
  InterventionUi& iv = state.model.intervention;
  ASSERT_NE(iv.lab.version, 0u) << "the window did not see the lab's result";
  EXPECT_EQ(iv.lab.lifted.head, h);
  iv.use_lab = true;
  iv.dirty = true;
  frame();
  ASSERT_TRUE(changes_model(state.model)) << iv.error;
  for (std::size_t i = 0; i < iv.before.size(); ++i) ASSERT_NEAR(iv.after[i], iv.before[i], 1e-4) << "the head as the model has it, token " << i;
  apply(state, edits::set_temperature(20.0));
  recompute_if_needed(state, services);
  frame();
  ASSERT_TRUE(changes_model(state.model)) << iv.error;
  const Result lab = services.backend->compute(state.doc.scenario.problem());
  model::ForwardOptions replaced;
  replaced.edits = {model::HeadEdit{h.layer, h.head, model::HeadEdit::Kind::Replace, lab.output, {}}};
  replaced.keep_logits = true;
  const auto want = model::next_distribution(state.model.model->forward(state.model.run->trace.ids, replaced).logits, {}).model;
  double moved = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(iv.after[i], want[i], 1e-5) << "token " << i;
    moved = std::max(moved, std::abs(iv.after[i] - iv.before[i]));
  }
  EXPECT_GT(moved, 1e-3) << "a head at T = 20 spreads its weight: the prediction moves";
  const auto& shown = iv.changed->trace.heads[static_cast<std::size_t>(h.layer)][static_cast<std::size_t>(h.head)].weights;
  for (std::int64_t i = 0; i < shown.rows(); ++i) {
    for (std::int64_t j = 0; j <= i; ++j) ASSERT_NEAR(shown(i, j), lab.weights(i, j), 1e-6) << "the lab's weights in the head's place";
  }
  set_model_text(state.model, "3 9 14 2 7 11 3 9 14 2 7", state.platform.threads);
  wait_for_run();
  frame();
  EXPECT_NE(iv.error.find("another text"), std::string::npos) << iv.error;
}

}  // namespace
}  // namespace attnlab::gui
