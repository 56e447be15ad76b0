// Matrix files: .npy (float32/float64, C and Fortran order, header versions) and .csv, with
// byte-level error cases.
#include "engine/io/atomic_file.hpp"
#include "engine/io/matrix_io.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

// A .npy file written by hand from the format's definition (not by the engine's writer).
std::string npy(const std::string& descr, const std::string& fortran, const std::string& shape, const std::string& data,
                int major = 1) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const size_t len = dict.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += '\0';
    out += '\0';
  }
  return out + dict + data;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

const Matrix k2x3{{1, 2, 3}, {4, 5, 6}};

TEST(Npy, Float32AndFloat64InCAndFortranOrder) {
  EXPECT_EQ(parse_npy(npy("<f4", "False", "(2, 3)", raw<float>({1, 2, 3, 4, 5, 6})), "a"), k2x3);
  EXPECT_EQ(parse_npy(npy("<f8", "False", "(2, 3)", raw<double>({1, 2, 3, 4, 5, 6})), "a"), k2x3);
  EXPECT_EQ(parse_npy(npy("<f4", "True", "(2, 3)", raw<float>({1, 4, 2, 5, 3, 6})), "a"), k2x3);
  EXPECT_EQ(parse_npy(npy("<f8", "True", "(2, 3)", raw<double>({1, 4, 2, 5, 3, 6})), "a"), k2x3);
  // Header versions 2.0 and 3.0 carry a four-byte header length.
  EXPECT_EQ(parse_npy(npy("<f4", "False", "(2, 3)", raw<float>({1, 2, 3, 4, 5, 6}), 2), "a"), k2x3);
  EXPECT_EQ(parse_npy(npy("<f8", "True", "(2, 3)", raw<double>({1, 4, 2, 5, 3, 6}), 3), "a"), k2x3);
  // A single row and a single column.
  EXPECT_EQ(parse_npy(npy("<f4", "False", "(1, 3)", raw<float>({7, 8, 9})), "a"), (Matrix{{7, 8, 9}}));
  EXPECT_EQ(parse_npy(npy("<f4", "True", "(3, 1)", raw<float>({7, 8, 9})), "a"), (Matrix{{7}, {8}, {9}}));
  // Float64 values are rounded to the nearest float32.
  EXPECT_EQ(parse_npy(npy("<f8", "False", "(1, 1)", raw<double>({0.1})), "a")(0, 0), 0.1f);
}

TEST(Npy, WriterRoundTripsBitIdentically) {
  std::mt19937 rng(4);
  const Matrix M = test::random_matrix(rng, 5, 7, 100.0f);
  const std::string bytes = npy_bytes(M);
  EXPECT_EQ((bytes.size() - M.size() * 4) % 64, 0u) << "data starts on a 64-byte boundary";
  const Matrix back = parse_npy(bytes, "x.npy");
  EXPECT_EQ(std::memcmp(back.data(), M.data(), static_cast<size_t>(M.size()) * 4), 0);
}

TEST(Npy, BadFilesNameTheFileAndTheProblem) {
  const std::string f4 = raw<float>({1, 2, 3, 4, 5, 6});
  const test::RefusalCases cases{
      {npy("<i4", "False", "(2, 3)", f4), "dtype '<i4' is not supported"},
      {npy("<f2", "False", "(2, 3)", f4), "dtype '<f2' is not supported"},
      {npy(">f4", "False", "(2, 3)", f4), "dtype '>f4' is not supported"},
      {npy("<c8", "False", "(2, 3)", f4), "dtype '<c8'"},
      {npy("<f4", "False", "(6,)", f4), "1-D"},
      {npy("<f4", "False", "(1, 2, 3)", f4), "3-D"},
      {npy("<f4", "False", "()", f4), "0-D"},
      {npy("<f4", "False", "(0, 3)", ""), "empty"},
      {npy("<f4", "False", "(2, 3)", f4.substr(0, 20)), "promises 2×3 values (24 bytes) but only 20 bytes follow"},
      {npy("<f8", "False", "(2, 3)", f4), "(48 bytes) but only 24"},
      {npy("<f4", "False", "(999999999999, 999999999999)", f4), "q.npy: "},
      {npy("<f4", "Maybe", "(2, 3)", f4), "fortran_order"},
      {npy("<f4", "False", "[2, 3]", f4), "shape"},
      {npy("<f4", "False", "(2, x)", f4), "shape"},
      {npy("<f4", "False", "(2, 3)", raw<float>({1, 2, std::numeric_limits<float>::quiet_NaN(), 4, 5, 6})),
       "entry [0][2] is NaN"},
      {npy("<f4", "False", "(3, 2)", raw<float>({1, 2, 3, 4, -std::numeric_limits<float>::infinity(), 6})),
       "entry [2][0] is infinite"},
      {npy("<f8", "False", "(1, 2)", raw<double>({1, 1e300})), "entry [0][1] is outside the float32 range"},
      {npy("<f4", "True", "(2, 3)", raw<float>({1, 2, 3, std::numeric_limits<float>::infinity(), 5, 6})),
       "entry [1][1] is infinite"},
      {"PK\x03\x04 not numpy at all", "not a .npy file"},
      {"", "not a .npy file"},
      {std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18), "truncated .npy header"},
      {std::string("\x93NUMPY\x09\x00\x10\x00", 10) + std::string(16, ' '), "unsupported .npy format version 9"},
      {std::string("\x93NUMPY\x01\x00\x08\x00", 10) + "garbage\n", "bad .npy header"},
      {std::string("\x93NUMPY\x01\x00\x0a\x00", 10) + "{'a': 1}\n" + " ", "no 'descr' field"},
  };
  test::expect_each_refused(cases, "q.npy", [](const std::string& bytes) { parse_npy(bytes, "q.npy"); });
  // The same sentences from a file, which load_matrix reads header first and its data in place.
  const fs::path dir = fs::temp_directory_path() / "attnlab-npy-refusals-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "q.npy";
  test::expect_each_refused(cases, file.string(), [&file](const std::string& bytes) {
    write_file_atomic(file, bytes);
    load_matrix(file);
  });
  fs::remove_all(dir);
}

// load_matrix gives what parse_npy gives for the same bytes from a regular file (read in place
// where the layout allows): random shapes, both dtypes, both orders, each header version.
TEST(LoadMatrix, NpyFromAFileEqualsTheParsedBytes) {
  const fs::path dir = fs::temp_directory_path() / "attnlab-npy-load-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 rng(12);
  for (int trial = 0; trial < 24; ++trial) {
    const int rows = test::uniform_int(rng, 1, 40), cols = test::uniform_int(rng, 1, 40);
    const Matrix M = test::random_matrix(rng, rows, cols, 10.0f);
    const bool f8 = trial % 2 == 1, fortran = trial % 4 >= 2;
    std::string data;
    for (int k = 0; k < rows * cols; ++k) {
      const float v = fortran ? M(k % rows, k / rows) : M(k / cols, k % cols);
      data += f8 ? raw<double>({v}) : raw<float>({v});
    }
    const std::string bytes = npy(f8 ? "<f8" : "<f4", fortran ? "True" : "False",
                                  "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")", data, 1 + trial % 3);
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_EQ(parse_npy(bytes, "m.npy"), M);
    write_file_atomic(dir / "m.npy", bytes);
    EXPECT_EQ(load_matrix(dir / "m.npy"), M);
  }
  fs::remove_all(dir);
}

// A pipe (the shell's <(python3 …)) has no size to read ahead of: load_matrix reads it whole.
TEST(LoadMatrix, NpyFromAPipe) {
#ifndef ATTNLAB_TEST_ON_DESKTOP
  GTEST_SKIP() << "the browser has no pipes: its files come from the picker";
#else
  const fs::path dir = fs::temp_directory_path() / "attnlab-npy-pipe-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "pipe.npy";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::mt19937 rng(13);
  const Matrix M = test::random_matrix(rng, 7, 5, 3.0f);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << npy_bytes(M); });
  const Matrix back = load_matrix(fifo);
  writer.join();
  EXPECT_EQ(back, M);
  fs::remove_all(dir);
#endif
}

TEST(Csv, ParsesCommonLayouts) {
  EXPECT_EQ(parse_csv("1,2,3\n4,5,6\n", "a"), k2x3);
  EXPECT_EQ(parse_csv("1,2,3\n4,5,6", "a"), k2x3);
  EXPECT_EQ(parse_csv("1, 2, 3\r\n 4 ,5,\t6\r\n\r\n", "a"), k2x3);
  EXPECT_EQ(parse_csv("\n1,2,3\n\n4,5,6\n\n", "a"), k2x3);
  EXPECT_EQ(parse_csv("1e0,+2,3.0\n4,50e-1,6\n", "a"), k2x3);
  EXPECT_EQ(parse_csv("-0.5\n", "a"), Matrix{{-0.5f}});
  EXPECT_EQ(parse_csv("\xEF\xBB\xBF" "1,2,3\r\n4,5,6\r\n", "a"), k2x3) << "a spreadsheet's byte order mark";
  std::mt19937 rng(8);
  const Matrix M = test::random_matrix(rng, 4, 3, 1e6f);
  const Matrix back = parse_csv(csv_text(M), "x.csv");
  EXPECT_EQ(std::memcmp(back.data(), M.data(), static_cast<size_t>(M.size()) * 4), 0) << "csv_text round-trips exactly";
}

TEST(Csv, BadFilesNameTheLineAndColumn) {
  const test::RefusalCases cases{
      {"1,2,3\n4,5\n", "line 2 has 2 numbers but the first row has 3"},
      {"1,2\n3,4,5\n", "line 2 has 3 numbers"},
      {"1,x,3\n", "line 1, column 2: 'x' is not a number"},
      {"1,2,3\n4,,6\n", "line 2, column 2: '' is not a number"},
      {"1,2,\n", "line 1, column 3"},
      {"a,b\n1,2\n", "line 1, column 1: 'a' is not a number"},
      {"1;2;3\n", "line 1, column 1"},
      {"1,nan\n", "line 1, column 2: 'nan' is not a finite"},
      {"1,inf\n", "line 1, column 2"},
      {"1,1e39\n", "line 1, column 2"},
      {"1,1e500\n", "line 1, column 2"},
      {"", "has no numbers"},
      {"\n\n  \n", "has no numbers"},
  };
  test::expect_each_refused(cases, "q.csv", [](const std::string& text) { parse_csv(text, "q.csv"); });
}

TEST(LoadMatrix, ByExtensionAndFileErrors) {
  const fs::path dir = fs::temp_directory_path() / "attnlab-matrix-io-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic(dir / "a.npy", npy("<f8", "True", "(2, 3)", raw<double>({1, 4, 2, 5, 3, 6})));
  write_file_atomic(dir / "a.CSV", "1,2,3\n4,5,6\n");
  write_file_atomic(dir / "a.txt", "1,2,3\n");
  EXPECT_EQ(load_matrix(dir / "a.npy"), k2x3);
  EXPECT_EQ(load_matrix(dir / "a.CSV"), k2x3);
  auto error = [](const fs::path& p) { return test::error_of([&] { load_matrix(p); }); };
  EXPECT_NE(error(dir / "a.txt").find("unknown matrix file type '.txt'"), std::string::npos);
  EXPECT_NE(error(dir / "missing.npy").find("missing.npy: no such file"), std::string::npos);
  fs::create_directories(dir / "folder.npy");
  EXPECT_NE(error(dir / "folder.npy").find("is a folder"), std::string::npos);
  fs::remove_all(dir);
}

TEST(AtomicFile, ReplacesWholeFilesAndLeavesNoTemporaries) {
  const fs::path dir = fs::temp_directory_path() / "attnlab-atomic-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic(dir / "f.txt", "first");
  write_file_atomic(dir / "f.txt", "second");
  EXPECT_EQ(read_file(dir / "f.txt"), "second");
  EXPECT_THROW(write_stream_atomic(dir / "g.txt", [](std::ostream& out) {
                 out << "partial";
                 throw InputError("stop");
               }),
               InputError);
  EXPECT_FALSE(fs::exists(dir / "g.txt"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  EXPECT_THROW(write_file_atomic(dir, "x"), InputError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnlab
