// The lock that says which desktop window owns the session (app/gui/persistence/instance_lock.hpp):
// the first holder wins, a second is refused while the first lives, and the lock is free again once
// its holder is gone. flock(2) locks belong to an open file, so two InstanceLocks in this one process
// conflict just as two processes do.
#include "gui/persistence/instance_lock.hpp"
#include "support/files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attnlab::gui {
namespace {

// A session folder of the test's own, not yet there.
class InstanceLockTest : public ::testing::Test {
protected:
  void TearDown() override { std::filesystem::remove_all(dir); }
  const std::filesystem::path dir = fresh_test_dir("attnlab_lock");
};

TEST_F(InstanceLockTest, FirstWindowOwnsTheSessionAndASecondDoesNot) {
  InstanceLock first;
  ASSERT_TRUE(first.acquire(dir));  // creates the folder too
  EXPECT_TRUE(first.held());
  EXPECT_TRUE(std::filesystem::exists(dir / "instance.lock"));
  InstanceLock second;
  EXPECT_FALSE(second.acquire(dir));
  EXPECT_FALSE(second.held());
}

TEST_F(InstanceLockTest, FreeAgainOnceTheOwnerIsGone) {
  {
    InstanceLock first;
    ASSERT_TRUE(first.acquire(dir));
  }
  InstanceLock next;
  EXPECT_TRUE(next.acquire(dir));
  EXPECT_TRUE(next.held());
}

TEST_F(InstanceLockTest, AnUnwritableFolderNeverRefusesTheSession) {
  std::ofstream(dir.string()) << "a file where the folder should be";
  InstanceLock lock;
  EXPECT_TRUE(lock.acquire(dir));  // the session's own save reports the real problem on exit
  EXPECT_FALSE(lock.held());
}

}  // namespace
}  // namespace attnlab::gui
