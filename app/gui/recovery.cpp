// The recovery file: debounced atomic writes of the document, the start-up offer, clean removal.
#include "gui/recovery.hpp"

#include "engine/atomic_file.hpp"
#include "engine/json_matrix.hpp"
#include "engine/text_format.hpp"
#include "gui/actions.hpp"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <ctime>

namespace attnlab::gui {

namespace fs = std::filesystem;

namespace {

std::string local_time_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace

fs::path recovery_path(const fs::path& config_dir) { return config_dir / "recovery.json"; }

std::string recovery_json(const AppState& state, std::string_view saved_at) {
  // The scenario goes in as its own file format, so a recovery file is read by the same strict
  // reader as any scenario (and a teacher can cut it out by hand if ever needed).
  std::string out = "{\n  \"format\": \"attnlab-recovery\",\n  \"version\": 1,\n";
  out += "  \"saved_at\": " + json_string(saved_at) + ",\n";
  out += "  \"pid\": " + std::to_string(::getpid()) + ",\n";
  out += "  \"scenario_path\": " + json_string(state.scenario_path) + ",\n";
  out += std::string("  \"self_attention\": ") + (state.doc.self_attention ? "true" : "false") + ",\n";
  out += "  \"scenario\": " + scenario_to_json(state.doc.scenario) + "}\n";
  return out;
}

RecoveredWork parse_recovery(std::string_view text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(text, source);
  if (!j.is_object() || !j.contains("format") || j.at("format") != "attnlab-recovery") {
    throw InputError(src + ": not an Attention Lab recovery file (format must be \"attnlab-recovery\")");
  }
  if (!j.contains("scenario") || !j.at("scenario").is_object()) {
    throw InputError(src + ": the recovery file holds no scenario object");
  }
  RecoveredWork w;
  w.doc.scenario = parse_scenario(j.at("scenario").dump(), src + ": scenario");
  auto text_field = [&](const char* key) -> std::string {
    if (!j.contains(key)) return {};
    if (!j.at(key).is_string()) throw InputError(src + ": " + key + " must be a string");
    return j.at(key).get<std::string>();
  };
  w.scenario_path = text_field("scenario_path");
  w.saved_at = text_field("saved_at");
  w.doc.self_attention = false;
  if (j.contains("self_attention")) {
    if (!j.at("self_attention").is_boolean()) throw InputError(src + ": self_attention must be true or false");
    w.doc.self_attention = j.at("self_attention").get<bool>();
  }
  // Self-attention ties K and V to Q's rows; a file that claims it for a rectangular problem is
  // read as cross-attention rather than refused.
  w.doc.self_attention = w.doc.self_attention && w.doc.scenario.Q.rows() == w.doc.scenario.K.rows();
  return w;
}

void recovery_tick(AppState& state, const fs::path& dir, double now) {
  RecoveryUi& r = state.recovery;
  if (dir.empty() || r.offer) return;
  if (state.doc_version == r.written_version) {
    r.changed_at = -1;
    return;
  }
  if (r.changed_at < 0) {
    r.changed_at = now;
    return;
  }
  if (now - r.changed_at < kRecoveryDelaySeconds) return;
  try {
    std::error_code ec;
    fs::create_directories(dir, ec);
    write_file_atomic(recovery_path(dir), recovery_json(state, local_time_now()));
    r.write_error.clear();
  } catch (const std::exception& e) {
    // Keep working; the next change tries again. Never let a full disk stop a lesson.
    if (r.write_error.empty()) {
      r.write_error = std::string("unsaved work is not being backed up: ") + e.what();
      state.error = r.write_error;
    }
  }
  r.written_version = state.doc_version;
  r.changed_at = -1;
}

bool check_for_recovery(AppState& state, const fs::path& dir) {
  RecoveryUi& r = state.recovery;
  r.written_version = state.doc_version;  // the document as started needs no backup yet
  if (dir.empty()) return false;
  const fs::path file = recovery_path(dir);
  std::error_code ec;
  if (!fs::exists(file, ec)) return false;
  try {
    r.work = parse_recovery(read_file(file), file.string());
    r.offer = true;
  } catch (const InputError& e) {
    fs::remove(file, ec);
    state.error = std::string("a recovery file from an earlier run could not be read and was removed: ") + e.what();
  }
  return r.offer;
}

void restore_recovered_work(AppState& state) {
  RecoveryUi& r = state.recovery;
  if (!r.offer) return;
  r.offer = false;
  const RecoveredWork w = std::move(r.work);
  r.work = RecoveredWork{};
  apply(state, "restore unsaved work", [&](Document& d) { d = w.doc; });
  if (state.error.empty()) {
    state.scenario_path = w.scenario_path;
    state.notice = "Restored the work from " + (w.saved_at.empty() ? std::string("the last run") : w.saved_at);
  }
  end_merge(state);
}

void discard_recovered_work(AppState& state, const fs::path& dir) {
  RecoveryUi& r = state.recovery;
  r.offer = false;
  r.work = RecoveredWork{};
  remove_recovery_file(dir);
}

void remove_recovery_file(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::remove(recovery_path(dir), ec);
}

}  // namespace attnlab::gui
