// The CUDA-on-AMD port's scan (frontends/cuda_port.h): line patterns over the user's code as the
// preprocessor leaves it, each pattern one warp32-* warning.
#include "frontends/cuda_port.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
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

namespace {

bool is_keyword(const std::string& w) {
  static const std::set<std::string> k = {"if",
                                          "for",
                                          "while",
                                          "switch",
                                          "return",
                                          "catch",
                                          "sizeof",
                                          "alignof",
                                          "decltype",
                                          "else",
                                          "do",
                                          "__attribute__",
                                          "__launch_bounds__",
                                          "static_assert",
                                          "new",
                                          "delete",
                                          "throw",
                                          "case"};
  return k.count(w) > 0;
}

// A function defined in the user's code: its parameters' names by position ("" when unnamed) and
// the lines of its body (first: the line with its opening brace).
struct Function {
  std::string name, file;
  std::vector<std::string> params;
  std::size_t first = 0, last = 0;
};

// The function definitions among `lines`: a name, a parenthesised parameter list (over up to eight
// lines) and then an opening brace (on that line or the next), after a return type.
std::vector<Function> find_functions(const std::vector<Line>& lines) {
  static const std::regex ident_before(R"(([A-Za-z_]\w*)\s*$)");
  std::vector<Function> fns;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i].text);
    if (t.empty() || t[0] == '#' || t.find('(') == std::string::npos) continue;
    std::string text = t;  // the header joined until its parentheses balance
    std::size_t j = i;
    auto depth = [](const std::string& x) {
      return std::count(x.begin(), x.end(), '(') - std::count(x.begin(), x.end(), ')');
    };
    while (depth(text) > 0 && j + 1 < lines.size() && j < i + 8 && lines[j + 1].file == lines[i].file)
      text += " " + trim(lines[++j].text);
    std::size_t close = text.rfind(')');
    if (close == std::string::npos || depth(text) != 0) continue;
    std::string after = trim(text.substr(close + 1));
    for (const char* q : {"const", "noexcept", "override"})
      if (after.compare(0, std::strlen(q), q) == 0) after = trim(after.substr(std::strlen(q)));
    std::size_t body = j;
    if (after.empty() && j + 1 < lines.size() && trim(lines[j + 1].text).compare(0, 1, "{") == 0)
      body = j + 1;
    else if (after.empty() || after[0] != '{')
      continue;
    int d = 0;  // the matching parenthesis of the last ')'
    std::size_t open = close;
    for (std::size_t k = close + 1; k-- > 0;) {
      d += text[k] == ')' ? 1 : text[k] == '(' ? -1 : 0;
      if (d == 0) {
        open = k;
        break;
      }
    }
    std::smatch m;
    const std::string before = text.substr(0, open);
    if (!std::regex_search(before, m, ident_before) || is_keyword(m[1].str())) continue;
    if (trim(before.substr(0, static_cast<std::size_t>(m.position(1)))).empty()) continue;  // a call, not a definition
    if (before.find('=') != std::string::npos) continue;
    Function f{m[1].str(), lines[i].file, {}, body, body};
    for (std::string a : call_args(text, open)) {
      a = a.substr(0, a.find('='));
      a = a.substr(0, a.find('['));
      std::smatch n;
      const bool named = std::regex_search(a, n, ident_before) && trim(a) != n[1].str() && n[1].str() != "void";
      f.params.push_back(named ? n[1].str() : std::string());
    }
    int braces = 0;  // the body: to the brace that closes it
    for (std::size_t k = body; k < lines.size() && lines[k].file == f.file; ++k) {
      const std::string& x = lines[k].text;
      braces += static_cast<int>(std::count(x.begin(), x.end(), '{') - std::count(x.begin(), x.end(), '}'));
      f.last = k;
      if (braces <= 0 && k > body) break;
      if (braces <= 0 && x.find('{') != std::string::npos) break;
    }
    fns.push_back(f);
    i = body;
  }
  return fns;
}

enum Taint : unsigned { kLane = 1, kBallot = 2, kMask = 4, kSixteen = 8, kThirtyTwo = 16 };

}  // namespace

PortScan scan_cuda_port(const std::string& preprocessed, const fs::path& kernsim_headers) {
  PortScan scan;
  const std::vector<Line> lines = user_lines(preprocessed, kernsim_headers);
  std::set<std::tuple<std::string, std::string, int>> seen;
  bool emit = false;  // warnings are put out by the last pass only
  auto warn = [&](const char* name, const Line& l) {
    if (!emit || !seen.insert({name, l.file, l.line}).second) return;
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

  // Names whose value flows from a lane or thread index, from a ballot, from a full 32-lane mask,
  // from the constant 16 or the constant 32 (assignments seen so far in the file, in order): the
  // line-based patterns above then also fire on lines that use them (`int l = i & 31;` after `int
  // i = threadIdx.x;`, `if (b == 0xffffffff)` after `auto b = __ballot_sync(...)`, `for (o = half;
  // ...)`, `threadIdx.x / w` after `int w = 32;`). The flow also crosses calls of the user's
  // functions (an argument taints its parameter inside the body; a function returning a lane-derived
  // value is lane-derived where it is called; a pointer parameter written with a lane index taints
  // the caller's argument), writes to a struct member (the object), brace initialisation, and
  // pointers to arrays (`q = arr; q[k] = threadIdx.x;` taints arr too).
  static const std::regex assign(R"(\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*=(?!=)([^;]*))");
  static const std::regex brace_init(R"(\b([A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*\{([^{};]*)\})");
  static const std::regex full32_value(
      R"(^\s*\(?\s*(0[xX]0*[fF]{8}|4294967295|~0[uU]?|\(unsigned\)\s*-1)[uU]?\s*\)?\s*$)");
  static const std::regex sixteen_value(R"(^\s*16[uU]?\s*$)");
  static const std::regex thirty_two_value(R"(^\s*32[uU]?\s*$)");
  static const std::regex alias_value(R"(^\s*&?\s*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$)");
  static const std::regex loop_var(
      R"(\bfor\s*\([^;]*=\s*([A-Za-z_]\w*)\s*;[^;]*;[^)]*(/=\s*2|>>=\s*1|=\s*\w+\s*(/\s*2|>>\s*1))\b)");
  static const std::regex shared32(R"(\b__shared__\b[^;\[]*\[\s*32[uU]?\s*\])");
  static const std::regex by_var(R"((%|/)\s*([A-Za-z_]\w*)\b(?!\s*[\(\[\.])|&\s*\(\s*([A-Za-z_]\w*)\s*-\s*1\s*\))");
  static const std::regex returns(R"(\breturn\b([^;]*))");
  static const std::regex ident(R"([A-Za-z_]\w*)");

  const std::vector<Function> fns = find_functions(lines);
  std::map<std::string, const Function*> fn_by_name;
  for (const auto& f : fns) fn_by_name[f.name] = &f;
  // what the flow learned about the user's functions, grown pass by pass until nothing changes
  std::map<std::string, std::map<std::size_t, unsigned>> param_taint;  // function -> parameter -> Taint bits
  std::map<std::string, std::set<std::size_t>> out_lane;               // pointer parameters written with lane values
  std::set<std::string> lane_returning;

  std::map<std::string, std::map<std::string, unsigned>> vars;                  // file -> name -> Taint bits
  std::map<std::string, std::map<std::string, std::set<std::string>>> aliases;  // file -> pointer aliases
  auto has = [&](const std::string& file, const std::string& text, unsigned bits) {
    const auto& v = vars[file];
    if (v.empty()) return false;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), ident); it != std::sregex_iterator(); ++it) {
      auto f = v.find(it->str());
      if (f != v.end() && (f->second & bits)) return true;
    }
    return false;
  };
  auto taint = [&](const std::string& file, const std::string& name, unsigned bits) {
    vars[file][name] |= bits;
    if (bits & kLane)
      for (const auto& a : aliases[file][name]) vars[file][a] |= kLane;
  };
  auto classify = [&](const std::string& file, const std::string& rhs) {
    unsigned bits = 0;
    if (std::regex_search(rhs, lane_ctx) || has(file, rhs, kLane)) bits |= kLane;
    if (rhs.find("__ballot") != std::string::npos || rhs.find("__activemask") != std::string::npos ||
        has(file, rhs, kBallot))
      bits |= kBallot;
    if (std::regex_match(rhs, full32_value) || (has(file, rhs, kMask) && std::regex_match(rhs, alias_value)))
      bits |= kMask;
    if (std::regex_match(rhs, sixteen_value) || (has(file, rhs, kSixteen) && std::regex_match(rhs, alias_value)))
      bits |= kSixteen;
    if (std::regex_match(rhs, thirty_two_value)) bits |= kThirtyTwo;
    return bits;
  };
  // The line's own patterns, with what the flow knows at this line (the last pass only).
  auto line_patterns = [&](std::size_t i) {
    const Line& l = lines[i];
    const std::string& s = l.text;
    std::smatch m;
    if (std::regex_search(s, shared32)) warn("warp32-shared-array", l);
    if (has(l.file, s, kBallot) && std::regex_search(s, full32_token)) warn("warp32-mask", l);
    if (std::regex_search(s, m, loop_var) && (vars[l.file][m[1].str()] & kSixteen)) {
      for (std::size_t j = i; j < lines.size() && j <= i + 4 && lines[j].file == l.file; ++j)
        if (lines[j].text.find("__shfl") != std::string::npos) {
          warn("warp32-shuffle", l);
          break;
        }
    }
    const bool lane_line = std::regex_search(s, lane_ctx) || has(l.file, s, kLane);
    if (std::regex_search(s, lane32) && has(l.file, s, kLane)) warn("warp32-lane-math", l);
    if (lane_line)  // `/ w`, `% w`, `& (w - 1)` with a variable holding 32
      for (auto it = std::sregex_iterator(s.begin(), s.end(), by_var); it != std::sregex_iterator(); ++it) {
        const std::string v = (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
        auto f = vars[l.file].find(v);
        if (f != vars[l.file].end() && (f->second & kThirtyTwo)) warn("warp32-lane-math", l);
      }
    if (std::regex_search(s, asm_stmt)) scan.asm_lines.push_back({l.file, l.line});
    scan.user_lines[{l.file, l.line}] = s;
    const bool directive = !trim(s).empty() && trim(s)[0] == '#';
    if (directive) {
      if (std::regex_match(s, m, define32) && std::regex_search(m[1].str(), warp_size_name))
        warn("warp32-warp-size", l);
      return;
    }
    for (auto it = std::sregex_iterator(s.begin(), s.end(), const32); it != std::sregex_iterator(); ++it)
      if (std::regex_search((*it)[1].str(), warp_size_name)) warn("warp32-warp-size", l);
    for (auto it = std::sregex_iterator(s.begin(), s.end(), sync_call); it != std::sregex_iterator(); ++it) {
      const std::vector<std::string> a = call_args(s, static_cast<std::size_t>(it->position(0) + it->length(0) - 1));
      if (!a.empty() && (is_mask32(a[0]) || (vars[l.file][trim(a[0])] & kMask))) warn("warp32-mask", l);
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
  };

  auto pass = [&]() {
    bool grew = false;
    vars.clear();
    aliases.clear();
    std::vector<std::pair<std::size_t, std::vector<std::string>>> scoped;  // (last line, names added at entry)
    std::vector<const Function*> open_fns;
    for (const auto& f : fns)
      if (lane_returning.count(f.name)) vars[f.file][f.name] |= kLane;
    std::size_t next_fn = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const Line& l = lines[i];
      const std::string& s = l.text;
      // function entry: its parameters' taints from the calls seen (scoped to the body)
      while (next_fn < fns.size() && fns[next_fn].first == i) {
        const Function& f = fns[next_fn++];
        std::vector<std::string> added;
        for (const auto& [k, bits] : param_taint[f.name])
          if (k < f.params.size() && !f.params[k].empty() && !vars[f.file].count(f.params[k])) {
            vars[f.file][f.params[k]] = bits;
            added.push_back(f.params[k]);
          }
        scoped.push_back({f.last, added});
        open_fns.push_back(&f);
      }
      std::smatch m;
      for (auto it = std::sregex_iterator(s.begin(), s.end(), assign); it != std::sregex_iterator(); ++it) {
        const std::string lhs = (*it)[1].str(), rhs = (*it)[3].str();
        if (lhs == "for" || lhs == "return" || is_keyword(lhs)) continue;
        const auto at = static_cast<std::size_t>(it->position(1));
        const bool element = (*it)[2].matched || (at > 0 && s[at - 1] == '*');
        const unsigned bits = classify(l.file, rhs);
        std::smatch a;
        if (std::regex_match(rhs, a, alias_value) && a[1].str() != lhs && !element) {
          aliases[l.file][lhs].insert(a[1].str());
          aliases[l.file][a[1].str()].insert(lhs);
        }
        if (bits) taint(l.file, lhs, bits);
        // a member written: the object too (`c.t = threadIdx.x` taints c; `p->t = ...` taints p)
        std::smatch b;
        const std::string head = s.substr(0, at);
        static const std::regex member_of(R"(([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(\.|->)\s*$)");
        if ((bits & kLane) && std::regex_search(head, b, member_of)) taint(l.file, b[1].str(), kLane);
        // inside a function, a pointer parameter written with a lane value (`*out = lane`, `out[0] = ...`)
        if ((bits & kLane) && (element || std::regex_search(head, b, member_of)) && !open_fns.empty()) {
          const Function& f = *open_fns.back();
          const std::string target = std::regex_search(head, b, member_of) ? b[1].str() : lhs;
          for (std::size_t k = 0; k < f.params.size(); ++k)
            if (f.params[k] == target && out_lane[f.name].insert(k).second) grew = true;
        }
      }
      for (auto it = std::sregex_iterator(s.begin(), s.end(), brace_init); it != std::sregex_iterator(); ++it)
        if (!is_keyword((*it)[1].str()) && (*it)[1].str() != "struct" && (*it)[1].str() != "class")
          if (const unsigned bits = classify(l.file, (*it)[3].str())) taint(l.file, (*it)[2].str(), bits);
      // calls of the user's functions: arguments to parameters, returned lane values, out-parameters
      for (auto it = std::sregex_iterator(s.begin(), s.end(), ident); it != std::sregex_iterator(); ++it) {
        auto f = fn_by_name.find(it->str());
        if (f == fn_by_name.end()) continue;
        std::size_t open = static_cast<std::size_t>(it->position(0) + it->length(0));
        while (open < s.size() && s[open] == ' ') ++open;
        if (open < s.size() && s[open] == '<') {  // explicit template arguments
          int d = 0;
          for (; open < s.size(); ++open) {
            d += s[open] == '<' ? 1 : s[open] == '>' ? -1 : 0;
            if (d == 0) break;
          }
          ++open;
          while (open < s.size() && s[open] == ' ') ++open;
        }
        if (open >= s.size() || s[open] != '(' || f->second->first == i) continue;
        const std::vector<std::string> a = call_args(s, open);
        for (std::size_t k = 0; k < a.size(); ++k) {
          unsigned bits = classify(l.file, a[k]);
          if (has(l.file, a[k], kMask) || is_mask32(a[k])) bits |= kMask;
          unsigned& have = param_taint[f->first][k];
          if ((have | bits) != have) have |= bits, grew = true;
          std::smatch n;
          if (out_lane[f->first].count(k) && std::regex_match(a[k], n, alias_value)) taint(l.file, n[1].str(), kLane);
        }
      }
      if (!open_fns.empty() && std::regex_search(s, m, returns) && classify(l.file, m[1].str()) & kLane &&
          lane_returning.insert(open_fns.back()->name).second)
        grew = true;
      if (emit) line_patterns(i);
      // function exit: the parameters' taints end with the body
      while (!scoped.empty() && scoped.back().first == i) {
        for (const auto& n : scoped.back().second) vars[l.file].erase(n);
        scoped.pop_back();
        open_fns.pop_back();
      }
    }
    return grew;
  };
  for (int k = 0; k < 8 && pass(); ++k) {
  }
  emit = true;
  pass();
  return scan;
}

namespace {

// Warnings named `name` from the compiler's diagnostics that `diag` matches (file in group 1, line
// in group 2) on a user line that `accept` takes; one per line, the scan's own included.
template <class Accept>
void add_diagnostics(PortScan& scan, const std::string& err, const std::regex& diag, const std::string& name,
                     Accept accept) {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& w : scan.warnings)
    if (w.name == name) seen.insert({w.file, w.line});
  std::istringstream in(err);
  std::string s;
  while (std::getline(in, s)) {
    std::smatch m;
    if (!std::regex_search(s, m, diag)) continue;
    const std::pair<std::string, int> where{m[1].str(), std::atoi(m[2].str().c_str())};
    auto it = scan.user_lines.find(where);
    if (it == scan.user_lines.end() || !accept(it->second) || !seen.insert(where).second) continue;
    scan.warnings.push_back({name, where.first, where.second, trim(it->second), port_warning_message(name)});
  }
  std::stable_sort(scan.warnings.begin(), scan.warnings.end(), [](const Warning& a, const Warning& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
}

}  // namespace

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
  add_diagnostics(scan, err, diag, "warp32-ballot-width", [&](const std::string& text) {
    bool ballot = text.find("__ballot") != std::string::npos || text.find("__activemask") != std::string::npos ||
                  text.find("__lanemask") != std::string::npos;
    for (auto w = std::sregex_iterator(text.begin(), text.end(), word); !ballot && w != std::sregex_iterator(); ++w)
      ballot = names.count(w->str()) > 0;
    return ballot;
  });
}

void add_mask_width_warnings(PortScan& scan, const std::string& err) {
  static const std::regex diag(R"(^(.+):(\d+):\d+: warning: kernsim-warp32-mask: )");
  add_diagnostics(scan, err, diag, "warp32-mask", [](const std::string&) { return true; });
}

std::vector<std::string> cuda_port_flags(const fs::path& hip_include) {
  return {"-I",
          (hip_include / "cuda_compat").string(),
          "-include",
          "__kernsim_cuda_port.h",
          "-Wshorten-64-to-32",
          "-Wno-error=shorten-64-to-32",
          "-Wno-error=user-defined-warnings"};
}

}  // namespace kernsim::frontends
