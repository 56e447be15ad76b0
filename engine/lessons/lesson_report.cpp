// The report of a lesson: its page's numbers (lesson_registry.hpp) with the lesson's name, title
// and text, and the report as text for a terminal.
//
// [SECTION] The report: lesson_view_numbers, lesson_report
// [SECTION] The report as text for a terminal (write_lesson_text)
#include "engine/lessons/lesson_report.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/lesson_text.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

namespace attnlab {

// [SECTION] The report: lesson_view_numbers, lesson_report

namespace {

// The view's numbers of `s`, computed on `backend`.
nlohmann::ordered_json view_numbers(const Scenario& s, const Result& r, Backend& backend, bool complete) {
  LessonDetail detail;
  detail.complete = complete;
  const LessonPage& page = lesson_page(s.lesson);
  return page.to_json(*page.compute(s, r, backend, detail), s, r, detail);
}

}  // namespace

nlohmann::ordered_json lesson_view_numbers(const Scenario& s, const Result& r, bool complete) {
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  return view_numbers(s, r, *cpu, complete);
}

nlohmann::ordered_json lesson_report(const std::string& name, const Scenario& s) {
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  const Result r = cpu->compute(s.problem());
  const nlohmann::ordered_json view = view_numbers(s, r, *cpu, true);
  nlohmann::ordered_json out = {{"name", name},
                                {"title", s.title},
                                {"view", lesson_view(s.lesson)},
                                {"description", s.description}};
  if (s.lesson.text.present()) {
    out["text"] = lesson_text_json(render_lesson_text(s, lesson_values(s, r), lesson_origin(s).edited));
  }
  for (auto& [k, v] : view.items()) out[k] = v;
  return out;
}

// [SECTION] The report as text for a terminal (write_lesson_text)

namespace {

using json = nlohmann::ordered_json;

std::string num(const json& v) {
  if (v.is_null()) return "nan";
  if (v.is_array()) {  // a short vector inside a table row: "(0.1235, -0.4560)"
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
    return s + ")";
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) return format_number(v.get<double>(), NumberUse::LessonReport);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

bool is_matrix(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& row : v) {
    if (!row.is_array() || row.empty()) return false;
    for (const auto& x : row) if (!x.is_number() && !x.is_null()) return false;
  }
  return true;
}

// A short list of numbers, printed in one table cell (the online softmax's partial output o).
bool is_short_vector(const json& v) {
  if (!v.is_array() || v.empty() || v.size() > 8) return false;
  for (const auto& x : v) if (!x.is_number() && !x.is_null()) return false;
  return true;
}

bool is_flat_object_list(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& o : v) {
    if (!o.is_object()) return false;
    for (const auto& [k, x] : o.items()) if (x.is_structured() && !is_short_vector(x)) return false;
  }
  return true;
}

void write_value(std::ostream& out, const std::string& key, const json& v, const std::string& indent);

void write_matrix(std::ostream& out, const json& M, const std::string& indent) {
  size_t width = 1;
  for (const auto& row : M) for (const auto& x : row) width = std::max(width, num(x).size());
  for (const auto& row : M) {
    out << indent;
    for (const auto& x : row) {
      const std::string s = num(x);
      out << std::string(width + 2 - s.size(), ' ') << s;
    }
    out << "\n";
  }
}

// A table cell: an absent value (an online-softmax row's first rescale) as "-", not "nan".
std::string cell(const json& v) { return v.is_null() ? "-" : num(v); }

void write_table(std::ostream& out, const json& list, const std::string& indent) {
  std::vector<std::string> cols;
  for (const auto& [k, x] : list[0].items()) cols.push_back(k);
  std::vector<size_t> w;
  for (const auto& c : cols) {
    size_t m = c.size();
    for (const auto& o : list) m = std::max(m, o.contains(c) ? cell(o.at(c)).size() : 0);
    w.push_back(m);
  }
  out << indent;
  for (size_t c = 0; c < cols.size(); ++c) out << cols[c] << std::string(w[c] - cols[c].size() + 2, ' ');
  out << "\n";
  for (const auto& o : list) {
    out << indent;
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string s = o.contains(cols[c]) ? cell(o.at(cols[c])) : "";
      out << s << std::string(w[c] - std::min(w[c], s.size()) + 2, ' ');
    }
    out << "\n";
  }
}

void write_value(std::ostream& out, const std::string& key, const json& v, const std::string& indent) {
  if (is_matrix(v)) {
    out << indent << key << ":\n";
    write_matrix(out, v, indent);
  } else if (is_flat_object_list(v)) {
    out << indent << key << ":\n";
    write_table(out, v, indent + "  ");
  } else if (v.is_array() && !v.empty() && v[0].is_string() && key != "tokens" && key != "query_tokens" &&
             key != "key_tokens") {
    out << indent << key << ":\n";
    for (const auto& line : v) out << indent << "  " << num(line) << "\n";
  } else if (v.is_array() && !v.empty() && v[0].is_array() && v[0].size() > 0 && v[0][0].is_string()) {
    out << indent << key << ":\n";
    for (const auto& block : v) {
      for (const auto& line : block) out << indent << "  " << num(line) << "\n";
      out << "\n";
    }
  } else if (v.is_array() && !v.empty() && (v[0].is_array() || v[0].is_object())) {
    out << indent << key << ":\n";
    for (size_t i = 0; i < v.size(); ++i) write_value(out, "[" + std::to_string(i + 1) + "]", v[i], indent + "  ");
  } else if (v.is_array()) {
    out << indent << key << ": ";
    for (size_t i = 0; i < v.size(); ++i) out << (i ? "  " : "") << num(v[i]);
    out << "\n";
  } else if (v.is_object()) {
    out << indent << key << ":\n";
    for (const auto& [k, x] : v.items()) write_value(out, k, x, indent + "  ");
  } else {
    out << indent << key << ": " << num(v) << "\n";
  }
}

// Characters on screen, not bytes: "−" and "•" are one column each.
size_t columns(const std::string& s) {
  size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Writes `text` wrapped at 96 columns for a terminal, `first` before its first line and `rest`
// before the others.
void wrap(std::ostream& out, const std::string& text, const std::string& first, const std::string& rest) {
  size_t col = 0;
  size_t pos = 0;
  out << first;
  col = columns(first);
  const size_t start = col;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    const std::string word = text.substr(pos, sp - pos);
    if (col + columns(word) > 96 && col > start) {
      out << "\n" << rest;
      col = columns(rest);
    } else if (col > start) {
      out << " ";
      ++col;
    }
    out << word;
    col += columns(word);
    pos = sp + 1;
  }
  out << "\n";
}

}  // namespace

void write_lesson_text(std::ostream& out, const json& report) {
  out << report.value("title", std::string()) << "  [" << report.value("name", std::string()) << ", view "
      << report.value("view", std::string()) << "]\n\n";
  if (report.contains("text") && report.at("text").is_object()) {
    const json& t = report.at("text");
    wrap(out, "Goal: " + t.value("goal", std::string()), "", "");
    auto list = [&](const char* heading, const char* key) {
      if (!t.contains(key)) return;
      out << heading << "\n";
      for (const auto& line : t.at(key)) wrap(out, line.get<std::string>(), "  • ", "    ");
    };
    list("Look at:", "look_at");
    list("Try:", "try");
    list("In the course text's original numbers:", "course_notes");
    if (t.value("edited", false)) {
      wrap(out, "These are not the lesson's original numbers: notes on the course text's own numbers are left out.", "", "");
    }
    wrap(out, "Source: " + t.value("source", std::string()), "", "");
    out << "\n";
  } else {
    const std::string desc = report.value("description", std::string());
    if (!desc.empty()) {
      wrap(out, desc, "", "");
      out << "\n";
    }
  }
  if (const auto write_view = find_lesson_page(report.value("view", std::string())).write_text) {
    write_view(out, report);
    return;
  }
  for (const auto& [k, v] : report.items()) {
    if (k == "name" || k == "title" || k == "view" || k == "description" || k == "text") continue;
    write_value(out, k, v, "");
  }
}

}  // namespace attnlab
