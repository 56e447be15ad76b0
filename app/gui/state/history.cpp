// The undo history: apply(), the one point where the document changes, and undo/redo over the
// snapshots it keeps (see history.hpp).
#include "gui/state/history.hpp"

#include "engine/io/scenario.hpp"

#include <new>

namespace attnlab::gui {

namespace {

// Bytes of one document's matrices (what each undo entry holds).
double document_bytes(const Document& d) {
  const Scenario& s = d.scenario;
  return 4.0 * static_cast<double>(s.Q.size() + s.K.size() + s.V.size()) + static_cast<double>(s.options.mask.blocked.size());
}

// Drops the oldest undo entries while the history holds more than kHistoryBytes (keeping the
// newest, so the last edit can always be undone): a 100 000-token document is 77 MiB a copy.
void trim_history(History& h) {
  double total = 0;
  for (const Snapshot& snap : h.undo) total += document_bytes(snap.doc);
  size_t drop = 0;
  while (h.undo.size() - drop > 1 && total > kHistoryBytes) total -= document_bytes(h.undo[drop++].doc);
  h.undo.erase(h.undo.begin(), h.undo.begin() + static_cast<std::ptrdiff_t>(drop));
}

}  // namespace

bool apply(AppState& state, std::string_view name, const std::function<void(Document&)>& edit,
           std::string_view merge_key) {
  Document next = state.doc;
  try {
    edit(next);
    validate_scenario(next.scenario, "the scenario");
  } catch (const InputError& e) {
    state.error = e.what();
    return false;
  } catch (const std::bad_alloc&) {
    state.error = std::string(name) + " needs more memory than is available; the document is unchanged";
    return false;
  }
  History& h = state.history;
  const bool merging = !merge_key.empty() && merge_key == h.merge_key && !h.undo.empty();
  if (!merging) {
    h.undo.push_back(Snapshot{std::string(name), std::move(state.doc)});
    if (h.undo.size() > History::kMaxEntries) h.undo.erase(h.undo.begin());
    trim_history(h);
  }
  h.redo.clear();
  h.merge_key = std::string(merge_key);
  state.doc = std::move(next);
  state.results.needs_compute = true;
  ++state.doc_version;
  state.error.clear();
  state.notice.clear();
  return true;
}

void end_merge(AppState& state) { state.history.merge_key.clear(); }

bool can_undo(const AppState& state) { return !state.history.undo.empty(); }
bool can_redo(const AppState& state) { return !state.history.redo.empty(); }
std::string undo_name(const AppState& state) { return can_undo(state) ? state.history.undo.back().action : ""; }
std::string redo_name(const AppState& state) { return can_redo(state) ? state.history.redo.back().action : ""; }

namespace {

// Undo and redo: the newest snapshot of `from` becomes the document, and the document it replaces
// goes onto `to` under the same action's name.
void step(AppState& state, std::vector<Snapshot>& from, std::vector<Snapshot>& to, const char* verb) {
  if (from.empty()) return;
  Snapshot snap = std::move(from.back());
  from.pop_back();
  to.push_back(Snapshot{snap.action, std::move(state.doc)});
  state.doc = std::move(snap.doc);
  state.history.merge_key.clear();
  state.results.needs_compute = true;
  ++state.doc_version;
  state.error.clear();
  state.notice = std::string(verb) + " " + snap.action;
}

}  // namespace

void undo(AppState& state) { step(state, state.history.undo, state.history.redo, "Undid"); }
void redo(AppState& state) { step(state, state.history.redo, state.history.undo, "Redid"); }

void reset_document(AppState& state, Scenario scenario, std::string path) {
  state.doc.scenario = std::move(scenario);
  const Scenario& s = state.doc.scenario;
  state.doc.self_attention = s.Q.rows() == s.K.rows() &&
                             display_tokens(s.query_tokens, s.Q.rows()) == display_tokens(s.key_tokens, s.K.rows());
  state.scenario_path = std::move(path);
  state.history = History{};
  state.results.needs_compute = true;
  ++state.doc_version;
  state.pipeline.selected = CellRef{};
}

}  // namespace attnlab::gui
