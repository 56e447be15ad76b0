// Cairo drawing of a figure's display list: PNG and PDF bytes, and text measurement for the
// layout (DejaVu Sans through Cairo's toy font API, which asks fontconfig at run time).
#include "engine/figures/figure.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/bidi.hpp"

#include <cairo-pdf.h>
#include <cairo.h>

#include <cmath>
#include <memory>
#include <numbers>

// fontconfig (behind Cairo's toy font API) keeps its font caches until the process ends, by
// design. In the sanitizer build LeakSanitizer would report them in every program that draws a
// figure; this hook (read by the sanitizer runtime only) tells it they are not ours to free.
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }

namespace attnlab {

namespace {

constexpr const char* kFontFamily = "DejaVu Sans";

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;

// Unhinted metrics: text widths then do not depend on the output scale, so the layout measured
// once fits the PNG at any --width and the PDF alike.
void set_font(cairo_t* cr, double size, bool bold) {
  cairo_select_font_face(cr, kFontFamily, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_font_options_t* fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
  cairo_set_font_options(cr, fo);
  cairo_font_options_destroy(fo);
}

void set_color(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

void draw(cairo_t* cr, const Figure& f) {
  set_color(cr, Rgb{255, 255, 255});
  cairo_paint(cr);
  for (const FigureItem& item : f.items) {
    if (const auto* r = std::get_if<RectItem>(&item)) {
      set_color(cr, r->fill);
      cairo_rectangle(cr, r->x, r->y, r->w, r->h);
      cairo_fill(cr);
    } else if (const auto* h = std::get_if<HatchItem>(&item)) {
      cairo_save(cr);
      cairo_rectangle(cr, h->x, h->y, h->w, h->h);
      cairo_clip(cr);
      set_color(cr, h->background);
      cairo_paint(cr);
      set_color(cr, h->ink);
      cairo_set_line_width(cr, 0.9);
      // 45° lines every 4 pt, anchored to the page so neighbouring cells' hatching lines up.
      const double spacing = 4.0;
      const double start = std::floor((h->x - h->y - h->h) / spacing) * spacing;
      for (double c = start; c <= h->x + h->w - h->y; c += spacing) {
        // Line x − y = c, i.e. through (c + y, y).
        cairo_move_to(cr, c + h->y, h->y);
        cairo_line_to(cr, c + h->y + h->h, h->y + h->h);
      }
      cairo_stroke(cr);
      cairo_restore(cr);
    } else if (const auto* l = std::get_if<LineItem>(&item)) {
      set_color(cr, l->color);
      cairo_set_line_width(cr, l->width);
      cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
      cairo_move_to(cr, l->x0, l->y0);
      cairo_line_to(cr, l->x1, l->y1);
      cairo_stroke(cr);
    } else if (const auto* t = std::get_if<TextItem>(&item)) {
      cairo_save(cr);
      set_font(cr, t->size, t->bold);
      set_color(cr, t->color);
      // Cairo's toy text draws glyphs left to right: right-to-left text in drawing order.
      const std::string shown = visual_order(t->text);
      cairo_text_extents_t ext;
      cairo_text_extents(cr, shown.c_str(), &ext);
      const double shift = t->align == HAlign::Left ? 0 : t->align == HAlign::Center ? ext.x_advance / 2 : ext.x_advance;
      cairo_translate(cr, t->x, t->y);
      if (t->rotation_deg != 0) cairo_rotate(cr, -t->rotation_deg * std::numbers::pi / 180.0);
      cairo_move_to(cr, -shift, 0);
      cairo_show_text(cr, shown.c_str());
      cairo_restore(cr);
    }
  }
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check(cairo_status_t status, const char* what) {
  if (status != CAIRO_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed: " + cairo_status_to_string(status));
  }
}

}  // namespace

double text_width(std::string_view text, double size, bool bold) {
  SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1));
  ContextPtr cr(cairo_create(surface.get()));
  set_font(cr.get(), size, bold);
  cairo_text_extents_t ext;
  const std::string s = visual_order(text);  // as draw() shows it: Arabic's joined forms
  cairo_text_extents(cr.get(), s.c_str(), &ext);
  return ext.x_advance;
}

std::string render_png(const Figure& f, int width_px) {
  if (width_px <= 0) width_px = default_png_width(f);
  if (width_px > 20000) throw InputError("--width: at most 20000 pixels");
  const double scale = width_px / f.width;
  const int height_px = std::max(1, static_cast<int>(std::lround(f.height * scale)));
  SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, width_px, height_px));
  check(cairo_surface_status(surface.get()), "creating the image");
  ContextPtr cr(cairo_create(surface.get()));
  cairo_scale(cr.get(), scale, scale);
  draw(cr.get(), f);
  check(cairo_status(cr.get()), "drawing the figure");
  cairo_surface_flush(surface.get());
  std::string bytes;
  check(cairo_surface_write_to_png_stream(surface.get(), append_to_string, &bytes), "encoding the PNG");
  return bytes;
}

std::string render_pdf(const Figure& f) { return render_pdf_pages({f}); }

std::string render_pdf_pages(const std::vector<Figure>& pages) {
  if (pages.empty()) throw std::logic_error("render_pdf_pages: no page to draw");
  std::string bytes;
  {
    SurfacePtr surface(cairo_pdf_surface_create_for_stream(append_to_string, &bytes, pages[0].width, pages[0].height));
    check(cairo_surface_status(surface.get()), "creating the PDF");
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "Attention Lab");
    ContextPtr cr(cairo_create(surface.get()));
    for (size_t k = 0; k < pages.size(); ++k) {
      // Each page's size is set before anything is drawn on it.
      if (k > 0) cairo_pdf_surface_set_size(surface.get(), pages[k].width, pages[k].height);
      draw(cr.get(), pages[k]);
      cairo_show_page(cr.get());
    }
    check(cairo_status(cr.get()), "drawing the figure");
    cr.reset();
    cairo_surface_finish(surface.get());
    check(cairo_surface_status(surface.get()), "writing the PDF");
  }
  return bytes;
}

}  // namespace attnlab
