// Screenshot tests: `attnlab gui --screenshot` in a real window (under xvfb-run when there is no
// DISPLAY), then the PNG is checked: its size, that it is not blank, and that the weights heatmap
// (located through ATTNLAB_LAYOUT_OUT) is painted in the weights colormap.
#include "engine/figures/colormap.hpp"
#include "engine/io/scenario.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

struct Shot {
  int status = -1;
  std::string output;
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  nlohmann::json layout;
  unsigned char* at(int x, int y) { return &rgb[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3]; }
};

class Screenshot : public ::testing::Test {
protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("attnlab_shot_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir);
  }

  // `env`: further VAR=value settings for the run ("ATTNLAB_GUI_TRAIN=30"); `pointer`: "X Y", where
  // xdotool puts the pointer on the screen before the window opens (at 0, 0).
  Shot take(const std::string& args, const std::string& size, const std::string& env = "",
            const std::string& pointer = "") {
    const fs::path png = dir / "shot.png", layout = dir / "layout.json", out = dir / "out.txt";
    std::ostringstream cmd;
    // A private config folder: a test never reads or writes the user's session.
    cmd << "env XDG_CONFIG_HOME=" << (dir / "config") << " ATTNLAB_GUI_SIZE=" << size << " ATTNLAB_LAYOUT_OUT=" << layout
        << " " << env << " ";
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) cmd << "xvfb-run -a -s '-screen 0 1920x1080x24 -noreset' ";
    if (!pointer.empty()) cmd << "bash -c 'xdotool mousemove " << pointer << " && exec \"$@\"' bash ";
    cmd << ATTNLAB_EXE << " gui " << args << " --screenshot " << png << " > " << out << " 2>&1";
    Shot s;
    s.status = std::system(cmd.str().c_str());
    std::ifstream in(out);
    s.output.assign(std::istreambuf_iterator<char>(in), {});
    int comp = 0;
    unsigned char* data = stbi_load(png.c_str(), &s.width, &s.height, &comp, 3);
    if (data) {
      s.rgb.assign(data, data + static_cast<size_t>(s.width) * static_cast<size_t>(s.height) * 3);
      stbi_image_free(data);
    }
    std::ifstream lin(layout);
    if (lin) s.layout = nlohmann::json::parse(lin, nullptr, false);
    return s;
  }

  // n tokens of self-attention with Q, K (n × d_k) and V (n × d_v) drawn from N(0, 1).
  static Scenario random_scenario(const std::string& title, Eigen::Index n, Eigen::Index d_k, Eigen::Index d_v,
                                  unsigned seed) {
    Scenario sc;
    sc.title = title;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd;
    sc.Q = Matrix(n, d_k);
    sc.K = Matrix(n, d_k);
    sc.V = Matrix(n, d_v);
    for (Matrix* M : {&sc.Q, &sc.K, &sc.V})
      for (Eigen::Index k = 0; k < M->size(); ++k) M->data()[k] = nd(rng);
    return sc;
  }

  static int distinct_colours(Shot& s) {
    std::set<unsigned> seen;
    for (int y = 0; y < s.height; y += 3)
      for (int x = 0; x < s.width; x += 3) {
        const unsigned char* p = s.at(x, y);
        seen.insert(static_cast<unsigned>(p[0]) << 16 | static_cast<unsigned>(p[1]) << 8 | p[2]);
      }
    return static_cast<int>(seen.size());
  }

  // Share of the pixels inside a heatmap's rectangle that are (close to) colours of `map`.
  static double colormap_share(Shot& s, const std::string& stage, const Colormap& map) {
    const auto& r = s.layout.at(stage);
    const int x0 = r[0].get<int>() + 2, y0 = r[1].get<int>() + 2, x1 = r[2].get<int>() - 2, y1 = r[3].get<int>() - 2;
    long hits = 0, total = 0;
    for (int y = y0; y < y1; y += 2) {
      for (int x = x0; x < x1; x += 2) {
        const unsigned char* p = s.at(x, y);
        int best = 1 << 30;
        for (const Rgb& c : map.table) {
          const int d = std::abs(p[0] - c.r) + std::abs(p[1] - c.g) + std::abs(p[2] - c.b);
          best = std::min(best, d);
        }
        hits += best <= 6;
        ++total;
      }
    }
    return total ? static_cast<double>(hits) / static_cast<double>(total) : 0.0;
  }
};

TEST_F(Screenshot, DefaultLesson) {
  Shot s = take("", "1280x800");
  ASSERT_EQ(s.status, 0) << s.output;
  EXPECT_NE(s.output.find("median frame time:"), std::string::npos) << s.output;
  ASSERT_EQ(s.width, 1280);
  ASSERT_EQ(s.height, 800);
  EXPECT_GT(distinct_colours(s), 50) << "the screenshot looks blank";
  ASSERT_TRUE(s.layout.contains("weights")) << s.layout.dump();
  // Numbers and cell borders cover part of each cell; most of it is the colormap.
  EXPECT_GT(colormap_share(s, "weights", colormap(kDefaultSequential)), 0.6);
  EXPECT_GT(colormap_share(s, "scores", colormap(kDefaultDiverging)), 0.6);
}

TEST_F(Screenshot, Scenario512) {
  const Scenario sc = random_scenario("512 random tokens", 512, 16, 8, 5);
  save_scenario(sc, dir / "big.json");
  Shot s = take((dir / "big.json").string(), "1280x800");
  ASSERT_EQ(s.status, 0) << s.output;
  ASSERT_EQ(s.width, 1280);
  EXPECT_GT(distinct_colours(s), 50);
  ASSERT_TRUE(s.layout.contains("weights"));
  // Drawn by the GL heatmap shader: every pixel of the weights is a viridis colour.
  EXPECT_GT(colormap_share(s, "weights", colormap(kDefaultSequential)), 0.9);
  EXPECT_GT(colormap_share(s, "logits", colormap(kDefaultDiverging)), 0.9);
}

// 9000 tokens: the n × m stages are streamed on a background thread; the screenshot waits for the
// run and shows the downsampled weights (log scale, masked blocks hatched) beside the output.
TEST_F(Screenshot, StreamedScenario) {
  Scenario sc = random_scenario("9000 random tokens, causal", 9000, 4, 3, 7);
  sc.options.mask.kind = MaskKind::Causal;
  save_scenario(sc, dir / "streamed.json");
  Shot s = take((dir / "streamed.json").string(), "1280x800");
  ASSERT_EQ(s.status, 0) << s.output;
  ASSERT_TRUE(s.layout.contains("weights")) << s.output;
  ASSERT_TRUE(s.layout.contains("output")) << s.output;
  // Below the diagonal viridis, above it the hatching of masked blocks: about half each.
  const double share = colormap_share(s, "weights", colormap(kDefaultSequential));
  EXPECT_GT(share, 0.3);
  EXPECT_LT(share, 0.8);
}

// --theme light|dark: the window's background follows it (the mean brightness of the frame).
TEST_F(Screenshot, LightAndDarkThemes) {
  auto mean_brightness = [](Shot& s) {
    double sum = 0;
    long count = 0;
    for (int y = 0; y < s.height; y += 4)
      for (int x = 0; x < s.width; x += 4, ++count) {
        const unsigned char* p = s.at(x, y);
        sum += (p[0] + p[1] + p[2]) / 3.0;
      }
    return sum / static_cast<double>(std::max(count, 1L));
  };
  Shot light = take("--theme light", "1280x800");
  ASSERT_EQ(light.status, 0) << light.output;
  Shot dark = take("--theme dark", "1280x800");
  ASSERT_EQ(dark.status, 0) << dark.output;
  EXPECT_GT(mean_brightness(light), 150.0);
  EXPECT_LT(mean_brightness(dark), 90.0);
  EXPECT_GT(colormap_share(light, "weights", colormap(kDefaultSequential)), 0.6);
}

TEST_F(Screenshot, PresenterModeAtProjectorSizes) {
  for (const char* size : {"1920x1080", "1280x720"}) {
    Shot s = take("--presenter", size);
    ASSERT_EQ(s.status, 0) << s.output;
    int w = 0, h = 0;
    std::sscanf(size, "%dx%d", &w, &h);
    EXPECT_EQ(s.width, w);
    EXPECT_EQ(s.height, h);
    EXPECT_GT(distinct_colours(s), 30) << size;
    ASSERT_TRUE(s.layout.contains("weights")) << size;
    EXPECT_GT(colormap_share(s, "weights", colormap(kDefaultSequential)), 0.5) << size;
  }
}

// A screenshot is the window as it opens, whatever the pointer is over: with the pointer on the
// weights heatmap, everything above the status line (whose frame time varies) is as with the
// pointer off the window. The hovered cell's outline and its tooltip were in the picture.
TEST_F(Screenshot, ThePointerLeavesNoTrace) {
  if (std::system("command -v xdotool > /dev/null 2>&1") != 0) GTEST_SKIP() << "xdotool is not installed";
  Shot away = take("", "1280x800", "", "1900 1060");
  ASSERT_EQ(away.status, 0) << away.output;
  ASSERT_TRUE(away.layout.contains("weights")) << away.layout.dump();
  const auto& r = away.layout["weights"];
  const int x = (r[0].get<int>() + r[2].get<int>()) / 2, y = (r[1].get<int>() + r[3].get<int>()) / 2;
  Shot over = take("", "1280x800", "", std::to_string(x) + " " + std::to_string(y));
  ASSERT_EQ(over.status, 0) << over.output;
  ASSERT_EQ(over.rgb.size(), away.rgb.size());
  const int status_top = away.height - 40;
  int differ = 0;
  for (int row = 0; row < status_top; ++row)
    for (int col = 0; col < away.width; ++col) differ += std::memcmp(away.at(col, row), over.at(col, row), 3) != 0;
  EXPECT_EQ(differ, 0) << "pixels that the pointer at (" << x << ", " << y << ") changed";
}

// Lessons open straight from `gui --preset NAME`; their views draw in a real window in presenter
// mode at the smaller projector size (presenter_layout_test checks that they fit).
TEST_F(Screenshot, LessonViewsInPresenterModeAt720p) {
  for (const char* lesson : {"multi-head", "mask-family", "geometry", "cost", "online-softmax", "induction-head"}) {
    Shot s = take(std::string("--preset ") + lesson + " --presenter", "1280x720");
    ASSERT_EQ(s.status, 0) << lesson << ": " << s.output;
    EXPECT_EQ(s.width, 1280) << lesson;
    EXPECT_EQ(s.height, 720) << lesson;
    EXPECT_GT(distinct_colours(s), 30) << lesson << ": the screenshot looks blank";
  }
}

// On an XGA projector (1024 × 768) presenter mode takes its smaller font in a real window too, and
// five tokens' pipeline then has room for its numbers at the legible 18 px: the inputs column folds
// away and the four stages span the window (with the 1280 × 720 font they stayed beside the column,
// without numbers). Six tokens' would want about 1100 px: there the column stays.
TEST_F(Screenshot, PresenterModeOnAnXgaProjectorGivesThePipelineTheWidth) {
  Shot s = take("--preset kv-cache --presenter", "1024x768");
  ASSERT_EQ(s.status, 0) << s.output;
  ASSERT_TRUE(s.layout.contains("scores") && s.layout.contains("output")) << s.output;
  EXPECT_LT(s.layout["scores"][0].get<double>(), 100.0) << "the inputs column is still there";
  EXPECT_GT(s.layout["output"][2].get<double>(), 900.0);
  EXPECT_GT(distinct_colours(s), 30);
}

// The Training window in a real window on both projector sizes, after 30 steps of its default
// model on its thread (ATTNLAB_GUI_TRAIN): the curve and every head's map drawn.
TEST_F(Screenshot, TrainingWindowInPresenterMode) {
  for (const char* size : {"1280x720", "1024x768"}) {
    Shot s = take("--presenter", size, "ATTNLAB_GUI_TRAIN=30");
    ASSERT_EQ(s.status, 0) << size << ": " << s.output;
    int w = 0, h = 0;
    std::sscanf(size, "%dx%d", &w, &h);
    EXPECT_EQ(s.width, w);
    EXPECT_EQ(s.height, h);
    EXPECT_GT(distinct_colours(s), 30) << size << ": the screenshot looks blank";
    EXPECT_NE(s.output.find("median frame time"), std::string::npos) << s.output;
  }
}

// The induction-head lesson opened at its training step (ATTNLAB_GUI_STEP) with its own run trained
// to step 30 and paused (ATTNLAB_GUI_TRAIN), read back from the layout record: on a projector the
// layers take turns, each head's map at least the contract's 200 px on its short side (four maps in
// half the width were ~125 px at 1280 × 720, issue 69); normal mode keeps every layer's row.
TEST_F(Screenshot, InductionLessonsTrainingStepTakesLayersInTurnsOnAProjector) {
  const fs::path record = dir / "record.json";
  const auto training_maps = [&](const std::string& args, const std::string& size) {
    Shot s = take("--preset induction-head " + args, size, "ATTNLAB_GUI_STEP=2 ATTNLAB_GUI_TRAIN=30 ATTNLAB_GUI_LAYOUT=" + record.string());
    EXPECT_EQ(s.status, 0) << size << ": " << s.output;
    std::ifstream in(record);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    std::vector<nlohmann::json> maps;
    if (j.is_object())
      for (const auto& m : j["maps"])
        if (m["id"].get<std::string>().rfind("training L", 0) == 0 && !m["hidden"].get<bool>()) maps.push_back(m);
    return maps;
  };
  const auto layers_of = [](const std::vector<nlohmann::json>& maps) {
    std::set<char> layers;
    for (const auto& m : maps) layers.insert(m["id"].get<std::string>()[std::string("training L").size()]);
    return layers.size();
  };
  constexpr double kLegibleMapSide = 200;  // DESIGN.md, "The layout record"
  for (const char* size : {"1280x720", "1024x768"}) {
    const auto maps = training_maps("--presenter", size);
    ASSERT_FALSE(maps.empty()) << size << ": no head maps in the layout record";
    EXPECT_EQ(layers_of(maps), 1u) << size;
    for (const auto& m : maps) {
      const double side = std::min(m["rect"][2].get<double>(), m["rect"][3].get<double>());
      EXPECT_GE(side, kLegibleMapSide) << size << ": " << m["id"];
    }
  }
  const auto normal = training_maps("", "1280x720");
  EXPECT_GT(layers_of(normal), 1u) << "normal mode shows every layer";
  EXPECT_GT(normal.size(), 2u);
}

// The Model window after the built-in induction model wrote six tokens (`--generate`, the window's
// Generate), in presenter mode at 1280 × 720; asking for more tokens than its positions hold is
// refused before any window.
TEST_F(Screenshot, GeneratedTokensInPresenterModeAt720p) {
  const std::string model = "--model induction --text '3 17 8 21 5 12 0 19 9 14 2 23 3 17'";
  Shot s = take(model + " --generate 6 --presenter", "1280x720");
  ASSERT_EQ(s.status, 0) << s.output;
  EXPECT_EQ(s.width, 1280);
  EXPECT_EQ(s.height, 720);
  EXPECT_GT(distinct_colours(s), 30) << "the screenshot looks blank";
  Shot bad = take(model + " --generate 30", "1280x720");
  EXPECT_EQ(WEXITSTATUS(bad.status), 2) << bad.output;
  EXPECT_NE(bad.output.find("positions"), std::string::npos) << bad.output;
}

TEST_F(Screenshot, UnknownPresetExitsTwoWithoutAWindow) {
  Shot s = take("--preset no-such-lesson", "1280x800");
  ASSERT_TRUE(WIFEXITED(s.status));
  EXPECT_EQ(WEXITSTATUS(s.status), 2) << s.output;
  EXPECT_NE(s.output.find("no-such-lesson"), std::string::npos) << s.output;
}

TEST_F(Screenshot, BadScenarioExitsTwoWithoutAWindow) {
  {
    std::ofstream(dir / "bad.json") << "{\"format\": \"nope\"}";
  }
  Shot s = take((dir / "bad.json").string(), "1280x800");
  ASSERT_TRUE(WIFEXITED(s.status));
  EXPECT_EQ(WEXITSTATUS(s.status), 2) << s.output;
  EXPECT_NE(s.output.find("bad.json"), std::string::npos) << s.output;
}

TEST_F(Screenshot, StartsOnTheBackendAskedFor) {
  Shot cpu = take("--backend cpu", "1024x700");
  ASSERT_EQ(cpu.status, 0) << cpu.output;
  EXPECT_EQ(cpu.layout.value("backend", "").rfind("CPU", 0), 0u) << cpu.layout.dump();
  // Xvfb's GLX is Mesa llvmpipe with GL 4.5: the GPU backend runs on the window's own context,
  // and the weights it computes are painted like the CPU's.
  Shot gpu = take("--backend gpu", "1024x700");
  ASSERT_EQ(gpu.status, 0) << gpu.output;
  EXPECT_EQ(gpu.layout.value("backend", "").rfind("GPU: ", 0), 0u) << gpu.layout.dump();
  ASSERT_TRUE(gpu.layout.contains("weights")) << gpu.layout.dump();
  EXPECT_GT(colormap_share(gpu, "weights", colormap(kDefaultSequential)), 0.6);
  Shot bad = take("--backend tpu", "1024x700");
  EXPECT_EQ(WEXITSTATUS(bad.status), 2) << bad.output;
}

// A start that cannot open a window says so in one sentence naming the display and GLFW's
// reason (issue 8: a silent exit 1 was once seen at start under load), and leaves no file.
TEST_F(Screenshot, NoDisplayIsOneSentenceNotASilentExit) {
  const fs::path png = dir / "never.png", out = dir / "out.txt";
  for (const std::string display : {"DISPLAY=:65531", "-u DISPLAY -u WAYLAND_DISPLAY"}) {
    const std::string cmd = "env " + display + " XDG_CONFIG_HOME=" + (dir / "config").string() + " " + ATTNLAB_EXE +
                            " gui --screenshot " + png.string() + " > " + out.string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(out);
    const std::string output((std::istreambuf_iterator<char>(in)), {});
    ASSERT_TRUE(WIFEXITED(status)) << display;
    EXPECT_EQ(WEXITSTATUS(status), 1) << display << ": " << output;
    EXPECT_EQ(output.rfind("attnlab: cannot open a window", 0), 0u) << display << ": " << output;
    EXPECT_NE(output.find("GLFW: "), std::string::npos) << display << ": " << output;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << display << ": " << output;
    EXPECT_FALSE(fs::exists(png));
  }
}

}  // namespace
}  // namespace attnlab
