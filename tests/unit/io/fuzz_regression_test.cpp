// Inputs that once crashed a reader under libFuzzer (scripts/fuzz), kept as regressions, and a
// replay of the committed seed corpora: every reader either succeeds or throws InputError.
#include "engine/attention/attention.hpp"
#include "engine/figures/figure.hpp"
#include "engine/attention/mask.hpp"
#include "engine/io/matrix_io.hpp"
#include "engine/lessons/exercise_grade.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/io/scenario.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/attention/rope.hpp"
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/gguf_file.hpp"
#include "engine/model/gguf_tokenizer.hpp"
#include "engine/model/head_links.hpp"
#include "engine/model/model_config.hpp"
#include "engine/model/safetensors.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"
#include "engine/model/training_tasks.hpp"
#include "engine/model/weight_files.hpp"
#include "engine/model/interventions.hpp"
#include "gui/persistence/session_file.hpp"
#include "gui/state/share_link.hpp"
#include "support/files.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

// Runs `read` and fails on anything thrown that is not an InputError with a one-line message.
void expect_clean(const std::function<void()>& read, const std::string& what) {
  try {
    read();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_FALSE(msg.empty()) << what;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << what << ": " << msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw " << typeid(e).name() << " (" << e.what() << "), not InputError";
  }
}

// scenario_fuzz, crash-88044ae5: nlohmann reports a number too large for a double as
// out_of_range, which escaped parse_scenario and made the CLI exit 1 instead of 2.
TEST(FuzzRegression, ScenarioNumberOverflowIsAnInputError) {
  test::expect_refusal([] { parse_scenario(R"({"Q": [[1e999]], "K": [[1]], "V": [[1]]})", "big.json"); }, {"big.json"});
}

TEST(FuzzRegression, HugeUnsignedMaskSizeIsNotReportedAsNegative) {
  const std::string text =
      R"({"Q": [[1]], "K": [[1]], "V": [[1]], "mask": {"kind": "padding", "valid": 18446744073709551615}})";
  const std::string what = test::error_of([&] { parse_scenario(text, "s.json"); });
  ASSERT_FALSE(what.empty()) << "an absurd padding length was accepted";
  EXPECT_EQ(what.find("negative"), std::string::npos) << what;
}

TEST(FuzzRegression, TemperatureTextIsStrict) {
  EXPECT_DOUBLE_EQ(parse_positive_number("0.05", "--temperature"), 0.05);
  for (const char* bad : {"", "0", "-1", "nan", "inf", "1e999", "1x", " 1"}) {
    EXPECT_THROW(parse_positive_number(bad, "--temperature"), InputError) << "'" << bad << "'";
  }
}

class CorpusReplay : public ::testing::TestWithParam<const char*> {};

// As link_fragment_fuzz checks: read without throwing, and what Share link writes reads back.
void replay_link_fragment(const std::string& bytes, const std::string& name) {
  const gui::LinkFragment f = gui::read_link_fragment(bytes);
  EXPECT_EQ(f.refused.find('\n'), std::string::npos) << name;
  const gui::LinkFragment back = gui::read_link_fragment(gui::share_fragment(bytes, f.exercise_seed));
  EXPECT_TRUE(back.refused.empty()) << name << ": " << back.refused;
  EXPECT_EQ(back.scenario_json, bytes) << name;
  EXPECT_EQ(back.exercise_seed, f.exercise_seed) << name;
}

// The option parsers on one seed's text, as options_fuzz reads it.
void replay_options(const std::string& bytes, const std::string& name) {
  expect_clean([&] { validate_mask(parse_mask_spec(bytes), 3, 3, "--mask"); }, name);
  expect_clean([&] { parse_normalizer(bytes, "--normalizer"); }, name);
  expect_clean([&] { parse_positive_number(bytes, "--temperature"); }, name);
  expect_clean([&] { parse_range(bytes, "--range"); }, name);
  expect_clean(
      [&] {
        const auto [query, key] = model::parse_link(bytes, "--link");
        model::check_link(query, key, 4, "--link");
      },
      name);
  model::ModelConfig c;
  c.n_layer = 3, c.n_head = 4;
  expect_clean([&] { model::parse_heads(bytes, c, "--ablate"); }, name);
  expect_clean([&] { model::parse_ablation(bytes, "--ablation"); }, name);
}

TEST_P(CorpusReplay, EverySeedIsReadOrRejectedCleanly) {
  const fs::path dir = fs::path(ATTNLAB_FUZZ_CORPUS) / GetParam();
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string bytes = slurp(entry.path());
    const std::string name = entry.path().filename().string();
    const std::string kind = GetParam();
    ++files;
    if (kind == "scenario") {
      expect_clean([&] { compute_cpu(parse_scenario(bytes, name).problem()); }, name);
    } else if (kind == "npy") {
      expect_clean([&] { parse_npy(bytes, name); }, name);
    } else if (kind == "csv") {
      expect_clean([&] { parse_csv(bytes, name); }, name);
    } else if (kind == "safetensors") {
      expect_clean([&] { model::parse_safetensors(bytes, name); }, name);
    } else if (kind == "gpt2_tokenizer") {
      // The fuzz target's layout: vocab.json, merges.txt and a text, split at zero bytes.
      const std::size_t a = bytes.find('\0'), b = bytes.find('\0', a + 1);
      ASSERT_NE(b, std::string::npos) << name;
      expect_clean(
          [&] {
            model::BpeTokenizer::parse(bytes.substr(0, a), bytes.substr(a + 1, b - a - 1), "vocab.json", "merges.txt")
                .encode(bytes.substr(b + 1));
          },
          name);
    } else if (kind == "gguf") {
      // As gguf_fuzz reads them: the container, then the tokenizer its metadata describes.
      expect_clean(
          [&] {
            const model::GgufHeader h = model::parse_gguf(bytes, name);
            const model::GgufTokenizer t = model::gguf_tokenizer(model::GgufMetadata(h.metadata, name));
            if (t.tokenizer) t.tokenizer->encode("Hello world, 123 h\u00e9llo <s>");
          },
          name);
    } else if (kind == "shard_index") {
      expect_clean([&] { model::parse_shard_index(bytes, name); }, name);
    } else if (kind == "model_config") {
      expect_clean([&] { model::parse_model_config(bytes, name); }, name);
    } else if (kind == "rope") {
      // As rope_fuzz checks: settings whose frequencies are accepted rotate a row without changing
      // its length (tiny-factor.json once gave NaN there).
      expect_clean(
          [&] {
            const RopeSettings r = parse_rope_settings(bytes, name);
            const std::vector<double> f = rope_frequencies(r.theta, r.scaling, 8);
            const Matrix x = Matrix::Ones(1, 8);
            const Matrix y = rope_rotated(x, {r.query_positions.empty() ? 3 : r.query_positions.front()}, f);
            EXPECT_NEAR(y.norm(), x.norm(), 1e-4) << name;
          },
          name);
    } else if (kind == "tokenizer_json") {
      // The fuzz target's layout: tokenizer.json, tokenizer_config.json and a text, split at zero bytes.
      const std::size_t a = bytes.find('\0'), b = a == std::string::npos ? a : bytes.find('\0', a + 1);
      expect_clean(
          [&] {
            model::parse_tokenizer_json(bytes.substr(0, a), a == std::string::npos ? "" : bytes.substr(a + 1, b - a - 1), "tokenizer.json")
                ->encode(b == std::string::npos ? "Hello world" : bytes.substr(b + 1));
          },
          name);
    } else if (kind == "train_task") {
      expect_clean(
          [&] {
            model::TaskGenerator g(model::parse_task_json(bytes, name), 1);
            g.next(2), g.judged(2);
          },
          name);
    } else if (kind == "exercise_answer") {
      // The fuzz target's layout: the first byte chooses the lesson (and the seed), then the answer.
      ASSERT_FALSE(bytes.empty()) << name;
      const std::vector<PresetInfo> lessons = list_presets();
      const auto first = static_cast<unsigned char>(bytes[0]);
      const Exercise e = make_exercise(lessons[first % lessons.size()].name, first / lessons.size() % 4);
      expect_clean([&] { grade_exercise(e, parse_answers(bytes.substr(1), e, name)); }, name);
      // The seeds named *_right hold the grader's own expected answers: all of them right.
      if (name.find("_right") != std::string::npos) {
        const Grade g = grade_exercise(e, parse_answers(bytes.substr(1), e, name));
        EXPECT_EQ(g.score, g.of) << name;
      }
    } else if (kind == "link_fragment") {
      replay_link_fragment(bytes, name);
    } else if (kind == "session") {
      expect_clean([&] { gui::parse_session(bytes, name); }, name);
      expect_clean([&] { gui::parse_recovery(bytes, name); }, name);
    } else {
      replay_options(bytes, name);
    }
  }
  EXPECT_GT(files, 5) << dir;
}

INSTANTIATE_TEST_SUITE_P(Seeds, CorpusReplay, ::testing::Values("scenario", "npy", "csv", "options", "session", "safetensors",
                                                                       "gpt2_tokenizer", "train_task", "tokenizer_json", "shard_index",
                                                                       "model_config", "rope", "gguf", "exercise_answer",
                                                                       "link_fragment"));

}  // namespace
}  // namespace attnlab
