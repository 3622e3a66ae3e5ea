// scripts/test on a machine without a GPU (CI's): it passes when the CPU tests pass, and says that
// the GPU tests did not run.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.hpp"

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

// cmake and nvidia-smi are stand-ins here: nothing is built, and no GPU is found on any machine.
TEST(ScriptsTest, SaysTheGpuTestsDidNotRun) {
  TempDir dir;
  namespace fs = std::filesystem;
  fs::create_directories(dir.file("bin"));
  fs::create_directories(dir.file("build"));
  write(dir.file("bin/cmake"), "#!/bin/sh\nexit 0\n");
  write(dir.file("bin/nvidia-smi"), "#!/bin/sh\nexit 9\n");
  for (const char* tool : {"bin/cmake", "bin/nvidia-smi"})
    fs::permissions(dir.file(tool), fs::perms::owner_all);
  write(dir.file("build/CTestTestfile.cmake"), "");
  const std::string cmd = "env PATH=" + dir.file("bin") + ":\"$PATH\" BUILD_DIR=" +
                          dir.file("build") + " JOBS=1 HGEMM_TEST_LABEL= " +
                          std::string(HGEMM_SOURCE_DIR) + "/scripts/test 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  const size_t note = out.find("the GPU tests were NOT run: no GPU on this machine");
  EXPECT_NE(note, std::string::npos) << out;
  EXPECT_EQ(out.find("running tests", note), std::string::npos) << out;
}
