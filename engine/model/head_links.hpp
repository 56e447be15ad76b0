// "Which heads link these two tokens?" (docs/MODELS.md, "Which heads link two tokens"): every head
// of a run ranked by its weight from one query token to one key token, as `attnlab model --link
// I,J` prints it and the Model window lists, highlights and exports it.
#pragma once

#include "engine/model/language_model.hpp"

#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab::model {

struct HeadLink {
  int layer = 0, head = 0;
  double weight = 0;  // the head's attention weight from the query to the key
};

// Every head of `trace` (whose weights were kept) ranked by weights[query][key], largest first;
// equal weights keep the reading order (layer, then head). query, key: 0-based token positions,
// key ≤ query < the run's tokens (check_link).
std::vector<HeadLink> rank_head_links(const ForwardTrace& trace, int query, int key);

// Checks a (query, key) pair against a text of `tokens` tokens; throws InputError naming `what`
// ("--link 3,5: key 5 comes after query 3; a query sees only the keys up to itself").
void check_link(int query, int key, int tokens, std::string_view what);
// "I,J" (spaces allowed around each) as (query, key): the later position is the query, whichever
// comes first ("1,4" is query 4, key 1). Throws InputError naming `what`.
std::pair<int, int> parse_link(std::string_view text, std::string_view what);

// `"links": [{"layer", "head", "weight"}, …]`, the JSON member `attnlab model --link` adds.
void write_links_json(std::ostream& out, const std::vector<HeadLink>& links);
// The top `top` links as text, under a line naming the two tokens ("'it' (query 8) → 'animal'
// (key 1)").
void write_links_text(std::ostream& out, const std::vector<HeadLink>& links, int top, const std::string& query_label,
                      const std::string& key_label, int query, int key);
// The ranking as CSV (rank,layer,head,weight), for the Model window's export.
std::string links_csv(const std::vector<HeadLink>& links);

}  // namespace attnlab::model
