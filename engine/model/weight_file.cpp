// Mapping a weight file read-only, and what every file's tensors share.
#include "engine/model/weight_file.hpp"

#include "engine/attention/matrix.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace attnlab::model {

std::int64_t TensorInfo::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

MappedFile::MappedFile(const std::filesystem::path& path) {
  const std::string src = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(src + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(src + ": not a regular file");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      throw InputError(src + ": cannot map the file into memory (" + std::strerror(errno) + ")");
    }
    map_ = static_cast<const std::byte*>(p);
    mapped_ = true;
  }
  ::close(fd);
}

MappedFile MappedFile::view(std::string_view bytes, std::shared_ptr<const void> owner) {
  MappedFile f;
  f.owner_ = std::move(owner);
  f.map_ = reinterpret_cast<const std::byte*>(bytes.data());
  f.size_ = bytes.size();
  return f;
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& o) noexcept : mapped_(o.mapped_), owner_(std::move(o.owner_)), map_(o.map_), size_(o.size_) {
  o.map_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    release();
    mapped_ = o.mapped_;
    owner_ = std::move(o.owner_);
    map_ = o.map_;
    size_ = o.size_;
    o.map_ = nullptr;
    o.size_ = 0;
    o.mapped_ = false;
  }
  return *this;
}

void MappedFile::release() noexcept {
  if (map_ && mapped_) ::munmap(const_cast<std::byte*>(map_), size_);
  map_ = nullptr;
  mapped_ = false;
  owner_.reset();
}

}  // namespace attnlab::model
