// What the Training window does to its TrainingUi (docs/MODELS.md, "The Training window"): edit the
// form (checked in place), start, pause, step, cancel and reset the run, poll its thread once a
// frame, choose and lift a head, save the model, open it in the Model window. What else the app must
// do (a lifted head put into the document, a saved folder handed over, the Model window opened)
// comes back as commands. No ImGui: the panel tests and the induction lesson call these as the
// window's widgets do.
#pragma once

#include "engine/io/scenario.hpp"
#include "gui/state/commands.hpp"
#include "gui/training/training_ui.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

// The form's task: its default length and symbols, and the task's default steps, batch and rate.
// An unknown name is refused in place (config_error).
void set_training_task(TrainingUi& t, const std::string& name);
// The form on first use: the induction task's defaults.
void ensure_training_form(TrainingUi& t);
// New form values: kept as typed and checked (check_train_config on the resolved config); a bad
// value's sentence goes to config_error, and Start refuses until it is fixed.
void set_training_config(TrainingUi& t, const model::TrainConfig& config);
// The form with the task's defaults filled in (what a run of it uses), or the form itself when the
// task cannot resolve.
model::TrainConfig resolved_form(const TrainingUi& t);

// Start: resumes a paused run of the same form, else trains the form from step 0 on a new thread.
void start_training(TrainingUi& t, bool threaded);
void pause_training(TrainingUi& t);
// One step (making the paused run first when there is none).
void step_training(TrainingUi& t, bool threaded);
// Stops the run for good after the step in progress; its model stays to lift and save.
void cancel_training(TrainingUi& t);
// Back to step 0: a fresh model from the form's seed, paused (its maps shown).
void reset_training(TrainingUi& t, bool threaded);
// Whether Start would resume (a paused run of the form as it is) rather than start over.
bool training_resumable(const TrainingUi& t);
bool training_running(const TrainingUi& t);
// The training thread is working (a step, a lift, a save): the window keeps drawing frames.
bool training_busy(const TrainingUi& t);

// Call once a frame (the shell does, whether or not the window is open: the induction lesson trains
// with it too): takes what the thread published and lets go of replaced jobs whose threads have
// ended. A finished lift comes back as the document (LoadScenario, after which the Training window
// steps aside), a finished save as the folder handed over (Deliver) or, for "Open in the Model
// window", opened there (OpenInModelWindow).
Commands poll_training(TrainingUi& t);

// Chooses a head (clamped to the model); `step` moves through them in reading order.
void choose_training_head(TrainingUi& t, int layer, int head);
// Pauses and lifts the head as it is now into the lab: its q, k, v on the probe sequence, one
// undoable action titled "induction · step 430 · layer 1 · head 2". The lift is done by the thread
// after the step in progress; poll_training hands it on.
void lift_training_head(TrainingUi& t, int layer, int head);
// "Save model…": writes the model folder on the training thread. A folder that exists is refused
// once with a sentence; saving to it again replaces it.
void save_trained_model(TrainingUi& t, const std::string& dir);
// "Open in the Model window": the model as it is now opened there on the probe sequence: the saved
// folder at once when it holds this step (OpenInModelWindow), else a copy written for this session
// on the training thread, which poll_training then opens.
Commands open_trained_in_model_window(TrainingUi& t);

// The banner over the pipeline while `shown` (the scenario of the shown result, as model_banner) is
// a head lifted from the Training window, or empty.
std::string training_banner(const TrainingUi& t, const Scenario& shown);
// The folder name a save proposes and "Open in the Model window" uses: "induction-step-430".
std::string trained_model_name(const TrainingUi& t);
// "L1H2 became an induction head at step 430".
std::string kind_change_text(const KindChange& c);
// The probe sequence as a toy model's text: its symbols separated by spaces.
std::string probe_text(const std::vector<int>& ids);

}  // namespace attnlab::gui
