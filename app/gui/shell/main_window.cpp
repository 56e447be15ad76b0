// The window: GLFW + OpenGL + ImGui's GLFW/OpenGL3 backends, the frame, session save/restore, and
// the --screenshot mode used by tests and docs. The same program runs in the browser (emscripten's
// GLFW on WebGL2); what differs there (the GL context, the frame loop, files) is the Platform's
// (state/platform.hpp: shell/desktop/desktop_platform.cpp, web/web_platform.cpp).

// Index of this file:
// [SECTION] Errors, drops and the screenshot's files
// [SECTION] What the command line opens, and the idle check
// [SECTION] The window and the frame loop
// [SECTION] run_gui
#include "engine/io/atomic_file.hpp"
#include "engine/io/matrix_io.hpp"
#include "engine/text/text_format.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/trainer.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "gui/lessons/exercise_ui.hpp"
#include "gui/persistence/instance_lock.hpp"
#include "gui/persistence/recovery_store.hpp"
#include "gui/persistence/session_store.hpp"
#include "gui/shell/backend_menu.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/shell/gui_command.hpp"
#include "gui/shell/monkey.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/base/theme.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/widgets/drawn_text.hpp"
#include "gui/widgets/heatmap_renderer.hpp"
#include "gui/widgets/layout_record.hpp"

#include "gui/base/gl_api.hpp"
#include "gui/state/platform.hpp"
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace attnlab::gui {

namespace {

// [SECTION] Errors, drops and the screenshot's files

// GLFW reports why it failed only through this callback (it has no user pointer, hence a
// namespace-scope variable); a start failure then names GLFW's reason instead of exiting mutely.
std::string last_glfw_error;

void remember_glfw_error(int code, const char* description) {
  last_glfw_error = description ? description : "GLFW error " + std::to_string(code);
}

// One sentence for a window that could not be opened: what failed, on which display, GLFW's reason.
std::runtime_error window_failure(const std::string& what) {
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  std::string where = display && *display ? std::string(" on display ") + display
                      : wayland && *wayland ? std::string(" on Wayland display ") + wayland
                                            : std::string(" (DISPLAY is not set; under a test run it with xvfb-run -a)");
  std::string why = last_glfw_error.empty() ? "" : " (GLFW: " + last_glfw_error + ")";
  return std::runtime_error("cannot open a window" + where + ": " + what + why);
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
  auto* state = static_cast<AppState*>(glfwGetWindowUserPointer(window));
  for (int k = 0; k < count; ++k) state->dropped_files.emplace_back(paths[k]);
}

// ATTNLAB_GUI_SIZE=WIDTHxHEIGHT picks the window size (screenshots at 1920x1080, 1280x720, ...).
bool size_from_env(WindowGeometry& g) {
  const char* env = std::getenv("ATTNLAB_GUI_SIZE");
  int w = 0, h = 0;
  if (!env || std::sscanf(env, "%dx%d", &w, &h) != 2 || w < 320 || h < 240) return false;
  g.width = w;
  g.height = h;
  return true;
}

void write_png(const std::string& path, int w, int h) {
  std::vector<unsigned char> rgba(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  // GL rows run bottom-up; PNG rows top-down. Drop alpha: a screenshot is opaque.
  std::vector<unsigned char> rgb(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
  for (int y = 0; y < h; ++y) {
    const unsigned char* src = &rgba[static_cast<size_t>(h - 1 - y) * static_cast<size_t>(w) * 4];
    unsigned char* dst = &rgb[static_cast<size_t>(y) * static_cast<size_t>(w) * 3];
    for (int x = 0; x < w; ++x) {
      dst[x * 3 + 0] = src[x * 4 + 0];
      dst[x * 3 + 1] = src[x * 4 + 1];
      dst[x * 3 + 2] = src[x * 4 + 2];
    }
  }
  std::string bytes;
  auto sink = [](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<size_t>(size)); };
  if (!stbi_write_png_to_func(sink, &bytes, w, h, 3, rgb.data(), w * 3)) {
    throw InputError(path + ": could not encode the screenshot as PNG");
  }
  write_file_atomic(path, bytes);
}

// Where each heatmap was drawn, for tests that check the screenshot (ATTNLAB_LAYOUT_OUT=FILE; in
// the browser, the page's attnlabWeb.layout()), in framebuffer pixels (`scale` per ImGui unit).
std::string layout_json(const AppState& state, float scale) {
  std::string out = "{";
  for (int k = 0; k < kStageCount; ++k) {
    const DrawnRect& d = state.pipeline.drawn[static_cast<size_t>(k)];
    if (!d.drawn) continue;
    out += std::string(out.size() > 1 ? ", " : "") + "\"" + std::string(stage_name(static_cast<Stage>(k))) + "\": [" +
           fixed_decimals(d.x0 * scale, 0) + ", " + fixed_decimals(d.y0 * scale, 0) + ", " + fixed_decimals(d.x1 * scale, 0) + ", " +
           fixed_decimals(d.y1 * scale, 0) + "]";
  }
  // The active backend's description, for tests of `gui --backend` (no quotes or backslashes).
  std::string backend = state.results.backend_description;
  backend.erase(std::remove_if(backend.begin(), backend.end(), [](char ch) { return ch == '"' || ch == '\\'; }),
                backend.end());
  out += std::string(out.size() > 1 ? ", " : "") + "\"backend\": \"" + backend + "\"";
  // What the window opened, for tests of `attnlab FILE` (the .desktop entry's Exec line).
  out += ", \"document\": {\"title\": " + json_string(state.doc.scenario.title) +
         ", \"n\": " + std::to_string(state.doc.scenario.Q.rows()) + ", \"m\": " +
         std::to_string(state.doc.scenario.K.rows()) + ", \"path\": " + json_string(state.scenario_path) +
         ", \"matrix_offered\": " + json_string(state.inputs.drop_path) + "}";
  // The walk-through's step, for tests that step it with keys (the browser's Space).
  out += ", \"walkthrough\": {\"active\": " + std::string(state.lesson.walk.active ? "true" : "false") +
         ", \"step\": " + std::to_string(state.lesson.walk.step) + "}";
  out += ", \"error\": " + json_string(state.error) + ", \"notice\": " + json_string(state.notice);
  // The exercise the Lesson view shows, as `attnlab exercise --format json` prints it (null: none),
  // for the browser tests of a link's &exercise=.
  const ExerciseUi& exercise = state.lesson.exercise;
  out += ", \"exercise\": " + (exercise.shown && exercise.exercise ? exercise_to_json(*exercise.exercise).dump() : std::string("null"));
  // The Model window's model and its last run, and the Training window's run, for the browser tests.
  const ModelUi& m = state.model;
  out += ", \"model\": {\"path\": " + json_string(m.path) + ", \"layers\": " +
         std::to_string(m.model ? m.model->config().n_layer : 0) + ", \"tokens\": " +
         std::to_string(m.run ? m.run->trace.ids.size() : 0) + ", \"error\": " + json_string(m.error) + "}";
  const TrainingView& t = state.training.view;
  constexpr const char* kPhases[] = {"starting", "paused", "running", "finished", "cancelled", "failed"};
  out += ", \"training\": {\"phase\": \"" + std::string(kPhases[static_cast<int>(t.phase)]) + "\", \"step\": " + std::to_string(t.step) +
         ", \"first_loss\": " + (t.points.empty() ? std::string("null") : std::to_string(t.points.front().loss)) +
         ", \"last_loss\": " + (t.points.empty() ? std::string("null") : std::to_string(t.points.back().loss)) +
         ", \"changes\": " + std::to_string(t.changes.size()) + ", \"lifted\": " + std::to_string(state.training.lifted_titles.size()) +
         ", \"error\": " + json_string(t.error.empty() ? state.training.error : t.error) + "}";
  out += "}\n";
  return out;
}

void write_layout(const AppState& state, const char* path, float scale) { write_file_atomic(path, layout_json(state, scale)); }

// [SECTION] What the command line opens, and the idle check

// A cheap fingerprint of the input ImGui saw, so an idle window can sleep until the next event.
struct InputPrint {
  float mx = 0, my = 0, wheel = 0;
  int buttons = 0, keys = 0, chars = 0;
  bool operator==(const InputPrint&) const = default;
};

InputPrint input_print() {
  const ImGuiIO& io = ImGui::GetIO();
  InputPrint p{io.MousePos.x, io.MousePos.y, io.MouseWheel, 0, 0, io.InputQueueCharacters.Size};
  for (int b = 0; b < 5; ++b) p.buttons |= io.MouseDown[b] ? (1 << b) : 0;
  for (int k = 0; k < 512; ++k) p.keys += io.KeysDown[k] ? k + 1 : 0;
  return p;
}

// A matrix named on the command line (`attnlab Q.npy`, a file manager's double-click) opens the
// way a dropped one does: the window asks whether it is Q, K or V.
bool is_matrix_file(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".npy" || ext == ".csv";
}

// --model: the Model window on that model and text, a head chosen and, with --lift, in the lab.
// The run happens before the first frame, so that a screenshot shows it. A bad model is refused
// before any window opens, as a bad scenario file is.
void open_start_model(AppState& state, Services& services, const GuiOptions& options) {
  Commands opened = open_model_file(state.model, options.model, state.platform.threads);
  apply(state, services, opened);
  if (!state.model.model) throw InputError("--model " + state.model.error);
  if (!options.model_text.empty()) set_model_text(state.model, options.model_text, state.platform.threads);
  if (!options.model_ids.empty()) {
    const std::vector<int> ids = model::parse_ids(options.model_ids, "--ids");
    set_model_text(state.model, model::append_tokens_text(*state.model.model, "", ids), state.platform.threads);
  }
  if (!state.model.error.empty()) throw InputError(state.model.error);
  const auto finish = [&state] {
    if (state.model.job) {
      while (!state.model.job->done()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    poll_model_run(state.model);
    if (!state.model.error.empty()) throw InputError(state.model.error);
  };
  finish();
  if (options.model_generate != 0) {
    generate_tokens(state.model, options.model_generate, state.platform.threads);
    if (!state.model.error.empty()) throw InputError(state.model.error);
    finish();
  }
  if (options.model_layer >= 0 || options.model_head >= 0) {
    model::check_head(*state.model.model, options.model_layer, options.model_head);
    choose_head(state.model, options.model_layer, options.model_head);
    state.model.enlarged = true;
    if (options.lift) {
      Commands lifted = lift_chosen_head(state.model);
      apply(state, services, lifted);
    }
  }
  if (!options.link.empty()) {
    const auto [query, key] = model::parse_link(options.link, "--link");
    model::check_link(query, key, static_cast<int>(state.model.ids.size()), "--link");
    click_token_chip(state.model, query);
    click_token_chip(state.model, key);
  }
  InterventionUi& iv = state.model.intervention;
  if (!options.ablate.empty()) iv.knocked_out = model::parse_heads(options.ablate, state.model.model->config(), "--ablate");
  if (!options.ablation.empty()) iv.ablation = model::parse_ablation(options.ablation, "--ablation");
  iv.lens = options.logit_lens;
  if (!options.compare_text.empty()) {
    iv.compare = true;
    iv.second_text = options.compare_text;
  }
  if (!options.patch.empty()) iv.patched = model::parse_heads(options.patch, state.model.model->config(), "--patch");
}

// The document the window opens on: a scenario or lesson from the command line, else the saved
// session's, else the default lesson; then the command line's view options and the recovery offer.
// Only the window holding the instance lock uses the session and recovery files (a second window
// starts on its own document: docs/INSTALL.md). Bad input throws before a window opens (exit 2).
void start_document(AppState& state, Services& services, WindowGeometry& geometry, const GuiOptions& options,
                    InstanceLock& lock) {
  const bool shooting = !options.screenshot.empty();
  const bool matrix = !options.scenario.empty() && is_matrix_file(options.scenario);
  const std::string scenario = matrix ? std::string() : options.scenario;
  if (matrix) (void)load_matrix(options.scenario);  // a bad matrix file is refused before any window
  const bool explicit_doc = !scenario.empty() || !options.preset.empty();
  if (!scenario.empty()) {
    Scenario s = load_scenario(scenario);
    check_lesson_fields(s.lesson);
    reset_document(state, std::move(s), scenario);
  } else if (!options.preset.empty()) {
    reset_document(state, attnlab::load_preset(options.preset), "");
  }
  if (!shooting) services.config_dir = config_dir();
  if (!services.config_dir.empty() && !lock.acquire(services.config_dir)) {
    services.config_dir.clear();
    state.notice = "Another Attention Lab window keeps the session: save this window's work with File > Save";
  }
  bool restored = false;
  if (!services.config_dir.empty()) {
    try {
      if (std::optional<SessionData> session = read_session(services.config_dir)) {
        restored = true;
        // An explicit file or lesson wins over the session's document; the session's view and recents stay.
        if (!explicit_doc) {
          reset_document(state, std::move(session->doc.scenario), session->scenario_path);
          state.doc.self_attention = session->doc.self_attention;
        }
        state.view = std::move(session->view);
        state.recent_files = std::move(session->recent_files);
        state.exercises = std::move(session->exercises);
        geometry = session->window;
      }
    } catch (const InputError& e) {
      state.error = e.what();  // shown in the status line once the window is up
    }
  }
  if (!explicit_doc && !restored) reset_document(state, default_scenario(), "");
  if (!options.scenario.empty()) {
    std::error_code ec;
    const std::string abs = std::filesystem::absolute(options.scenario, ec).lexically_normal().string();
    state.recent_files.erase(std::remove(state.recent_files.begin(), state.recent_files.end(), abs),
                             state.recent_files.end());
    state.recent_files.insert(state.recent_files.begin(), abs);
  }
  if (matrix) state.dropped_files.push_back(options.scenario);
  if (!options.model.empty()) open_start_model(state, services, options);
  if (options.exercise_seed) {
    // Its sentence, when the document has no exercise, stands in the status line as a bad link's does.
    const std::string why = show_linked_exercise(state.lesson.exercise, state.doc.scenario, *options.exercise_seed);
    if (why.empty()) {
      window_open(state.view, "Lesson view") = true;
    } else {
      state.error = why;
    }
  }
  if (options.presenter) state.view.presenter = true;
  if (!options.theme.empty()) state.view.theme = options.theme == "light" ? Theme::Light : Theme::Dark;
  // A recovery file left behind means the last run crashed or was killed: offer its work back.
  if (std::string why = check_for_recovery(state.recovery, state.doc_version, services.config_dir); !why.empty()) state.error = why;
  if (shooting) geometry = WindowGeometry{};
  size_from_env(geometry);
}

// [SECTION] The window and the frame loop

// The platform's window with its GL context current; drops onto it go to state.dropped_files.
GLFWwindow* open_window(Platform& platform, const WindowGeometry& geometry, bool shooting, AppState& state) {
  glfwSetErrorCallback(remember_glfw_error);
  if (!glfwInit()) throw window_failure("GLFW could not connect to the display server");
  std::string why;
  GLFWwindow* window = platform.open_window(geometry.width, geometry.height, !shooting, why);
  if (!window) {
    glfwTerminate();
    throw window_failure(why);
  }
  glfwSetWindowUserPointer(window, &state);
  return window;
}

// ImGui on the window: its ini file beside the session, the fonts, the GLFW and OpenGL3 backends.
void start_imgui(GLFWwindow* window, Platform& platform, Services& services) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.ConfigDragClickToInputText = true;
  io.IniFilename = nullptr;
  if (!services.config_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(services.config_dir, ec);
    services.ini_path = (services.config_dir / "imgui.ini").string();
    io.IniFilename = services.ini_path.c_str();
  }
  load_fonts(services.fonts, services.glyphs);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init(platform.glsl_version());
  glfwSetDropCallback(window, on_drop);  // after ImGui installs its callbacks (it does not use this one)
  platform.after_imgui_start(window);
}

// File > Save window screenshot (export_dialog.cpp): read this frame's pixels once the Export window
// has been left out of a frame.
void take_requested_screenshot(AppState& state, int fw, int fh) {
  ExportUi& ex = state.export_ui;
  if (ex.screenshot_path.empty() || --ex.screenshot_countdown > 0) return;
  glFinish();
  try {
    write_png(ex.screenshot_path, fw, fh);
    state.notice = "Saved the window to " + ex.screenshot_path;
    state.deliveries.push_back({DeliveryKind::WindowScreenshot, ex.screenshot_path});
  } catch (const InputError& e) {
    state.error = e.what();
  }
  ex.screenshot_path.clear();
  if (ex.reopen_after_screenshot) window_open(state.view, "Export") = true;
  ex.reopen_after_screenshot = false;
}

// The frame loop's own state: frame times for --screenshot, and whether the window is idle.
struct Loop {
  std::vector<double> frame_ms;
  int frame = 0, busy_frames = 8;
  InputPrint last_print;
  int exit_code = 0;
  // ATTNLAB_GUI_TRAIN=STEPS (for screenshots and docs): the Training window trains its default form
  // for that many steps, then pauses; a screenshot's frames start after that.
  int train_until = 0;
};

// Whether ATTNLAB_GUI_TRAIN's run is still on its way to its step (pausing it once it is there).
bool training_for_screenshot(AppState& state, Loop& loop) {
  if (loop.train_until <= 0) return false;
  const TrainingView& v = state.training.view;
  if (!state.training.job || v.phase == TrainingPhase::Failed || v.phase == TrainingPhase::Finished) return false;
  if (v.step >= loop.train_until && v.phase == TrainingPhase::Running) pause_training(state.training);
  // A run paused before its step was paused by a lesson lifting a head (the induction lesson's last
  // steps): the screenshot waits for the head, not for the step.
  return (v.step < loop.train_until && v.phase != TrainingPhase::Paused) || training_busy(state.training) || state.training.lift_pending;
}

// One run of the window: everything a frame needs. The desktop keeps it on run_gui's stack; in the
// browser it lives as long as the page, since the page calls the frame function after main returns.
struct GuiRun {
  GuiRun(const GuiOptions& o, std::unique_ptr<Platform> p) : options(o), platform(*p) { services.platform = std::move(p); }
  GuiOptions options;
  Platform& platform;  // services.platform
  AppState state;
  Services services;
  WindowGeometry geometry;
  InstanceLock lock;  // held until the window has saved the session on exit
  GLFWwindow* window = nullptr;
  std::unique_ptr<HeatmapRenderer> renderer;
  Loop loop;
  std::unique_ptr<Monkey> monkey;  // ATTNLAB_GUI_MONKEY: random input instead of the user's (monkey.hpp)
  // ATTNLAB_GUI_LAYOUT with --screenshot: where the layout record goes, and this frame's maps.
  const char* layout_path = nullptr;
  LayoutRecord layout;
};

// One frame: the UI, the GL draw, a requested window screenshot, and in --screenshot mode the PNG
// after the last frame. Returns false when that was the last frame.
bool run_frame(GuiRun& run) {
  GLFWwindow* window = run.window;
  AppState& state = run.state;
  Services& services = run.services;
  const GuiOptions& options = run.options;
  Loop& loop = run.loop;
  const bool shooting = !options.screenshot.empty();
  for (const PickedFile& f : run.platform.before_frame(state.dropped_files)) apply(state, services, UseFile{f.purpose, f.path});
  if (shooting || loop.busy_frames > 0 || run.monkey) glfwPollEvents();
  // A streaming run's progress: 10 updates a second; a model training: its curve at 30 frames a second.
  else glfwWaitEventsTimeout(training_busy(state.training) ? 1.0 / 30 : state.results.job ? 0.1 : 0.5);
  const auto t0 = std::chrono::steady_clock::now();
  // Characters the last frame's text asked for (a model's Chinese): the atlas and its texture anew.
  if (update_fonts(services.fonts, services.glyphs)) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // A clock that has not moved since the last frame (headless Chromium's virtual time; a coarse
  // timer) gives a zero DeltaTime, which ImGui refuses: count it as a very short frame instead.
  if (!(ImGui::GetIO().DeltaTime > 0.0f)) ImGui::GetIO().DeltaTime = 1e-4f;
  // A screenshot is the window as it opens, whatever the pointer is over (a hovered cell's outline
  // and tooltip are not part of it); the monkey's own pointer comes after.
  if (shooting) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  if (run.monkey) {
    std::vector<DrawnRect> maps = state.pipeline.lesson_maps_drawn;
    maps.insert(maps.end(), state.pipeline.drawn.begin(), state.pipeline.drawn.end());
    run.monkey->feed(maps, state.error);
    run.monkey->keep_in_sandbox(state.file_dialog.directory, state.file_dialog.file_name);
    run.monkey->keep_in_sandbox(state.export_ui.directory, state.export_ui.file_name);
  }
  if (run.layout_path) {
    run.layout = LayoutRecord{};
    record_layout(&run.layout);
  }
  ImGui::NewFrame();
  draw_app(state, services);
  if (std::string why = recovery_tick(state.recovery, {state.doc, state.doc_version, state.scenario_path}, state.platform.threads,
                                      services.config_dir, glfwGetTime());
      !why.empty())
    state.error = why;
  ImGui::Render();
  record_layout(nullptr);
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  glViewport(0, 0, fw, fh);
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  glClearColor(bg.x, bg.y, bg.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  take_requested_screenshot(state, fw, fh);
  // A screenshot shows the computed document: its N frames start once a streaming run has
  // finished (a dense computation happens before the first frame).
  const bool waiting = state.results.job || training_for_screenshot(state, loop);
  loop.frame = shooting && waiting ? 0 : loop.frame + 1;
  const bool last = shooting && loop.frame >= options.frames;
  if (shooting && waiting) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  double file_ms = 0;  // writing the PNG is not the frame's cost (it tripled the median of 3 frames)
  if (last) {
    glFinish();
    const auto w0 = std::chrono::steady_clock::now();
    try {
      write_png(options.screenshot, fw, fh);
      const float scale = static_cast<float>(fw) / ImGui::GetIO().DisplaySize.x;
      if (const char* lay = std::getenv("ATTNLAB_LAYOUT_OUT")) write_layout(state, lay, scale);
      if (run.layout_path) {
        const std::vector<DrawnText> texts = drawn_texts(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
        write_file_atomic(run.layout_path, layout_record_json(run.layout, texts, windows_drawn(*ImGui::GetDrawData()), ImGui::GetIO().DisplaySize,
                                                              state.view.presenter, scale));
      }
    } catch (const InputError& e) {
      std::cerr << "attnlab: " << e.what() << "\n";
      loop.exit_code = 2;
    }
    file_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
  }
  glfwSwapBuffers(window);
  if (shooting) glFinish();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() - file_ms;
  state.frame_ms = static_cast<float>(ms);
  if (!waiting) loop.frame_ms.push_back(ms);  // frames that waited on a streaming run are not the UI's cost
  const InputPrint print = input_print();
  loop.busy_frames = print == loop.last_print && !state.results.needs_compute && !state.scaling.running() ? loop.busy_frames - 1 : 8;
  loop.last_print = print;
  for (const Delivery& d : std::exchange(state.deliveries, {})) {
    // A trained model's folder is the Training window's news; every other file the status line's.
    if (std::string said = run.platform.deliver(d); !said.empty()) (d.kind == DeliveryKind::TrainedModel ? state.training.notice : state.notice) = said;
  }
  run.platform.after_frame(state.recovery.written_version, services.config_dir, loop.frame_ms.size(),
                           [&] { return layout_json(state, static_cast<float>(fw) / std::max(ImGui::GetIO().DisplaySize.x, 1.0f)); });
  return !last && !(run.monkey && run.monkey->finished());
}

// Saves the session (which then holds the work, so the recovery file goes unless its offer is still
// unanswered): at the end of a desktop run, and whenever the browser hides or closes the page.
void save_session_now(GuiRun& run) {
  const Services& services = run.services;
  AppState& state = run.state;
  if (services.config_dir.empty()) return;
  int w = 0, h = 0;
  glfwGetWindowSize(run.window, &w, &h);
  try {
    save_session(SessionData{state.doc, state.scenario_path, state.view, state.recent_files, WindowGeometry{w, h}, state.exercises},
                 services.config_dir);
    finish_recovery_writes(state.recovery);
    if (!state.recovery.offer) remove_recovery_file(services.config_dir);
  } catch (const InputError& e) {
    std::cerr << "attnlab: the session was not saved: " << e.what() << "\n";
  }
  run.platform.session_saved(services.config_dir);
}

// After the last frame (a page has none: it saves the session when hidden): --screenshot prints its
// median frame time; a normal run saves the session; then everything with GL objects goes while the
// window's context still exists.
int finish_run(GuiRun& run) {
  const Loop& loop = run.loop;
  if (!run.options.screenshot.empty()) {
    std::vector<double> sorted = loop.frame_ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
    std::printf("median frame time: %s ms\n", fixed_decimals(median, 2).c_str());
  } else {
    save_session_now(run);
  }
  if (run.monkey) run.monkey->finish(run.state.doc.scenario, run.state.quit_requested);
  release_export_preview(run.state.export_ui);
  run.services.renderer = nullptr;
  run.renderer.reset();
  // A GPU backend owns GL objects of this window's context: free them while it still exists.
  run.state.scaling.sampler.reset();
  run.services.backend = make_cpu_backend();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(run.window);
  glfwTerminate();
  return loop.exit_code;
}

// Everything up to the first frame: the document, the window, ImGui, the backend, the renderer.
void start_run(GuiRun& run) {
  const bool shooting = !run.options.screenshot.empty();
  AppState& state = run.state;
  Services& services = run.services;
  if (std::optional<MonkeyOptions> monkey = monkey_from_env()) run.monkey = std::make_unique<Monkey>(std::move(*monkey));
  if (const char* layout = std::getenv("ATTNLAB_GUI_LAYOUT"); layout && *layout && shooting) run.layout_path = layout;
  state.platform = run.platform.traits();
  services.backend = make_cpu_backend();
  start_document(state, services, run.geometry, run.options, run.lock);
  run.window = open_window(run.platform, run.geometry, shooting, state);
  start_imgui(run.window, run.platform, services);

  // gui --backend: the same switch as the Backend menu, now that the window's context exists (a GPU
  // that cannot be had shows its reason in place and the CPU stays, as from the menu).
  if (run.options.backend == "gpu") apply(state, services, SelectBackend{BackendChoice::Gpu});
  if (run.options.backend == "auto") apply(state, services, SelectBackend{BackendChoice::Auto});
  if (state.results.backend_description.empty()) state.results.backend_description = services.backend->description();

  try {
    run.renderer = std::make_unique<HeatmapRenderer>(run.platform.gles());
    services.renderer = run.renderer.get();
  } catch (const std::exception& e) {
    std::cerr << "attnlab: big heatmaps fall back to coarse previews: " << e.what() << "\n";
  }

  // ATTNLAB_GUI_TRAIN=N: the Training window open and training its default run up to step N (the
  // screenshots of docs/ and the tests that shoot it). With ATTNLAB_GUI_STEP (a lesson opened at a
  // step) the run is the induction-head lesson's own, as its training steps start it, its window
  // closed: the lesson's later steps lift their heads from it.
  if (const char* train = std::getenv("ATTNLAB_GUI_TRAIN"); train && std::atoi(train) > 0) {
    run.loop.train_until = std::atoi(train);
    if (std::getenv("ATTNLAB_GUI_STEP")) {
      apply(state, services, StartTraining{"induction", model::resolved(model::TrainConfig{})});
      return;
    }
    window_open(state.view, "Training") = true;
    ensure_training_form(state.training);
    state.training.form_open = false;
    start_training(state.training, state.platform.threads);
  }
}

}  // namespace

// [SECTION] run_gui

int run_gui(const GuiOptions& options) {
  // The platform may add to the options (the browser's URL opens a lesson or a shared scenario); a
  // bad addition is said in place, and the app starts as it would without it.
  std::unique_ptr<Platform> platform = make_platform();
  std::string added_error;
  const GuiOptions start = platform->start_options(options, added_error);
  auto run = std::make_unique<GuiRun>(start, std::move(platform));
  try {
    start_run(*run);
  } catch (const InputError& e) {
    if (start.scenario == options.scenario && start.preset == options.preset) throw;
    added_error = std::string("the link's lesson or scenario could not be opened: ") + e.what();
    run = std::make_unique<GuiRun>(options, std::move(run->services.platform));
    start_run(*run);
  }
  if (!added_error.empty()) run->state.error = added_error;
  GuiRun& r = *run;
  const bool finished = r.platform.run_frames(
      [&r] { return !glfwWindowShouldClose(r.window) && !r.state.quit_requested && run_frame(r); },
      [&r] { save_session_now(r); });
  if (!finished) {
    (void)run.release();  // the page calls the frame from now on: the run lives as long as the page
    return 0;
  }
  return finish_run(r);
}

}  // namespace attnlab::gui
