// The training tasks of docs/CLI.md ("Training"): seeded generators of
// next-token batches, and the `attnlab_task` object a trained toy model carries in config.json.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

enum class TaskKind { Induction, Sort, Grammar };

// Limits of a task's sizes: far beyond what trains in minutes, small enough that no size computed
// from them overflows.
inline constexpr int kMaxTaskLength = 512;
inline constexpr int kMaxTaskSymbols = 4096;

struct TaskSpec {
  TaskKind kind = TaskKind::Induction;
  // induction: the half length L (a sequence is 2L tokens); sort: N (a sequence is 2N tokens);
  // grammar: the half length L (a sequence is 2L tokens).
  int length = 0;
  int symbols = 0;  // V: token ids 0 … V−1, the vocabulary
  // Every sequence opens with token 0, which appears nowhere else (a start token, as real models'
  // BOS, where their attention sinks form: docs/MODELS.md, "Built-in models"); the task's own
  // tokens are then 1 … V−1, after it. Training's loss then also counts the induction opening's
  // rows, where nothing can be copied yet.
  bool start_token = false;

  int sequence_length() const { return 2 * length + (start_token ? 1 : 0); }
};

// The induction task is judged on a random span of this many tokens up to L, and its copy
// (or of L tokens when L is shorter).
inline constexpr int kShortestJudgedSpan = 4;

// "induction", "sort", "grammar".
std::string_view task_name(TaskKind kind);
// The task of `name` with this task's default length and symbol count. Throws InputError:
// "--task: 'x' is not a training task (induction, sort, grammar)".
TaskSpec default_task(std::string_view name);
// Checks that the task can be generated (length ≥ 2, symbols ≥ 2, and what each task needs) and
// throws InputError naming `what` and the limit.
void check_task(const TaskSpec& task, std::string_view what);
// {"name": "induction" or "grammar", "half_length": L, "symbols": V} or {"name": "sort", "length": N, "symbols": V},
// with "start_token": true when the task has one.
std::string task_json(const TaskSpec& task);
// Parses the object above (config.json's "attnlab_task"). Throws InputError naming `source`.
TaskSpec parse_task_json(std::string_view json_text, std::string_view source);

// `batch` sequences, row-major (batch × sequence_length ids).
struct TaskBatch {
  int batch = 0, length = 0;  // rows, tokens per row
  std::vector<int> ids;
  // Per row and position (batch × (length − 1): position t predicts token t+1): whether the loss
  // counts it, and whether accuracy counts it.
  std::vector<unsigned char> in_loss, in_accuracy;
};

// A uniform integer in [0, n), n ≥ 1, by rejection (no modulo bias; std:: distributions differ
// between standard libraries, so they are not used): every seeded draw of the tasks and the trainer.
int uniform(std::mt19937_64& rng, int n);

// Draws batches of a task from a seeded generator: the same seed gives the same batches on every
// machine (std::mt19937_64 and integer arithmetic only, no std:: distributions).
class TaskGenerator {
public:
  TaskGenerator(const TaskSpec& task, std::uint64_t seed);
  // Training batches (docs/MODELS.md, "The induction task"): induction, random tokens with
  // copies of earlier spans at random places, the loss and accuracy on the copied positions after
  // each copy's first; sort, N symbols then the same sorted, both on positions N − 1 … 2N − 2;
  // grammar, a text that counts, jumps and repeats (draw_grammar), on the positions whose next
  // token its rule gives.
  TaskBatch next(int batch);
  // What a trained model is judged on: induction, in each row a random span of
  // kShortestJudgedSpan … L tokens followed by its copy (loss and accuracy on the copy's positions
  // after its first, the tokens after the copy random and unjudged); sort, as next().
  TaskBatch judged(int batch);
  const TaskSpec& task() const { return task_; }

private:
  TaskSpec task_;
  std::mt19937_64 rng_;
};

// A fixed sequence of the task for showing attention maps (the Training window, the lesson, the
// head detector): the same for a given task on every machine. Induction: a judged sequence with
// a span of L (the textbook picture: L random symbols, then the same again).
std::vector<int> probe_sequence(const TaskSpec& task);

}  // namespace attnlab::model
