// The layout record's maps (layout_record.hpp), kept through ImGuiIO::UserData for the recorded frame.
#include "gui/widgets/layout_record.hpp"

#include "gui/widgets/drawn_text.hpp"

#include <imgui_internal.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace attnlab::gui {

LayoutRecord* layout_record() { return static_cast<LayoutRecord*>(ImGui::GetIO().UserData); }

void record_layout(LayoutRecord* record) { ImGui::GetIO().UserData = record; }

void record_map(RecordedMap map) {
  if (LayoutRecord* r = layout_record()) {
    map.list = ImGui::GetWindowDrawList();
    r->maps.push_back(std::move(map));
  }
}

std::vector<OverWindow> windows_drawn(const ImDrawData& data) {
  std::map<const ImDrawList*, const ImGuiWindow*> owner;
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) owner[w->DrawList] = w;
  std::vector<OverWindow> out;
  std::map<const ImGuiWindow*, std::size_t> index;  // a root window's place in `out`
  for (int l = 0; l < data.CmdListsCount; ++l) {
    const ImDrawList* list = data.CmdLists[l];
    const auto it = owner.find(list);
    if (it == owner.end()) continue;
    const ImGuiWindow* root = it->second->RootWindow ? it->second->RootWindow : it->second;
    auto [at, fresh] = index.emplace(root, out.size());
    if (fresh) out.push_back(OverWindow{root->Pos, ImVec2(root->Pos.x + root->Size.x, root->Pos.y + root->Size.y), root->Name, {}});
    out[at->second].lists.push_back(list);
    if (root->Flags & ImGuiWindowFlags_NoBackground) out[at->second].name.clear();  // hides nothing (below)
  }
  return out;
}

namespace {

// A length in window pixels, to a tenth (the record is for people and tests, not for drawing again).
double px(float v, float scale) { return std::round(static_cast<double>(v) * scale * 10) / 10; }

nlohmann::ordered_json rect(ImVec2 min, ImVec2 max, float scale) {
  return {px(min.x, scale), px(min.y, scale), px(max.x - min.x, scale), px(max.y - min.y, scale)};
}

// Where something drawn into `list` over [min, max] stands against the windows drawn after its own:
// wholly under them (hidden: under one, or under several together, as a line at the foot of a
// column under a window and the status bar), or partly under one (its name). Half a pixel of slack
// either way: a text's glyph box may touch the border of the window beside it.
struct Cover {
  bool hidden = false;
  std::string under;
};

struct Box {
  ImVec2 min, max;
};

// What of `b` lies outside `o`: up to four boxes (above, below, left, right of it).
void subtract(const Box& b, ImVec2 omin, ImVec2 omax, std::vector<Box>& out) {
  if (omin.y > b.min.y) out.push_back({b.min, ImVec2(b.max.x, std::min(b.max.y, omin.y))});
  if (omax.y < b.max.y) out.push_back({ImVec2(b.min.x, std::max(b.min.y, omax.y)), b.max});
  const float top = std::max(b.min.y, omin.y), bottom = std::min(b.max.y, omax.y);
  if (omin.x > b.min.x) out.push_back({ImVec2(b.min.x, top), ImVec2(std::min(b.max.x, omin.x), bottom)});
  if (omax.x < b.max.x) out.push_back({ImVec2(std::max(b.min.x, omax.x), top), ImVec2(b.max.x, bottom)});
}

Cover cover_of(const ImDrawList* list, ImVec2 min, ImVec2 max, const std::vector<OverWindow>& windows) {
  Cover c;
  std::size_t own = windows.size();
  for (std::size_t w = 0; w < windows.size(); ++w)
    if (std::find(windows[w].lists.begin(), windows[w].lists.end(), list) != windows[w].lists.end()) own = w;
  if (own == windows.size()) return c;
  constexpr float slack = 0.5f;
  std::vector<Box> seen{{min, max}}, rest;  // what no later window covers yet
  for (std::size_t w = own + 1; w < windows.size() && !seen.empty(); ++w) {
    const OverWindow& o = windows[w];
    if (o.name.empty()) continue;  // no background: hides nothing
    rest.clear();
    bool over = false;
    for (const Box& b : seen) {
      const float ix = std::min(b.max.x, o.max.x) - std::max(b.min.x, o.min.x), iy = std::min(b.max.y, o.max.y) - std::max(b.min.y, o.min.y);
      if (ix <= slack || iy <= slack) {
        rest.push_back(b);
        continue;
      }
      over = true;
      subtract(b, o.min, o.max, rest);
    }
    if (over && c.under.empty()) c.under = o.name;
    seen.clear();
    for (const Box& b : rest)
      if (b.max.x - b.min.x > slack && b.max.y - b.min.y > slack) seen.push_back(b);
  }
  if (seen.empty()) {
    c.hidden = true;
    c.under.clear();
  }
  return c;
}

}  // namespace

std::string layout_record_json(const LayoutRecord& record, const std::vector<DrawnText>& texts, const std::vector<OverWindow>& windows,
                               ImVec2 window, bool presenter, float scale) {
  nlohmann::ordered_json maps = nlohmann::ordered_json::array(), drawn = nlohmann::ordered_json::array();
  for (const RecordedMap& m : record.maps) {
    maps.push_back({{"id", m.id}, {"rect", rect(m.min, m.max, scale)}, {"rows", m.rows}, {"cols", m.cols},
                    {"cell_px", px(m.cell_px, scale)}, {"label_px", px(m.label_px, scale)}});
    const Cover c = cover_of(m.list, m.min, m.max, windows);
    maps.back()["hidden"] = c.hidden;
    maps.back()["under"] = c.under;
  }
  for (const DrawnText& t : texts) {
    drawn.push_back({{"text", t.text}, {"rect", rect(t.min, t.max, scale)}, {"px", px(t.px, scale)}, {"clipped", t.clipped},
                     {"upright", t.upright}});
    const Cover c = cover_of(t.list, t.min, t.max, windows);
    drawn.back()["hidden"] = c.hidden;
    drawn.back()["under"] = c.under;
  }
  const nlohmann::ordered_json out = {{"window", {px(window.x, scale), px(window.y, scale)}},
                                      {"presenter", presenter},
                                      {"maps", std::move(maps)},
                                      {"texts", std::move(drawn)}};
  return out.dump() + "\n";
}

}  // namespace attnlab::gui
