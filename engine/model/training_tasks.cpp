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

// One training sequence of the induction task into `out` (2L ids) and the positions whose next
// token it copies into `copied` (2L − 1 flags; position t predicts token t + 1). docs/MODELS.md,
// "The induction task": an opening of 2 … L random tokens, then copies of earlier spans (2 … L
// tokens from a random earlier start, never overlapping the copy), each followed by 0 … L/2 fresh
// random tokens, until the sequence is full (the last copy cut short). A copy's first token is not
// predictable (a copy may start anywhere); each later one is.
int draw_induction(const TaskSpec& task, std::mt19937_64& rng, int* out, unsigned char* copied) {
  const int n = task.sequence_length(), L = task.length;
  for (int i = 0; i < n; ++i) out[i] = uniform(rng, task.symbols);
  std::fill(copied, copied + n - 1, 0);
  const int opening = 2 + uniform(rng, L - 1);
  int pos = opening;
  while (pos < n) {
    const int span = 2 + uniform(rng, L - 1);
    if (pos >= span) {
      const int from = uniform(rng, pos - span + 1);
      for (int o = 0; o < span && pos + o < n; ++o) {
        out[pos + o] = out[from + o];
        if (o >= 1) copied[pos + o - 1] = 1;
      }
      pos += span;
    }
    pos += uniform(rng, L / 2 + 1);
  }
  return opening;
}

// A sequence the induction task is judged on, into `out` (2L ids) and `copied`: a random span of
// `span` tokens, then its copy (positions span … 2·span − 2 predict it), then random tokens that
// nothing judges.
void draw_judged(const TaskSpec& task, std::mt19937_64& rng, int span, int* out, unsigned char* copied) {
  const int n = task.sequence_length();
  for (int i = 0; i < n; ++i) out[i] = uniform(rng, task.symbols);
  std::copy(out, out + span, out + span);
  std::fill(copied, copied + n - 1, 0);
  std::fill(copied + span, copied + 2 * span - 1, 1);
}

// One sequence of the grammar task into `out` (2L ids over V symbols) and the positions whose next
// token its rule gives into `follows` (2L − 1 flags). docs/MODELS.md, "The grammar task": the text
// starts at a random symbol; then, at each position, one time in kGrammarJumps it jumps to a random
// symbol (unpredictable), else it follows its rule: where the token has appeared before, the token
// that followed its latest earlier appearance (a repeat, an induction head's job), and where it is
// new, the next symbol counting up (x + 1, V − 1 wrapping to 0: the grammar, learned into the
// weights). A head that copies has nothing to copy on the new tokens' rows, and the loss there asks
// it to add nothing: where a start token is, it learns to park its weight on it (an attention sink).
constexpr int kGrammarJumps = 4;

void draw_grammar(const TaskSpec& task, std::mt19937_64& rng, int* out, unsigned char* follows) {
  const int n = task.sequence_length();
  out[0] = uniform(rng, task.symbols);
  for (int t = 0; t + 1 < n; ++t) {
    if (uniform(rng, kGrammarJumps) == 0) {
      out[t + 1] = uniform(rng, task.symbols);
      follows[t] = 0;
      continue;
    }
    int earlier = t - 1;
    while (earlier >= 0 && out[earlier] != out[t]) --earlier;
    out[t + 1] = earlier >= 0 ? out[earlier + 1] : (out[t] + 1) % task.symbols;
    follows[t] = 1;
  }
}

// One sequence of the sort task into `out` (2N ids).
void draw_sort(const TaskSpec& task, std::mt19937_64& rng, int* out) {
  const int n = task.length;
  for (int i = 0; i < n; ++i) out[i] = uniform(rng, task.symbols);
  std::copy(out, out + n, out + n);
  std::sort(out + n, out + 2 * n);
}

}  // namespace

std::string_view task_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::Induction: return "induction";
    case TaskKind::Sort: return "sort";
    case TaskKind::Grammar: return "grammar";
  }
  return "induction";
}

namespace {

// Whether the task's length is a half length (a sequence of 2L tokens), as config.json names it.
bool half_length(TaskKind kind) { return kind != TaskKind::Sort; }

}  // namespace

TaskSpec default_task(std::string_view name) {
  // Sizes chosen so the default models train in well under a minute on two cores (docs/MODELS.md,
  // "Training"). 64 symbols make a repeated symbol inside a judged span rare enough (one query in
  // six at L = 12) that copying the token after its earlier occurrence is nearly always right.
  if (name == "induction") return TaskSpec{TaskKind::Induction, 12, 64};
  if (name == "sort") return TaskSpec{TaskKind::Sort, 8, 16};
  // 64 symbols: a text of 32 tokens seldom counts into its own earlier symbols by chance, so most of
  // its repeats follow a jump back to one.
  if (name == "grammar") return TaskSpec{TaskKind::Grammar, 16, 64};
  throw InputError("--task: '" + one_line(name) + "' is not a training task (induction, sort, grammar)");
}

void check_task(const TaskSpec& task, std::string_view what) {
  const std::string w(what), len = half_length(task.kind) ? "half_length" : "length";
  if (task.length < 2 || task.length > kMaxTaskLength) {
    throw InputError(w + ": " + len + " " + std::to_string(task.length) + " is outside 2 to " + std::to_string(kMaxTaskLength) + " for the " +
                     std::string(task_name(task.kind)) + " task");
  }
  if (task.symbols < 2 || task.symbols > kMaxTaskSymbols) {
    throw InputError(w + ": symbols " + std::to_string(task.symbols) + " is outside 2 to " + std::to_string(kMaxTaskSymbols) + " for the " +
                     std::string(task_name(task.kind)) + " task");
  }
  if (task.start_token && task.symbols < 3) {
    throw InputError(w + ": a start token needs 3 symbols or more (token 0 and two for the task), not " + std::to_string(task.symbols));
  }
}

std::string task_json(const TaskSpec& task) {
  // A task without a start token writes what the models before it carry.
  const std::string start = task.start_token ? ", \"start_token\": true" : "";
  if (half_length(task.kind)) {
    return "{\"name\": \"" + std::string(task_name(task.kind)) + "\", \"half_length\": " + std::to_string(task.length) + ", \"symbols\": " + std::to_string(task.symbols) +
           start + "}";
  }
  return "{\"name\": \"sort\", \"length\": " + std::to_string(task.length) + ", \"symbols\": " + std::to_string(task.symbols) + start + "}";
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
  if (!j.contains("name") || !j["name"].is_string()) throw InputError(src + ": \"attnlab_task\" needs a \"name\" string (induction, sort, grammar)");
  const auto& name = j["name"].get_ref<const std::string&>();
  TaskSpec task;
  if (name == "induction") task.kind = TaskKind::Induction;
  else if (name == "sort") task.kind = TaskKind::Sort;
  else if (name == "grammar") task.kind = TaskKind::Grammar;
  else throw InputError(src + ": \"attnlab_task\" names '" + one_line(name) + "', not a training task (induction, sort, grammar)");
  const char* length_key = half_length(task.kind) ? "half_length" : "length";
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
  if (j.contains("start_token")) {
    if (!j["start_token"].is_boolean()) throw InputError(src + ": \"attnlab_task\" has a \"start_token\" that is not true or false");
    task.start_token = j["start_token"].get<bool>();
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != length_key && key != "symbols" && key != "start_token") {
      throw InputError(src + ": \"attnlab_task\" has an unknown field \"" + one_line(key) + "\" for the " + name + " task");
    }
  }
  check_task(task, src + ": \"attnlab_task\"");
  return task;
}

TaskGenerator::TaskGenerator(const TaskSpec& task, std::uint64_t seed) : task_(task), rng_(seed) {
  check_task(task, "the task");
}

namespace {

// A batch of `batch` empty rows of the task's length.
TaskBatch empty_batch(const TaskSpec& task, int batch) {
  TaskBatch b;
  b.batch = batch;
  b.length = task.sequence_length();
  const auto rows = static_cast<std::size_t>(batch), len = static_cast<std::size_t>(b.length);
  b.ids.resize(rows * len);
  b.in_loss.assign(rows * (len - 1), 0);
  b.in_accuracy.assign(rows * (len - 1), 0);
  return b;
}

}  // namespace

namespace {

// One training row of a task without a start token: its ids and the positions in the loss and
// in the accuracy (which must be zero on entry). With `idle_loss` (a task with a start token) the
// induction opening's rows, where nothing can be copied yet, are in the loss too: their next token
// is random, so the loss asks the heads to add nothing there, and a head with nothing to copy
// learns to park its weight on the start token (docs/MODELS.md, "Built-in models").
void draw_row(const TaskSpec& task, bool idle_loss, std::mt19937_64& rng, int* ids, unsigned char* loss, unsigned char* acc) {
  const auto positions = static_cast<std::size_t>(task.sequence_length() - 1);
  if (task.kind == TaskKind::Induction) {
    // The loss counts only what can be known (docs/MODELS.md): with the random tokens in it as
    // well, no run of 4000 steps formed the two heads.
    const int opening = draw_induction(task, rng, ids, acc);
    std::copy(acc, acc + positions, loss);
    if (idle_loss) std::fill(loss, loss + opening, 1);
  } else if (task.kind == TaskKind::Grammar) {
    draw_grammar(task, rng, ids, acc);
    std::copy(acc, acc + positions, loss);
  } else {
    draw_sort(task, rng, ids);
    for (int t = task.length - 1; t <= 2 * task.length - 2; ++t) loss[t] = acc[t] = 1;
  }
}

// Row `r` of a batch drawn by `draw(task, ids, loss, acc)`: with a start token, the task without
// it over the symbols 1 … V−1 after token 0. Position 0 predicts nothing the task knows; it is in
// the loss where the row after it is (the induction opening's, below).
template <class Draw>
void draw_into(const TaskSpec& task, TaskBatch& b, std::size_t r, Draw&& draw) {
  const auto len = static_cast<std::size_t>(b.length), positions = len - 1;
  int* ids = b.ids.data() + r * len;
  unsigned char* loss = b.in_loss.data() + r * positions;
  unsigned char* acc = b.in_accuracy.data() + r * positions;
  if (!task.start_token) return draw(task, ids, loss, acc);
  TaskSpec inner = task;
  inner.start_token = false;
  inner.symbols = task.symbols - 1;
  draw(inner, ids + 1, loss + 1, acc + 1);
  ids[0] = 0;
  // The grammar's first symbol is random: nothing to learn there.
  loss[0] = task.kind == TaskKind::Grammar ? 0 : loss[1];
  for (std::size_t i = 1; i < len; ++i) ++ids[i];
}

}  // namespace

TaskBatch TaskGenerator::next(int batch) {
  TaskBatch b = empty_batch(task_, batch);
  for (std::size_t r = 0; r < static_cast<std::size_t>(batch); ++r) {
    draw_into(task_, b, r, [&](const TaskSpec& t, int* ids, unsigned char* loss, unsigned char* acc) { draw_row(t, task_.start_token, rng_, ids, loss, acc); });
  }
  return b;
}

TaskBatch TaskGenerator::judged(int batch) {
  if (task_.kind != TaskKind::Induction) return next(batch);
  TaskBatch b = empty_batch(task_, batch);
  const int shortest = std::min(kShortestJudgedSpan, task_.length);
  for (std::size_t r = 0; r < static_cast<std::size_t>(batch); ++r) {
    const int span = shortest + uniform(rng_, task_.length - shortest + 1);
    draw_into(task_, b, r, [&](const TaskSpec& t, int* ids, unsigned char*, unsigned char* acc) { draw_judged(t, rng_, span, ids, acc); });
  }
  b.in_loss = b.in_accuracy;
  return b;
}

std::vector<int> probe_sequence(const TaskSpec& task) {
  // Its own fixed seed, apart from any training or evaluation stream.
  std::mt19937_64 rng(0x5eed'9e3779b97f4aULL);
  check_task(task, "the task");
  if (task.kind != TaskKind::Induction) return TaskGenerator(task, rng()).next(1).ids;
  TaskBatch b = empty_batch(task, 1);
  draw_into(task, b, 0, [&](const TaskSpec& t, int* ids, unsigned char*, unsigned char* acc) { draw_judged(t, rng, t.length, ids, acc); });
  return b.ids;
}

}  // namespace attnlab::model
