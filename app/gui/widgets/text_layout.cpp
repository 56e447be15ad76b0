// Word wrapping that keeps numbers whole, text cut to a width, the size of numbers inside
// heatmap cells, labels placed beside their points, and a colour bar's range.
#include "gui/widgets/text_layout.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>

namespace attnlab::gui {

std::string shortened(std::string_view text, float max_width, const std::function<float(std::string_view)>& width_of,
                      bool keep_end, std::string_view mark) {
  if (width_of(text) <= max_width) return std::string(text);
  std::string t(text);
  const auto shown = [&] { return keep_end ? std::string(mark) + t : t + std::string(mark); };
  const auto continuation = [&](size_t k) { return (static_cast<unsigned char>(t[k]) & 0xC0) == 0x80; };
  while (!t.empty() && width_of(shown()) > max_width) {
    if (keep_end) {
      size_t k = 1;
      while (k < t.size() && continuation(k)) ++k;
      t.erase(0, k);
    } else {
      size_t k = t.size() - 1;
      while (k > 0 && continuation(k)) --k;
      t.erase(k);
    }
  }
  return shown();
}

namespace {

// A path wider than the line, as lines that fit: broken after its '/'s, and a part still too wide
// by whole UTF-8 characters (at least one a line).
std::vector<std::string> break_path(std::string_view path, float max_width, const std::function<float(std::string_view)>& width_of) {
  std::vector<std::string> lines;
  std::string line;
  const auto add = [&](std::string_view piece) {
    if (!line.empty() && width_of(line + std::string(piece)) > max_width) {
      lines.push_back(line);
      line.clear();
    }
    line += piece;
  };
  size_t k = 0;
  while (k < path.size()) {
    const size_t slash = path.find('/', k);
    const size_t end = slash == std::string_view::npos ? path.size() : slash + 1;
    const std::string_view part = path.substr(k, end - k);
    if (width_of(part) <= max_width) {
      add(part);
    } else {
      for (size_t c = 0; c < part.size();) {
        size_t n = 1;
        while (c + n < part.size() && (static_cast<unsigned char>(part[c + n]) & 0xC0) == 0x80) ++n;
        add(part.substr(c, n));
        c += n;
      }
    }
    k = end;
  }
  lines.push_back(line);
  return lines;
}

}  // namespace

std::vector<std::string> wrap_words(std::string_view text, float max_width,
                                    const std::function<float(std::string_view)>& width_of) {
  std::vector<std::string> lines;
  size_t para_start = 0;
  while (para_start <= text.size()) {
    const size_t nl = text.find('\n', para_start);
    const std::string_view para = text.substr(para_start, nl == std::string_view::npos ? std::string_view::npos : nl - para_start);
    // Greedy fill: each line takes words while the line (with the spaces between them) still fits.
    std::string line;
    bool line_has_word = false;
    size_t k = 0;
    const size_t lead = para.find_first_not_of(' ');
    if (lead != std::string_view::npos && lead > 0) {
      line.assign(para.substr(0, lead));  // keep indentation of a paragraph's first line
      k = lead;
    }
    while (k < para.size()) {
      const size_t word_end = std::min(para.find(' ', k), para.size());
      const std::string_view word = para.substr(k, word_end - k);
      if (!word.empty() && word.find('/') != std::string_view::npos && width_of(word) > max_width) {
        if (line_has_word) lines.push_back(line);
        std::vector<std::string> parts = break_path(word, max_width, width_of);
        lines.insert(lines.end(), parts.begin(), parts.end() - 1);
        line = std::move(parts.back());
        line_has_word = true;
      } else if (!word.empty()) {
        std::string candidate = line;
        if (line_has_word) candidate += ' ';
        candidate += word;
        if (line_has_word && width_of(candidate) > max_width) {
          lines.push_back(line);
          line.assign(word);
        } else {
          line = std::move(candidate);
        }
        line_has_word = true;
      }
      k = word_end + 1;
    }
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    para_start = nl + 1;
  }
  return lines;
}

CellText fit_cell_text(float cell_px, float max_size, float preferred_size, float min_size,
                       const std::function<float(int decimals)>& widest_at_unit) {
  // A margin on each side so that numbers never touch the cell borders, and a height cap so that a
  // big cell shows a big number rather than a cell filled edge to edge with ink.
  const float margin = std::max(2.0f, cell_px * 0.08f);
  const float by_height = cell_px * 0.5f;
  auto size_for = [&](int decimals) {
    const float w = widest_at_unit(decimals);
    const float by_width = w > 0 ? (cell_px - 2 * margin) / w : max_size;
    return std::min({max_size, by_height, by_width});
  };
  const float s3 = size_for(3);
  if (s3 >= std::max(min_size, std::min(preferred_size, max_size))) return CellText{3, s3};
  const float s2 = size_for(2);
  if (s2 >= min_size) return CellText{2, s2};
  return CellText{2, 0.0f};
}

float cell_px_for_text(float size, float widest_at_unit) {
  // fit_cell_text's rules turned around: half the cell tall, and the width inside the margins,
  // max(2, 8% of the cell) on each side (both cases covered).
  const float w = size * widest_at_unit;
  return std::max({2.0f * size, w + 4.0f, w / 0.84f});
}

namespace {

float overlap(const LabelBox& a, const LabelBox& b) {
  const float w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
  const float h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0.0f;
}

}  // namespace

std::vector<LabelBox> place_labels(const std::vector<std::pair<float, float>>& anchors, const std::vector<LabelBox>& sizes,
                                   float gap, const LabelBox& bounds) {
  std::vector<LabelBox> placed;
  placed.reserve(anchors.size());
  for (size_t k = 0; k < anchors.size() && k < sizes.size(); ++k) {
    const auto [ax, ay] = anchors[k];
    const float w = sizes[k].w, h = sizes[k].h;
    LabelBox best{ax + gap, ay - h, w, h};
    float best_cost = -1;
    for (int ring = 1; ring <= 3 && best_cost != 0; ++ring) {
      const float g = gap * static_cast<float>(ring * ring);
      // Right-above, right-below, left-above, left-below, above, below, right, left.
      const LabelBox candidates[] = {
          {ax + g, ay - h - g * 0.25f, w, h}, {ax + g, ay + g * 0.25f, w, h},
          {ax - g - w, ay - h - g * 0.25f, w, h}, {ax - g - w, ay + g * 0.25f, w, h},
          {ax - w * 0.5f, ay - h - g, w, h}, {ax - w * 0.5f, ay + g, w, h},
          {ax + g, ay - h * 0.5f, w, h}, {ax - g - w, ay - h * 0.5f, w, h},
      };
      for (const LabelBox& c : candidates) {
        float cost = 0;
        for (const LabelBox& p : placed) cost += overlap(c, p);
        // Area outside the bounds counts double: a label cut by the edge is worse than one touching another.
        cost += 2.0f * (w * h - overlap(c, bounds));
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best = c;
          if (cost == 0) break;
        }
      }
    }
    placed.push_back(best);
  }
  return placed;
}

ColorbarLabels colorbar_labels(double lo, double hi, bool diverging, float width, float gap,
                               const std::function<std::string(double, int)>& format,
                               const std::function<float(std::string_view)>& width_of) {
  double l = lo, r = hi;
  if (diverging) {
    r = std::max(std::abs(lo), std::abs(hi));
    l = -r;
  }
  const auto reads_as = [](const std::string& text, double v) {
    return std::abs(std::strtod(text.c_str(), nullptr) - v) <= 0.05 * std::abs(v);
  };
  ColorbarLabels out;
  out.zero = diverging;
  const float zero_w = width_of("0");
  float need = 0;
  for (int d = 2; d >= 0; --d) {
    const std::string tl = format(l, d), tr = format(r, d);
    if (d < 2 && !(reads_as(tl, l) && reads_as(tr, r))) break;
    out.left = tl;
    out.right = tr;
    need = width_of(tl) + width_of(tr) + (out.zero ? 2 * gap + zero_w : gap);
    if (need <= width) break;
  }
  if (need > width && out.zero) {
    out.zero = false;
    need -= gap + zero_w;
  }
  if (need > width) out.scale = std::max(0.6f, width / need);
  return out;
}

}  // namespace attnlab::gui
