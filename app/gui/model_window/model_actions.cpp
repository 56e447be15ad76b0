// The Model window's actions; see model_actions.hpp.
#include "gui/model_window/model_actions.hpp"

#include "engine/model/model_report.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/intervention_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/training/training_actions.hpp"

#include <algorithm>
#include <filesystem>

namespace attnlab::gui {

namespace fs = std::filesystem;

bool is_model_path(const std::string& path) {
  std::error_code ec;
  const fs::path ext = fs::path(path).extension();
  return fs::is_directory(path, ec) || ext == ".safetensors" || ext == ".gguf";
}

Commands open_model_file(ModelUi& m, const std::string& path, bool threaded) {
  try {
    std::shared_ptr<const model::LanguageModel> opened = model::open_model(path);
    m.job.reset();
    m.model = std::move(opened);
    m.sequence = window_sequence(*m.model);
    m.generate.drawn.clear();
    m.generate.sampler.reset();
    m.path = path;
    m.path_input = path;
    m.ids.clear();
    m.run.reset();
    m.error.clear();
    m.layer = m.head = 0;
    m.enlarged = false;
    m.intervention = {};  // another model's heads
    // A GPT-2 offers the pair "it" is read by, the second text ready to compare.
    if (m.model->config().family == model::Family::Gpt2 && !m.model->config().is_toy() && m.model->tokenizer()) m.intervention.second_text = kItWide;
    // The model is open even when the text does not suit it (too long for its positions, a
    // toy model's symbols): the text box says why, and the next text runs. A toy model reads its
    // task's symbols, not words: on text that is not made of them it starts on its task's probe
    // sequence, the one the Training window shows.
    std::string text = m.text;
    if (!m.model->tokenizer()) {
      // Without a tokenizer the text box takes token ids: a text that is not ids starts it empty,
      // under the line that asks for them.
      try {
        (void)text_ids(*m.model, text);
      } catch (const InputError&) {
        text.clear();
      }
    } else if (m.model->config().is_toy()) {
      try {
        (void)m.model->tokenize(text, "the text");
      } catch (const InputError&) {
        text = probe_text(model::probe_sequence(model::parse_task_json(m.model->config().task_json, path)));
      }
    }
    set_model_text(m, text, threaded);
  } catch (const InputError& e) {
    m.error = e.what();
  } catch (const std::bad_alloc&) {
    m.error = path + ": out of memory opening the model";
  }
  return {ShowWindow{"Model"}};
}

Commands open_model_file(ModelUi& m, const OpenInModelWindow& request, bool threaded) {
  m.text = request.text;
  Commands out = open_model_file(m, request.path, threaded);
  if (m.model && m.error.empty()) choose_head(m, request.layer, request.head);
  return out;
}

std::vector<int> text_ids(const model::LanguageModel& model, const std::string& text) {
  if (model.tokenizer()) return model.tokenize(text, "the text");
  if (text.find_first_not_of(" ,\n") == std::string::npos) return {};
  return model::parse_ids(text, "the token ids (no tokenizer: " + missing_tokenizer_file(model) + ")");
}

std::string missing_tokenizer_file(const model::LanguageModel& model) {
  const std::string why = model.missing_tokenizer();
  return why.substr(0, why.find(';'));
}

void set_model_text(ModelUi& m, const std::string& text, bool threaded) {
  m.text = text;
  if (!m.model) return;
  try {
    std::vector<int> ids = text_ids(*m.model, text);
    m.error.clear();
    if (ids == m.ids && (m.run || m.job)) return;
    m.ids = std::move(ids);
    start_model_run(m, threaded);
  } catch (const InputError& e) {
    m.error = e.what();
  }
}

void start_model_run(ModelUi& m, bool threaded) {
  if (!m.model || m.ids.empty()) return;
  m.job.reset();  // cancels and joins the run in progress
  m.cancelled = false;
  ModelRequest r;
  r.ids = m.ids;
  m.job = std::make_shared<ModelJob>(m.model, m.sequence, std::move(r), threaded);
}

bool poll_model_run(ModelUi& m) {
  if (!m.job) return false;
  const bool done = m.job->done();  // before taking: a job publishes its last run before it is done
  // A text's run arrives once, at its end; Generate's after each written token.
  if (auto run = m.job->take_run()) {
    m.run = std::move(run);
    m.ids = m.run->trace.ids;
    take_generated(m, *m.run);
    choose_head(m, m.layer, m.head);
  }
  if (!done) return true;
  if (!m.job->cancelled() && !m.job->error().empty()) m.error = m.job->error();
  m.job.reset();
  return false;
}

void cancel_model_run(ModelUi& m) {
  if (!m.job) return;
  if (m.job->generating()) {
    stop_generation(m);  // the tokens written so far arrive with the next poll
    return;
  }
  m.job.reset();
  m.cancelled = true;
}

void choose_head(ModelUi& m, int layer, int head) {
  if (!m.model) return;
  m.layer = std::clamp(layer, 0, m.model->config().n_layer - 1);
  m.head = std::clamp(head, 0, m.model->config().n_head - 1);
}

void step_head(ModelUi& m, int step) {
  if (!m.model) return;
  const int H = m.model->config().n_head, all = m.model->config().n_layer * H;
  const int at = ((m.layer * H + m.head + step) % all + all) % all;
  choose_head(m, at / H, at % H);
}

namespace {

// The chosen head as a scenario: its q, k, v kept by the run, or this head's computed now (a long
// text's run keeps none: model_job.cpp).
Scenario chosen_head(const ModelUi& m) {
  const auto& kept = m.run->trace.heads[static_cast<std::size_t>(m.layer)][static_cast<std::size_t>(m.head)];
  if (kept.q.size() > 0) return model::lift_head(*m.model, *m.run, m.layer, m.head);
  model::ForwardOptions opt;
  opt.keep_weights = false;
  opt.qkv_layer = m.layer;
  opt.qkv_head = m.head;
  opt.top_k = 0;
  const model::ModelRun run = model::run_model(*m.model, m.run->trace.ids, opt);
  return model::lift_head(*m.model, run, m.layer, m.head);
}

}  // namespace

Commands lift_chosen_head(ModelUi& m) {
  if (!m.model || !m.run) return {};
  try {
    Scenario head = chosen_head(m);
    m.lifted.push_back({head.title, {m.layer, m.head}, m.run->trace.ids});
    const std::string name = "open " + head.title + " in the lab";
    // The lab is where the head now is: the window steps aside (View > Model brings it back).
    return {LoadScenario{std::move(head), "", name, "Model"}};
  } catch (const InputError& e) {
    m.error = e.what();
  } catch (const std::bad_alloc&) {
    m.error = "out of memory lifting the head: try a shorter text";
  }
  return {};
}

const LiftedHead* lifted_head(const ModelUi& m, const Scenario& shown) {
  // The last lift of that title: a head lifted again from another text replaces the first.
  const auto at = std::find_if(m.lifted.rbegin(), m.lifted.rend(), [&](const LiftedHead& h) { return h.title == shown.title; });
  return at == m.lifted.rend() ? nullptr : &*at;
}

std::string model_banner(const ModelUi& m, const Scenario& shown) { return lifted_head(m, shown) ? shown.title : std::string(); }

}  // namespace attnlab::gui
