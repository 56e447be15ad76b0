// The undo history over the document: an edit tried on a copy (a refused one leaves the document as
// it was), the snapshots undo and redo step through, and the budget they keep to. Pure: the shell's
// apply (shell/apply_command.hpp) is the one caller that commits to the app's document.
#pragma once

#include "gui/state/document.hpp"
#include "gui/state/edits.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace attnlab::gui {

// `edit` made on a copy of `doc` and validated: the changed document, or the sentence why it was
// refused (its own refusal, an InputError of the change or of validation, or too little memory).
// An empty edit gives neither (nullopt inside: nothing to do).
std::variant<std::optional<Document>, std::string> try_edit(const Document& doc, const Edit& edit);

// `next` becomes the document, the document it replaces going onto the undo stack as `name`; edits
// in a row sharing a non-empty `merge_key` make one undo entry. The redo stack is cleared.
void record(History& h, Document& doc, Document next, std::string_view name, std::string_view merge_key);

bool can_undo(const History& h);
bool can_redo(const History& h);
// The name of the action that undo/redo would revert/replay, or empty.
std::string undo_name(const History& h);
std::string redo_name(const History& h);
// The newest snapshot of the undo (redo) stack becomes the document and the one it replaces goes onto
// the other stack; returns the action's name, or nullopt when there is nothing to step to.
std::optional<std::string> step_undo(History& h, Document& doc);
std::optional<std::string> step_redo(History& h, Document& doc);

// Undo keeps at most this many bytes of documents (and at least the last edit).
inline constexpr double kHistoryBytes = 1024.0 * 1024 * 1024;

}  // namespace attnlab::gui
