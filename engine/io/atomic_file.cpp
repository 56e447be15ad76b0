// Atomic writes through a temporary file and rename(2); whole-file reads with clear errors.
#include "engine/io/atomic_file.hpp"

#include "engine/attention/matrix.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace attnlab {

namespace fs = std::filesystem;

namespace {

fs::path temporary_name(const fs::path& path) {
  std::random_device rd;
  const auto tag = std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
  return path.parent_path() / ("." + path.filename().string() + ".tmp-" + tag);
}

}  // namespace

void write_stream_atomic(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError(path.string() + ": the folder " + dir.string() + " does not exist");
  }
  if (fs::is_directory(path, ec)) {
    throw InputError(path.string() + ": is a folder, not a file");
  }
  const fs::path tmp = temporary_name(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw InputError(path.string() + ": cannot write in " + dir.string() + " (" + std::strerror(errno) + ")");
    }
    try {
      write(out);
      out.flush();
    } catch (...) {
      out.close();
      fs::remove(tmp, ec);
      throw;
    }
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw InputError(path.string() + ": writing failed (disk full?)");
    }
  }
  // fsync so that the rename never exposes an empty file after a crash.
  const int fd = ::open(tmp.c_str(), O_RDONLY);
  if (fd >= 0) {
    const int rc = ::fsync(fd);
    const int saved = errno;
    ::close(fd);
    if (rc != 0) {
      fs::remove(tmp, ec);
      throw InputError(path.string() + ": writing failed (" + std::strerror(saved) + ")");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    fs::remove(tmp, ec);
    throw InputError(path.string() + ": cannot replace the file (" + std::strerror(saved) + ")");
  }
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  write_stream_atomic(path, [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

std::string read_file(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw InputError(path.string() + ": no such file");
  if (fs::is_directory(status)) throw InputError(path.string() + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot be read (" + std::strerror(errno) + ")");
  // A regular file in one read into a string of its size; anything else (a pipe) through a stream
  // that grows as it reads.
  if (fs::is_regular_file(status)) {
    const auto size = fs::file_size(path, ec);
    if (!ec) {
      std::string bytes(static_cast<size_t>(size), '\0');
      in.read(bytes.data(), static_cast<std::streamsize>(size));
      if (in.gcount() != static_cast<std::streamsize>(size)) {
        throw InputError(path.string() + ": reading failed (the file ended early or could not be read)");
      }
      return bytes;
    }
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path.string() + ": reading failed");
  return ss.str();
}

}  // namespace attnlab
