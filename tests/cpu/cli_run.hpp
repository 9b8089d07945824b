// Runs the `tilegemm` binary from CPU tests: a shell word list in, exit status and both streams
// out. TILEGEMM_CLI_PATH (tests/CMakeLists.txt) names the binary.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#ifndef TILEGEMM_CLI_PATH
#error "TILEGEMM_CLI_PATH must name the tilegemm binary (tests/CMakeLists.txt defines it)"
#endif

namespace tilegemm::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A path in the test temp directory, unique to this process.
inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "tilegemm_cli." + std::to_string(::getpid()) + "." + name;
}

// CTest runs tests in parallel processes: every call gets its own capture files.
inline RunResult run_cli(const std::string& args) {
  static int calls = 0;
  const std::string stem = temp_path("run" + std::to_string(++calls));
  const std::string out_path = stem + ".out", err_path = stem + ".err";
  const std::string command = std::string("'") + TILEGEMM_CLI_PATH + "' " + args + " >'" +
                              out_path + "' 2>'" + err_path + "'";
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return r;
}

inline std::size_t count_lines(const std::string& text) {
  std::size_t n = 0;
  for (char ch : text) n += ch == '\n' ? 1 : 0;
  return n;
}

}  // namespace tilegemm::test
