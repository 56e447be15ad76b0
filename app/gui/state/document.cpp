// The document's names and sizes (document.hpp).
#include "gui/state/document.hpp"

namespace attnlab::gui {

const char* which_name(Which w) {
  switch (w) {
    case Which::Q: return "Q";
    case Which::K: return "K";
    case Which::V: return "V";
  }
  return "";
}

const char* dim_name(Dim d) {
  switch (d) {
    case Dim::N: return "n";
    case Dim::M: return "m";
    case Dim::Dk: return "d_k";
    case Dim::Dv: return "d_v";
  }
  return "";
}

int dim_value(const Document& d, Dim dim) {
  const Scenario& sc = d.scenario;
  switch (dim) {
    case Dim::N: return static_cast<int>(sc.Q.rows());
    case Dim::M: return static_cast<int>(sc.K.rows());
    case Dim::Dk: return static_cast<int>(sc.Q.cols());
    case Dim::Dv: return static_cast<int>(sc.V.cols());
  }
  return 0;
}

std::vector<std::string> query_labels(const Scenario& s) { return display_tokens(s.query_tokens, s.Q.rows()); }

std::vector<std::string> key_labels(const Scenario& s) { return display_tokens(s.key_tokens, s.K.rows()); }

}  // namespace attnlab::gui
