// The kv-cache lesson's page (kv_cache_page.cpp): in four parts, one at a time so that each fits a
// projector: the same numbers with and without the cache (and a check on the Model window's model),
// the cost of a token each way, the cache's bytes per token for real models' shapes, and exposure
// bias.
#pragma once

#include "engine/lessons/kv_cache.hpp"
#include "gui/lessons/lesson_page.hpp"

#include <optional>
#include <string>

namespace attnlab::gui {

struct KvCacheUi {
  int part = 0;  // the part shown: same numbers, cost, bytes, exposure bias
  // "Check the open model" and Measure, run on the model the Model window has open (its name), or
  // the sentence why they could not run.
  std::optional<CacheCheck> check;
  std::optional<CacheCost> cost;
  std::string model, error;
};

// "Try it in the Model window" opens the lesson's model there with its temperature and seed
// (OpenInModelWindow, SetGenerateSettings); "Open the gqa lesson" is a LoadPreset.
void draw_kv_cache_page(const PageInputs& in, const KvCacheNumbers* numbers, KvCacheUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the cache size of a configuration at a context
// length.

}  // namespace attnlab::gui
