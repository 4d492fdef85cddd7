// Small file helpers that fail with errors naming the path, never silently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kernsim {

// Whole file as bytes; throws Error(Io) naming the path and the reason.
std::string read_file(const std::filesystem::path& path, std::string_view what = "file");
// Bytes [offset, offset + n) of a file (fewer when the file is shorter); errors as read_file.
std::string read_file_range(const std::filesystem::path& path, std::uint64_t offset, std::uint64_t n,
                            std::string_view what = "file");
// Writes atomically (temp file + rename) so a concurrent reader never sees half a file.
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);
// The directory holding kernsim's data files (devices, include headers): the source tree's
// copy when run from a build tree, else the installed share/ path. Overridable with
// KERNSIM_DATA_DIR.
std::filesystem::path data_dir();
// The on-disk compile cache directory (KERNSIM_CACHE_DIR, else $XDG_CACHE_HOME/kernsim,
// else ~/.cache/kernsim).
std::filesystem::path cache_dir();
// "LINE:COLUMN" (both from 1) of a byte offset in a text, for parse errors that report offsets.
std::string line_column(std::string_view text, std::size_t byte);

}  // namespace kernsim
