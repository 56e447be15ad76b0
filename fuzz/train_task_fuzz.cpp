// Fuzzes config.json's "attnlab_task" reader: each text either parses to a task that prints back
// to the same task and generates valid batches, or throws InputError.
#include "engine/attention/matrix.hpp"
#include "engine/model/training_tasks.hpp"
#include "fuzz/fuzz_check.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  using namespace attnlab::model;
  fuzz::unless_refused([&] {
    const TaskSpec t = parse_task_json(fuzz::input_text(data, size), "config.json");
    FUZZ_CHECK(t.length >= 2 && t.length <= kMaxTaskLength && t.symbols >= 2 && t.symbols <= kMaxTaskSymbols);
    const TaskSpec back = parse_task_json(task_json(t), "again");
    FUZZ_CHECK(back.kind == t.kind && back.length == t.length && back.symbols == t.symbols && back.start_token == t.start_token);
    TaskGenerator g(t, size);
    for (const TaskBatch& b : {g.next(2), g.judged(2)}) {
      FUZZ_CHECK(b.ids.size() == static_cast<std::size_t>(2 * t.sequence_length()));
      FUZZ_CHECK(std::all_of(b.ids.begin(), b.ids.end(), [&](int id) { return id >= 0 && id < t.symbols; }));
      // A start token is token 0 at each row's position 0 and nowhere else.
      for (std::size_t i = 0; t.start_token && i < b.ids.size(); ++i) {
        FUZZ_CHECK((b.ids[i] == 0) == (i % static_cast<std::size_t>(t.sequence_length()) == 0));
      }
      FUZZ_CHECK(b.in_loss.size() == static_cast<std::size_t>(2 * (t.sequence_length() - 1)));
      FUZZ_CHECK(b.in_accuracy.size() == b.in_loss.size());
    }
  });
  return 0;
}
