// "Attention sinks" (engine/lessons/attention_sinks.hpp; docs/MODELS.md, "A cache that forgets"):
// on the left the sink head's weights over the model's text, its first column (the start token)
// named with the share it takes on the rows where the head has nothing to copy; on the right every
// head's share, then what the model writes with the whole cache, with a bounded cache that keeps
// the first token, and with one that evicts it, tokens that differ from the whole cache's marked.
#include "gui/lessons/attention_sinks_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

std::string head_name(const FirstTokenShare& h) { return "L" + std::to_string(h.layer) + "H" + std::to_string(h.head); }

// Every head's share on the first token, over all rows and over the idle ones.
void draw_shares(const AttentionSinksNumbers& n) {
  text_wrapped_unformatted("The map: " + count_of(static_cast<long long>(n.ids.size()), "token") + ", the start token first; in " +
                           count_of(static_cast<long long>(n.idle.size()), "row") + " the token is new: nothing to copy.");
  text_wrapped_unformatted("Weight on the first token, all rows / nothing to copy:");
  for (const FirstTokenShare& h : n.heads) {
    ImGui::TextUnformatted((head_name(h) + "   " + fixed_decimals(h.all_rows, 2) + " / " + fixed_decimals(h.idle_rows, 2)).c_str());
  }
}

// The three continuations, each against the whole cache's.
void draw_continuations(const AttentionSinksNumbers& n, const Palette& pal) {
  const std::string kept = "keep " + std::to_string(n.kept.sinks) + " + last " + std::to_string(n.kept.window);
  const std::string evicted = "keep 0 + last " + std::to_string(n.evicted.window);
  text_wrapped("After %s the model writes:", count_of(static_cast<long long>(n.prompt.size()), "token").c_str());
  const float lw = lesson_label_width({"whole cache", kept.c_str(), evicted.c_str()});
  lesson_token_row("whole cache", lw, n.full.tokens, nullptr, -1, pal);
  lesson_token_row(kept.c_str(), lw, n.with_sinks.tokens, &n.full.tokens, -1, pal);
  lesson_token_row(evicted.c_str(), lw, n.without_sinks.tokens, &n.full.tokens, -1, pal);
  const auto of = static_cast<long long>(n.full.tokens.size());
  text_wrapped_unformatted("As the whole cache: " + std::to_string(n.with_sinks.agree) + " of " + std::to_string(of) + " with the sink, " +
                           std::to_string(n.without_sinks.agree) + " of " + std::to_string(of) + " without.");
}

}  // namespace

void draw_attention_sinks_page(const PageInputs& in, const AttentionSinksNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const AttentionSinksNumbers& n = *numbers;
  const Palette& pal = palette(in.ctx.view);
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail(ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  // The map takes the height, at most 38% of the width; the numbers, with ten token chips a row, the rest.
  const float side = std::max(kLegibleMapSide, std::min(avail.y, avail.x * 0.38f));
  const FirstTokenShare& sink = n.heads[static_cast<std::size_t>(n.sink)];
  const std::string title = head_name(sink) + ": " + fixed_decimals(sink.idle_rows, 2) + " of each idle row's weight on the first column";
  // No token labels: 25 of them would be too small to read from the back row; the text says what the
  // rows are.
  ImGui::BeginGroup();
  draw_lesson_matrix(in.canvas(out), "sink", title, Stage::Weights, n.sink_weights, nullptr, {}, {}, ImVec2(side, side), true);
  ImGui::EndGroup();
  // An indent, not a group: the token rows place their chips from the window's left edge.
  ImGui::SetCursorScreenPos(ImVec2(top.x + side + fs, top.y));
  ImGui::Indent(side + fs);
  ImGui::PushTextWrapPos(top.x + avail.x - ImGui::GetWindowPos().x);
  draw_shares(n);
  ImGui::Spacing();
  draw_continuations(n, pal);
  ImGui::PopTextWrapPos();
  ImGui::Unindent(side + fs);
}

}  // namespace attnlab::gui
