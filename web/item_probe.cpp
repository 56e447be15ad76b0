// Where each labelled ImGui item was drawn in the last frame, for the browser tests (tests/web),
// which click real widgets with real mouse events: the hooks Dear ImGui calls for its test engine
// (IMGUI_ENABLE_TEST_ENGINE, set for the browser build's ImGui in cmake/Web.cmake), read by the page
// through attnlab_web_items().
#include "web/web_platform.hpp"

#include "engine/text/text_format.hpp"

#include <emscripten.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cstdarg>
#include <map>
#include <string>

namespace {

struct Item {
  ImRect rect;
  std::string label;
  ImGuiItemStatusFlags flags = 0;
};

// The frame being drawn, and the last whole one (what the page reads between frames).
std::map<ImGuiID, Item> g_drawing;
std::string g_last_frame = "[]";

void end_frame_hook(ImGuiContext*, ImGuiContextHook*) {
  std::string out = "[";
  for (const auto& [id, item] : g_drawing) {
    if (item.label.empty()) continue;
    const ImRect& r = item.rect;
    out += (out.size() > 1 ? ", " : "") + std::string("{\"label\": ") + attnlab::json_string(item.label) +
           ", \"x0\": " + std::to_string(r.Min.x) + ", \"y0\": " + std::to_string(r.Min.y) +
           ", \"x1\": " + std::to_string(r.Max.x) + ", \"y1\": " + std::to_string(r.Max.y) +
           ", \"checked\": " + ((item.flags & ImGuiItemStatusFlags_Checked) ? "true" : "false") + "}";
  }
  g_last_frame = out + "]";
  g_drawing.clear();
}

}  // namespace

void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, const ImRect& bb, ImGuiID id) {
  if (id != 0) g_drawing[id].rect = bb;
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags flags) {
  if (id != 0 && label) {
    g_drawing[id].label = label;
    g_drawing[id].flags = flags;
  }
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID id) {
  const auto it = g_drawing.find(id);
  return it == g_drawing.end() ? nullptr : it->second.label.c_str();
}

namespace attnlab::web {

// Turns the hooks on for the current ImGui context (once, after it is created).
void start_item_probe() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  g.TestEngineHookItems = true;
  ImGuiContextHook hook;
  hook.Type = ImGuiContextHookType_EndFramePost;
  hook.Callback = end_frame_hook;
  ImGui::AddContextHook(&g, &hook);
}

}  // namespace attnlab::web

extern "C" EMSCRIPTEN_KEEPALIVE const char* attnlab_web_items() { return g_last_frame.c_str(); }
