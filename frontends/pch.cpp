// The precompiled prelude (pch.h): one directory per key under <cache>/pch holding the PCH's empty
// main file and the PCH; markers beside them say a key was seen once or is not to be used.
#include "frontends/pch.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <thread>

#include "base/files.h"
#include "base/hash.h"
#include "base/process.h"

namespace kernsim::frontends {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPchVersion = "kernsim-pch-1";
constexpr std::size_t kMaxPchs = 16;         // ~10 MB each for CUDA
constexpr std::size_t kMaxSeenMarks = 4096;  // one-off settings remembered for their second compile

fs::path pch_root() {
  return cache_dir() / "pch";
}

bool starts(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Settings that only change what the preprocessor and the front end see (and so what the PCH
// holds, which its key covers): anything else, such as -include, -x, -E, -Xclang or -mllvm, makes
// the compile run without a PCH.
bool flags_allowed(const std::vector<std::string>& flags) {
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    if (f == "-I" || f == "-D" || f == "-U" || f == "-isystem" || f == "-iquote" || f == "-idirafter") {
      if (++i >= flags.size()) return false;
      continue;
    }
    if (starts(f, "-I") || starts(f, "-D") || starts(f, "-U") || starts(f, "-std=") || starts(f, "-isystem") ||
        starts(f, "-iquote") || starts(f, "-idirafter") || starts(f, "-O") || f == "-w")
      continue;
    if (starts(f, "-W") && !starts(f, "-Wl,") && !starts(f, "-Wa,") && !starts(f, "-Wp,")) continue;
    if (starts(f, "-f") && f.find("pch") == std::string::npos && f.find("module") == std::string::npos &&
        f.find("syntax-only") == std::string::npos && f.find("validate") == std::string::npos)
      continue;
    return false;
  }
  return true;
}

std::string unique_suffix() {
  return std::to_string(::getpid()) + "_" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

// Creates an empty file unless one exists; never replaces it (its mtime is part of every PCH
// built from it).
bool ensure_empty_file(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) return ::close(fd) == 0;
  return errno == EEXIST;
}

// The same with `text` in it: written beside, then hard-linked into place (never replacing).
bool ensure_file(const fs::path& p, const std::string& text) {
  if (text.empty()) return ensure_empty_file(p);
  std::error_code ec;
  if (fs::exists(p, ec)) return true;
  const fs::path tmp = p.string() + "." + unique_suffix();
  try {
    write_file_atomic(tmp, text);
  } catch (const std::exception&) {
    return false;
  }
  const bool ok = ::link(tmp.c_str(), p.c_str()) == 0 || errno == EEXIST;
  fs::remove(tmp, ec);
  return ok;
}

// Whether loading `pch` and then reading its own main file again enters no header: clang's -H
// lists each header it enters, and one that its guard does not skip would be read twice.
bool preamble_is_skipped(const PchRequest& req, const fs::path& pch, const fs::path& main) {
  std::vector<std::string> argv = req.argv;
  for (const auto& a : pch_use_args(pch)) argv.push_back(a);
  argv.insert(argv.end(), req.user_flags.begin(), req.user_flags.end());
  for (const std::string& a : {std::string("-fsyntax-only"), std::string("-H"), main.string()}) argv.push_back(a);
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0) return false;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);)
    if (line.rfind(". ", 0) == 0) return false;
  return true;
}

// The first compile with a new set of user settings only leaves a mark; the second builds.
bool seen_before(const std::string& hash) {
  const fs::path dir = pch_root() / "seen";
  std::error_code ec;
  if (fs::exists(dir / hash, ec)) return true;
  fs::create_directories(dir, ec);
  std::size_t n = 0;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  if (n >= kMaxSeenMarks) fs::remove_all(dir, ec), fs::create_directories(dir, ec);
  ensure_empty_file(dir / hash);
  return false;
}

// Keeps the kMaxPchs most recently used PCHs (a use refreshes the PCH's mtime).
void prune() {
  std::vector<std::pair<fs::file_time_type, fs::path>> pchs;
  std::error_code ec;
  for (auto it = fs::directory_iterator(pch_root(), ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    const fs::path p = it->path() / "prelude.pch";
    if (fs::exists(p, e2)) pchs.push_back({fs::last_write_time(p, e2), it->path()});
  }
  if (pchs.size() <= kMaxPchs) return;
  std::sort(pchs.begin(), pchs.end());
  for (std::size_t i = 0; i + kMaxPchs < pchs.size(); ++i) fs::remove_all(pchs[i].second, ec);
}

}  // namespace

std::optional<fs::path> prelude_pch(const PchRequest& req) {
  if (const char* e = std::getenv("KERNSIM_PCH"); e && std::string(e) == "0") return std::nullopt;
  if (!flags_allowed(req.user_flags)) return std::nullopt;
  Sha256 key;
  key.field(kPchVersion).field(req.clang_version).field(req.extension).field(req.preamble);
  for (const auto& a : req.argv) key.field(a);
  key.field("--user--");
  for (const auto& f : req.user_flags) key.field(f);
  std::error_code ec;
  if (!req.user_flags.empty()) key.field(fs::current_path(ec).string());  // relative -I directories
  const std::string hash = key.hex().substr(0, 32);
  const fs::path dir = pch_root() / hash, pch = dir / "prelude.pch";
  if (fs::exists(dir / "unusable", ec)) return std::nullopt;
  if (fs::exists(pch, ec)) {
    fs::last_write_time(pch, fs::file_time_type::clock::now(), ec);
    return pch;
  }
  if ((!req.user_flags.empty() || !req.preamble.empty()) && !seen_before(hash)) return std::nullopt;
  fs::create_directories(dir, ec);
  const fs::path main = dir / ("prelude" + req.extension);
  if (ec || !ensure_file(main, req.preamble)) return std::nullopt;  // an unwritable cache only costs speed
  const fs::path tmp = dir / ("prelude.pch." + unique_suffix());
  std::vector<std::string> argv = req.argv;
  for (const char* a : {"-Xclang", "-fmodules-validate-system-headers"}) argv.push_back(a);
  argv.insert(argv.end(), req.user_flags.begin(), req.user_flags.end());
  for (const std::string& a :
       {std::string("-Xclang"), std::string("-emit-pch"), std::string("-o"), tmp.string(), main.string()})
    argv.push_back(a);
  const ProcessResult r = run_process(argv);
  if (r.exit_code != 0) {
    fs::remove(tmp, ec);
    try {
      write_file_atomic(dir / "unusable", "clang could not build the prelude PCH:\n" + r.err);
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  if (!req.preamble.empty() && !preamble_is_skipped(req, tmp, main)) {
    fs::remove(tmp, ec);
    try {
      write_file_atomic(dir / "unusable", "a header of the preamble has no include guard clang recognises\n");
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }
  fs::rename(tmp, pch, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return std::nullopt;
  }
  prune();
  return pch;
}

std::vector<std::string> pch_use_args(const fs::path& pch) {
  return {"-include-pch", pch.string(), "-Xclang", "-fmodules-validate-system-headers"};
}

void discard_pch(const fs::path& pch, const std::string& clang_stderr) {
  std::error_code ec;
  const bool stale = clang_stderr.find("since the precompiled header") != std::string::npos ||
                     clang_stderr.find(pch.string()) != std::string::npos;
  fs::remove(pch, ec);
  if (stale) return;  // rebuilt at the next compile
  try {
    write_file_atomic(pch.parent_path() / "unusable",
                      "the compile failed with the PCH and succeeded without:\n" + clang_stderr);
  } catch (const std::exception&) {
  }
}

std::string leading_system_includes(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto blank = [&](std::size_t k) { return k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n'); };
  for (;;) {
    while (blank(i)) ++i;
    if (s.substr(i, 2) == "//") {
      i = s.find('\n', i);
      if (i == std::string_view::npos) break;
      continue;
    }
    if (s.substr(i, 2) == "/*") {
      i = s.find("*/", i + 2);
      if (i == std::string_view::npos) return "";
      i += 2;
      continue;
    }
    if (i >= n || s[i] != '#') break;
    std::size_t j = i + 1;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
    if (s.substr(j, 7) != "include" || j + 7 >= n || (s[j + 7] != ' ' && s[j + 7] != '\t' && s[j + 7] != '<')) break;
    j += 7;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
    const std::size_t close = s.find('>', j);
    const std::size_t eol = s.find('\n', j);
    if (j >= n || s[j] != '<' || close == std::string_view::npos || (eol != std::string_view::npos && close > eol))
      break;
    std::size_t k = close + 1;  // nothing but blanks after the name (a trailing comment ends the preamble)
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) ++k;
    if (k < n && s[k] != '\n') break;
    out += "#include " + std::string(s.substr(j, close + 1 - j)) + "\n";
    i = k;
  }
  return out;
}

bool is_pch_file(const std::string& path) {
  return fs::path(path).parent_path().parent_path().lexically_normal() == pch_root().lexically_normal();
}

}  // namespace kernsim::frontends
