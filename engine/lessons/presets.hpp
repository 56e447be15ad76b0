// Built-in lessons (presets): scenario JSON under assets/presets/, embedded at build time.
#pragma once

#include "engine/io/scenario.hpp"

#include <string>
#include <vector>

namespace attnlab {

struct PresetInfo {
  std::string name;   // file name without .json, e.g. "three-tokens"
  std::string title;  // the scenario's title
};

// Every built-in preset, in curriculum order (order.txt), then alphabetically.
std::vector<PresetInfo> list_presets();
// Parses the named preset; throws InputError listing the known names when there is none.
Scenario load_preset(const std::string& name);
// The raw embedded JSON of a preset, or empty when there is none.
std::string preset_json(const std::string& name);
// The default lesson: the textbook three-token example of Section 2.3.
Scenario default_scenario();
inline constexpr const char* kDefaultPreset = "three-tokens";

}  // namespace attnlab
