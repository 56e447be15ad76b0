// The models a student already has on disk (docs/MODELS.md, "Where the files are"): Ollama's store,
// LM Studio's folder and the Hugging Face cache, laid out as those programs lay them out, read only.
// `ollama:NAME[:TAG]` and `lmstudio:PUBLISHER/REPO[/FILE.gguf]` name a model as MODEL does;
// list_local_models() is what `attnlab models --local` prints and the GUI's Open model offers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// Ollama's stores, in the order they are searched: $OLLAMA_MODELS when set (alone), else
// ~/.ollama/models, then the system service's /usr/share/ollama/.ollama/models.
std::vector<std::filesystem::path> ollama_stores();
// LM Studio's folder: ~/.lmstudio/models (PUBLISHER/REPO/FILE.gguf).
std::filesystem::path lmstudio_folder();

// Whether MODEL names an Ollama model ("ollama:…") or an LM Studio one ("lmstudio:…").
bool is_ollama_spec(std::string_view spec);
bool is_lmstudio_spec(std::string_view spec);

// The GGUF blob of `ollama:NAME[:TAG]` (TAG default latest; NAME is `name`, `namespace/name`, or
// `registry/namespace/name`; the namespace defaults to library, the registry to
// registry.ollama.ai): its manifest manifests/REGISTRY/NAMESPACE/NAME/TAG (JSON), whose layer of
// mediaType application/vnd.ollama.image.model names the digest sha256:HEX, the file
// blobs/sha256-HEX. Throws InputError: a malformed name, no such manifest in any store (the sentence
// names the folders searched), a manifest that is not JSON or has no model layer, a missing blob.
std::filesystem::path find_ollama_model(std::string_view spec);

// The file of `lmstudio:PUBLISHER/REPO/FILE.gguf`, or of `lmstudio:PUBLISHER/REPO` when that folder
// holds one .gguf file (projectors, mmproj-*.gguf, left aside). Throws InputError naming the folder.
std::filesystem::path find_lmstudio_model(std::string_view spec);

// One model found on disk.
struct LocalModel {
  std::string name;    // what to pass as MODEL: "HuggingFaceTB/SmolLM2-135M", "ollama:smollm2:135m", "lmstudio:…"
  std::string source;  // "huggingface", "ollama" or "lmstudio"
  std::string family;  // the family (model_type), or the file's own architecture when Attention Lab does not open it
  std::int64_t parameters = 0;
  std::string tensor_type;   // "BF16", "Q4_K_M", …
  std::uint64_t bytes = 0;   // its weight files' size
  std::filesystem::path path;  // the snapshot folder or the GGUF file
  bool opens = false;          // whether Attention Lab opens it
  std::string why_not;         // when it does not: one sentence
};

// Every model in the Hugging Face cache, Ollama's stores and LM Studio's folder, each source sorted
// by name. Reads headers only (config.json, the weights' headers, GGUF metadata); a broken entry is
// listed with why it does not open. Never throws for what it finds.
std::vector<LocalModel> list_local_models();

// The folders list_local_models() searches, for a sentence ("searched …").
std::vector<std::filesystem::path> local_model_folders();

}  // namespace attnlab::model
