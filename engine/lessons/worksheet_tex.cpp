// Worksheets and their key as LaTeX: the same pages as the PDF's, for a teacher who edits them.
#include "engine/lessons/worksheet.hpp"

#include "engine/text/text_format.hpp"

#include <cmath>
#include <sstream>
#include <utility>

namespace attnlab {

namespace {

constexpr const char* kPreamble =
    "\\documentclass[a4paper,11pt]{article}\n"
    "\\usepackage[utf8]{inputenc}\n\\usepackage[T1]{fontenc}\n"
    "\\usepackage[margin=2cm]{geometry}\n\\usepackage{amsmath,amssymb}\n"
    "\\setlength{\\parindent}{0pt}\n\\pagestyle{empty}\n"
    "% Written by Attention Lab (attnlab worksheet).\n"
    "\\begin{document}\n";

// Text for LaTeX: its special characters escaped and the course's symbols as math.
std::string tex(const std::string& s) {
  static const std::pair<const char*, const char*> kSymbols[] = {
      {"√", "$\\surd$"},     {"÷", "$\\div$"},      {"·", "$\\cdot$"},     {"−", "$-$"},          {"∞", "$\\infty$"},
      {"×", "$\\times$"},    {"→", "$\\to$"},       {"≥", "$\\geq$"},      {"≤", "$\\leq$"},      {"Σ", "$\\Sigma$"},
      {"τ", "$\\tau$"},      {"θ", "$\\theta$"},    {"ℓ", "$\\ell$"},      {"ᵀ", "$^{\\top}$"},   {"⌊", "$\\lfloor$"},
      {"⌋", "$\\rfloor$"},   {"…", "\\ldots{}"},    {"–", "--"},           {"⁶", "$^6$"},         {"•", "$\\bullet$"},
      {"_", "\\_"}};
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    bool done = false;
    for (const auto& [from, to] : kSymbols) {
      const std::string_view f(from);
      if (s.compare(k, f.size(), f) == 0) {
        out += to;
        k += f.size() - 1;
        done = true;
        break;
      }
    }
    if (done) continue;
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '$': out += "\\$"; break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '%': out += "\\%"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      default: out += c;
    }
  }
  return out;
}

// A given matrix as a table: its name, then each row with its label.
void matrix_tex(std::ostringstream& out, const std::string& name, const MatrixD& M, const std::vector<std::string>& labels) {
  const int d = given_decimals(M);
  out << "\\begin{tabular}[t]{" << (labels.empty() ? "" : "l") << "|" << std::string(static_cast<size_t>(M.cols()), 'r') << "|}\n";
  out << "\\multicolumn{" << M.cols() + (labels.empty() ? 0 : 1) << "}{l}{$" << tex(name) << "$}\\\\\n";
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    if (!labels.empty()) out << "{\\scriptsize " << tex(labels[static_cast<size_t>(i)]) << "}";
    for (Eigen::Index j = 0; j < M.cols(); ++j) out << (j || !labels.empty() ? " & " : "") << tex(given_number(M(i, j), d));
    out << "\\\\\n";
  }
  out << "\\end{tabular}\\quad\n";
}

std::vector<std::string> labels_of(const std::vector<std::string>& tokens, Eigen::Index rows) {
  std::vector<std::string> out;
  for (Eigen::Index i = 0; i < rows; ++i) out.push_back(std::to_string(i) + " " + display_token(tokens, rows, i));
  return out;
}

// Boxes to write in, each under its label.
void boxes_tex(std::ostringstream& out, const std::vector<std::string>& labels, const char* width) {
  out << "\\par\\hspace*{1.5em}\\begin{tabular}{" << std::string(labels.size(), 'c') << "}\n";
  for (size_t k = 0; k < labels.size(); ++k) out << (k ? " & " : "") << "{\\scriptsize " << tex(labels[k]) << "}";
  out << "\\\\\n";
  for (size_t k = 0; k < labels.size(); ++k) out << (k ? " & " : "") << "\\framebox[" << width << "]{\\strut}";
  out << "\n\\end{tabular}\\par\\medskip\n";
}

void grid_tex(std::ostringstream& out, const Exercise& e) {
  const Eigen::Index n = e.given.Q.rows(), m = e.given.K.rows();
  out << "\\par\\hspace*{1.5em}\\begin{tabular}{r|";
  for (Eigen::Index j = 0; j < m; ++j) out << "c|";
  out << "}\n{\\scriptsize keys $\\to$}";
  for (Eigen::Index j = 0; j < m; ++j) out << " & {\\scriptsize " << j << "}";
  out << "\\\\\\cline{2-" << m + 1 << "}\n";
  for (Eigen::Index i = 0; i < n; ++i) {
    out << "{\\scriptsize " << tex(query_label(e, i)) << "}";
    for (Eigen::Index j = 0; j < m; ++j) out << " & \\rule{0pt}{1.1em}\\hspace{0.9em}";
    out << "\\\\\\cline{2-" << m + 1 << "}\n";
  }
  out << "\\end{tabular}\\par\\medskip\n";
}

void part_tex(std::ostringstream& out, const Exercise& e, const ExercisePart& p) {
  out << "\\textbf{(" << p.id << ")} " << tex(p.prompt) << "\n";
  const Eigen::Index m = e.given.K.rows();
  std::vector<std::string> labels;
  switch (p.kind) {
    case PartKind::OutputRow:
      for (Eigen::Index c = 0; c < e.given.V.cols(); ++c) labels.push_back("component " + std::to_string(c));
      return boxes_tex(out, labels, "1.6cm");
    case PartKind::ArgmaxKey: return boxes_tex(out, {"key"}, "1.4cm");
    case PartKind::Number: return boxes_tex(out, {"answer"}, "2.6cm");
    case PartKind::Blocked: return grid_tex(out, e);
    case PartKind::Matrix:
      for (long long i = 0; i < p.shape[0]; ++i) {
        labels.clear();
        for (long long j = 0; j < p.shape[1]; ++j) labels.push_back("[" + std::to_string(i) + "][" + std::to_string(j) + "]");
        boxes_tex(out, labels, "1.2cm");
      }
      return;
    default:
      for (Eigen::Index j = 0; j < m; ++j) labels.push_back(std::to_string(j) + " " + display_token(e.given.key_tokens, m, j));
      return boxes_tex(out, labels, "1.4cm");
  }
}

void exercise_tex(std::ostringstream& out, const Exercise& e) {
  out << "\\subsection*{" << tex(e.title) << "}\n";
  matrix_tex(out, "Q", e.given.Q.cast<double>(), labels_of(e.given.query_tokens, e.given.Q.rows()));
  matrix_tex(out, "K", e.given.K.cast<double>(), labels_of(e.given.key_tokens, e.given.K.rows()));
  if (shows_values(e)) matrix_tex(out, "V", e.given.V.cast<double>(), labels_of(e.given.key_tokens, e.given.V.rows()));
  for (const NamedMatrix& x : e.extra_matrices) matrix_tex(out, x.name, x.values, {});
  out << "\\par\\smallskip\n{\\small\\begin{itemize}\n";
  for (const std::string& f : given_facts(e)) out << "\\item " << tex(f) << "\n";
  out << "\\end{itemize}}\n";
  for (const ExercisePart& p : e.parts) part_tex(out, e, p);
}

}  // namespace

std::string worksheet_tex(const std::vector<StudentSheet>& sheets) {
  std::ostringstream out;
  out << kPreamble;
  for (size_t k = 0; k < sheets.size(); ++k) {
    const StudentSheet& sheet = sheets[k];
    const std::string seed = std::to_string(sheet.seed);
    if (k) out << "\\newpage\n";
    out << "{\\small Attention Lab $\\cdot$ worksheet}\\hfill\\fbox{\\Large\\textbf{Seed " << seed << "}}\\par\\bigskip\n"
        << "Name \\underline{\\hspace{7cm}}\\par\\medskip\n"
        << "{\\footnotesize " << tex("Rows and keys are counted from 0, as in the app's matrices. Work by hand: keep 4 decimals on "
                                     "the way and round only the answer; write −∞ for a logit the mask blocks.")
        << "}\\par\\hrulefill\n";
    for (const Exercise& e : sheet.exercises) exercise_tex(out, e);
    out << "\\vfill{\\footnotesize " << tex("Check your answers in Attention Lab: open the lesson, press Exercise and open seed " + seed +
                                            ", or run attnlab exercise LESSON --seed " + seed + " --answer answers.json.")
        << "}\n";
  }
  out << "\\end{document}\n";
  return out.str();
}

std::string answer_key_tex(const std::vector<StudentSheet>& sheets) {
  std::ostringstream out;
  out << kPreamble << "\\section*{Answer key}\n";
  for (const StudentSheet& sheet : sheets) {
    out << "\\paragraph{Seed " << sheet.seed << "}\n";
    for (const Exercise& e : sheet.exercises) {
      if (sheet.exercises.size() > 1) out << "\\emph{" << tex(e.title) << "}\n";
      out << "\\begin{itemize}\n";
      for (const ExercisePart& p : e.parts) {
        std::string answer = answer_text(p.expected, p.kind, p.decimals);
        if (p.kind == PartKind::ArgmaxKey) answer = key_label(e, std::llround(p.expected.values[0].value_or(0)));
        out << "\\item[(" << p.id << ")] " << tex(answer) << "\n";
      }
      out << "\\end{itemize}\n";
    }
  }
  out << "\\end{document}\n";
  return out.str();
}

}  // namespace attnlab
