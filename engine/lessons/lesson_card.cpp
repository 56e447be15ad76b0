// Reference cards of the lessons, laid out word by word so numbers print bold and lines wrap.
#include "engine/lessons/lesson_card.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/lessons/presets.hpp"

#include <algorithm>

namespace attnlab {

namespace {

const Rgb kInk{33, 33, 33};
const Rgb kMuted{90, 90, 90};
const Rgb kAccent{25, 90, 160};
const Rgb kRule{190, 190, 190};

constexpr double kWidth = 420;   // A5 width in points
constexpr double kMargin = 32;
constexpr double kBody = 10.5;   // body text size, points

struct Flow {
  Figure& f;
  double y = kMargin;

  // Flows words from `spans` between x0 and the right margin; number spans print bold.
  void text(const std::vector<TextSpan>& spans, double x0, double size, Rgb color, bool bold = false) {
    const double right = kWidth - kMargin;
    const double pitch = size * 1.38;
    double x = x0;
    y += size;
    const double space = text_width(" ", size);
    for (const TextSpan& span : spans) {
      size_t pos = 0;
      const std::string& s = span.text;
      while (pos <= s.size()) {
        size_t sp = s.find(' ', pos);
        if (sp == std::string::npos) sp = s.size();
        const std::string word = s.substr(pos, sp - pos);
        const bool b = bold || span.number;
        if (!word.empty()) {
          const double w = text_width(word, size, b);
          if (x > x0 && x + w > right) {
            x = x0;
            y += pitch;
          }
          TextItem t;
          t.x = x;
          t.y = y;
          t.text = word;
          t.size = size;
          t.bold = b;
          t.color = span.number ? kAccent : color;
          t.role = span.number ? "value" : "text";
          f.items.push_back(t);
          x += w;
        }
        if (sp < s.size()) x += space;
        pos = sp + 1;
      }
    }
    y += pitch - size;
  }

  void text(const std::string& s, double x0, double size, Rgb color, bool bold = false) {
    text(std::vector<TextSpan>{{s, false}}, x0, size, color, bold);
  }

  void heading(const std::string& s) {
    y += 6;
    text(s, kMargin, kBody, kMuted, true);
  }

  void bullet(const std::vector<TextSpan>& spans) {
    TextItem dot;
    dot.x = kMargin + 4;
    dot.y = y + kBody;
    dot.text = "•";
    dot.size = kBody;
    dot.color = kInk;
    dot.role = "bullet";
    f.items.push_back(dot);
    text(spans, kMargin + 16, kBody, kInk);
    y += 2;
  }

  void rule() {
    y += 6;
    f.items.push_back(LineItem{kMargin, y, kWidth - kMargin, y, 0.6, kRule});
    y += 4;
  }
};

}  // namespace

Figure layout_lesson_card(const Scenario& s, const RenderedLesson& t, const std::string& name) {
  Figure f;
  f.width = kWidth;
  Flow flow{f};
  flow.text(s.title.empty() ? name : s.title, kMargin, 16, kInk, true);
  if (!t.source.empty()) flow.text("Source: " + t.source, kMargin, 9.5, kMuted);
  flow.rule();
  flow.text(t.goal.spans, kMargin, kBody, kInk);
  if (!t.try_steps.empty()) {
    flow.heading("Try");
    for (const auto& step : t.try_steps) flow.bullet(step.spans);
  }
  if (!t.keys.empty()) {
    flow.heading("Keys");
    double key_w = 0;
    for (const LessonKey& k : t.keys) key_w = std::max(key_w, text_width(k.key, kBody, true));
    key_w = std::min(key_w, 150.0);
    for (const LessonKey& k : t.keys) {
      const double top = flow.y;
      flow.text(k.key, kMargin + 4, kBody, kInk, true);
      const double after_key = flow.y;
      flow.y = top;
      flow.text(k.what, kMargin + 4 + key_w + 12, kBody, kInk);
      flow.y = std::max(flow.y, after_key) + 1;
    }
  }
  flow.rule();
  flow.text("Open it: Lessons menu, or  attnlab gui --preset " + name, kMargin, 8.5, kMuted);
  f.height = flow.y + kMargin * 0.75;
  return f;
}

RenderedLesson lesson_card_text(const Scenario& s) {
  return render_lesson_text(s, lesson_values(s, make_cpu_backend()->compute(s.problem())));
}

std::string lesson_card_pdf(const std::string& name) {
  const Scenario s = load_preset(name);
  if (!s.lesson.text.present()) throw InputError("--card: the lesson " + name + " has no lesson text to print");
  return render_pdf(layout_lesson_card(s, lesson_card_text(s), name));
}

void write_lesson_card(const std::string& name, const std::filesystem::path& path, const ExportOptions& o) {
  if (export_format_for(path) != ExportFormat::Pdf) {
    throw InputError(o.target_name + " " + path.string() + ": a reference card is written as PDF; name the file .pdf");
  }
  check_export_target(path, o);
  write_file_atomic(path, lesson_card_pdf(name));
}

}  // namespace attnlab
