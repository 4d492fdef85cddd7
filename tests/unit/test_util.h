// Helpers shared by the unit tests: temporary directories and error-message matchers.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "base/error.h"

namespace kernsim::test {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("kernsim_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// Runs f, expects kernsim::Error of `kind` whose message contains every needle.
template <class F>
void expect_error(F&& f, ErrorKind kind, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "expected an error, none thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const auto& n : needles) EXPECT_THAT(e.what(), ::testing::HasSubstr(n));
  }
}

}  // namespace kernsim::test
