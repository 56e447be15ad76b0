// The layout record's maps (layout_record.hpp), kept through ImGuiIO::UserData for the recorded frame.
#include "gui/widgets/layout_record.hpp"

#include "gui/widgets/drawn_text.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <utility>

namespace attnlab::gui {

LayoutRecord* layout_record() { return static_cast<LayoutRecord*>(ImGui::GetIO().UserData); }

void record_layout(LayoutRecord* record) { ImGui::GetIO().UserData = record; }

void record_map(RecordedMap map) {
  if (LayoutRecord* r = layout_record()) r->maps.push_back(std::move(map));
}

namespace {

// A length in window pixels, to a tenth (the record is for people and tests, not for drawing again).
double px(float v, float scale) { return std::round(static_cast<double>(v) * scale * 10) / 10; }

nlohmann::ordered_json rect(ImVec2 min, ImVec2 max, float scale) {
  return {px(min.x, scale), px(min.y, scale), px(max.x - min.x, scale), px(max.y - min.y, scale)};
}

}  // namespace

std::string layout_record_json(const LayoutRecord& record, const std::vector<DrawnText>& texts, ImVec2 window, bool presenter,
                               float scale) {
  nlohmann::ordered_json maps = nlohmann::ordered_json::array(), drawn = nlohmann::ordered_json::array();
  for (const RecordedMap& m : record.maps) {
    maps.push_back({{"id", m.id}, {"rect", rect(m.min, m.max, scale)}, {"rows", m.rows}, {"cols", m.cols},
                    {"cell_px", px(m.cell_px, scale)}, {"label_px", px(m.label_px, scale)}});
  }
  for (const DrawnText& t : texts) {
    drawn.push_back({{"text", t.text}, {"rect", rect(t.min, t.max, scale)}, {"px", px(t.px, scale)}, {"clipped", t.clipped},
                     {"upright", t.upright}});
  }
  const nlohmann::ordered_json out = {{"window", {px(window.x, scale), px(window.y, scale)}},
                                      {"presenter", presenter},
                                      {"maps", std::move(maps)},
                                      {"texts", std::move(drawn)}};
  return out.dump() + "\n";
}

}  // namespace attnlab::gui
