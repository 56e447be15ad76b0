// Semantic SVG of a figure: a <rect> per cell (with its row, column and value), <text> for
// every label and number in DejaVu Sans, groups by role, so the file stays editable in Inkscape.
#include "engine/figures/figure.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace attnlab {

namespace {

// Lengths in points to the hundredth, trailing zeros dropped (they only make the file longer).
std::string pt(double v) { return trimmed_decimals(v, 2); }

std::string color(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string hatch_id(const HatchItem& h) { return "hatch-" + color(h.background).substr(1) + "-" + color(h.ink).substr(1); }

}  // namespace

std::string render_svg(const Figure& f) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" xml:space=\"preserve\" width=\"" << pt(f.width) << "pt\" height=\"" << pt(f.height)
      << "pt\" viewBox=\"0 0 " << pt(f.width) << ' ' << pt(f.height) << "\">\n";
  // One hatch pattern per colour pair, in page coordinates like the Cairo drawing.
  out << "<defs>\n";
  std::vector<std::string> patterns;
  for (const auto& item : f.items) {
    if (const auto* h = std::get_if<HatchItem>(&item)) {
      const std::string id = hatch_id(*h);
      if (std::find(patterns.begin(), patterns.end(), id) != patterns.end()) continue;
      patterns.push_back(id);
      out << "  <pattern id=\"" << id << "\" patternUnits=\"userSpaceOnUse\" width=\"4\" height=\"4\" patternTransform=\"rotate(-45)\">"
          << "<rect width=\"4\" height=\"4\" fill=\"" << color(h->background) << "\"/>"
          << "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" stroke=\"" << color(h->ink) << "\" stroke-width=\"0.9\"/></pattern>\n";
    }
  }
  out << "</defs>\n";
  out << "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" << pt(f.width) << "\" height=\"" << pt(f.height)
      << "\" fill=\"#ffffff\"/>\n";
  std::string indent = "";
  for (const auto& item : f.items) {
    if (const auto* r = std::get_if<RectItem>(&item)) {
      out << indent << "<rect class=\"" << r->role << "\" x=\"" << pt(r->x) << "\" y=\"" << pt(r->y) << "\" width=\"" << pt(r->w)
          << "\" height=\"" << pt(r->h) << "\" fill=\"" << color(r->fill) << '"';
      if (r->row >= 0) {
        // 9 significant digits: every digit a float32 holds, for whoever reads the figure's data back.
        out << " data-row=\"" << r->row << "\" data-col=\"" << r->col << "\" data-value=\"" << significant(r->value, 9) << '"';
      }
      out << "/>\n";
    } else if (const auto* h = std::get_if<HatchItem>(&item)) {
      out << indent << "<rect class=\"" << h->role << "\" x=\"" << pt(h->x) << "\" y=\"" << pt(h->y) << "\" width=\"" << pt(h->w)
          << "\" height=\"" << pt(h->h) << "\" fill=\"url(#" << hatch_id(*h) << ")\"";
      if (h->row >= 0) out << " data-row=\"" << h->row << "\" data-col=\"" << h->col << "\" data-blocked=\"true\"";
      out << "/>\n";
    } else if (const auto* l = std::get_if<LineItem>(&item)) {
      out << indent << "<line x1=\"" << pt(l->x0) << "\" y1=\"" << pt(l->y0) << "\" x2=\"" << pt(l->x1) << "\" y2=\"" << pt(l->y1)
          << "\" stroke=\"" << color(l->color) << "\" stroke-width=\"" << pt(l->width) << "\" stroke-linecap=\"round\"/>\n";
    } else if (const auto* t = std::get_if<TextItem>(&item)) {
      const char* anchor = t->align == HAlign::Left ? "start" : t->align == HAlign::Center ? "middle" : "end";
      out << indent << "<text class=\"" << t->role << "\" x=\"" << pt(t->x) << "\" y=\"" << pt(t->y)
          << "\" font-family=\"DejaVu Sans\" font-size=\"" << pt(t->size) << "\" text-anchor=\"" << anchor << "\" fill=\""
          << color(t->color) << '"';
      if (t->bold) out << " font-weight=\"bold\"";
      if (t->rotation_deg != 0) out << " transform=\"rotate(" << pt(-t->rotation_deg) << ' ' << pt(t->x) << ' ' << pt(t->y) << ")\"";
      out << '>' << escape(t->text) << "</text>\n";
    } else if (const auto* g = std::get_if<GroupBegin>(&item)) {
      out << indent << "<g id=\"" << escape(g->id) << "\">\n";
      indent += "  ";
    } else if (std::holds_alternative<GroupEnd>(item)) {
      if (indent.size() >= 2) indent.resize(indent.size() - 2);
      out << indent << "</g>\n";
    }
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace attnlab
