// Worksheets for a class (docs/CLI.md, "Exercises"): one page per student with the exercises of the
// chosen lessons, each student's own seed printed on it (so the student can check the sheet in the
// app, or with `attnlab exercise LESSON --seed S`), and an answer key. PDF is laid out for the
// figures' Cairo writer (A4, real text); LaTeX is written as a document that compiles on its own.
#pragma once

#include "engine/figures/figure.hpp"
#include "engine/lessons/exercise.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct WorksheetRequest {
  std::vector<std::string> lessons;  // built-in lessons, in the order they are printed
  long long students = 1;
  std::uint64_t first_seed = 1;      // student k (from 1) gets first_seed + k − 1
};

// One student's exercises: make_exercise(lesson, seed) for each lesson.
struct StudentSheet {
  std::uint64_t seed = 0;
  std::vector<Exercise> exercises;
};

// Checks the request (lessons built in, 1 … 1000 students, seeds that do not pass 2^64) and draws
// every sheet. Throws InputError naming the lesson or the number.
std::vector<StudentSheet> worksheet_sheets(const WorksheetRequest& request);

// The students' pages, A4 (595 × 842 points): a student's exercises on one page, their type made
// smaller to fit (to three quarters), else continued on a page of its own.
std::vector<Figure> layout_worksheet(const std::vector<StudentSheet>& sheets);
// The answer key's pages: per student, the seed and every part's answer, as many to a page as fit.
std::vector<Figure> layout_answer_key(const std::vector<StudentSheet>& sheets);

// The same as LaTeX documents (article class, amsmath; \newpage between students).
std::string worksheet_tex(const std::vector<StudentSheet>& sheets);
std::string answer_key_tex(const std::vector<StudentSheet>& sheets);

// Writes the worksheet to `out` and, where given, the key to `key`, each as PDF or LaTeX by its
// extension (.pdf, .tex), atomically, replacing what was there. Throws InputError naming --out or
// --key for another extension, or the file when it cannot be written.
void write_worksheet(const WorksheetRequest& request, const std::filesystem::path& out,
                     const std::optional<std::filesystem::path>& key);

}  // namespace attnlab
