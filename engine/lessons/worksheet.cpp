// Worksheets laid out for print: a page per student (the givens as small tables, each part's prompt
// and boxes to write in, the seed at the top) and the answer key, drawn by the figures' Cairo writer.
#include "engine/lessons/worksheet.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr double kPageW = 595, kPageH = 842;  // A4 in points
constexpr double kSheetMargin = 42;
constexpr double kSheetFooter = 40;  // the space kept at the bottom of a page for its footer
const Rgb kSheetInk{33, 33, 33};
const Rgb kSheetMuted{100, 100, 100};
const Rgb kSheetAccent{25, 90, 160};
const Rgb kSheetRule{190, 190, 190};
const Rgb kSheetBox{110, 110, 110};
const Rgb kSheetShade{243, 245, 248};

// Pages being laid out top to bottom at a scale of the type and boxes (margins stay). With
// `breaks` off, one page grows as tall as its content (to measure it).
class Pages {
public:
  Pages(double scale, bool breaks) : s(scale), breaks_(breaks) { new_page(); }

  const double s;
  double y = kSheetMargin;
  std::vector<Figure> pages;

  double left() const { return kSheetMargin; }
  double right() const { return kPageW - kSheetMargin; }
  double bottom() const { return kPageH - kSheetFooter; }
  Figure& page() { return pages.back(); }

  void new_page() {
    Figure f;
    f.width = kPageW;
    f.height = kPageH;
    pages.push_back(std::move(f));
    y = kSheetMargin;
  }
  // Moves to a new page unless `h` more points fit on this one.
  void need(double h) {
    if (breaks_ && y + h > bottom() && y > kSheetMargin) new_page();
  }
  void text(double x, double baseline, const std::string& t, double size, Rgb color, bool bold = false,
            HAlign align = HAlign::Left) {
    TextItem item;
    item.x = x;
    item.y = baseline;
    item.text = t;
    item.size = size;
    item.color = color;
    item.bold = bold;
    item.align = align;
    item.role = "text";
    page().items.push_back(std::move(item));
  }
  void line(double x0, double y0, double x1, double y1, double width, Rgb color) {
    page().items.push_back(LineItem{x0, y0, x1, y1, width, color});
  }
  void box(double x, double top, double w, double h, Rgb color = kSheetBox) {
    line(x, top, x + w, top, 0.7, color);
    line(x + w, top, x + w, top + h, 0.7, color);
    line(x + w, top + h, x, top + h, 0.7, color);
    line(x, top + h, x, top, 0.7, color);
  }
  void shade(double x, double top, double w, double h) {
    RectItem r;
    r.x = x;
    r.y = top;
    r.w = w;
    r.h = h;
    r.fill = kSheetShade;
    r.role = "shade";
    page().items.push_back(r);
  }
  // Words of `t` flowed from x0 to x1 at `size` points, from the current y; the first line's
  // baseline one size below it. Breaks pages between lines.
  void wrap(const std::string& t, double x0, double x1, double size, Rgb color, bool bold = false) {
    const double pitch = size * 1.35, space = text_width(" ", size, bold);
    std::string line_text;
    double width = 0;
    const auto flush = [&] {
      need(pitch);
      text(x0, y + size, line_text, size, color, bold);
      y += pitch;
      line_text.clear();
      width = 0;
    };
    size_t pos = 0;
    while (pos <= t.size()) {
      size_t sp = t.find(' ', pos);
      if (sp == std::string::npos) sp = t.size();
      const std::string word = t.substr(pos, sp - pos);
      const double w = text_width(word, size, bold);
      if (!line_text.empty() && x0 + width + space + w > x1) flush();
      if (!line_text.empty()) {
        line_text += ' ';
        width += space;
      }
      line_text += word;
      width += w;
      pos = sp + 1;
    }
    if (!line_text.empty()) flush();
  }

private:
  bool breaks_;
};

// ---- The givens ----------------------------------------------------------------------------------

struct GivenMatrix {
  std::string name;
  MatrixD values;
  std::vector<std::string> labels;  // one per row ("0 t1"), or none
};

std::vector<GivenMatrix> given_matrices(const Exercise& e) {
  const auto labels = [&](const std::vector<std::string>& tokens, Eigen::Index rows) {
    std::vector<std::string> out;
    for (Eigen::Index i = 0; i < rows; ++i) out.push_back(std::to_string(i) + " " + display_token(tokens, rows, i));
    return out;
  };
  std::vector<GivenMatrix> out{{"Q", e.given.Q.cast<double>(), labels(e.given.query_tokens, e.given.Q.rows())},
                               {"K", e.given.K.cast<double>(), labels(e.given.key_tokens, e.given.K.rows())}};
  if (shows_values(e)) out.push_back({"V", e.given.V.cast<double>(), labels(e.given.key_tokens, e.given.V.rows())});
  for (const NamedMatrix& x : e.extra_matrices) out.push_back({x.name, x.values, {}});
  return out;
}

struct MatrixBox {
  double label_w = 0, cell_w = 0, width = 0, height = 0;
};

MatrixBox measure(const GivenMatrix& g, double s) {
  MatrixBox b;
  const int d = given_decimals(g.values);
  for (Eigen::Index k = 0; k < g.values.size(); ++k) {
    b.cell_w = std::max(b.cell_w, text_width(given_number(g.values.data()[k], d), 9.5 * s));
  }
  for (const std::string& l : g.labels) b.label_w = std::max(b.label_w, text_width(l, 8 * s));
  b.cell_w += 10 * s;
  b.width = (b.label_w > 0 ? b.label_w + 6 * s : 0) + b.cell_w * static_cast<double>(g.values.cols()) + 8 * s;
  b.height = 14 * s + 13 * s * static_cast<double>(g.values.rows());
  return b;
}

// One matrix at (x, top): its name, then each row with its label, between brackets.
void draw_matrix(Pages& p, const GivenMatrix& g, const MatrixBox& b, double x, double top) {
  const double s = p.s, row_h = 13 * s, grid_x = x + (b.label_w > 0 ? b.label_w + 6 * s : 0);
  const double y0 = top + 14 * s, grid_w = b.cell_w * static_cast<double>(g.values.cols());
  p.text(grid_x + grid_w / 2 + 2 * s, top + 10 * s, g.name, 10 * s, kSheetInk, true, HAlign::Center);
  const int d = given_decimals(g.values);
  for (Eigen::Index i = 0; i < g.values.rows(); ++i) {
    const double base = y0 + row_h * static_cast<double>(i) + 9.5 * s;
    if (i < static_cast<Eigen::Index>(g.labels.size())) p.text(x, base, g.labels[static_cast<size_t>(i)], 8 * s, kSheetMuted);
    for (Eigen::Index j = 0; j < g.values.cols(); ++j) {
      p.text(grid_x + b.cell_w * static_cast<double>(j + 1) - 4 * s, base, given_number(g.values(i, j), d), 9.5 * s, kSheetInk,
             false, HAlign::Right);
    }
  }
  const double bottom = y0 + row_h * static_cast<double>(g.values.rows()) + 2 * s, tick = 3 * s;
  for (const double bx : {grid_x, grid_x + grid_w + 4 * s}) {
    const double inward = bx == grid_x ? tick : -tick;
    p.line(bx, y0, bx, bottom, 0.8, kSheetInk);
    p.line(bx, y0, bx + inward, y0, 0.8, kSheetInk);
    p.line(bx, bottom, bx + inward, bottom, 0.8, kSheetInk);
  }
}

// The givens side by side, as many to a line as fit.
void draw_givens(Pages& p, const Exercise& e) {
  const std::vector<GivenMatrix> all = given_matrices(e);
  size_t k = 0;
  while (k < all.size()) {
    std::vector<std::pair<size_t, MatrixBox>> line;
    double x = p.left(), height = 0;
    for (; k < all.size(); ++k) {
      const MatrixBox b = measure(all[k], p.s);
      if (!line.empty() && x + b.width > p.right()) break;
      line.emplace_back(k, b);
      x += b.width + 22 * p.s;
      height = std::max(height, b.height);
    }
    p.need(height + 6 * p.s);
    x = p.left();
    for (const auto& [index, b] : line) {
      draw_matrix(p, all[index], b, x, p.y);
      x += b.width + 22 * p.s;
    }
    p.y += height + 8 * p.s;
  }
  for (const std::string& fact : given_facts(e)) {
    p.text(p.left() + 2 * p.s, p.y + 9 * p.s, "•", 9 * p.s, kSheetMuted);
    p.wrap(fact, p.left() + 12 * p.s, p.right(), 9 * p.s, kSheetMuted);
  }
}

// ---- The parts -----------------------------------------------------------------------------------

// A line of labelled boxes to write numbers in, wrapping onto more lines.
void draw_boxes(Pages& p, const std::vector<std::string>& labels, double box_w) {
  const double s = p.s, h = 19 * s, gap = 7 * s, pitch = h + 14 * s;
  double x = p.left() + 18 * s;
  p.need(pitch);
  for (const std::string& label : labels) {
    const double w = std::max(box_w, text_width(label, 7.5 * s) + 6 * s);
    if (x + w > p.right()) {
      x = p.left() + 18 * s;
      p.y += pitch;
      p.need(pitch);
    }
    p.text(x + w / 2, p.y + 8 * s, label, 7.5 * s, kSheetMuted, false, HAlign::Center);
    p.box(x, p.y + 11 * s, w, h);
    x += w + gap;
  }
  p.y += pitch + 4 * s;
}

// An n × m grid of cells to tick, with the queries' labels down the side and the keys' across.
void draw_grid(Pages& p, const Exercise& e) {
  const double s = p.s, cell = 15 * s;
  const Eigen::Index n = e.given.Q.rows(), m = e.given.K.rows();
  double label_w = 0;
  for (Eigen::Index i = 0; i < n; ++i) label_w = std::max(label_w, text_width(query_label(e, i), 8 * s));
  const double x0 = p.left() + 18 * s + label_w + 6 * s;
  p.need(cell * static_cast<double>(n + 1) + 8 * s);
  p.text(x0, p.y + 8 * s, "keys →", 7.5 * s, kSheetMuted);
  p.y += 11 * s;
  for (Eigen::Index j = 0; j < m; ++j) {
    p.text(x0 + cell * (static_cast<double>(j) + 0.5), p.y + 8 * s, std::to_string(j), 8 * s, kSheetMuted, false, HAlign::Center);
  }
  p.y += 11 * s;
  for (Eigen::Index i = 0; i < n; ++i) {
    p.text(x0 - 6 * s, p.y + cell * (static_cast<double>(i) + 0.7), query_label(e, i), 8 * s, kSheetMuted, false, HAlign::Right);
    for (Eigen::Index j = 0; j < m; ++j) p.box(x0 + cell * static_cast<double>(j), p.y + cell * static_cast<double>(i), cell, cell);
  }
  p.y += cell * static_cast<double>(n) + 10 * s;
}

void draw_answer_area(Pages& p, const Exercise& e, const ExercisePart& part) {
  const double s = p.s;
  const Eigen::Index m = e.given.K.rows();
  std::vector<std::string> labels;
  switch (part.kind) {
    case PartKind::ScoresRow:
    case PartKind::LogitsRow:
    case PartKind::WeightsRow:
      for (Eigen::Index j = 0; j < m; ++j) labels.push_back(std::to_string(j) + " " + display_token(e.given.key_tokens, m, j));
      return draw_boxes(p, labels, 46 * s);
    case PartKind::OutputRow:
      for (Eigen::Index c = 0; c < e.given.V.cols(); ++c) labels.push_back("component " + std::to_string(c));
      return draw_boxes(p, labels, 56 * s);
    case PartKind::ArgmaxKey: return draw_boxes(p, {"key"}, 46 * s);
    case PartKind::Number: return draw_boxes(p, {"answer"}, 80 * s);
    case PartKind::Blocked: return draw_grid(p, e);
    case PartKind::Matrix:
      for (long long i = 0; i < part.shape[0]; ++i) {
        labels.clear();
        for (long long j = 0; j < part.shape[1]; ++j) labels.push_back("[" + std::to_string(i) + "][" + std::to_string(j) + "]");
        draw_boxes(p, labels, 40 * s);
      }
      return;
  }
}

void draw_exercise_block(Pages& p, const Exercise& e) {
  const double s = p.s;
  p.need(60 * s);
  p.wrap(e.title, p.left(), p.right(), 12.5 * s, kSheetInk, true);
  p.y += 3 * s;
  draw_givens(p, e);
  p.y += 4 * s;
  for (const ExercisePart& part : e.parts) {
    p.need(48 * s);
    const double top = p.y;
    p.text(p.left(), top + 10 * s, "(" + part.id + ")", 10 * s, kSheetAccent, true);
    p.wrap(part.prompt, p.left() + 18 * s, p.right(), 10 * s, kSheetInk);
    p.y += 2 * s;
    draw_answer_area(p, e, part);
  }
}

void draw_student_header(Pages& p, const StudentSheet& sheet) {
  const double s = p.s;
  p.text(p.left(), p.y + 9, "Attention Lab · worksheet", 9, kSheetMuted);
  const std::string seed = "Seed " + std::to_string(sheet.seed);
  const double seed_w = text_width(seed, 15, true) + 16;
  p.box(p.right() - seed_w, p.y - 2, seed_w, 24, kSheetAccent);
  p.text(p.right() - 8, p.y + 15, seed, 15, kSheetAccent, true, HAlign::Right);
  p.y += 34;
  p.text(p.left(), p.y + 11, "Name", 11, kSheetInk);
  p.line(p.left() + 36, p.y + 13, p.left() + 260, p.y + 13, 0.6, kSheetBox);
  p.y += 22;
  p.wrap("Rows and keys are counted from 0, as in the app's matrices. Work by hand: keep 4 decimals on the way and round "
         "only the answer; write −∞ for a logit the mask blocks.",
         p.left(), p.right(), 8.5 * s, kSheetMuted);
  p.line(p.left(), p.y + 4, p.right(), p.y + 4, 0.6, kSheetRule);
  p.y += 12;
}

void draw_student_footer(Figure& page, const StudentSheet& sheet, int part, int parts) {
  const std::string seed = std::to_string(sheet.seed);
  const bool one = sheet.exercises.size() == 1;
  const std::string lesson = one ? sheet.exercises[0].lesson : "LESSON";
  const auto line = [&](double y, std::string text, HAlign align = HAlign::Left) {
    TextItem t;
    t.x = align == HAlign::Left ? kSheetMargin : kPageW - kSheetMargin;
    t.y = y;
    t.size = 8;
    t.color = kSheetMuted;
    t.align = align;
    t.role = "footer";
    t.text = std::move(text);
    page.items.push_back(std::move(t));
  };
  line(kPageH - 30, std::string("Check your answers in Attention Lab: open ") + (one ? "the lesson" : "each lesson") +
                        ", press Exercise and open seed " + seed + ";");
  line(kPageH - 19, "or run  attnlab exercise " + lesson + " --seed " + seed + " --answer answers.json");
  if (parts > 1) line(kPageH - 19, "seed " + seed + ", page " + std::to_string(part) + " of " + std::to_string(parts), HAlign::Right);
}

// Light lines to work on, from y to the foot of the page, when there is room for a few.
void draw_working_space(Pages& p) {
  const double top = p.y + 10, pitch = 20;
  if (p.bottom() - top < 3 * pitch) return;
  p.text(p.left(), top + 9, "Working", 9, kSheetMuted, true);
  for (double y = top + 14 + pitch; y < p.bottom() - 4; y += pitch) p.line(p.left(), y, p.right(), y, 0.4, Rgb{215, 215, 215});
}

// One student's pages at a scale, breaking pages where they fill.
std::vector<Figure> student_pages(const StudentSheet& sheet, double scale) {
  Pages p(scale, true);
  draw_student_header(p, sheet);
  for (size_t k = 0; k < sheet.exercises.size(); ++k) {
    if (k) p.y += 10 * scale;
    draw_exercise_block(p, sheet.exercises[k]);
  }
  draw_working_space(p);
  for (size_t k = 0; k < p.pages.size(); ++k) {
    draw_student_footer(p.pages[k], sheet, static_cast<int>(k + 1), static_cast<int>(p.pages.size()));
  }
  return std::move(p.pages);
}

// ---- The key -------------------------------------------------------------------------------------

// The key's answer to one part: its value as the grader expects it, a key with its token.
std::string key_answer(const Exercise& e, const ExercisePart& part) {
  if (part.kind == PartKind::ArgmaxKey) return key_label(e, std::llround(part.expected.values[0].value_or(0)));
  return answer_text(part.expected, part.kind, part.decimals);
}

// One student's answers between x0 and x1, from the current y.
void key_block(Pages& p, const StudentSheet& sheet, double x0, double x1) {
  p.text(x0, p.y + 11, "Seed " + std::to_string(sheet.seed), 11, kSheetAccent, true);
  p.y += 16;
  for (const Exercise& e : sheet.exercises) {
    if (sheet.exercises.size() > 1) p.wrap(e.title, x0 + 6, x1, 8, kSheetMuted, true);
    for (const ExercisePart& part : e.parts) {
      const std::string label = part_label(part);
      p.text(x0 + 6, p.y + 9, "(" + part.id + ")", 9, kSheetInk, true);
      p.wrap((label.empty() ? "" : label + ": ") + key_answer(e, part), x0 + 24, x1, 9, kSheetInk);
    }
  }
  p.y += 3;
  p.line(x0, p.y, x1, p.y, 0.5, kSheetRule);
  p.y += 7;
}

}  // namespace

std::vector<StudentSheet> worksheet_sheets(const WorksheetRequest& r) {
  if (r.lessons.empty()) throw InputError("LESSON: name at least one lesson (see `attnlab presets`)");
  if (r.students < 1 || r.students > 1000) {
    throw InputError("--students: " + std::to_string(r.students) + " is out of range; it must be between 1 and 1000");
  }
  if (r.first_seed > std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(r.students)) {
    throw InputError("--seed: " + std::to_string(r.first_seed) + " leaves no room for a seed per student");
  }
  std::vector<StudentSheet> sheets;
  for (long long k = 0; k < r.students; ++k) {
    StudentSheet sheet;
    sheet.seed = r.first_seed + static_cast<std::uint64_t>(k);
    for (const std::string& lesson : r.lessons) sheet.exercises.push_back(make_exercise(lesson, sheet.seed));
    sheets.push_back(std::move(sheet));
  }
  return sheets;
}

std::vector<Figure> layout_worksheet(const std::vector<StudentSheet>& sheets) {
  std::vector<Figure> out;
  for (const StudentSheet& sheet : sheets) {
    // The largest type that keeps the sheet on one page, down to three quarters; then more pages.
    std::vector<Figure> pages;
    for (const double scale : {1.0, 0.92, 0.84, 0.75}) {
      pages = student_pages(sheet, scale);
      if (pages.size() == 1) break;
    }
    for (Figure& f : pages) out.push_back(std::move(f));
  }
  return out;
}

std::vector<Figure> layout_answer_key(const std::vector<StudentSheet>& sheets) {
  Pages p(1, true);
  std::string lessons;
  for (const Exercise& e : sheets.front().exercises) lessons += (lessons.empty() ? "" : ", ") + e.lesson;
  p.text(p.left(), p.y + 14, "Answer key", 14, kSheetInk, true);
  p.y += 22;
  p.wrap("Attention Lab worksheet: " + lessons + "; seeds " + std::to_string(sheets.front().seed) + " to " +
             std::to_string(sheets.back().seed) + ". Each answer is the grader's, to the decimals asked (−∞: a blocked "
             "logit); the working of any part: attnlab exercise LESSON --seed S, or the lesson's Exercise in the app.",
         p.left(), p.right(), 9, kSheetMuted);
  p.y += 8;
  // Two columns, a student's answers never split between them.
  const double gap = 24, width = (p.right() - p.left() - gap) / 2;
  double top = p.y;
  int column = 0;
  for (const StudentSheet& sheet : sheets) {
    const double x0 = p.left() + column * (width + gap);
    Pages measure(1, false);
    key_block(measure, sheet, x0, x0 + width);
    if (p.y + (measure.y - kSheetMargin) > p.bottom()) {
      column = 1 - column;
      if (column == 0) {
        p.new_page();
        top = p.y;
      }
      p.y = top;
    }
    const double x = p.left() + column * (width + gap);
    key_block(p, sheet, x, x + width);
  }
  return std::move(p.pages);
}

void write_worksheet(const WorksheetRequest& request, const std::filesystem::path& out,
                     const std::optional<std::filesystem::path>& key) {
  const auto kind = [](const std::filesystem::path& path, const std::string& flag) {
    const std::string ext = path.extension().string();
    if (ext != ".pdf" && ext != ".tex") {
      throw InputError(flag + " " + path.string() + ": a worksheet is written as .pdf or .tex; name the file so");
    }
    return ext;
  };
  const std::string out_kind = kind(out, "--out");
  const std::string key_kind = key ? kind(*key, "--key") : "";
  if (key && std::filesystem::absolute(*key).lexically_normal() == std::filesystem::absolute(out).lexically_normal()) {
    throw InputError("--key " + key->string() + ": the key needs a file of its own, not the worksheet's");
  }
  const std::vector<StudentSheet> sheets = worksheet_sheets(request);
  // Both are made before either is written, so a failure leaves neither half-done.
  const std::string sheet_bytes = out_kind == ".pdf" ? render_pdf_pages(layout_worksheet(sheets)) : worksheet_tex(sheets);
  std::string key_bytes;
  if (key) key_bytes = key_kind == ".pdf" ? render_pdf_pages(layout_answer_key(sheets)) : answer_key_tex(sheets);
  write_file_atomic(out, sheet_bytes);
  if (key) write_file_atomic(*key, key_bytes);
}

}  // namespace attnlab
