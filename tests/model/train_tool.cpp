// Test helper for train_gradient_test.py and train_cli_test.py: builds a Trainer, optionally runs
// some steps, draws one batch and writes a safetensors file holding every parameter (its own
// name), its gradient of the batch's mean loss ("grad.NAME"), the batch ("batch.ids",
// "batch.in_loss", as F32) and, in the metadata, the loss and the sizes. With "predict" it prints
// instead the trainer's own most probable next token at every position of N held-out-style
// sequences, as JSON, for comparing with `attnlab model` on the saved folder.
// Usage: attnlab_train_tool grads|predict TASK LAYERS HEADS D_MODEL BATCH SEED LENGTH SYMBOLS STEPS OUT
#include "engine/model/safetensors.hpp"
#include "engine/model/trainer.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

using namespace attnlab;
using namespace attnlab::model;

int main(int argc, char** argv) {
  if (argc != 12) {
    std::cerr << "usage: attnlab_train_tool grads|predict TASK LAYERS HEADS D_MODEL BATCH SEED LENGTH SYMBOLS STEPS OUT\n";
    return 2;
  }
  try {
    const std::string mode = argv[1];
    TrainConfig c;
    c.task = default_task(argv[2]);
    c.n_layer = std::stoi(argv[3]);
    c.n_head = std::stoi(argv[4]);
    c.d_model = std::stoi(argv[5]);
    c.batch = std::stoi(argv[6]);
    c.seed = std::stoull(argv[7]);
    if (std::stoi(argv[8]) > 0) c.task.length = std::stoi(argv[8]);
    if (std::stoi(argv[9]) > 0) c.task.symbols = std::stoi(argv[9]);
    const int steps = std::stoi(argv[10]);
    c.steps = std::max(1, steps);
    const std::string out = argv[11];
    Trainer trainer(c);
    for (int i = 0; i < steps; ++i) trainer.step();
    TaskGenerator gen(trainer.config().task, c.seed + 1000);
    if (mode == "predict") {
      // The saved model's folder and, per sequence, the trainer's argmax after every prefix.
      trainer.save(out, true);
      nlohmann::json j = nlohmann::json::array();
      const TaskBatch b = gen.next(c.batch);
      for (int r = 0; r < b.batch; ++r) {
        std::vector<int> seq(b.ids.begin() + r * b.length, b.ids.begin() + (r + 1) * b.length);
        nlohmann::json preds = nlohmann::json::array();
        for (int n = 1; n <= b.length; ++n) {
          ForwardOptions o;
          o.keep_weights = false;
          o.top_k = 2;
          const ForwardTrace t = trainer.forward(std::vector<int>(seq.begin(), seq.begin() + n), o);
          preds.push_back({{"id", t.next_tokens[0].id}, {"prob", t.next_tokens[0].prob}, {"second", t.next_tokens[1].prob}});
        }
        j.push_back({{"ids", seq}, {"next", preds}});
      }
      std::cout << j.dump() << "\n";
      return 0;
    }
    const TaskBatch b = gen.next(c.batch);
    const double loss = trainer.loss(b);
    const auto grads = trainer.gradients(b);
    const auto params = trainer.parameters();
    std::vector<F32Tensor> tensors;
    for (std::size_t i = 0; i < params.size(); ++i) tensors.push_back({params[i].name, params[i].shape, params[i].values->data()});
    for (std::size_t i = 0; i < params.size(); ++i) tensors.push_back({"grad." + params[i].name, params[i].shape, grads[i].data()});
    std::vector<float> ids(b.ids.begin(), b.ids.end()), in_loss(b.in_loss.begin(), b.in_loss.end());
    tensors.push_back({"batch.ids", {b.batch, b.length}, ids.data()});
    tensors.push_back({"batch.in_loss", {b.batch, b.length - 1}, in_loss.data()});
    const TrainConfig& r = trainer.config();
    write_file_atomic(out, safetensors_f32_bytes(tensors, {{"loss", nlohmann::json(loss).dump()},
                                                           {"n_layer", std::to_string(r.n_layer)},
                                                           {"n_head", std::to_string(r.n_head)},
                                                           {"d_model", std::to_string(r.d_model)}}));
  } catch (const std::exception& e) {
    std::cerr << "attnlab_train_tool: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
