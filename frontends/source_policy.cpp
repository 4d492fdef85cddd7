// The host-read rules of frontends/source_policy.h: a small scan of the preprocessor's view of
// the text (line continuations joined, comments dropped, string and character literals kept
// whole), not a preprocessor: what it cannot decide (a computed #include) is refused.
#include "frontends/source_policy.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/error.h"
#include "base/files.h"

namespace kernsim::frontends {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const fs::path& file, int line, const std::string& what) {
  throw Error(ErrorKind::Compile,
              file.string() + ":" + std::to_string(line) + ": " + what +
                  " (a kernel source may read only files in its own directory and the launch's include "
                  "directories: docs/limits.md, \"Host isolation\")");
}

// Lines of the text as the preprocessor sees them: backslash-newline joined, comments replaced
// by a space; each with the number of its first physical line.
std::vector<std::pair<int, std::string>> logical_lines(std::string_view t) {
  std::vector<std::pair<int, std::string>> out;
  std::string cur;
  int line = 1, start = 1;
  bool in_block = false;
  char quote = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '\\' && i + 1 < t.size() &&
        (t[i + 1] == '\n' || (t[i + 1] == '\r' && i + 2 < t.size() && t[i + 2] == '\n'))) {
      i += t[i + 1] == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    if (c == '\n') {
      ++line;
      if (in_block) continue;
      quote = 0;
      out.emplace_back(start, cur);
      cur.clear();
      start = line;
      continue;
    }
    if (in_block) {
      if (c == '*' && i + 1 < t.size() && t[i + 1] == '/') {
        in_block = false;
        ++i;
        cur += ' ';
      }
      continue;
    }
    if (quote) {
      cur += c;
      if (c == '\\' && i + 1 < t.size() && t[i + 1] != '\n')
        cur += t[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
      in_block = true;
      ++i;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    cur += c;
  }
  out.emplace_back(start, cur);
  return out;
}

// `.incbin` in any spelling the assembler would see: case-insensitive, and across the string
// pieces the compiler joins (`asm(".inc" "bin ...")`), so quotes and white space are dropped first.
void check_incbin(const fs::path& file, std::string_view text) {
  std::string squashed;
  std::vector<int> line_of;
  int line = 1;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (c == '"' || std::isspace(static_cast<unsigned char>(c))) continue;
    squashed += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    line_of.push_back(line);
  }
  const std::size_t at = squashed.find("incbin");
  if (at != std::string::npos) refuse(file, line_of[at], "`.incbin` is refused: it copies a host file into the kernel");
}

bool under(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

fs::path canonical_or_empty(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? fs::path() : c;
}

struct Scan {
  std::vector<fs::path> allowed;  // canonical directories
  std::set<fs::path> seen;

  bool allowed_file(const fs::path& canon) const {
    return std::any_of(allowed.begin(), allowed.end(), [&](const fs::path& d) { return under(canon, d); });
  }

  void file(const fs::path& path, std::string_view text, int depth) {
    check_incbin(path, text);
    for (const auto& [line, l] : logical_lines(text)) {
      std::size_t i = l.find_first_not_of(" \t\r\f\v");
      if (i == std::string::npos) continue;
      if (l.find("__has_embed") != std::string::npos)
        refuse(path, line, "`__has_embed` is refused: #embed reads host files");
      if (l[i] != '#') continue;
      i = l.find_first_not_of(" \t", i + 1);
      if (i == std::string::npos) continue;
      std::size_t j = i;
      while (j < l.size() && (std::isalnum(static_cast<unsigned char>(l[j])) || l[j] == '_')) ++j;
      const std::string directive = l.substr(i, j - i);
      if (directive == "embed") refuse(path, line, "`#embed` is refused: it reads a host file's bytes into the kernel");
      if (directive != "include" && directive != "include_next" && directive != "import") continue;
      std::size_t k = l.find_first_not_of(" \t", j);
      if (k == std::string::npos) continue;  // the compiler reports it
      const char open = l[k];
      const char close = open == '"' ? '"' : open == '<' ? '>' : 0;
      if (!close)
        refuse(path, line,
               "`#" + directive + "` of a computed name (`" + l.substr(k) +
                   "`) is refused: kernsim cannot tell which file it reads");
      const std::size_t e = l.find(close, k + 1);
      if (e == std::string::npos) continue;
      const fs::path name = l.substr(k + 1, e - k - 1);
      if (name.is_absolute())
        refuse(path, line, "`#" + directive + " " + l.substr(k, e - k + 1) + "` is refused: an absolute path");
      const bool dotdot = std::any_of(name.begin(), name.end(), [](const fs::path& part) { return part == ".."; });
      // the header kernsim would read: in the including file's directory (quoted), else an
      // allowed directory; a name found in none of them is a system header or an error clang names
      std::vector<fs::path> where;
      if (open == '"') where.push_back(path.parent_path());
      for (const auto& d : allowed) where.push_back(d);
      bool found = false;
      for (const auto& d : where) {
        std::error_code ec;
        const fs::path cand = d / name;
        if (!fs::is_regular_file(cand, ec)) continue;
        const fs::path canon = canonical_or_empty(cand);
        if (canon.empty() || !allowed_file(canon))
          refuse(path, line,
                 "`#" + directive + " " + l.substr(k, e - k + 1) + "` is refused: it resolves to " + canon.string() +
                     ", outside the allowed directories");
        if (seen.insert(canon).second && depth < 64) file(canon, read_file(canon, "included header"), depth + 1);
        found = true;
        break;
      }
      // a name with `..` that no allowed directory holds would be looked up from the system
      // directories, and `<../../etc/x>` leaves them
      if (!found && dotdot)
        refuse(path, line,
               "`#" + directive + " " + l.substr(k, e - k + 1) +
                   "` is refused: a path with `..` outside the allowed directories");
    }
  }
};

}  // namespace

void check_host_reads(const fs::path& source, std::string_view text, const std::vector<std::string>& flags,
                      std::string_view kind) {
  if (kind != "c") {
    check_incbin(source, text);
    return;
  }
  Scan s;
  const fs::path src = canonical_or_empty(fs::absolute(source));
  if (!src.empty()) s.allowed.push_back(src.parent_path());
  for (std::size_t i = 0; i < flags.size(); ++i) {
    std::string dir;
    if (flags[i] == "-I" && i + 1 < flags.size())
      dir = flags[++i];
    else if (flags[i].rfind("-I", 0) == 0 && flags[i].size() > 2)
      dir = flags[i].substr(2);
    if (dir.empty()) continue;
    const fs::path c = canonical_or_empty(fs::absolute(dir));
    if (!c.empty()) s.allowed.push_back(c);
  }
  s.seen.insert(src);
  s.file(source, text, 0);
}

}  // namespace kernsim::frontends
