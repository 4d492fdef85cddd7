// File helpers: reads with named errors, atomic writes, data and cache directory lookup.
#include "base/files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "base/error.h"

#ifndef KERNSIM_SOURCE_DIR
#define KERNSIM_SOURCE_DIR ""
#endif
#ifndef KERNSIM_INSTALL_DATA_DIR
#define KERNSIM_INSTALL_DATA_DIR ""
#endif

namespace kernsim {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path, std::string_view what) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(ErrorKind::Io, std::string(what) + " not found: " + path.string());
  if (fs::is_directory(path, ec))
    throw Error(ErrorKind::Io, std::string(what) + " is a directory, not a file: " + path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::Io, "cannot open " + std::string(what) + " " + path.string() + ": " +
                                   std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_file_range(const fs::path& path, std::uint64_t offset, std::uint64_t n, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::Io, "cannot open " + std::string(what) + " " + path.string() + ": " + std::strerror(errno));
  std::string out(n, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(n));
  out.resize(in ? n : static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  fs::path tmp = path;
  // unique per process and thread: two threads may write the same cache entry at once
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorKind::Io, "cannot write " + tmp.string() + ": " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error(ErrorKind::Io, "short write to " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
}

fs::path data_dir() {
  if (const char* env = std::getenv("KERNSIM_DATA_DIR"); env && *env) return fs::path(env);
  std::error_code ec;
  fs::path src(KERNSIM_SOURCE_DIR);
  if (!src.empty() && fs::exists(src / "calibration" / "devices", ec)) return src;
  fs::path inst(KERNSIM_INSTALL_DATA_DIR);
  if (!inst.empty() && fs::exists(inst / "calibration" / "devices", ec)) return inst;
  throw Error(ErrorKind::Io, "cannot find kernsim's data directory (calibration/devices); set KERNSIM_DATA_DIR");
}

fs::path cache_dir() {
  if (const char* env = std::getenv("KERNSIM_CACHE_DIR"); env && *env) return fs::path(env);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kernsim";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kernsim";
  return fs::temp_directory_path() / "kernsim-cache";
}

std::string line_column(std::string_view text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace kernsim
