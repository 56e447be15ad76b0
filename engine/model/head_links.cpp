// Ranking every head by its weight from one query token to one key token (head_links.hpp).
#include "engine/model/head_links.hpp"

#include "engine/text/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <ostream>

namespace attnlab::model {

std::vector<HeadLink> rank_head_links(const ForwardTrace& trace, int query, int key) {
  std::vector<HeadLink> links;
  for (std::size_t l = 0; l < trace.heads.size(); ++l) {
    for (std::size_t h = 0; h < trace.heads[l].size(); ++h) {
      const CausalWeights& A = trace.heads[l][h].weights;
      if (query >= A.rows() || key >= A.cols()) throw std::logic_error("rank_head_links: the run did not keep this head's weights");
      links.push_back({static_cast<int>(l), static_cast<int>(h), static_cast<double>(A(query, key))});
    }
  }
  std::stable_sort(links.begin(), links.end(), [](const HeadLink& a, const HeadLink& b) { return a.weight > b.weight; });
  return links;
}

void check_link(int query, int key, int tokens, std::string_view what) {
  const std::string w = std::string(what) + " " + std::to_string(query) + "," + std::to_string(key);
  if (query < 0 || key < 0 || query >= tokens || key >= tokens) {
    throw InputError(w + ": the text has tokens 0 to " + std::to_string(tokens - 1) + "; give a query and a key among them");
  }
  if (key > query) {
    throw InputError(w + ": key " + std::to_string(key) + " comes after query " + std::to_string(query) +
                     "; a query sees only the keys up to itself (give the later token first)");
  }
}

std::pair<int, int> parse_link(std::string_view text, std::string_view what) {
  const auto refuse = [&] {
    return InputError(std::string(what) + " '" + one_line(text) + "': give two token positions from 0, a query and a key (e.g. 8,1)");
  };
  const auto number = [&](std::string_view item) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    int v = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 0) throw refuse();
    return v;
  };
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) throw refuse();
  // Either order: a query sees only the keys up to itself, so the later token is the query, as a
  // click on either cell of the Model window's pair takes them.
  const int a = number(text.substr(0, comma)), b = number(text.substr(comma + 1));
  return {std::max(a, b), std::min(a, b)};
}

void write_links_json(std::ostream& out, const std::vector<HeadLink>& links) {
  out << ",\n\"links\": [";
  for (std::size_t i = 0; i < links.size(); ++i) {
    out << (i ? ",\n " : "\n ") << "{\"layer\": " << links[i].layer << ", \"head\": " << links[i].head
        << ", \"weight\": " << float_json(static_cast<float>(links[i].weight)) << "}";
  }
  out << "]";
}

void write_links_text(std::ostream& out, const std::vector<HeadLink>& links, int top, const std::string& query_label,
                      const std::string& key_label, int query, int key) {
  const std::size_t shown = std::min(links.size(), static_cast<std::size_t>(std::max(0, top)));
  out << "\nHeads linking '" << query_label << "' (query " << query << ") to '" << key_label << "' (key " << key
      << "), by that weight (the top " << shown << " of " << links.size() << "):\n";
  for (std::size_t i = 0; i < shown; ++i) {
    out << "  L" << links[i].layer << "H" << links[i].head << "  " << fixed_decimals(links[i].weight, 4) << "\n";
  }
}

std::string links_csv(const std::vector<HeadLink>& links) {
  std::string s = "rank,layer,head,weight\n";
  for (std::size_t i = 0; i < links.size(); ++i) {
    s += std::to_string(i + 1) + "," + std::to_string(links[i].layer) + "," + std::to_string(links[i].head) + "," +
         float_json(static_cast<float>(links[i].weight)) + "\n";
  }
  return s;
}

}  // namespace attnlab::model
