// Reading the "lesson" object of a scenario, tolerant of what later versions add.
#include "engine/io/lesson_spec.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/io/lesson_template.hpp"

#include <array>
#include <utility>

namespace attnlab {

namespace {

constexpr std::array<std::pair<LessonView, const char*>, 18> kViews{{
    {LessonView::Plain, "plain"},
    {LessonView::WorkedExample, "worked-example"},
    {LessonView::CompareScaling, "compare-scaling"},
    {LessonView::ScalingLab, "scaling-lab"},
    {LessonView::MultiHead, "multi-head"},
    {LessonView::SelfCross, "self-cross"},
    {LessonView::MaskFamily, "mask-family"},
    {LessonView::Temperature, "temperature"},
    {LessonView::Normalizers, "normalizers"},
    {LessonView::Precision, "precision"},
    {LessonView::Geometry, "geometry"},
    {LessonView::Cost, "cost"},
    {LessonView::OnlineSoftmax, "online-softmax"},
    {LessonView::ModelHeads, "model-heads"},
    {LessonView::TrainInduction, "train-induction"},
    {LessonView::Rope, "rope"},
    {LessonView::GroupedQuery, "gqa"},
    {LessonView::KvCache, "kv-cache"},
}};

long long positive_integer(const nlohmann::json& j, std::string_view source, const std::string& field,
                           long long max) {
  const long long v = json_to_integer(j, source, field);
  if (v < 1 || v > max) {
    throw InputError(std::string(source) + ": " + field + " is " + std::to_string(v) + "; it must be between 1 and " +
                     std::to_string(max));
  }
  return v;
}

std::vector<long long> integer_list(const nlohmann::json& j, std::string_view source, const std::string& field,
                                    long long max) {
  if (!j.is_array() || j.empty()) {
    throw InputError(std::string(source) + ": " + field + " must be a non-empty list of whole numbers");
  }
  std::vector<long long> out;
  for (size_t i = 0; i < j.size(); ++i) {
    out.push_back(positive_integer(j[i], source, field + "[" + std::to_string(i) + "]", max));
  }
  return out;
}

std::string text_field(const nlohmann::json& j, const std::string& src, const std::string& field) {
  if (!j.is_string() || j.get<std::string>().empty()) throw InputError(src + ": " + field + " must be a non-empty string");
  const std::string t = j.get<std::string>();
  check_template(t, src + ": " + field);
  return t;
}

std::vector<std::string> text_list(const nlohmann::json& j, const std::string& src, const std::string& field) {
  if (!j.is_array() || j.empty()) throw InputError(src + ": " + field + " must be a non-empty list of sentences");
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(text_field(j[i], src, field + "[" + std::to_string(i) + "]"));
  return out;
}

// The kv-cache lesson's model, text and shapes: ids are token ids (0 up), prompt leaves at least
// one of them to write.
void parse_cache_fields(const nlohmann::json& j, const std::string& src, LessonSpec& s) {
  if (j.contains("model")) {
    if (!j.at("model").is_string() || j.at("model").get<std::string>().empty()) throw InputError(src + ": lesson.model must be a built-in model's name");
    s.cache_model = j.at("model").get<std::string>();
  }
  if (j.contains("ids")) {
    const nlohmann::json& ids = j.at("ids");
    if (!ids.is_array() || ids.size() < 2) throw InputError(src + ": lesson.ids must be a list of at least two token ids");
    s.cache_ids.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      const long long id = json_to_integer(ids[i], src, "lesson.ids[" + std::to_string(i) + "]");
      if (id < 0 || id > (1 << 24)) throw InputError(src + ": lesson.ids[" + std::to_string(i) + "] is " + std::to_string(id) + "; a token id is 0 up");
      s.cache_ids.push_back(id);
    }
  }
  if (j.contains("prompt")) s.cache_prompt = positive_integer(j.at("prompt"), src, "lesson.prompt", 1 << 24);
  if (!s.cache_ids.empty() && s.cache_prompt >= static_cast<long long>(s.cache_ids.size())) {
    throw InputError(src + ": lesson.prompt is " + std::to_string(s.cache_prompt) + "; it must leave some of lesson.ids' " +
                     std::to_string(s.cache_ids.size()) + " tokens to write");
  }
  if (j.contains("sample_temperature")) {
    s.sample_temperature = json_to_number(j.at("sample_temperature"), src, "lesson.sample_temperature");
    if (!(s.sample_temperature > 0) || s.sample_temperature > 1000) throw InputError(src + ": lesson.sample_temperature must be above 0");
  }
  if (j.contains("shapes")) {
    const nlohmann::json& list = j.at("shapes");
    if (!list.is_array()) throw InputError(src + ": lesson.shapes must be a list of {\"name\", \"layers\", \"heads\", \"kv_heads\", \"d_head\", \"context\"}");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = "lesson.shapes[" + std::to_string(i) + "]";
      const nlohmann::json& o = list[i];
      if (!o.is_object() || !o.contains("name") || !o.at("name").is_string()) throw InputError(src + ": " + at + " needs a \"name\"");
      ModelShape m;
      m.name = o.at("name").get<std::string>();
      for (auto [key, field] : {std::pair{"layers", &m.layers}, {"heads", &m.heads}, {"kv_heads", &m.kv_heads}, {"d_head", &m.d_head},
                                {"context", &m.context}}) {
        if (!o.contains(key)) throw InputError(src + ": " + at + " needs \"" + key + "\"");
        *field = positive_integer(o.at(key), src, at + "." + key, 1 << 24);
      }
      if (m.heads % m.kv_heads != 0) {
        throw InputError(src + ": " + at + " has " + std::to_string(m.heads) + " query heads, not a multiple of its " + std::to_string(m.kv_heads) +
                         " K/V heads");
      }
      s.shapes.push_back(std::move(m));
    }
  }
}

// goal, look_at, try and source come together: a lesson text with a part missing would read as
// unfinished, so it is refused when the file is read rather than shown.
LessonText parse_text(const nlohmann::json& j, const std::string& src) {
  LessonText t;
  const bool any = j.contains("goal") || j.contains("look_at") || j.contains("try") || j.contains("source");
  if (!any) return t;
  for (const char* part : {"goal", "look_at", "try", "source"}) {
    if (!j.contains(part)) {
      throw InputError(src + ": lesson." + part + " is missing; a lesson text has a goal, look_at, try and source");
    }
  }
  t.goal = text_field(j.at("goal"), src, "lesson.goal");
  t.look_at = text_list(j.at("look_at"), src, "lesson.look_at");
  t.try_steps = text_list(j.at("try"), src, "lesson.try");
  const nlohmann::json& so = j.at("source");
  if (!so.is_object() || !so.contains("title") || !so.at("title").is_string() || so.at("title").get<std::string>().empty()) {
    throw InputError(src + ": lesson.source must be an object with the course text's title, e.g. {\"title\": \"…\", \"section\": \"2.3\"}");
  }
  t.source.title = so.at("title").get<std::string>();
  for (const char* f : {"section", "exercise"}) {
    if (!so.contains(f)) continue;
    if (!so.at(f).is_string()) throw InputError(src + ": lesson.source." + f + " must be a string such as \"2.3\"");
    (std::string(f) == "section" ? t.source.section : t.source.exercise) = so.at(f).get<std::string>();
  }
  if (j.contains("course_notes")) t.course_notes = text_list(j.at("course_notes"), src, "lesson.course_notes");
  // "shortcuts", not "keys": a scaling-lab lesson's "keys" is already its number of keys.
  if (j.contains("shortcuts")) {
    const nlohmann::json& keys = j.at("shortcuts");
    if (!keys.is_array()) throw InputError(src + ": lesson.shortcuts must be a list of {\"key\": …, \"what\": …}");
    for (size_t i = 0; i < keys.size(); ++i) {
      const nlohmann::json& k = keys[i];
      if (!k.is_object() || !k.contains("key") || !k.contains("what") || !k.at("key").is_string() || !k.at("what").is_string()) {
        throw InputError(src + ": lesson.shortcuts[" + std::to_string(i) + "] must be {\"key\": \"S\", \"what\": \"…\"}");
      }
      t.keys.push_back({k.at("key").get<std::string>(), k.at("what").get<std::string>()});
    }
  }
  return t;
}

std::vector<KvCacheConfig> kv_configs(const nlohmann::json& j, const std::string& src) {
  if (!j.is_array()) throw InputError(src + ": lesson.kv_configs must be a list of {\"name\", \"layers\", \"heads\", \"kv_heads\", \"head_dim\"}");
  std::vector<KvCacheConfig> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = "lesson.kv_configs[" + std::to_string(i) + "]";
    const nlohmann::json& c = j[i];
    if (!c.is_object() || !c.contains("name") || !c.at("name").is_string()) throw InputError(src + ": " + at + " needs a \"name\"");
    KvCacheConfig k;
    k.name = c.at("name").get<std::string>();
    for (auto [field, value] : {std::pair{"layers", &k.layers}, {"heads", &k.heads}, {"kv_heads", &k.kv_heads}, {"head_dim", &k.head_dim}}) {
      if (!c.contains(field)) throw InputError(src + ": " + at + "." + field + " is missing");
      *value = positive_integer(c.at(field), src, at + "." + field, 1 << 20);
    }
    if (k.heads % k.kv_heads) {
      throw InputError(src + ": " + at + ": " + std::to_string(k.heads) + " query heads cannot share " +
                       std::to_string(k.kv_heads) + " K/V heads evenly");
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

std::string source_line(const LessonSource& s) {
  if (s.title.empty()) return {};
  std::string out = "\"" + s.title + "\"";
  // A numbered section ("2.3") is "Section 2.3"; one known by its heading is quoted.
  if (!s.section.empty()) {
    const bool numbered = s.section.front() >= '0' && s.section.front() <= '9';
    out += numbered ? ", Section " + s.section : ", section \"" + s.section + "\"";
  }
  if (!s.exercise.empty()) out += ", Exercise " + s.exercise;
  return out;
}

std::string_view lesson_view_name(LessonView v) {
  for (const auto& [view, name] : kViews) {
    if (view == v) return name;
  }
  return "plain";
}

LessonView lesson_view_from_name(std::string_view name) {
  for (const auto& [view, n] : kViews) {
    if (name == n) return view;
  }
  return LessonView::Plain;
}

std::vector<LessonView> all_lesson_views() {
  std::vector<LessonView> out;
  for (const auto& [view, name] : kViews) out.push_back(view);
  return out;
}

LessonSpec parse_lesson_spec(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(src + ": lesson must be an object such as {\"view\": \"multi-head\"}");
  LessonSpec s;
  s.raw_json = j.dump();
  if (j.contains("view")) {
    if (!j.at("view").is_string()) throw InputError(src + ": lesson.view must be a string");
    s.view_name = j.at("view").get<std::string>();
    s.view = lesson_view_from_name(s.view_name);
  }
  if (j.contains("dk")) s.dk = integer_list(j.at("dk"), source, "lesson.dk", 1 << 20);
  if (j.contains("keys")) s.keys = positive_integer(j.at("keys"), source, "lesson.keys", 1 << 20);
  if (j.contains("trials")) s.trials = positive_integer(j.at("trials"), source, "lesson.trials", 10'000'000);
  if (j.contains("seed")) {
    const long long seed = json_to_integer(j.at("seed"), source, "lesson.seed");
    if (seed < 0) throw InputError(src + ": lesson.seed must not be negative");
    s.seed = static_cast<unsigned long long>(seed);
  }
  if (j.contains("heads")) s.heads = positive_integer(j.at("heads"), source, "lesson.heads", 64);
  if (j.contains("share_projections")) {
    if (!j.at("share_projections").is_boolean()) throw InputError(src + ": lesson.share_projections must be true or false");
    s.share_projections = j.at("share_projections").get<bool>();
  }
  if (j.contains("masks")) s.masks = json_to_strings(j.at("masks"), source, "lesson.masks");
  if (j.contains("tau_min")) s.tau_min = json_to_number(j.at("tau_min"), source, "lesson.tau_min");
  if (j.contains("tau_max")) s.tau_max = json_to_number(j.at("tau_max"), source, "lesson.tau_max");
  if (!(s.tau_min > 0) || !(s.tau_max > s.tau_min)) {
    throw InputError(src + ": lesson.tau_min and lesson.tau_max must satisfy 0 < tau_min < tau_max");
  }
  if (j.contains("frames")) s.frames = positive_integer(j.at("frames"), source, "lesson.frames", 10000);
  if (j.contains("n")) s.cost_n = integer_list(j.at("n"), source, "lesson.n", 100'000'000);
  if (j.contains("d_k")) s.cost_d_k = positive_integer(j.at("d_k"), source, "lesson.d_k", 1 << 20);
  if (j.contains("tile")) s.tile = positive_integer(j.at("tile"), source, "lesson.tile", 1 << 20);
  if (j.contains("shift")) s.shift = positive_integer(j.at("shift"), source, "lesson.shift", 1'000'000);
  if (j.contains("grid")) s.grid = positive_integer(j.at("grid"), source, "lesson.grid", 64);
  if (j.contains("envelope_d_k")) s.envelope_d_k = positive_integer(j.at("envelope_d_k"), source, "lesson.envelope_d_k", 1 << 16);
  if (s.envelope_d_k % 2) throw InputError(src + ": lesson.envelope_d_k must be even: RoPE turns pairs of components");
  if (j.contains("kv_heads")) s.kv_heads = integer_list(j.at("kv_heads"), source, "lesson.kv_heads", 64);
  if (j.contains("kv_configs")) s.kv_configs = kv_configs(j.at("kv_configs"), src);
  if (j.contains("context")) s.context = positive_integer(j.at("context"), source, "lesson.context", 1 << 24);
  parse_cache_fields(j, src, s);
  s.text = parse_text(j, src);
  return s;
}

}  // namespace attnlab
