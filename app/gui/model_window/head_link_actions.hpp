// What the Model window does to ModelUi::link (docs/MODELS.md, "The Model window"): a click on a
// token chip chooses the query, a second the key; the ranking follows the run; the CSV export. No
// ImGui: the panel tests call these as the chips and buttons do.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"

#include <string>
#include <string_view>

namespace attnlab::gui {

// A click on token chip `index`: with no query (or both chosen) it becomes the query; else the key
// — and when it comes after the query the two swap, since a query sees only the keys up to itself.
void click_token_chip(ModelUi& m, int index);
void clear_link(ModelUi& m);
// Keeps the ranking that of the current run: re-read when the run or the pair changed, dropped
// when the pair no longer fits the text. Call once a frame.
void refresh_link_ranking(ModelUi& m);
// The weight each key gets from a head that spreads its attention evenly over the query's keys
// (positions 0 to the query): 1/(query + 1). Only heads above it are outlined, so a link no head
// makes outlines none.
double even_share(const ModelUi& m);
// The head's place in the ranking (0 = the largest weight) when it is among the outlined top
// heads (the first `outlined` with more than the even share), else −1.
int outlined_rank(const ModelUi& m, int layer, int head);
// "Save CSV…": the whole ranking as CSV (rank,layer,head,weight) into `path`. Returns why it was
// refused, empty when written; then the file is handed over (Deliver into `out`: the browser offers
// it as a download).
std::string save_link_ranking(const ModelUi& m, const std::string& path, Commands& out);
// The position of `word` among the tokens (a token's text without its leading space, any case),
// the last one when it occurs more than once; −1 when no token is that word alone (a tokenizer
// that splits it).
int find_word(const ModelUi& m, std::string_view word);
// The model-heads lesson's question: `text` in the text box (a run started), `query_word` then
// `key_word` chosen as query and key (the last of each). When the tokenizer splits either, says so
// in ModelUi::error and leaves the chips to the user. Returns whether both were found.
bool ask_which_heads_link(ModelUi& m, const std::string& text, std::string_view query_word, std::string_view key_word, bool threaded);
// The file name the export suggests: "links-8-to-1.csv".
std::string link_csv_name(const ModelUi& m);

}  // namespace attnlab::gui
