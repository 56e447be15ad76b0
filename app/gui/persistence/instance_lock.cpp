// The session's owner lock: flock(2) on <config>/instance.lock, held for the window's lifetime.
#include "gui/persistence/instance_lock.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace attnlab::gui {

InstanceLock::~InstanceLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock; the file stays (removing it would race)
}

bool InstanceLock::acquire(const std::filesystem::path& dir) {
  if (fd_ >= 0) return true;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const int fd = ::open((dir / "instance.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return true;  // a read-only home: saving the session will say so on exit
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const bool busy = errno == EWOULDBLOCK;
    ::close(fd);
    return !busy;  // a file system without locks cannot tell: behave as the only window
  }
  fd_ = fd;
  return true;
}

}  // namespace attnlab::gui
