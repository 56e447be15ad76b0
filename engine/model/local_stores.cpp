// Ollama's store, LM Studio's folder and the Hugging Face cache (local_stores.hpp), read as those
// programs write them: Ollama's manifests and blobs from its docs and a store it made, LM Studio's
// PUBLISHER/REPO/FILE.gguf, huggingface_hub's models--org--name/refs/main and snapshots/.
#include "engine/model/local_stores.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/model/gguf_model.hpp"
#include "engine/model/hf_cache.hpp"
#include "engine/model/model_config.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOllama = "ollama:", kLmStudio = "lmstudio:";
constexpr const char* kDefaultRegistry = "registry.ollama.ai";
constexpr const char* kModelLayer = "application/vnd.ollama.image.model";

fs::path home() {
  const char* h = std::getenv("HOME");
  return h ? fs::path(h) : fs::path();
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// A part of an Ollama name or an LM Studio path: no separators, no "..", nothing hidden.
bool plain_part(std::string_view s) {
  return !s.empty() && s.size() <= 200 && s != "." && s != ".." && s.front() != '.' && s.find_first_of("/\\:") == std::string_view::npos &&
         s.find('\0') == std::string_view::npos;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = s.find(sep, at);
    out.emplace_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

std::string folders_text(const std::vector<fs::path>& folders) {
  std::string s;
  for (std::size_t i = 0; i < folders.size(); ++i) s += (i == 0 ? "" : i + 1 == folders.size() ? " and " : ", ") + folders[i].string();
  return s;
}

// The manifest's relative path and the name as a user writes it, for ollama:NAME[:TAG].
struct OllamaName {
  fs::path manifest;  // manifests/REGISTRY/NAMESPACE/NAME/TAG
  std::string shown;  // "smollm2:135m"
};

OllamaName parse_ollama_name(std::string_view spec) {
  const std::string_view rest = spec.substr(kOllama.size());
  const std::size_t colon = rest.rfind(':');
  const std::string_view name = colon == std::string_view::npos ? rest : rest.substr(0, colon);
  const std::string tag = colon == std::string_view::npos ? "latest" : std::string(rest.substr(colon + 1));
  std::vector<std::string> parts = split(name, '/');
  const bool ok = parts.size() <= 3 && plain_part(tag) && std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return plain_part(p); });
  if (!ok) {
    throw InputError(std::string(spec) + ": not an Ollama model name; write ollama:NAME or ollama:NAME:TAG (NAME as `ollama list` shows it, " +
                     "e.g. ollama:smollm2:135m or ollama:user/model)");
  }
  if (parts.size() == 1) parts.insert(parts.begin(), "library");
  if (parts.size() == 2) parts.insert(parts.begin(), kDefaultRegistry);
  return {fs::path("manifests") / parts[0] / parts[1] / parts[2] / tag, std::string(name) + ":" + tag};
}

// The blob a manifest's model layer names, checked to be there.
fs::path blob_of_manifest(const fs::path& store, const fs::path& manifest) {
  const std::string src = manifest.string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(manifest));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(src + ": not JSON (" + e.what() + "); an Ollama manifest lists its layers");
  }
  if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array()) throw InputError(src + ": has no \"layers\" list");
  for (const auto& layer : j["layers"]) {
    if (!layer.is_object() || layer.value("mediaType", "") != kModelLayer) continue;
    const std::string digest = layer.value("digest", "");
    const std::string hex = digest.rfind("sha256:", 0) == 0 ? digest.substr(7) : "";
    if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw InputError(src + ": the model layer's digest " + in_quotes(digest) + " is not sha256: and 64 hexadecimal digits");
    }
    const fs::path blob = store / "blobs" / ("sha256-" + hex);
    if (!is_file(blob)) throw InputError(blob.string() + ": missing; " + src + " names it as the model (an interrupted `ollama pull`?)");
    return blob;
  }
  throw InputError(src + ": lists no layer of mediaType " + std::string(kModelLayer) + ", so it holds no model weights");
}

}  // namespace

std::vector<fs::path> ollama_stores() {
  if (const char* env = std::getenv("OLLAMA_MODELS"); env && *env) return {fs::path(env)};
  return {home() / ".ollama" / "models", fs::path("/usr/share/ollama/.ollama/models")};
}

fs::path lmstudio_folder() { return home() / ".lmstudio" / "models"; }

bool is_ollama_spec(std::string_view spec) { return spec.rfind(kOllama, 0) == 0; }
bool is_lmstudio_spec(std::string_view spec) { return spec.rfind(kLmStudio, 0) == 0; }

fs::path find_ollama_model(std::string_view spec) {
  const OllamaName n = parse_ollama_name(spec);
  const std::vector<fs::path> stores = ollama_stores();
  for (const fs::path& store : stores) {
    if (is_file(store / n.manifest)) return blob_of_manifest(store, store / n.manifest);
  }
  throw InputError(std::string(spec) + ": no Ollama model " + n.shown + " (looked for " + n.manifest.string() + " in " + folders_text(stores) +
                   "); Attention Lab never downloads: `ollama pull " + n.shown + "` fetches it, `attnlab models --local` lists what is here");
}

fs::path find_lmstudio_model(std::string_view spec) {
  const std::vector<std::string> parts = split(spec.substr(kLmStudio.size()), '/');
  const bool ok = (parts.size() == 2 || parts.size() == 3) && std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return plain_part(p); });
  if (!ok) throw InputError(std::string(spec) + ": write lmstudio:PUBLISHER/REPO or lmstudio:PUBLISHER/REPO/FILE.gguf, as LM Studio's folder holds them");
  const fs::path repo = lmstudio_folder() / parts[0] / parts[1];
  if (parts.size() == 3) {
    if (!is_file(repo / parts[2])) {
      throw InputError((repo / parts[2]).string() + ": no such file in LM Studio's folder (`attnlab models --local` lists what is there)");
    }
    return repo / parts[2];
  }
  std::vector<fs::path> found;
  std::error_code ec;
  if (is_dir(repo)) {
    for (const auto& e : fs::directory_iterator(repo, ec)) {
      const std::string f = e.path().filename().string();
      if (e.path().extension() == ".gguf" && f.rfind("mmproj", 0) != 0) found.push_back(e.path());
    }
  }
  if (found.size() != 1) {
    throw InputError(repo.string() + (found.empty() ? ": holds no .gguf model file (`attnlab models --local` lists what LM Studio's folder holds)"
                                                    : ": holds " + std::to_string(found.size()) + " .gguf files; name one: " + std::string(spec) + "/" +
                                                          found.front().filename().string()));
  }
  return found.front();
}

std::vector<fs::path> local_model_folders() {
  std::vector<fs::path> out = {hf_hub_cache()};
  for (const fs::path& s : ollama_stores()) out.push_back(s);
  out.push_back(lmstudio_folder());
  return out;
}

// ---- listing -----------------------------------------------------------------------------------

namespace {

// A GGUF file as a listing shows it; a file that does not open says why.
LocalModel gguf_entry(std::string name, std::string source, const fs::path& path) {
  LocalModel m{std::move(name), std::move(source), "", 0, "", 0, path, false, ""};
  std::error_code ec;
  m.bytes = fs::file_size(path, ec);
  try {
    auto file = std::make_unique<GgufFile>(path);
    m.family = std::string(file->metadata().string("general.architecture").value_or("?"));
    for (const auto& [n, t] : file->tensor_infos()) m.parameters += t.elements();
    m.tensor_type = gguf_tensor_type(*file);
    const ModelConfig c = gguf_model_config(*file);
    m.family = family_name(c);
    (void)bind_gguf_tensors(c, WeightFiles::of(std::move(file)));
    m.opens = true;
  } catch (const InputError& e) {
    m.why_not = one_line(e.what());
  }
  return m;
}

// The type most of a folder's weight values are stored in.
std::string most_values_type(const WeightFiles& w) {
  std::map<TensorType, std::int64_t> values;
  for (const auto& [name, ref] : w.tensors()) values[ref.info->type] += ref.info->elements();
  const auto most = std::max_element(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == values.end() ? "" : type_name(most->first);
}

void list_hf_cache(std::vector<LocalModel>& out) {
  std::error_code ec;
  const fs::path cache = hf_hub_cache();
  std::vector<LocalModel> found;
  for (const auto& e : fs::directory_iterator(cache, ec)) {
    const std::string folder = e.path().filename().string();
    if (folder.rfind("models--", 0) != 0 || !is_dir(e.path())) continue;
    std::string id = folder.substr(8);
    if (const std::size_t dash = id.find("--"); dash != std::string::npos) id.replace(dash, 2, "/");
    LocalModel m{id, "huggingface", "", 0, "", 0, e.path(), false, ""};
    try {
      const auto snapshot = find_in_hf_cache(id);
      if (!snapshot) continue;
      m.path = *snapshot;
      const ModelConfig c = parse_model_config(read_file(*snapshot / "config.json"), (*snapshot / "config.json").string());
      m.family = family_name(c);
      m.parameters = parameter_count(c);
      const WeightFiles w = WeightFiles::open_folder(*snapshot);
      m.tensor_type = most_values_type(w);
      m.bytes = w.total_bytes();
      (void)family_spec(c.family).bind_tensors(c, w);
      m.opens = true;
    } catch (const InputError& err) {
      m.why_not = one_line(err.what());
    }
    found.push_back(std::move(m));
  }
  std::sort(found.begin(), found.end(), [](const LocalModel& a, const LocalModel& b) { return a.name < b.name; });
  for (auto& m : found) out.push_back(std::move(m));
}

// ollama:NAME:TAG as `ollama list` writes it: the default registry and the library namespace left out.
std::string ollama_shown(const std::string& registry, const std::string& ns, const std::string& name, const std::string& tag) {
  std::string n = registry == kDefaultRegistry ? (ns == "library" ? name : ns + "/" + name) : registry + "/" + ns + "/" + name;
  return std::string(kOllama) + n + ":" + tag;
}

void list_ollama(std::vector<LocalModel>& out) {
  std::vector<LocalModel> found;
  std::error_code ec;
  for (const fs::path& store : ollama_stores()) {
    const fs::path manifests = store / "manifests";
    if (!is_dir(manifests)) continue;
    for (const auto& reg : fs::directory_iterator(manifests, ec)) {
      for (const auto& ns : fs::directory_iterator(reg.path(), ec)) {
        for (const auto& name : fs::directory_iterator(ns.path(), ec)) {
          for (const auto& tag : fs::directory_iterator(name.path(), ec)) {
            if (!is_file(tag.path())) continue;
            const std::string shown = ollama_shown(reg.path().filename().string(), ns.path().filename().string(),
                                                   name.path().filename().string(), tag.path().filename().string());
            if (std::any_of(found.begin(), found.end(), [&](const LocalModel& m) { return m.name == shown; })) continue;  // the first store wins
            try {
              found.push_back(gguf_entry(shown, "ollama", blob_of_manifest(store, tag.path())));
            } catch (const InputError& e) {
              found.push_back({shown, "ollama", "", 0, "", 0, tag.path(), false, one_line(e.what())});
            }
          }
        }
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const LocalModel& a, const LocalModel& b) { return a.name < b.name; });
  for (auto& m : found) out.push_back(std::move(m));
}

void list_lmstudio(std::vector<LocalModel>& out) {
  std::vector<LocalModel> found;
  std::error_code ec;
  const fs::path root = lmstudio_folder();
  if (!is_dir(root)) return;
  for (const auto& pub : fs::directory_iterator(root, ec)) {
    if (!is_dir(pub.path())) continue;
    for (const auto& repo : fs::directory_iterator(pub.path(), ec)) {
      if (!is_dir(repo.path())) continue;
      for (const auto& f : fs::directory_iterator(repo.path(), ec)) {
        if (f.path().extension() != ".gguf" || !is_file(f.path())) continue;
        const std::string name = std::string(kLmStudio) + pub.path().filename().string() + "/" + repo.path().filename().string() + "/" +
                                 f.path().filename().string();
        found.push_back(gguf_entry(name, "lmstudio", f.path()));
      }
    }
  }
  std::sort(found.begin(), found.end(), [](const LocalModel& a, const LocalModel& b) { return a.name < b.name; });
  for (auto& m : found) out.push_back(std::move(m));
}

}  // namespace

std::vector<LocalModel> list_local_models() {
  std::vector<LocalModel> out;
  list_hf_cache(out);
  list_ollama(out);
  list_lmstudio(out);
  return out;
}

}  // namespace attnlab::model
