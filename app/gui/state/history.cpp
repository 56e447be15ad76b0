// The undo history: edits tried on a copy, the snapshots undo and redo step through (history.hpp).
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

// The newest snapshot of `from` becomes the document, and the document it replaces goes onto `to`
// under the same action's name.
std::optional<std::string> step(History& h, Document& doc, std::vector<Snapshot>& from, std::vector<Snapshot>& to) {
  if (from.empty()) return std::nullopt;
  Snapshot snap = std::move(from.back());
  from.pop_back();
  to.push_back(Snapshot{snap.action, std::move(doc)});
  doc = std::move(snap.doc);
  h.merge_key.clear();
  return snap.action;
}

}  // namespace

std::variant<std::optional<Document>, std::string> try_edit(const Document& doc, const Edit& edit) {
  if (!edit.refused.empty()) return edit.refused;
  if (!edit.change) return std::optional<Document>{};
  try {
    Document next = doc;
    edit.change(next);
    validate_scenario(next.scenario, "the scenario");
    return std::optional<Document>{std::move(next)};
  } catch (const InputError& e) {
    return std::string(e.what());
  } catch (const std::bad_alloc&) {
    return edit.name + " needs more memory than is available; the document is unchanged";
  }
}

void record(History& h, Document& doc, Document next, std::string_view name, std::string_view merge_key) {
  const bool merging = !merge_key.empty() && merge_key == h.merge_key && !h.undo.empty();
  if (!merging) {
    h.undo.push_back(Snapshot{std::string(name), std::move(doc)});
    if (h.undo.size() > History::kMaxEntries) h.undo.erase(h.undo.begin());
    trim_history(h);
  }
  h.redo.clear();
  h.merge_key = std::string(merge_key);
  doc = std::move(next);
}

bool can_undo(const History& h) { return !h.undo.empty(); }
bool can_redo(const History& h) { return !h.redo.empty(); }
std::string undo_name(const History& h) { return can_undo(h) ? h.undo.back().action : ""; }
std::string redo_name(const History& h) { return can_redo(h) ? h.redo.back().action : ""; }

std::optional<std::string> step_undo(History& h, Document& doc) { return step(h, doc, h.undo, h.redo); }
std::optional<std::string> step_redo(History& h, Document& doc) { return step(h, doc, h.redo, h.undo); }

}  // namespace attnlab::gui
