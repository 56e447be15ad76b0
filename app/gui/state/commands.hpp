// What a view asks for that is not its own to change: the document (an Edit of the catalogue), the
// history, the windows, the status line, files. A view reads what it draws (const), keeps its own UI
// state, and pushes commands here; the shell applies them right after the view that pushed them
// (shell/apply_command.cpp), the one place where these parts of the app's state change. Adding a
// command is a struct here, one alternative of Command and one case there.
#pragma once

#include "engine/gpu/backend_choice.hpp"
#include "engine/io/scenario.hpp"
#include "engine/model/trainer.hpp"
#include "gui/state/document.hpp"
#include "gui/state/edits.hpp"
#include "gui/state/view_settings.hpp"
#include "gui/widgets/drawn_rect.hpp"
#include "gui/widgets/heatmap.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace attnlab::gui {

// A drag or a text entry ended: the next edit with the same merge key starts a new undo entry.
struct EndMerge {};
struct Undo {};
struct Redo {};
// A size change (the inputs' size fields): asks the user first where its stages are large
// (resize_question), else the edit.
struct Resize {
  Dim dim = Dim::N;
  int value = 0;
  bool confirmed = false;
};
// The document replaced by a scenario (a file, a lifted head) as one undoable action named `name`;
// `path` is where it was read from (empty: none). The selected cell is forgotten. Once it is in, the
// window `steps_aside` (the one a head was lifted from, so that the lab shows) is hidden.
struct LoadScenario {
  Scenario scenario;
  std::string path;
  std::string name;
  std::string steps_aside = {};
};
struct LoadPreset {
  std::string name;  // a built-in lesson (engine/lessons/presets.hpp)
};
// The numbers of the built-in lesson the document came from put back ("Reset lesson").
struct ResetLesson {};
// One sentence in the status line: why something was refused, or what was done.
struct SayError {
  std::string sentence;
};
struct SayNotice {
  std::string sentence;
};
// A floating window (the registry's Slot::Window panels: "Help", "Model", …) shown or hidden.
struct ShowWindow {
  std::string name;
  bool open = true;
};
// A tab brought forward on the next frame ("Lesson", "Explain a cell").
struct FocusPanel {
  std::string name;
};
// A file wanted for a purpose: the in-app dialog, or the platform's own picker.
struct ChooseFile {
  FilePurpose purpose = FilePurpose::None;
  std::string lesson;  // SaveLessonCard: the built-in lesson whose reference card is written
};
// A file chosen for a purpose (the in-app dialog's Open or Save, the platform's picker, a dropped
// matrix's Q, K or V), used as the purpose says: opened, or written. A refusal says why in the status
// line; the in-app dialog (`from_dialog`) also shows it and stays open, and closes once it was used.
struct UseFile {
  FilePurpose purpose = FilePurpose::None;
  std::string path;
  bool from_dialog = false;
};
// The platform's own picker asked for a file for the purpose (PlatformTraits::file_picker: the
// browser's; an open arrives in a later frame as a UseFile, a save is written at once).
struct PickFile {
  FilePurpose purpose = FilePurpose::None;
};
// A file to open as it would open when dropped on the window (recent files).
struct OpenFile {
  std::string path;
};
// A model folder opened in the Model window (the Training window's "Open in the Model window"): on
// `text`, head `layer`, `head` chosen, the window shown; with `show` false the window is left as it
// is (the model-heads lesson, which lists the heads itself).
struct OpenInModelWindow {
  std::string path;
  std::string text;
  int layer = 0, head = 0;
  bool show = true;
};
// What the lessons ask of the Model window, whose ModelUi they read and never write. Its run taken
// as it finishes whether or not its window is open (a lesson that lists the run's heads asks it once
// a frame), and, with `ranking`, the heads' ranking between its two chosen tokens kept that run's.
struct FollowModelRun {
  bool ranking = false;
};
// "Which heads link `query_word` to `key_word`?": `text` in the Model window, the two words chosen as
// query and key (ask_which_heads_link; a word its tokenizer splits is said in the window).
struct AskWhichHeadsLink {
  std::string text, query_word, key_word;
};
// A head of the Model window's model chosen, and drawn large there when `enlarged`.
struct ChooseModelHead {
  int layer = 0, head = 0;
  bool enlarged = false;
};
// A head of the Model window's model chosen and opened in the lab (lift_chosen_head).
struct LiftModelHead {
  int layer = 0, head = 0;
};
// Generate's settings in the Model window: a lesson's temperature, count and seed, so that Generate
// there writes the lesson's own draws. Nothing while no model is open.
struct SetGenerateSettings {
  double temperature = 1;
  int count = 0;
  std::uint64_t seed = 0;
};
// What the lessons ask of the Training window, whose TrainingUi they read and never write. Its run
// started, or resumed where it is paused (start_training), with `task` and then `config` put in its
// form first when given.
struct StartTraining {
  std::string task;
  std::optional<model::TrainConfig> config;
};
// A head of the Training window's model lifted into the lab (lift_training_head: the run pauses, and
// poll_training hands the document on).
struct LiftTrainingHead {
  int layer = 0, head = 0;
};
// A file the app wrote for the user, handed over after the frame.
struct Deliver {
  Delivery delivery;
};
struct Quit {};
// What a heatmap's right-click menu asked for on a stage of the result: the Export dialog on the
// stage or the pipeline figure, or the stage copied as LaTeX or CSV.
struct StageMenu {
  Stage stage = Stage::Weights;
  HeatmapMenu choice = HeatmapMenu::None;
};
// The Export dialog shown on `stage` (Stage::Pipeline: the pipeline figure), or on the stage it was
// last shown on.
struct OpenExport {
  std::optional<Stage> stage;
};
// The Export dialog's file written; an existing file is replaced only when `overwrite` (else the
// dialog asks first). A refusal is the dialog's to show (ExportUi::error).
struct ExportFile {
  bool overwrite = false;
};
// The window's pixels written to a new PNG in the Export dialog's folder, the dialog left out of them.
struct WindowScreenshot {};
// The streaming run of a document too large for dense stages started again, or stopped (the last
// good result stays).
struct StartStreaming {};
struct CancelStreaming {};
// The compute backend switched (the Backend menu, `gui --backend`): a GPU that cannot be had says why
// and the old backend stays; auto falls back to the CPU with a notice.
struct SelectBackend {
  BackendChoice choice = BackendChoice::Cpu;
};
// The view settings replaced (a key toggled presenter mode, the theme, the tabs' size, the colormap).
struct SetView {
  ViewSettings view;
};
// The inputs column shown or folded away (I, View > Inputs column); showing a column presenter mode
// had folded stops its folding it.
struct ToggleInputsColumn {};
// The lab's selected cell forgotten (Esc): the Explain tab waits for the next hover or click.
struct ForgetSelectedCell {};
// A link that opens this scenario made (where the platform makes them) and said in the status line.
struct ShareLink {};
// The lab's selected cell chosen (a lesson's "by hand, row" buttons choose a row of the weights).
struct SelectCell {
  CellRef cell;
};
// Where a lesson drew a map this frame, kept with the lab's heatmaps (PipelineUi::drawn: the last map
// of each stage), where the layout record, the monkey and the tests find every heatmap.
struct MapDrawn {
  Stage stage = Stage::Weights;
  DrawnRect rect;
};
// The lesson view's small maps of this frame in the order drawn (PipelineUi::lesson_maps_drawn): a
// view that lists its maps (the walk-through step's inputs, the gqa lesson's heads) replaces the list.
struct LessonMapsListed {
  std::vector<DrawnRect> maps;
};
// The classroom walk-through started from its first step (the Lesson view window shown), or left.
struct StartWalkthrough {};
struct StopWalkthrough {};
// A student checked the Exercise tab's answers (issue 70): lesson `lesson`'s exercise at `seed`, the
// parts right in `solved`. Kept with the session: a check at the recorded seed adds its parts, one
// at another seed starts the record again (a restart reopens the exercise at that seed).
struct RecordExercise {
  std::string lesson;
  std::uint64_t seed = 0;
  std::vector<std::string> solved;
};
// Work a crash left behind (persistence/recovery_store.hpp), put back as one undoable action.
struct RestoreWork {
  Document doc;
  std::string scenario_path;
  std::string saved_at;  // local time it was saved, "2026-11-21 07:03:12"; empty when unknown
};

using Command = std::variant<Edit, EndMerge, Undo, Redo, Resize, LoadScenario, LoadPreset, ResetLesson, SayError, SayNotice,
                             ShowWindow, FocusPanel, ChooseFile, UseFile, PickFile, OpenFile, OpenInModelWindow, Deliver, Quit,
                             RestoreWork, StageMenu, OpenExport, ExportFile, WindowScreenshot, StartStreaming, CancelStreaming,
                             SelectBackend, SetView, ToggleInputsColumn, ForgetSelectedCell, ShareLink, SelectCell, MapDrawn,
                             LessonMapsListed, StartWalkthrough, StopWalkthrough, FollowModelRun, AskWhichHeadsLink,
                             ChooseModelHead, LiftModelHead, SetGenerateSettings, StartTraining, LiftTrainingHead,
                             RecordExercise>;
using Commands = std::vector<Command>;

}  // namespace attnlab::gui
