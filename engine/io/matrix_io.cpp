// .npy and .csv readers (strict, with byte-level checks) and writers.
#include "engine/io/matrix_io.hpp"

#include "engine/attention/attention.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <vector>

namespace attnlab {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

// Value of `key` in a Python dict literal header, as raw text up to the next top-level comma.
std::string header_field(const std::string& header, const std::string& key, std::string_view source) {
  const std::string quoted1 = "'" + key + "'", quoted2 = "\"" + key + "\"";
  size_t at = header.find(quoted1);
  if (at == std::string::npos) at = header.find(quoted2);
  if (at == std::string::npos) throw InputError(std::string(source) + ": bad .npy header: no '" + key + "' field");
  size_t colon = header.find(':', at + key.size() + 2);
  if (colon == std::string::npos) throw InputError(std::string(source) + ": bad .npy header near '" + key + "'");
  size_t start = colon + 1;
  int depth = 0;
  size_t end = start;
  for (; end < header.size(); ++end) {
    const char c = header[end];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if ((c == ',' || c == '}') && depth == 0) break;
  }
  return trim(std::string_view(header).substr(start, end - start));
}

// What a .npy header says: where the data starts, its item size and order, and its shape.
struct NpyHeader {
  size_t data_start = 0;
  size_t item = 0;  // 4 (float32) or 8 (float64)
  bool fortran = false;
  std::string shape_text;
  std::vector<unsigned long long> dims;
};

// The magic bytes, the version and the header's length: where the header starts and how long it
// is. `bytes` may be the preamble alone (read_npy reads it before the header).
void npy_preamble(std::string_view bytes, const std::string& src, size_t& header_start, size_t& header_len) {
  static constexpr char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, 6) != 0) {
    throw InputError(src + ": not a .npy file (the magic bytes \\x93NUMPY are missing)");
  }
  const auto major = static_cast<unsigned char>(bytes[6]);
  header_len = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw InputError(src + ": truncated .npy header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + static_cast<size_t>(i)]);
    header_start = 12;
  } else {
    throw InputError(src + ": unsupported .npy format version " + std::to_string(major));
  }
}

// The header's text; `bytes` must hold the file up to the header's end (or the whole file, if shorter).
std::string npy_header_text(std::string_view bytes, const std::string& src, size_t& header_end) {
  size_t header_start = 0, header_len = 0;
  npy_preamble(bytes, src, header_start, header_len);
  if (header_start + header_len > bytes.size()) {
    throw InputError(src + ": truncated .npy header (it promises " + std::to_string(header_len) + " bytes)");
  }
  header_end = header_start + header_len;
  return std::string(bytes.substr(header_start, header_len));
}

// "(3, 4)" → {3, 4}.
std::vector<unsigned long long> npy_shape(const std::string& shape_text, const std::string& src) {
  if (shape_text.size() < 2 || shape_text.front() != '(' || shape_text.back() != ')') {
    throw InputError(src + ": bad .npy header: shape is '" + shape_text + "'");
  }
  std::vector<unsigned long long> dims;
  std::string_view inner(shape_text);
  inner = inner.substr(1, inner.size() - 2);
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t comma = inner.find(',', pos);
    if (comma == std::string_view::npos) comma = inner.size();
    const std::string part = trim(inner.substr(pos, comma - pos));
    if (!part.empty()) {
      unsigned long long v = 0;
      const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      if (ec != std::errc() || ptr != part.data() + part.size()) {
        throw InputError(src + ": bad .npy header: shape is '" + shape_text + "'");
      }
      dims.push_back(v);
    }
    pos = comma + 1;
  }
  return dims;
}

NpyHeader parse_npy_header(std::string_view bytes, std::string_view source) {
  const std::string src(source);
  NpyHeader h;
  const std::string header = npy_header_text(bytes, src, h.data_start);
  if (header.find('{') == std::string::npos || header.find('}') == std::string::npos) {
    throw InputError(src + ": bad .npy header (not a dictionary)");
  }
  std::string descr = header_field(header, "descr", source);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
  if (descr == "<f4" || descr == "=f4") h.item = 4;
  else if (descr == "<f8" || descr == "=f8") h.item = 8;
  else throw InputError(src + ": dtype '" + descr + "' is not supported; save float32 or float64 (little-endian)");
  const std::string order = header_field(header, "fortran_order", source);
  if (order == "True") h.fortran = true;
  else if (order != "False") throw InputError(src + ": bad .npy header: fortran_order is '" + order + "'");
  h.shape_text = header_field(header, "shape", source);
  h.dims = npy_shape(h.shape_text, src);
  return h;
}

// Where read_npy takes its bytes from: a buffer already in memory (parse_npy), or a regular file,
// whose data is then read straight into the matrix: a 100 000 × 64 input is touched once, not in
// a file buffer, a copy of it and the matrix (fresh pages cost more than the reading).
class NpySource {
public:
  virtual ~NpySource() = default;
  virtual unsigned long long remaining() const = 0;
  // The next min(count, remaining()) bytes into `out`.
  virtual size_t read(char* out, size_t count) = 0;
  // The next min(count, remaining()) bytes, appended to `text`.
  void append(std::string& text, size_t count) {
    const size_t at = text.size();
    text.resize(at + static_cast<size_t>(std::min<unsigned long long>(count, remaining())));
    text.resize(at + read(text.data() + at, text.size() - at));
  }
};

class MemorySource : public NpySource {
public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  unsigned long long remaining() const override { return bytes_.size() - at_; }
  size_t read(char* out, size_t count) override {
    const size_t n = std::min(count, bytes_.size() - at_);
    if (n) std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }

private:
  std::string_view bytes_;
  size_t at_ = 0;
};

class FileSource : public NpySource {
public:
  FileSource(std::FILE* f, unsigned long long size, std::string src) : f_(f), left_(size), src_(std::move(src)) {}
  unsigned long long remaining() const override { return left_; }
  size_t read(char* out, size_t count) override {
    const size_t want = static_cast<size_t>(std::min<unsigned long long>(count, left_));
    const size_t n = std::fread(out, 1, want, f_);
    if (n != want) throw InputError(src_ + ": reading failed (the file ended early or could not be read)");
    left_ -= n;
    return n;
  }

private:
  std::FILE* f_;
  unsigned long long left_;
  std::string src_;
};

// Entry [r][c], whose value v is not a finite float32, as the InputError that names it.
[[noreturn]] void refuse_entry(const std::string& src, unsigned long long r, unsigned long long c, double v) {
  throw InputError(src + ": entry [" + std::to_string(r) + "][" + std::to_string(c) + "] is " +
                   (std::isnan(v) ? "NaN" : std::isinf(v) ? "infinite" : "outside the float32 range") +
                   "; every entry must be a finite number");
}

Matrix read_npy(NpySource& in, const std::string& src) {
  // The header first: the preamble (10 bytes, 12 from version 2 on), then the header it announces.
  std::string head;
  in.append(head, 10);
  if (head.size() == 10 && (head[6] == 2 || head[6] == 3)) in.append(head, 2);
  size_t header_start = 0, header_len = 0;
  npy_preamble(head, src, header_start, header_len);
  in.append(head, header_len);
  const NpyHeader h = parse_npy_header(head, src);
  if (h.dims.size() != 2) {
    throw InputError(src + ": the array is " + std::to_string(h.dims.size()) + "-D; a matrix must be 2-D (rows × columns)");
  }
  const unsigned long long rows = h.dims[0], cols = h.dims[1];
  if (rows == 0 || cols == 0) {
    throw InputError(src + ": the matrix is empty (" + std::to_string(rows) + "×" + std::to_string(cols) + ")");
  }
  const unsigned long long limit = std::numeric_limits<unsigned long long>::max() / 16;
  if (rows > limit / cols) throw InputError(src + ": the shape " + h.shape_text + " is absurdly large");
  const unsigned long long count = rows * cols;
  const unsigned long long need = count * h.item;
  const unsigned long long follow = in.remaining();  // what follows the header
  if (follow < need) {
    throw InputError(src + ": the header promises " + std::to_string(rows) + "×" + std::to_string(cols) + " values (" +
                     std::to_string(need) + " bytes) but only " + std::to_string(follow) + " bytes follow");
  }
  if (rows > static_cast<unsigned long long>(std::numeric_limits<int>::max()) ||
      cols > static_cast<unsigned long long>(std::numeric_limits<int>::max())) {
    throw InputError(src + ": the shape " + h.shape_text + " is absurdly large");
  }
  static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian machine");
  Matrix M(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  if (h.item == 4 && !h.fortran) {
    // float32 in C order is the matrix's own layout: read it in place, then check it in one pass.
    in.read(reinterpret_cast<char*>(M.data()), static_cast<size_t>(need));
    if (!std::isfinite(max_magnitude(M.data(), M.size()))) {
      for (unsigned long long k = 0; k < count; ++k) {
        if (!std::isfinite(M.data()[k])) refuse_entry(src, k / cols, k % cols, M.data()[k]);
      }
    }
    return M;
  }
  std::string data;
  in.append(data, static_cast<size_t>(need));
  for (unsigned long long k = 0; k < count; ++k) {
    double v;
    if (h.item == 4) {
      float f;
      std::memcpy(&f, data.data() + k * 4, 4);
      v = f;
    } else {
      std::memcpy(&v, data.data() + k * 8, 8);
    }
    const unsigned long long r = h.fortran ? k % rows : k / cols;
    const unsigned long long c = h.fortran ? k / rows : k % cols;
    if (!fits_float(v)) refuse_entry(src, r, c, v);
    M(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = static_cast<float>(v);
  }
  return M;
}

}  // namespace

Matrix parse_npy(std::string_view bytes, std::string_view source) {
  MemorySource in(bytes);
  return read_npy(in, std::string(source));
}

Matrix parse_csv(std::string_view text, std::string_view source) {
  const std::string src(source);
  std::vector<std::vector<float>> rows;
  size_t line_no = 0, pos = 0;
  size_t first_len = 0;
  // Spreadsheets often save "UTF-8 CSV" with a byte order mark; it is not part of the first number.
  if (text.starts_with("\xEF\xBB\xBF")) pos = 3;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string line = trim(text.substr(pos, eol - pos));
    ++line_no;
    pos = eol + 1;
    if (line.empty()) {
      if (eol >= text.size()) break;
      continue;
    }
    std::vector<float> row;
    size_t cpos = 0;
    size_t col = 0;
    while (true) {
      size_t comma = line.find(',', cpos);
      if (comma == std::string::npos) comma = line.size();
      const std::string cell = trim(std::string_view(line).substr(cpos, comma - cpos));
      ++col;
      double v = 0;
      const char* begin = cell.data();
      // A leading '+' is allowed ("+1.5"), but not before another sign: from_chars would read
      // "+-1" as −1.
      if (cell.size() > 1 && cell[0] == '+' && cell[1] != '-' && cell[1] != '+') ++begin;
      const auto [ptr, ec] = std::from_chars(begin, cell.data() + cell.size(), v);
      if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size()) {
        throw InputError(src + ": line " + std::to_string(line_no) + ", column " + std::to_string(col) + ": '" +
                         cell.substr(0, 24) + "' is not a number");
      }
      if (!fits_float(v)) {
        throw InputError(src + ": line " + std::to_string(line_no) + ", column " + std::to_string(col) + ": '" + cell +
                         "' is not a finite float32 number");
      }
      row.push_back(static_cast<float>(v));
      if (comma >= line.size()) break;
      cpos = comma + 1;
    }
    if (rows.empty()) first_len = row.size();
    else if (row.size() != first_len) {
      throw InputError(src + ": line " + std::to_string(line_no) + " has " + std::to_string(row.size()) +
                       " numbers but the first row has " + std::to_string(first_len) + "; every row needs the same length");
    }
    rows.push_back(std::move(row));
    if (eol >= text.size()) break;
  }
  if (rows.empty()) throw InputError(src + ": the CSV file has no numbers");
  Matrix M(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(first_len));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < first_len; ++c) M(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = rows[r][c];
  }
  return M;
}

Matrix load_matrix(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".npy" && ext != ".csv") {
    throw InputError(path.string() + ": unknown matrix file type '" + ext + "' (expected .npy or .csv)");
  }
  if (ext == ".npy") {
    // A regular file is read header first, its data straight into the matrix; anything else (a
    // pipe from the shell's <(…)) as a whole.
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!ec && fs::is_regular_file(status)) {
      const unsigned long long size = fs::file_size(path, ec);
      std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(ec ? nullptr : std::fopen(path.c_str(), "rb"), std::fclose);
      if (f) {
        FileSource in(f.get(), size, path.string());
        return read_npy(in, path.string());
      }
    }
  }
  const std::string bytes = read_file(path);
  return ext == ".npy" ? parse_npy(bytes, path.string()) : parse_csv(bytes, path.string());
}

std::string npy_bytes(const Matrix& M) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(M.rows()) + ", " +
                       std::to_string(M.cols()) + "), }";
  // Pad so that the data starts on a 64-byte boundary, ending the header with a newline.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  const size_t n = static_cast<size_t>(M.size()) * sizeof(float);
  const size_t at = out.size();
  out.resize(at + n);
  if (n) std::memcpy(out.data() + at, M.data(), n);
  return out;
}

std::string csv_text(const Matrix& M) {
  std::string out;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (j) out += ',';
      const float v = M(i, j);
      if (std::isnan(v)) out += "nan";
      else if (std::isinf(v)) out += v > 0 ? "inf" : "-inf";
      else out += float_json(v);
    }
    out += '\n';
  }
  return out;
}

}  // namespace attnlab
