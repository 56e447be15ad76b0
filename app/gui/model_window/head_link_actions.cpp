// The Model window's link between two tokens (head_link_actions.hpp).
#include "gui/model_window/head_link_actions.hpp"

#include "engine/io/atomic_file.hpp"
#include "gui/model_window/model_actions.hpp"

#include <algorithm>
#include <cctype>

namespace attnlab::gui {

void click_token_chip(ModelUi& m, int index) {
  HeadLinkUi& k = m.link;
  if (index < 0 || index >= static_cast<int>(m.ids.size())) return;
  if (k.query >= 0 && k.key < 0 && index > k.query) {
    k.key = k.query, k.query = index;
    k.notice = "The later token is the query (a query sees only the keys up to itself): swapped.";
  } else if (k.query < 0 || k.key >= 0) {
    k.query = index, k.key = -1;
    k.notice.clear();
  } else {
    k.key = index;
    k.notice.clear();
  }
  k.prefix.assign(m.ids.begin(), m.ids.begin() + k.query + 1);
  k.ranking.clear();
  k.ranked_run.reset();
  refresh_link_ranking(m);
}

void clear_link(ModelUi& m) {
  m.link.query = m.link.key = -1;
  m.link.ranking.clear();
  m.link.ranked_run.reset();
  m.link.notice.clear();
}

void refresh_link_ranking(ModelUi& m) {
  HeadLinkUi& k = m.link;
  const int n = m.run ? static_cast<int>(m.run->trace.ids.size()) : 0;
  if (k.query >= 0 && (k.query >= static_cast<int>(m.ids.size()) || !std::equal(k.prefix.begin(), k.prefix.end(), m.ids.begin()))) {
    clear_link(m);  // the text changed at or before the chosen tokens: they are other tokens now
    return;
  }
  if (k.query < 0 || k.key < 0 || !m.run || m.run->kinds.empty() || k.query >= n) {
    k.ranking.clear();
    k.ranked_run.reset();
    return;
  }
  if (k.ranked_run == m.run && !k.ranking.empty()) return;
  k.ranking = model::rank_head_links(m.run->trace, k.query, k.key);
  k.ranked_run = m.run;
}

double even_share(const ModelUi& m) { return 1.0 / (std::max(m.link.query, 0) + 1); }

int outlined_rank(const ModelUi& m, int layer, int head) {
  const auto& r = m.link.ranking;
  const int shown = std::min(static_cast<int>(r.size()), m.link.outlined);
  for (int i = 0; i < shown && r[static_cast<std::size_t>(i)].weight > even_share(m); ++i) {
    if (r[static_cast<std::size_t>(i)].layer == layer && r[static_cast<std::size_t>(i)].head == head) return i;
  }
  return -1;
}

std::string save_link_ranking(const ModelUi& m, const std::string& path, Commands& out) {
  if (m.link.ranking.empty()) return "Choose a query token and then a key token first: there is no ranking to save.";
  try {
    write_file_atomic(path, model::links_csv(m.link.ranking));
  } catch (const InputError& e) {
    return e.what();
  }
  out.push_back(Deliver{{DeliveryKind::Table, path}});
  return "";
}

int find_word(const ModelUi& m, std::string_view word) {
  if (!m.model) return -1;
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const std::string want = lower(std::string(word));
  for (int i = static_cast<int>(m.ids.size()) - 1; i >= 0; --i) {
    std::string t = m.model->token_text(m.ids[static_cast<std::size_t>(i)]);
    if (t.rfind(" ", 0) == 0) t.erase(0, 1);  // every family shows a word's leading space as " " (docs/MODELS.md)
    if (lower(t) == want) return i;
  }
  return -1;
}

bool ask_which_heads_link(ModelUi& m, const std::string& text, std::string_view query_word, std::string_view key_word, bool threaded) {
  set_model_text(m, text, threaded);
  clear_link(m);
  const int query = find_word(m, query_word), key = find_word(m, key_word);
  if (query < 0 || key < 0 || key > query) {
    m.error = "This tokenizer does not make \"" + std::string(query < 0 ? query_word : key_word) +
              "\" one token: click the chips of the pieces you mean in the Model window.";
    return false;
  }
  click_token_chip(m, query);
  click_token_chip(m, key);
  return true;
}

std::string link_csv_name(const ModelUi& m) {
  return "links-" + std::to_string(m.link.query) + "-to-" + std::to_string(m.link.key) + ".csv";
}

}  // namespace attnlab::gui
