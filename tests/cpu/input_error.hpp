// For the CPU tests of the lab's input parsing: the message an InputError carries.
#pragma once

#include <string>

#include "tilegemm/bench.hpp"

namespace tilegemm::test_util {

// The InputError message of a call, "" when it does not throw.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const bench::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace tilegemm::test_util
