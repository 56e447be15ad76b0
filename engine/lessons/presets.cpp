// Lookup of the embedded preset files.
#include "engine/lessons/presets.hpp"

#include "engine/lessons/lesson_registry.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace attnlab_assets {
const std::map<std::string, std::string_view>& files();
}

namespace attnlab {

namespace {

std::vector<std::string> preset_order() {
  std::vector<std::string> order;
  const auto& files = attnlab_assets::files();
  const auto it = files.find("order.txt");
  if (it != files.end()) {
    std::string_view text = it->second;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string_view::npos) eol = text.size();
      std::string line(text.substr(pos, eol - pos));
      if (!line.empty() && line[0] != '#') order.push_back(line);
      pos = eol + 1;
    }
  }
  return order;
}

}  // namespace

std::string preset_json(const std::string& name) {
  const auto& files = attnlab_assets::files();
  const auto it = files.find(name + ".json");
  return it == files.end() ? std::string() : std::string(it->second);
}

std::vector<PresetInfo> list_presets() {
  std::vector<std::string> names;
  for (const auto& [file, text] : attnlab_assets::files()) {
    (void)text;
    if (file.size() > 5 && file.ends_with(".json")) names.push_back(file.substr(0, file.size() - 5));
  }
  const auto order = preset_order();
  auto rank = [&](const std::string& n) {
    const auto it = std::find(order.begin(), order.end(), n);
    return it == order.end() ? order.size() : static_cast<size_t>(it - order.begin());
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return std::pair(rank(a), a) < std::pair(rank(b), b);
  });
  std::vector<PresetInfo> out;
  for (const auto& n : names) out.push_back({n, load_preset(n).title});
  return out;
}

Scenario load_preset(const std::string& name) {
  const std::string text = preset_json(name);
  if (text.empty()) {
    std::string known;
    for (const auto& [file, t] : attnlab_assets::files()) {
      (void)t;
      if (file.ends_with(".json")) known += (known.empty() ? "" : ", ") + file.substr(0, file.size() - 5);
    }
    throw InputError("--preset: there is no built-in lesson named '" + name + "' (known: " + known + ")");
  }
  Scenario s = parse_scenario(text, "preset " + name);
  check_lesson_fields(s.lesson);
  return s;
}

Scenario default_scenario() { return load_preset(kDefaultPreset); }

}  // namespace attnlab
