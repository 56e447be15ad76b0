// What every family's tensor binding shares: shape checks, remembering what was taken, and the
// dispatch from a config's family to its binder.
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"

namespace attnlab::model {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

TensorRef TensorBinder::need(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why_missing) {
  const TensorRef t = files_.find(name);
  if (!t) throw InputError(files_.source() + ": tensor '" + name + "' is missing (" + why_missing + ")");
  if (t.info->shape != shape) {
    throw InputError(t.file->path().string() + ": tensor '" + name + "' has shape " + shape_text(t.info->shape) + " but config.json (" +
                     sizes_ + ") needs " + shape_text(shape));
  }
  used_.insert(name);
  return t;
}

TensorRef TensorBinder::need_if(bool present, const std::string& name, const std::vector<std::int64_t>& shape,
                                const std::string& why_missing) {
  return present ? need(name, shape, why_missing) : TensorRef{};
}

std::string TensorBinder::unused() const {
  for (const auto& [name, ref] : files_.tensors()) {
    if (!used_.count(name)) return name;
  }
  return "";
}

DecoderTensors bind_tensors(const ModelConfig& c, const WeightFiles& files) {
  return c.family == "gpt2" || c.family == "attnlab-toy" ? bind_gpt2_tensors(c, files) : bind_llama_tensors(c, files);
}

}  // namespace attnlab::model
