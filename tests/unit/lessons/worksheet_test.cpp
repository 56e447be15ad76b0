// Worksheets (engine/lessons/worksheet.hpp): each student's exercises are the ones the lesson and the
// printed seed give everywhere, every page carries its student's seed, the key's answers are the
// grader's own expected values (accepted by it) for each seed, and bad requests and file names are
// refused before anything is written.
#include "engine/lessons/exercise_grade.hpp"
#include "engine/lessons/worksheet.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <variant>

#include <unistd.h>

namespace attnlab {
namespace {

// Every text drawn on a page in the order drawn, joined by `separator` (a space joins a wrapped
// sentence's lines back into the sentence).
std::string page_text(const Figure& f, const char* separator = "\n") {
  std::string out;
  for (const FigureItem& item : f.items) {
    if (const auto* t = std::get_if<TextItem>(&item)) out += t->text + separator;
  }
  return out;
}

// The key's answer to a part as the key prints it (worksheet_tex's rule: a key with its token).
std::string printed_answer(const Exercise& e, const ExercisePart& p) {
  if (p.kind == PartKind::ArgmaxKey) return key_label(e, std::llround(p.expected.values[0].value_or(0)));
  return answer_text(p.expected, p.kind, p.decimals);
}

const WorksheetRequest kClass{{"three-tokens", "causal-six", "online-softmax"}, 30, 500};

TEST(Worksheet, EachStudentHasTheExercisesOfTheirSeed) {
  const std::vector<StudentSheet> sheets = worksheet_sheets(kClass);
  ASSERT_EQ(sheets.size(), 30u);
  for (size_t k = 0; k < sheets.size(); ++k) {
    EXPECT_EQ(sheets[k].seed, 500 + k);
    ASSERT_EQ(sheets[k].exercises.size(), 3u);
    for (size_t l = 0; l < 3; ++l) {
      const Exercise again = make_exercise(kClass.lessons[l], sheets[k].seed);
      const Exercise& e = sheets[k].exercises[l];
      EXPECT_EQ(e.lesson, kClass.lessons[l]);
      EXPECT_EQ(exercise_to_json(e), exercise_to_json(again));
      ASSERT_EQ(e.parts.size(), again.parts.size());
      for (size_t p = 0; p < e.parts.size(); ++p) EXPECT_EQ(e.parts[p].expected, again.parts[p].expected);
    }
  }
  // Two students' sheets differ somewhere: the seeds are not printed on the same numbers.
  EXPECT_NE(exercise_to_json(sheets[0].exercises[0]), exercise_to_json(sheets[1].exercises[0]));
}

TEST(Worksheet, EveryPageNamesItsStudentsSeed) {
  const std::vector<StudentSheet> sheets = worksheet_sheets(kClass);
  const std::vector<Figure> pages = layout_worksheet(sheets);
  ASSERT_GE(pages.size(), sheets.size());
  size_t student = 0;
  for (const Figure& page : pages) {
    // A sheet continued on a second page names the same seed (in its footer, "seed 512, page 2 of
    // 2"); the next student's names theirs.
    std::string text = page_text(page);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    while (student < sheets.size() && text.find("seed " + std::to_string(sheets[student].seed)) == std::string::npos) ++student;
    ASSERT_LT(student, sheets.size()) << "a page with no student's seed:\n" << text;
    EXPECT_DOUBLE_EQ(page.width, 595);
    EXPECT_DOUBLE_EQ(page.height, 842);
  }
  EXPECT_EQ(student, sheets.size() - 1) << "every student has a page, in order";
}

TEST(Worksheet, TheKeysAnswersAreTheGradersExpectedValues) {
  const std::vector<StudentSheet> sheets = worksheet_sheets(kClass);
  const std::string tex = answer_key_tex(sheets);
  std::string pdf_text;
  for (const Figure& page : layout_answer_key(sheets)) pdf_text += page_text(page, " ");
  for (const StudentSheet& sheet : sheets) {
    const std::string seed = "Seed " + std::to_string(sheet.seed);
    const size_t at = tex.find("\\paragraph{" + seed + "}");
    ASSERT_NE(at, std::string::npos) << seed;
    const size_t end = tex.find("\\paragraph{", at + 1);
    const std::string block = tex.substr(at, end == std::string::npos ? std::string::npos : end - at);
    EXPECT_NE(pdf_text.find(seed), std::string::npos) << seed;
    for (const Exercise& e : sheet.exercises) {
      const Exercise graded = make_exercise(e.lesson, sheet.seed);  // what the CLI and the app grade against
      for (size_t p = 0; p < e.parts.size(); ++p) {
        const ExercisePart& part = e.parts[p];
        EXPECT_TRUE(grade_part(graded.parts[p], part.expected).correct) << seed << " " << e.lesson << " (" << part.id << ")";
        // The tex escapes its symbols, so look for the answer where it has none; the PDF prints it as is.
        const std::string answer = printed_answer(e, part);
        EXPECT_NE(pdf_text.find(answer), std::string::npos) << seed << " " << e.lesson << " (" << part.id << "): " << answer;
        if (answer.find_first_of("\\{}$&#%^~<>_") == std::string::npos && answer.find("\xe2") == std::string::npos) {
          EXPECT_NE(block.find("\\item[(" + part.id + ")] " + answer + "\n"), std::string::npos) << seed << " " << answer;
        }
      }
    }
  }
}

TEST(Worksheet, RefusesBadRequestsNamingThem) {
  const auto refused = [](WorksheetRequest r, const std::string& named) {
    try {
      worksheet_sheets(r);
      ADD_FAILURE() << "accepted, expected a refusal naming " << named;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  refused({{}, 3, 1}, "LESSON");
  refused({{"three-tokens"}, 0, 1}, "--students");
  refused({{"three-tokens"}, 1001, 1}, "--students");
  refused({{"three-tokens"}, 2, UINT64_MAX - 1}, "--seed");
  refused({{"three-tokens", "no-such-lesson"}, 2, 1}, "no-such-lesson");
}

TEST(Worksheet, WritesTexByExtensionAndRefusesOtherNamesBeforeWriting) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attnlab_worksheet_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const WorksheetRequest r{{"three-tokens"}, 2, 7};
  EXPECT_THROW(write_worksheet(r, dir / "sheet.docx", std::nullopt), InputError);
  EXPECT_THROW(write_worksheet(r, dir / "sheet.tex", dir / "key.txt"), InputError);
  EXPECT_THROW(write_worksheet(r, dir / "sheet.tex", dir / "sheet.tex"), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "sheet.tex")) << "a refusal leaves no file behind";
  write_worksheet(r, dir / "sheet.tex", dir / "key.tex");
  std::ifstream sheet(dir / "sheet.tex"), key(dir / "key.tex");
  const std::string sheet_text((std::istreambuf_iterator<char>(sheet)), {}), key_text((std::istreambuf_iterator<char>(key)), {});
  EXPECT_EQ(sheet_text, worksheet_tex(worksheet_sheets(r)));
  EXPECT_EQ(key_text, answer_key_tex(worksheet_sheets(r)));
  EXPECT_NE(sheet_text.find("Seed 8"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attnlab
