// The training tasks (docs/CLI.md, "Training"): seeded batch generators, their defaults and limits, and the
// `attnlab_task` object. Integer arithmetic only, so a seed gives the same batches everywhere.
#include "engine/model/training_tasks.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace attnlab::model {

int uniform(std::mt19937_64& rng, int n) {
  const auto un = static_cast<std::uint64_t>(n);
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % un;
  std::uint64_t r;
  do r = rng();
  while (r >= limit);
  return static_cast<int>(r % un);
}

namespace {

// One sequence of the task into `out` (2·length ids).
void draw(const TaskSpec& task, std::mt19937_64& rng, int* out) {
  const int n = task.length;
  for (int i = 0; i < n; ++i) out[i] = uniform(rng, task.symbols);
  std::copy(out, out + n, out + n);
  if (task.kind == TaskKind::Sort) std::sort(out + n, out + 2 * n);
}

}  // namespace

std::string_view task_name(TaskKind kind) { return kind == TaskKind::Induction ? "induction" : "sort"; }

TaskSpec default_task(std::string_view name) {
  // Sizes chosen so the default models train in well under a minute on two cores (docs/MODELS.md,
  // "Training"): 24 symbols make a repeat inside the first half uncommon enough that copying the
  // token after the earlier occurrence is nearly always right.
  if (name == "induction") return TaskSpec{TaskKind::Induction, 12, 24};
  if (name == "sort") return TaskSpec{TaskKind::Sort, 8, 16};
  throw InputError("--task: '" + one_line(name) + "' is not a training task (induction, sort)");
}

void check_task(const TaskSpec& task, std::string_view what) {
  const std::string w(what), len = task.kind == TaskKind::Induction ? "half_length" : "length";
  if (task.length < 2 || task.length > kMaxTaskLength) {
    throw InputError(w + ": " + len + " " + std::to_string(task.length) + " is outside 2 to " + std::to_string(kMaxTaskLength) + " for the " +
                     std::string(task_name(task.kind)) + " task");
  }
  if (task.symbols < 2 || task.symbols > kMaxTaskSymbols) {
    throw InputError(w + ": symbols " + std::to_string(task.symbols) + " is outside 2 to " + std::to_string(kMaxTaskSymbols) + " for the " +
                     std::string(task_name(task.kind)) + " task");
  }
}

std::string task_json(const TaskSpec& task) {
  if (task.kind == TaskKind::Induction) {
    return "{\"name\": \"induction\", \"half_length\": " + std::to_string(task.length) + ", \"symbols\": " + std::to_string(task.symbols) + "}";
  }
  return "{\"name\": \"sort\", \"length\": " + std::to_string(task.length) + ", \"symbols\": " + std::to_string(task.symbols) + "}";
}

TaskSpec parse_task_json(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {
    // A syntax error, or a number too large for a double (nlohmann's out_of_range, found by fuzzing).
    throw InputError(src + ": \"attnlab_task\" is not valid JSON (" + one_line(e.what()) + ")");
  }
  if (!j.is_object()) throw InputError(src + ": \"attnlab_task\" must be an object");
  if (!j.contains("name") || !j["name"].is_string()) throw InputError(src + ": \"attnlab_task\" needs a \"name\" string (induction, sort)");
  const auto& name = j["name"].get_ref<const std::string&>();
  TaskSpec task;
  if (name == "induction") task.kind = TaskKind::Induction;
  else if (name == "sort") task.kind = TaskKind::Sort;
  else throw InputError(src + ": \"attnlab_task\" names '" + one_line(name) + "', not a training task (induction, sort)");
  const char* length_key = task.kind == TaskKind::Induction ? "half_length" : "length";
  const auto integer = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number_integer()) {
      throw InputError(src + ": \"attnlab_task\" of the " + name + " task needs an integer \"" + key + "\"");
    }
    const auto v = j[key].get<std::int64_t>();
    if (v < 0 || v > 1'000'000) throw InputError(src + ": \"attnlab_task\" has " + key + " " + std::to_string(v) + ", out of range");
    return static_cast<int>(v);
  };
  task.length = integer(length_key);
  task.symbols = integer("symbols");
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != length_key && key != "symbols") {
      throw InputError(src + ": \"attnlab_task\" has an unknown field \"" + one_line(key) + "\" for the " + name + " task");
    }
  }
  check_task(task, src + ": \"attnlab_task\"");
  return task;
}

TaskGenerator::TaskGenerator(const TaskSpec& task, std::uint64_t seed) : task_(task), rng_(seed) {
  check_task(task, "the task");
}

TaskBatch TaskGenerator::next(int batch) {
  TaskBatch b;
  b.batch = batch;
  b.length = task_.sequence_length();
  b.ids.resize(static_cast<std::size_t>(batch) * static_cast<std::size_t>(b.length));
  for (int r = 0; r < batch; ++r) draw(task_, rng_, b.ids.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(b.length));
  const int positions = b.length - 1;
  b.in_loss.assign(static_cast<std::size_t>(positions), 0);
  b.in_accuracy.assign(static_cast<std::size_t>(positions), 0);
  const int first_loss = task_.kind == TaskKind::Induction ? 0 : task_.first_scored();
  for (int t = 0; t < positions; ++t) {
    b.in_loss[static_cast<std::size_t>(t)] = t >= first_loss;
    b.in_accuracy[static_cast<std::size_t>(t)] = t >= task_.first_scored() && t <= task_.last_scored();
  }
  return b;
}

std::vector<int> probe_sequence(const TaskSpec& task) {
  // Its own fixed seed, apart from any training or evaluation stream.
  TaskGenerator g(task, 0x5eed'9e3779b97f4aULL);
  return g.next(1).ids;
}

}  // namespace attnlab::model
