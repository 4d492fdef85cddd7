// The CUDA-on-AMD port's scan (frontends/cuda_port.h): line patterns over the user's code as the
// preprocessor leaves it, each pattern one warp32-* warning.
#include "frontends/cuda_port.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

namespace kernsim::frontends {
namespace fs = std::filesystem;

namespace {

struct Line {
  std::string file;
  int line = 0;
  std::string text;
};

std::string trim(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool under(const std::string& file, const std::string& dir) {
  return !dir.empty() && file.size() > dir.size() && file.compare(0, dir.size(), dir) == 0 && file[dir.size()] == '/';
}

// The user's lines of `clang -E` output: a line marker `# N "file" flags` says the next line is
// line N of file (flag 3: a system header).
std::vector<Line> user_lines(const std::string& pre, const fs::path& kernsim_headers) {
  const std::string mine = fs::weakly_canonical(kernsim_headers).string();
  std::vector<Line> out;
  std::istringstream in(pre);
  std::string s, file;
  int line = 0;
  bool skip = true;
  static const std::regex marker(R"re(^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$)re");
  while (std::getline(in, s)) {
    std::smatch m;
    if (s.size() > 2 && s[0] == '#' && s[1] == ' ' && std::regex_match(s, m, marker)) {
      line = std::atoi(m[1].str().c_str());
      file = m[2].str();
      const std::string flags = m[3].str();
      std::error_code ec;
      const bool special = file.empty() || file.front() == '<';
      const std::string canon = special ? file : fs::weakly_canonical(file, ec).string();
      skip = special || flags.find('3') != std::string::npos || under(canon, mine);
      continue;
    }
    if (!skip && !trim(s).empty()) out.push_back({file, line, s});
    ++line;
  }
  return out;
}

// The arguments of the call whose '(' is at `open`, split at top-level commas.
std::vector<std::string> call_args(const std::string& s, std::size_t open) {
  std::vector<std::string> args;
  int depth = 0;
  std::string cur;
  for (std::size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        args.push_back(trim(cur));
        return args;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      args.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  args.push_back(trim(cur));  // the call goes on past this line
  return args;
}

bool is_mask32(std::string a) {
  while (a.size() > 2 && a.front() == '(' && a.back() == ')') a = trim(a.substr(1, a.size() - 2));
  static const std::regex full32(R"(^(0[xX]0*[fF]{8}|4294967295|~0)[uU]?$|^\(\s*unsigned(\s+int)?\s*\)\s*-1$)");
  return std::regex_match(a, full32);
}

bool is_literal(std::string a, const char* value) {
  while (a.size() > 2 && a.front() == '(' && a.back() == ')') a = trim(a.substr(1, a.size() - 2));
  if (!a.empty() && (a.back() == 'u' || a.back() == 'U')) a.pop_back();
  return a == value;
}

}  // namespace

std::string port_warning_message(const std::string& name) {
  static const std::map<std::string, std::string> text = {
      {"warp32-mask",
       "a 32-lane mask (0xffffffff) in a warp function: on a 64-lane wave it names lanes 0-31 only, so __ballot_sync, "
       "__any_sync and __all_sync ignore lanes 32-63 (kernsim's shuffles ignore the mask: the whole wave takes part); "
       "pass __activemask() or a 64-bit mask"},
      {"warp32-lane-math",
       "a lane or warp index computed with 32 (% 32, & 31, / 32, >> 5): on a 64-lane wave lanes 32-63 become a second "
       "32-lane 'warp' of the same wave, whose shuffles, ballots and leaders see 64 lanes; use warpSize"},
      {"warp32-shuffle",
       "a shuffle written for 32 lanes (a reduction or scan from offset 16, or source lane 31): it combines lanes "
       "within "
       "32-lane halves of a 64-lane wave, so a value read from lane 0 (or 31) covers lanes 0-31 only; use warpSize / 2 "
       "and warpSize - 1"},
      {"warp32-ballot-width",
       "a ballot or active mask narrowed to 32 bits (the compiler's -Wshorten-64-to-32): on a 64-lane wave the votes "
       "of "
       "lanes 32-63 are dropped; keep masks in unsigned long long (or auto)"},
      {"warp32-warp-size", "a warp-size constant defined as 32: the wave is 64 lanes (warpSize is 64)"},
      {"warp32-shared-array",
       "a shared array of 32 elements: one per lane of a 32-lane warp, or one per warp of a 1024-thread block; on a "
       "64-lane wave a per-lane array needs 64 (a per-warp one is half used); size it with warpSize"},
  };
  auto it = text.find(name);
  return it == text.end() ? std::string() : it->second;
}

PortScan scan_cuda_port(const std::string& preprocessed, const fs::path& kernsim_headers) {
  PortScan scan;
  const std::vector<Line> lines = user_lines(preprocessed, kernsim_headers);
  std::set<std::tuple<std::string, std::string, int>> seen;
  auto warn = [&](const char* name, const Line& l) {
    if (!seen.insert({name, l.file, l.line}).second) return;
    scan.warnings.push_back({name, l.file, l.line, trim(l.text), port_warning_message(name)});
  };
  static const std::regex sync_call(
      R"(\b(__shfl_sync|__shfl_up_sync|__shfl_down_sync|__shfl_xor_sync|__ballot_sync|__any_sync|__all_sync|__uni_sync|__syncwarp|__match_any_sync|__match_all_sync|__reduce_\w+_sync)\s*\()");
  static const std::regex shfl_call(R"(\b__shfl(_up|_down|_xor)?(_sync)?\s*\()");
  static const std::regex mask_var(R"(\bmask\w*\s*=\s*\(?\s*(0[xX]0*[fF]{8}|4294967295|~0)[uU]?\b)", std::regex::icase);
  static const std::regex lane_ctx(R"(threadIdx|lane|tid|warp|blockDim)", std::regex::icase);
  static const std::regex lane32(R"((%\s*32|&\s*(31|0[xX]1[fF])|>>\s*5|/\s*32)\b(?![.\w]))");
  static const std::regex loop16(R"(\bfor\s*\([^;]*=\s*16\s*;[^;]*;[^)]*(/=\s*2|>>=\s*1|=\s*\w+\s*(/\s*2|>>\s*1))\b)");
  static const std::regex full32_token(R"((^|[^\w])(0[xX]0*[fF]{8}|4294967295)[uU]?(?![\w]))");
  static const std::regex asm_stmt(R"(\b(asm|__asm__|__asm)\b\s*(volatile|__volatile__)?\s*\()");
  static const std::regex define32(R"(^\s*#\s*define\s+(\w+)\s+\(?\s*32[uU]?\s*\)?\s*$)");
  static const std::regex const32(R"(\b(\w+)\s*=\s*32[uU]?\s*[;,}])");
  static const std::regex warp_size_name(R"(warp_?size|threads_?per_?warp|lanes_?per_?warp)", std::regex::icase);

  // names whose value flows from a lane or thread index, from a ballot, from a full 32-lane mask,
  // or from the constant 16 (assignments seen so far in the file, in order): the line-based
  // patterns above then also fire on lines that use them (`int l = i & 31;` after `int i =
  // threadIdx.x;`, `if (b == 0xffffffff)` after `auto b = __ballot_sync(...)`, `for (o = half; ...)`)
  static const std::regex assign(R"(\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*=(?!=)([^;]*))");
  static const std::regex full32_value(
      R"(^\s*\(?\s*(0[xX]0*[fF]{8}|4294967295|~0[uU]?|\(unsigned\)\s*-1)[uU]?\s*\)?\s*$)");
  static const std::regex sixteen_value(R"(^\s*16[uU]?\s*$)");
  static const std::regex loop_var(
      R"(\bfor\s*\([^;]*=\s*([A-Za-z_]\w*)\s*;[^;]*;[^)]*(/=\s*2|>>=\s*1|=\s*\w+\s*(/\s*2|>>\s*1))\b)");
  static const std::regex shared32(R"(\b__shared__\b[^;\[]*\[\s*32[uU]?\s*\])");
  static const std::regex ident(R"([A-Za-z_]\w*)");
  std::map<std::string, std::set<std::string>> lane_vars, ballot_vars, mask_vars, sixteen_vars;  // by file
  auto names_any = [](const std::string& text, const std::set<std::string>& vars) {
    if (vars.empty()) return false;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), ident); it != std::sregex_iterator(); ++it)
      if (vars.count(it->str())) return true;
    return false;
  };

  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    const std::string& s = l.text;
    std::smatch m;
    for (auto it = std::sregex_iterator(s.begin(), s.end(), assign); it != std::sregex_iterator(); ++it) {
      const std::string lhs = (*it)[1].str(), rhs = (*it)[3].str();
      if (lhs == "for" || lhs == "return") continue;
      if (std::regex_search(rhs, lane_ctx) || names_any(rhs, lane_vars[l.file])) lane_vars[l.file].insert(lhs);
      if (rhs.find("__ballot") != std::string::npos || rhs.find("__activemask") != std::string::npos ||
          names_any(rhs, ballot_vars[l.file]))
        ballot_vars[l.file].insert(lhs);
      if (std::regex_match(rhs, full32_value)) mask_vars[l.file].insert(lhs);
      if (std::regex_match(rhs, sixteen_value)) sixteen_vars[l.file].insert(lhs);
    }
    if (std::regex_search(s, shared32)) warn("warp32-shared-array", l);
    if (names_any(s, ballot_vars[l.file]) && std::regex_search(s, full32_token)) warn("warp32-mask", l);
    if (std::regex_search(s, m, loop_var) && sixteen_vars[l.file].count(m[1].str())) {
      for (std::size_t j = i; j < lines.size() && j <= i + 4 && lines[j].file == l.file; ++j)
        if (lines[j].text.find("__shfl") != std::string::npos) {
          warn("warp32-shuffle", l);
          break;
        }
    }
    if (std::regex_search(s, lane32) && names_any(s, lane_vars[l.file])) warn("warp32-lane-math", l);
    if (std::regex_search(s, asm_stmt)) scan.asm_lines.push_back({l.file, l.line});
    scan.user_lines[{l.file, l.line}] = s;
    const bool directive = !trim(s).empty() && trim(s)[0] == '#';
    if (directive) {
      if (std::regex_match(s, m, define32) && std::regex_search(m[1].str(), warp_size_name))
        warn("warp32-warp-size", l);
      continue;
    }
    for (auto it = std::sregex_iterator(s.begin(), s.end(), const32); it != std::sregex_iterator(); ++it)
      if (std::regex_search((*it)[1].str(), warp_size_name)) warn("warp32-warp-size", l);
    for (auto it = std::sregex_iterator(s.begin(), s.end(), sync_call); it != std::sregex_iterator(); ++it) {
      const std::vector<std::string> a = call_args(s, static_cast<std::size_t>(it->position(0) + it->length(0) - 1));
      if (!a.empty() && (is_mask32(a[0]) || mask_vars[l.file].count(trim(a[0])))) warn("warp32-mask", l);
    }
    if (std::regex_search(s, mask_var)) warn("warp32-mask", l);
    // a ballot or active mask compared with (or masked by) 32 full lanes: `__activemask() == 0xffffffff`
    if ((s.find("__ballot") != std::string::npos || s.find("__activemask") != std::string::npos) &&
        std::regex_search(s, full32_token))
      warn("warp32-mask", l);
    for (auto it = std::sregex_iterator(s.begin(), s.end(), shfl_call); it != std::sregex_iterator(); ++it) {
      const bool sync = (*it)[2].matched;
      const std::vector<std::string> a = call_args(s, static_cast<std::size_t>(it->position(0) + it->length(0) - 1));
      const std::size_t lane_arg = sync ? 2 : 1;
      if (a.size() <= lane_arg) continue;
      const bool plain = !(*it)[1].matched;  // __shfl(_sync): a source lane; the others an offset
      if ((plain && is_literal(a[lane_arg], "31")) || (!plain && is_literal(a[lane_arg], "16")))
        warn("warp32-shuffle", l);
    }
    if (std::regex_search(s, loop16)) {
      for (std::size_t j = i; j < lines.size() && j <= i + 4 && lines[j].file == l.file; ++j)
        if (lines[j].text.find("__shfl") != std::string::npos) {
          warn("warp32-shuffle", l);
          break;
        }
    }
    if (std::regex_search(s, lane32) && std::regex_search(s, lane_ctx)) warn("warp32-lane-math", l);
  }
  return scan;
}

void add_ballot_width_warnings(PortScan& scan, const std::string& err) {
  // names that hold a ballot: `auto m = __ballot_sync(...)` (a later `uint32_t b = m` narrows it)
  static const std::regex holder(R"(\b(\w+)\s*=\s*__(ballot\w*|activemask|lanemask\w*)\s*\()");
  std::set<std::string> names;
  for (const auto& [where, text] : scan.user_lines)
    for (auto it = std::sregex_iterator(text.begin(), text.end(), holder); it != std::sregex_iterator(); ++it)
      names.insert((*it)[1].str());
  static const std::regex diag(
      R"(^(.+):(\d+):\d+: warning: implicit conversion loses integer precision: 'unsigned long long'.*\[-Wshorten-64-to-32\])");
  static const std::regex word(R"(\b\w+\b)");
  std::set<std::pair<std::string, int>> seen;
  for (const auto& w : scan.warnings)
    if (w.name == "warp32-ballot-width") seen.insert({w.file, w.line});
  std::istringstream in(err);
  std::string s;
  while (std::getline(in, s)) {
    std::smatch m;
    if (!std::regex_search(s, m, diag)) continue;
    const std::pair<std::string, int> where{m[1].str(), std::atoi(m[2].str().c_str())};
    auto it = scan.user_lines.find(where);
    if (it == scan.user_lines.end()) continue;
    const std::string& text = it->second;
    bool ballot = text.find("__ballot") != std::string::npos || text.find("__activemask") != std::string::npos ||
                  text.find("__lanemask") != std::string::npos;
    for (auto w = std::sregex_iterator(text.begin(), text.end(), word); !ballot && w != std::sregex_iterator(); ++w)
      ballot = names.count(w->str()) > 0;
    if (!ballot || !seen.insert(where).second) continue;
    scan.warnings.push_back(
        {"warp32-ballot-width", where.first, where.second, trim(text), port_warning_message("warp32-ballot-width")});
  }
  std::stable_sort(scan.warnings.begin(), scan.warnings.end(), [](const Warning& a, const Warning& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
}

std::vector<std::string> cuda_port_flags(const fs::path& hip_include) {
  return {"-I",
          (hip_include / "cuda_compat").string(),
          "-include",
          "__kernsim_cuda_port.h",
          "-Wshorten-64-to-32",
          "-Wno-error=shorten-64-to-32"};
}

}  // namespace kernsim::frontends
