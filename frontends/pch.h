// A precompiled prelude for clang: what the compile command reads before the user's first line.
//
// For CUDA that is clang's __clang_cuda_runtime_wrapper.h, which the driver force-includes and
// which pulls in the CUDA toolkit's runtime headers, libstdc++'s <cmath> and friends: ~1.8 MB of
// preprocessed text and ~80% of an uncached compile (bench/compile.py --breakdown). It is parsed
// once into a precompiled header (clang's -emit-pch) in the cache directory and loaded with
// -include-pch afterwards; clang's AST for the source is then the one it would have parsed, so
// the PTX is unchanged (docs/compile.md says how that was checked).
//
// A PCH is keyed by the clang version and every argument of the command but the output and the
// source (target, CUDA path, include directories, the user's -I/-D/-std/--flag settings, and the
// working directory when there are such settings), so a setting that changes what the prelude
// means gets its own PCH. Clang checks on every load that no file the PCH read has changed since
// (system headers included: -fmodules-validate-system-headers); a PCH that fails is removed and
// the compile runs without one. Settings outside an allow-list (-I -D -U -std= -isystem -iquote
// -idirafter -W -w -O -f) never use a PCH; a new set of user settings builds its PCH at its second
// compile, so a sweep of one-off variants pays nothing extra. At most kMaxPchs are kept.
// KERNSIM_PCH=0 turns it off (every compile then runs the plain command).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kernsim::frontends {

struct PchRequest {
  std::vector<std::string> argv;        // clang and kernsim's own arguments, no output, no source
  std::vector<std::string> user_flags;  // the spec's and caller's settings, appended after argv
  std::string clang_version;            // the first line of `clang --version`
  std::string extension;                // of the prelude's main file: ".cu" or ".hip"
  std::string preamble;                 // the PCH's main file: "" or leading_system_includes()
};

// The `#include <...>` lines a source opens with (before anything but comments and blank lines),
// one a line; "" when it opens otherwise. A PCH of the prelude plus these (its main file is this
// text) serves a source whose own copies of the lines then include nothing: every header the
// PCH holds is skipped by its include guard or #pragma once, which clang checks when it builds
// the PCH (a header it would enter again, one without a guard it recognises, makes the PCH
// unusable). Such a PCH is built at the second compile that opens with the same lines.
std::string leading_system_includes(std::string_view source);

// The PCH for this command, building it when it is missing (and allowed); nullopt when the
// command should run without one.
std::optional<std::filesystem::path> prelude_pch(const PchRequest& request);

// The arguments that load `pch`, to add before the user's settings.
std::vector<std::string> pch_use_args(const std::filesystem::path& pch);

// After a compile with `pch` failed and the same compile without it succeeded: removes the PCH
// (a stale one is rebuilt next time; one clang rejects for any other reason is not used again).
void discard_pch(const std::filesystem::path& pch, const std::string& clang_stderr);

// Whether a dependency path belongs to a PCH's own files (its empty main file), which the
// compile cache must not record: they come and go with the PCH.
bool is_pch_file(const std::string& path);

}  // namespace kernsim::frontends
