// The lock that says which desktop window owns the session (app/gui/persistence/instance_lock.hpp):
// the first holder wins, a second is refused while the first lives, and the lock is free again once
// its holder is gone. flock(2) locks belong to an open file, so two InstanceLocks in this one process
// conflict just as two processes do.
#include "gui/persistence/instance_lock.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace attnlab::gui {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("attnlab_lock_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(InstanceLock, FirstWindowOwnsTheSessionAndASecondDoesNot) {
  const auto dir = fresh_dir("two");
  InstanceLock first;
  ASSERT_TRUE(first.acquire(dir));  // creates the folder too
  EXPECT_TRUE(first.held());
  EXPECT_TRUE(std::filesystem::exists(dir / "instance.lock"));
  InstanceLock second;
  EXPECT_FALSE(second.acquire(dir));
  EXPECT_FALSE(second.held());
  std::filesystem::remove_all(dir);
}

TEST(InstanceLock, FreeAgainOnceTheOwnerIsGone) {
  const auto dir = fresh_dir("again");
  {
    InstanceLock first;
    ASSERT_TRUE(first.acquire(dir));
  }
  InstanceLock next;
  EXPECT_TRUE(next.acquire(dir));
  EXPECT_TRUE(next.held());
  std::filesystem::remove_all(dir);
}

TEST(InstanceLock, AnUnwritableFolderNeverRefusesTheSession) {
  const auto dir = fresh_dir("file");
  std::ofstream(dir.string()) << "a file where the folder should be";
  InstanceLock lock;
  EXPECT_TRUE(lock.acquire(dir));  // the session's own save reports the real problem on exit
  EXPECT_FALSE(lock.held());
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace attnlab::gui
