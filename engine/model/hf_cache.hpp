// Finding a model in the local Hugging Face cache by its repo id ("HuggingFaceTB/SmolLM2-135M",
// "gpt2"), as huggingface_hub lays it out: <cache>/models--org--name/refs/main holds the revision,
// and the files are in snapshots/<revision>/. Attention Lab only reads the cache; it never downloads.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab::model {

// Whether `spec` can be a repo id: "name" or "org/name", each part of letters, digits, '-', '_'
// and '.', not starting with '.' or '-' (so paths such as ./x, /x or a/b/c are not).
bool is_repo_id(std::string_view spec);

// The hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else $HOME/.cache/huggingface/hub.
std::filesystem::path hf_hub_cache();

// The repo's folder in `cache`: models--org--name.
std::filesystem::path hf_repo_folder(const std::filesystem::path& cache, std::string_view repo_id);

// The snapshot folder of `repo_id` in the cache, or nullopt when the cache has no folder for it.
// Throws InputError when the folder is there but incomplete: no refs/main, a revision that is not
// one line of letters and digits, or no snapshot of that revision.
std::optional<std::filesystem::path> find_in_hf_cache(std::string_view repo_id);

// The sentence for a repo id that is neither a folder here nor in the cache: what was searched,
// and the command that would fetch it.
std::string hf_cache_miss(std::string_view repo_id);

}  // namespace attnlab::model
