// Which window owns the session: the first desktop window takes an advisory lock on
// <config>/instance.lock and keeps it until it exits (the kernel drops it if the process dies). A
// window opened while another holds it (a second double-click in the file manager) works on its own
// document and leaves the session and recovery files alone, so two windows never overwrite each
// other's recovery file or offer each other's live work as "unsaved" (docs/INSTALL.md).
#pragma once

#include <filesystem>

namespace attnlab::gui {

class InstanceLock {
public:
  InstanceLock() = default;
  ~InstanceLock();
  InstanceLock(const InstanceLock&) = delete;
  InstanceLock& operator=(const InstanceLock&) = delete;

  // Takes the lock in `dir` (creating the folder and the file as needed) without waiting. Returns
  // true when this process now owns the session; false when another process holds it. A folder
  // that cannot be written is no reason to refuse the session: then it returns true unlocked.
  bool acquire(const std::filesystem::path& dir);
  bool held() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

}  // namespace attnlab::gui
