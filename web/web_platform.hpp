// The browser build's own C++ (docs/WEB.md): the Platform the GUI runs on in a page
// (web_platform.cpp: files through the browser's picker and downloads, the session kept in local
// storage, the page's URL, WebGL2 and the page's frame loop) and the item probe the browser tests
// read. web/ depends on app/gui, never the reverse: the GUI sees only state/platform.hpp.
#pragma once

namespace attnlab::web {

// Records where each labelled ImGui item is drawn, every frame, for the browser tests
// (web/item_probe.cpp; the page reads it with attnlabWeb.items()). Call once ImGui's context exists.
void start_item_probe();

}  // namespace attnlab::web
