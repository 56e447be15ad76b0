// The Hugging Face cache lookup; see hf_cache.hpp.
#include "engine/model/hf_cache.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"

#include <cstdlib>

namespace attnlab::model {

namespace fs = std::filesystem;

namespace {

bool repo_part(std::string_view s) {
  if (s.empty() || s.size() > 96 || s.front() == '.' || s.front() == '-') return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return s.find("..") == std::string_view::npos;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

bool is_repo_id(std::string_view spec) {
  const std::size_t slash = spec.find('/');
  if (slash == std::string_view::npos) return repo_part(spec);
  return repo_part(spec.substr(0, slash)) && repo_part(spec.substr(slash + 1));
}

fs::path hf_hub_cache() {
  if (const std::string c = env("HF_HUB_CACHE"); !c.empty()) return c;
  if (const std::string h = env("HF_HOME"); !h.empty()) return fs::path(h) / "hub";
  return fs::path(env("HOME")) / ".cache" / "huggingface" / "hub";
}

fs::path hf_repo_folder(const fs::path& cache, std::string_view repo_id) {
  std::string name = "models--";
  for (char c : repo_id) {
    if (c == '/') name += "--";
    else name += c;
  }
  return cache / name;
}

std::optional<fs::path> find_in_hf_cache(std::string_view repo_id) {
  const fs::path repo = hf_repo_folder(hf_hub_cache(), repo_id);
  std::error_code ec;
  if (!fs::is_directory(repo, ec)) return std::nullopt;
  const fs::path ref = repo / "refs" / "main";
  if (!fs::is_regular_file(ref, ec)) {
    throw InputError(ref.string() + ": missing; the cache's folder for " + std::string(repo_id) + " does not say which revision is main");
  }
  std::string rev = read_file(ref);
  while (!rev.empty() && (rev.back() == '\n' || rev.back() == '\r' || rev.back() == ' ')) rev.pop_back();
  const bool plain = !rev.empty() && rev.size() <= 64 && rev.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!plain) throw InputError(ref.string() + ": is not a revision (a hexadecimal commit hash on one line)");
  const fs::path snapshot = repo / "snapshots" / rev;
  if (!fs::is_directory(snapshot, ec)) {
    throw InputError(snapshot.string() + ": missing; refs/main names revision " + rev + " but the cache holds no snapshot of it");
  }
  return snapshot;
}

std::string hf_cache_miss(std::string_view repo_id) {
  const std::string id(repo_id);
  return id + ": no such model folder here, no built-in model of that name, and not in the Hugging Face cache (looked for " +
         hf_repo_folder(hf_hub_cache(), repo_id).string() + "); Attention Lab never downloads: fetch it with `huggingface-cli download " + id +
         "` and run this again";
}

}  // namespace attnlab::model
