// Cost ("Query, Key, Value"; "13.2 Scaled dot-product attention"): the n × n score matrix per
// head as n grows, in entries and bytes (fp32, fp16), on a log bar chart against this machine's memory, with a measured time on the active backend.
#include "gui/lessons/cost_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

// A number and its unit are joined by a no-break space (U+00A0): wrapped text split "12.6" from "GB".
std::string bytes_text(double b) {
  std::string s = b >= 1024.0 * 1024 * 1024 ? both_units(b) : human_bytes(b);
  for (size_t at = s.find(' '); at != std::string::npos; at = s.find(' ', at)) {
    if (at > 0 && std::isdigit(static_cast<unsigned char>(s[at - 1]))) s.replace(at, 1, "\u00a0");
    ++at;
  }
  return s;
}

// The table: per n the scores' count and bytes, GFLOP, whether the dense stages fit here and, once
// measured, the time they would take here.
void draw_cost_table(const std::vector<CostRow>& rows, const CostUi& ui, const Palette& pal) {
  const int cols = ui.measured_ms > 0 ? 7 : 6;
  if (ImGui::BeginTable("cost", cols, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("n");
    ImGui::TableSetupColumn("scores (n²)");
    ImGui::TableSetupColumn("fp32");
    ImGui::TableSetupColumn("fp16");
    ImGui::TableSetupColumn("GFLOP");
    ImGui::TableSetupColumn("here");
    if (cols == 7) ImGui::TableSetupColumn("time here");
    ImGui::TableHeadersRow();
    for (const auto& c : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", c.n);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(count_in_words(c.entries).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bytes_text(c.bytes_fp32).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bytes_text(c.bytes_fp16).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(three_digits(c.flops / 1e9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c.fits_dense ? pal.good : pal.warning), "%s",
                         c.fits_dense ? "dense fits" : "streaming only");
      if (cols == 7) {
        ImGui::TableNextColumn();
        const double ms = cost_time_at(ui.measured_ms, c.n);
        ImGui::TextUnformatted((ms < 1000 ? fixed_decimals(ms, 0) + " ms" : fixed_decimals(ms / 1000, 1) + " s").c_str());
      }
    }
    ImGui::EndTable();
  }

}

// Bars on a log scale: the fp16 and fp32 score matrix of one head against the machine's memory.
void draw_cost_bars(const std::vector<CostRow>& rows, const MachineMemory& mem, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  // Bars as thick as the room under the table allows (presenter mode at 1280×720 has little):
  // each n takes two bars and a gap, then two lines for the memory marks and one for the legend.
  const float nrows = static_cast<float>(std::max<size_t>(rows.size(), 1));
  const float label_w = ImGui::CalcTextSize("n = 100000").x + fs * 0.6f;
  const float bar_h = std::clamp((avail.y - fs * 4.4f - nrows * fs * 0.4f) / (2 * nrows), fs * 0.3f, fs * 1.1f);
  const float w = std::max(50.0f, avail.x - label_w - fs);
  const double lo = std::log10(1e5), hi = std::log10(std::max(1e11, mem.physical_bytes * 2));
  auto x_of = [&](double b) { return o.x + label_w + static_cast<float>((std::log10(std::max(b, 1e5)) - lo) / (hi - lo)) * w; };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float y = o.y + fs * 0.3f;
  for (const auto& c : rows) {
    char label[32];
    std::snprintf(label, sizeof label, "n = %lld", c.n);
    dl->AddText(ImVec2(o.x, y + bar_h - fs * 0.5f), pal.text, label);
    dl->AddRectFilled(ImVec2(o.x + label_w, y), ImVec2(x_of(c.bytes_fp32), y + bar_h), IM_COL32(70, 150, 240, 255));
    dl->AddRectFilled(ImVec2(o.x + label_w, y + bar_h), ImVec2(x_of(c.bytes_fp16), y + 2 * bar_h), IM_COL32(240, 140, 40, 255));
    y += bar_h * 2 + fs * 0.4f;
  }
  for (const auto& [bytes, name] : {std::pair{mem.physical_bytes, "this machine's memory"},
                                    std::pair{mem.dense_limit_bytes, "the engine's dense limit"}}) {
    const float x = x_of(bytes);
    dl->AddLine(ImVec2(x, o.y), ImVec2(x, y), pal.error, 2.0f);
    // Beside its line, or ending at it when the line is too near the right edge for the words.
    const float tw = ImGui::CalcTextSize(name).x;
    dl->AddText(ImVec2(x + 4 + tw <= o.x + avail.x ? x + 4 : x - 4 - tw, y), pal.error, name);
    y += ImGui::GetTextLineHeight() + fs * 0.1f;
  }
  const char* legend = "blue: fp32, orange: fp16, one head, log scale from 100 kB; GFLOP counts QKᵀ and ·V";
  const float legend_w = ImGui::CalcTextSize(legend).x;
  dl->AddText(ImGui::GetFont(), legend_w > avail.x ? std::max(fs * 0.6f, fs * avail.x / legend_w) : fs, ImVec2(o.x, y),
              pal.text_dim, legend);
  ImGui::Dummy(ImVec2(avail.x, y - o.y + ImGui::GetTextLineHeight()));
}

}  // namespace

void draw_cost_page(const PageInputs& in, const CostNumbers* numbers, CostUi& ui, Commands&) {
  if (!numbers_or_why(in, numbers)) return;
  const Services& services = in.ctx.services;
  const Palette pal = palette(in.ctx.view);
  const auto& rows = numbers->rows;
  const MachineMemory& mem = numbers->machine;
  text_wrapped("this machine: %s of memory; the engine holds the n%sn stages only up to %s (half of it)",
              bytes_text(mem.physical_bytes).c_str(), services.glyphs.times, bytes_text(mem.dense_limit_bytes).c_str());
  if (ImGui::Button("Measure")) {
    // One dense computation at n = 1024, d_k = 64 on the active backend; the rest scales as n².
    try {
      const CostMeasurement m = measure_cost(*services.backend);
      ui.measured_ms = m.ms;
      ui.measured_backend = m.backend;
    } catch (const std::exception& e) {
      ui.measured_backend = e.what();
      ui.measured_ms = 0;
    }
  }
  ImGui::SameLine();
  if (ui.measured_ms > 0) {
    ImGui::Text("n = 1024, d_k = 64 took %s ms on %s", fixed_decimals(ui.measured_ms, 1).c_str(), ui.measured_backend.c_str());
  } else {
    ImGui::TextDisabled("time one head at n = 1024 on %s", services.backend ? services.backend->description().c_str() : "the CPU");
  }

  draw_cost_table(rows, ui, pal);
  draw_cost_bars(rows, mem, pal);
}

}  // namespace attnlab::gui
