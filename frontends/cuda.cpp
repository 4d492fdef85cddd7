// The NVIDIA frontend: CUDA and LLVM IR to PTX through the clang-22 and llc-22 drivers.
//
// Why the drivers and not libclang in-process: the driver is exactly what users run, it finds
// the CUDA installation and libdevice the documented way, a crash in the compiler cannot take
// the simulator down, and with the on-disk cache a compile happens once per source version —
// an RL loop that resubmits a kernel pays nothing.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "base/error.h"
#include "base/files.h"
#include "base/hash.h"
#include "base/process.h"
#include "frontends/compile.h"
#include "frontends/pch.h"
#include "frontends/source_key.h"
#include "frontends/source_policy.h"
#include "isa/ptx/parser.h"

namespace kernsim::frontends {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// 4: CCCL on the include path; 5: -gline-tables-only (`.file`/`.loc` for the report's by_line)
constexpr const char* kFrontendVersion = "cuda-frontend-6";

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

fs::path cuda_path() { return env_or("KERNSIM_CUDA_PATH", "/usr/local/cuda"); }

// CUDA 13 keeps CCCL (CUB, Thrust, libcu++ — which <cooperative_groups.h> needs for
// <cuda/std/type_traits>) under include/cccl, a directory nvcc adds itself and clang's driver
// does not; older toolkits keep them in include/, which clang already searches.
std::optional<fs::path> cccl_include_dir() {
  const fs::path d = cuda_path() / "include" / "cccl";
  std::error_code ec;
  if (fs::is_directory(d / "cuda" / "std", ec)) return d;
  return std::nullopt;
}

fs::path require_tool(const char* env, const std::vector<std::string>& names, const std::string& what) {
  std::vector<std::string> cands;
  if (const char* e = std::getenv(env); e && *e) cands.push_back(e);
  cands.insert(cands.end(), names.begin(), names.end());
  if (auto p = find_program(cands)) return *p;
  throw Error(ErrorKind::Compile, what + " not found (looked for " + names.front() + "; set " + env +
                                      "); run ./scripts/install-deps.sh");
}

fs::path clang() { return require_tool("KERNSIM_CLANG", {"clang++-22", "/usr/lib/llvm-22/bin/clang++"}, "clang 22"); }
fs::path llc() { return require_tool("KERNSIM_LLC", {"llc-22", "/usr/lib/llvm-22/bin/llc"}, "llc 22"); }

std::optional<fs::path> ptxas() {
  std::vector<std::string> c;
  if (const char* e = std::getenv("KERNSIM_PTXAS"); e && *e) c.push_back(e);
  c.push_back((cuda_path() / "bin" / "ptxas").string());
  c.push_back("ptxas");
  return find_program(c);
}

// nvdisasm: the CUDA toolkit's, or the one PyPI's nvidia-cuda-nvdisasm (or Triton) installs.
// Finding the latter needs python's purelib directory, a python start (80 ms, several times that
// behind pyenv's shims) that an uncached compile would pay every time: the answer is kept beside
// the cache, keyed by the variables that choose the python (PATH, VIRTUAL_ENV, CONDA_PREFIX,
// PYENV_VERSION), and used while that nvdisasm still exists. The toolkit's and PATH's come first,
// as before, and are looked up each time.
std::optional<fs::path> nvdisasm() {
  static std::mutex mu;
  static std::optional<std::optional<fs::path>> memo;
  std::lock_guard<std::mutex> lock(mu);
  if (memo) return *memo;
  std::vector<std::string> c;
  if (const char* e = std::getenv("KERNSIM_NVDISASM"); e && *e) c.push_back(e);
  c.push_back((cuda_path() / "bin" / "nvdisasm").string());
  c.push_back("nvdisasm");
  if (auto p = find_program(c)) return *(memo = p);
  std::string id = "nvdisasm-1";
  for (const char* v : {"PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_VERSION"}) id += std::string("|") + v + "=" + env_or(v, "");
  const fs::path saved = cache_dir() / "tool_paths" / sha256_hex(id).substr(0, 32);
  std::ifstream in(saved);
  std::string line;
  if (in && std::getline(in, line) && !line.empty() && ::access(line.c_str(), X_OK) == 0) return *(memo = fs::path(line));
  c.clear();
  ProcessResult r = run_process({"python3", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"});
  if (r.exit_code == 0) {
    const std::string lib = r.out.substr(0, r.out.find('\n'));
    for (const char* sub : {"nvidia/cu13/bin/nvdisasm", "nvidia/cuda_nvdisasm/bin/nvdisasm", "triton/backends/nvidia/bin/nvdisasm"})
      c.push_back((fs::path(lib) / sub).string());
  }
  memo = find_program(c);
  if (*memo) {
    std::error_code ec;
    fs::create_directories(saved.parent_path(), ec);
    try {
      write_file_atomic(saved, (*memo)->string() + "\n");
    } catch (const Error&) {  // an unwritable cache directory only costs the next process the python start
    }
  }
  return *memo;
}

std::int64_t mtime_of(const fs::path& p);

// The first line of `tool --version`, part of every compile-cache key. Kept on disk beside the
// cache, keyed by the tool's resolved path, size and mtime, so that a process whose compile is
// cached does not start clang just to ask its version (~20 ms of CPU, the bulk of a fast-tier
// launch's own work; issue 15).
std::string tool_version(const fs::path& tool) {
  static std::mutex mu;
  static std::map<std::string, std::string> memo;
  std::lock_guard<std::mutex> lock(mu);
  auto it = memo.find(tool.string());
  if (it != memo.end()) return it->second;
  std::error_code ec;
  const fs::path real = fs::canonical(tool, ec);
  fs::path saved;
  if (!ec) {
    const std::string id = real.string() + "|" + std::to_string(fs::file_size(real, ec)) + "|" + std::to_string(mtime_of(real));
    saved = cache_dir() / "tool_versions" / sha256_hex(id).substr(0, 32);
    std::ifstream in(saved);
    std::string line;
    if (!ec && in && std::getline(in, line) && !line.empty()) return memo[tool.string()] = line;
  }
  ProcessResult r = run_process({tool.string(), "--version"});
  std::string first = r.out.substr(0, r.out.find('\n'));
  if (!saved.empty() && r.exit_code == 0 && !first.empty()) {
    fs::create_directories(saved.parent_path(), ec);
    try {
      write_file_atomic(saved, first + "\n");
    } catch (const Error&) {  // an unwritable cache directory only costs the next process the same question
    }
  }
  memo[tool.string()] = first;
  return first;
}

// Which build of a tool this is, without starting it: its resolved path, size and mtime. ptxas
// and nvdisasm print the same first line for every version, so tool_version cannot tell them
// apart; their answers (registers, spills, SASS loop loads) are part of a cached entry.
std::string tool_identity(const std::optional<fs::path>& tool) {
  if (!tool) return "absent";
  std::error_code ec;
  const fs::path real = fs::canonical(*tool, ec);
  if (ec) return tool->string();
  return real.string() + "|" + std::to_string(fs::file_size(real, ec)) + "|" + std::to_string(mtime_of(real));
}

// Dependencies of a cached compile: every file clang read, with size and mtime.
struct Dep {
  std::string path;
  std::uintmax_t size;
  std::int64_t mtime;
};

std::int64_t mtime_of(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  return ec ? 0 : static_cast<std::int64_t>(t.time_since_epoch().count());
}

// The main source is left out: its text is in the cache key, so rewriting it with the same text
// (an RL loop's candidate.cu) still hits.
std::vector<Dep> parse_depfile(const std::string& text, const fs::path& source) {
  std::vector<Dep> deps;
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') { ++i; continue; }
    s += text[i];
  }
  auto colon = s.find(": ");
  if (colon == std::string::npos) return deps;
  std::stringstream ss(s.substr(colon + 2));
  std::string p;
  while (ss >> p) {
    if (is_pch_file(p) || p == source.string()) continue;  // the PCH's empty main file comes and goes with it
    std::error_code ec;
    deps.push_back({p, fs::file_size(p, ec), mtime_of(p)});
  }
  return deps;
}

bool deps_unchanged(const json& deps) {
  for (const auto& d : deps) {
    std::error_code ec;
    fs::path p = d.at("path").get<std::string>();
    if (!fs::exists(p, ec) || fs::file_size(p, ec) != d.at("size").get<std::uintmax_t>() || mtime_of(p) != d.at("mtime").get<std::int64_t>())
      return false;
  }
  return true;
}

void list_kernels(DeviceModule& m) {
  auto mod = isa::ptx::parse_module(m.text, m.origin.string());
  m.kernels.clear();
  for (const auto& f : mod.functions)
    if (f.is_entry && f.has_body) m.kernels.push_back({f.name, demangle(f.name), {}});
}

// `.file N "FROM"` -> `.file N "TO"` in a PTX text.
void rename_source_file(std::string& ptx, const std::string& from, const std::string& to) {
  if (from.empty() || from == to) return;
  const std::string quoted = "\"" + from + "\"";
  for (std::size_t at = ptx.find(".file"); at != std::string::npos; at = ptx.find(".file", at + 1)) {
    const std::size_t eol = ptx.find('\n', at);
    const std::size_t q = ptx.find(quoted, at);
    if (q != std::string::npos && q < eol) ptx.replace(q, quoted.size(), "\"" + to + "\"");
  }
}

json module_to_json(const DeviceModule& m, const std::vector<Dep>& deps) {
  json j;
  j["producer"] = m.producer;
  j["source_path"] = fs::absolute(m.origin).string();
  j["target"] = m.target;
  json ks = json::array();
  for (const auto& k : m.kernels) {
    const auto& r = k.resources;
    ks.push_back({{"name", k.name}, {"registers", r.registers}, {"static_shared", r.static_shared},
                  {"local_bytes", r.local_bytes}, {"spill_stores", r.spill_stores}, {"spill_loads", r.spill_loads},
                  {"source", r.source}, {"sass_loop_loads", r.sass_loop_loads}, {"sass_loop_load_bytes", r.sass_loop_load_bytes},
                  {"sass_source", r.sass_source}, {"wgmma_serialized", r.wgmma_serialized}});
  }
  j["kernels"] = ks;
  json d = json::array();
  for (const auto& x : deps) d.push_back({{"path", x.path}, {"size", x.size}, {"mtime", x.mtime}});
  j["deps"] = d;
  return j;
}

// The extended asm statements of preprocessed C++ (asm [volatile|goto|inline]* ( "..." "..." : ...),
// those with a `:`; basic asm, where `%` is literal, is skipped, as are comments and literals
// outside asm. For each, `fn(lits, after)` sees the template's string literals ([begin, end) of
// each, quotes included) and the position of the `:` after them, and returns the new text of
// the literals' span [lits.front().first, lits.back().second), or nullopt to keep it. Returns the
// number of statements rewritten; `text` changes only if one was.
using AsmLits = std::vector<std::pair<std::size_t, std::size_t>>;
// one past the closing quote of the string or character literal opening at `j`
std::size_t literal_end(const std::string& text, std::size_t j) {
  const char q = text[j];
  for (++j; j < text.size() && text[j] != q; ++j)
    if (text[j] == '\\') ++j;
  return std::min(j + 1, text.size());
}

int rewrite_extended_asm(std::string& text, const std::function<std::optional<std::string>(const AsmLits&, std::size_t)>& fn) {
  std::string out;
  out.reserve(text.size() + 64);
  int rewritten = 0;
  const std::size_t n = text.size();
  auto ident_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto skip_space = [&](std::size_t j) {
    while (j < n && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    return j;
  };
  std::size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
      const std::size_t e = text[i + 1] == '/' ? text.find('\n', i) : text.find("*/", i + 2);
      const std::size_t end = e == std::string::npos ? n : (text[i + 1] == '/' ? e : e + 2);
      out.append(text, i, end - i);
      i = end;
      continue;
    }
    if (c == '"' || c == '\'') {
      const std::size_t e = literal_end(text, i);
      out.append(text, i, e - i);
      i = e;
      continue;
    }
    if (!ident_char(c) || (i > 0 && ident_char(text[i - 1]))) {
      out += c;
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && ident_char(text[j])) ++j;
    const std::string word = text.substr(i, j - i);
    if (word != "asm" && word != "__asm__" && word != "__asm") {
      out.append(text, i, j - i);
      i = j;
      continue;
    }
    for (j = skip_space(j); j < n && ident_char(text[j]);) {
      std::size_t k = j;
      while (k < n && ident_char(text[k])) ++k;
      const std::string q = text.substr(j, k - j);
      if (q != "volatile" && q != "__volatile__" && q != "__volatile" && q != "goto" && q != "inline" && q != "__inline__") break;
      j = skip_space(k);
    }
    AsmLits lits;
    if (j < n && text[j] == '(')
      for (j = skip_space(j + 1); j < n && text[j] == '"'; j = skip_space(j)) {
        const std::size_t e = literal_end(text, j);
        lits.push_back({j, e});
        j = e;
      }
    std::optional<std::string> repl;
    if (!lits.empty() && j < n && text[j] == ':') repl = fn(lits, j);
    if (!repl) {
      out.append(text, i, j - i);
      i = j;
      continue;
    }
    ++rewritten;
    out.append(text, i, lits.front().first - i);
    out += *repl;
    out.append(text, lits.back().second, j - lits.back().second);
    i = j;
  }
  if (rewritten) text = std::move(out);
  return rewritten;
}

// nvcc leniency: nvcc passes `%clusterid.x` in an extended asm template through as the special
// register; clang rejects it ("invalid % escape in inline assembly string") and wants `%%`. This
// doubles a `%` followed by a register name (two or more letters, or one letter not followed by
// an operand number: `%c0` and `%c[name]` stay modifiers) inside the templates of extended asm
// statements. Returns the number of statements changed.
int double_register_percents(std::string& text) {
  return rewrite_extended_asm(text, [&](const AsmLits& lits, std::size_t) -> std::optional<std::string> {
    std::string out;
    bool changed = false;
    for (std::size_t l = 0; l < lits.size(); ++l) {
      const auto [b, e] = lits[l];
      if (l) out.append(text, lits[l - 1].second, b - lits[l - 1].second);
      for (std::size_t k = b; k < e; ++k) {
        out += text[k];
        if (text[k] != '%' || k + 1 >= e) continue;
        const char next = text[k + 1];
        if (next == '%') {
          out += text[++k];
          continue;
        }
        if (!std::isalpha(static_cast<unsigned char>(next))) continue;
        std::size_t letters = k + 1;
        while (letters < e && std::isalpha(static_cast<unsigned char>(text[letters]))) ++letters;
        const char after = letters < e ? text[letters] : '"';
        const bool modifier = letters - (k + 1) == 1 && (std::isdigit(static_cast<unsigned char>(after)) || after == '[');
        if (!modifier) {
          out += '%';
          changed = true;
        }
      }
    }
    return changed ? std::optional<std::string>(out) : std::nullopt;
  });
}

// nvcc leniency: nvcc checks an asm template's operand numbers only where the statement is
// instantiated, so a header may hold `%8` in a statement of eight operands (%0-%7) inside a
// template branch that no instantiation takes (ThunderKittens' tma.cuh, the cache-hint forms);
// clang checks every statement as it parses it ("invalid operand number in inline asm string").
// This replaces the template of each extended asm statement that names an operand number beyond
// its operands with one line, `kernsim_invalid_asm_operand_N_of_M;`, which clang accepts and which,
// should the statement ever reach the PTX, stops the kernel by that name. Returns the number of
// statements replaced.
int neutralize_bad_asm_operands(std::string& text) {
  const std::size_t n = text.size();
  return rewrite_extended_asm(text, [&](const AsmLits& lits, std::size_t colon) -> std::optional<std::string> {
    // operands: the entries of the first two `:` sections ("c"(x), [name] "c"(x)), commas at depth 0
    int operands = 0, sections = 0, depth = 0;
    bool entry = false;
    for (std::size_t k = colon; k < n; ++k) {
      const char c = text[k];
      if (c == '"' || c == '\'') {
        k = literal_end(text, k) - 1;
        entry = true;
        continue;
      }
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') {
        if (depth == 0) break;  // the statement's closing parenthesis
        --depth;
      }
      if (depth == 0 && (c == ':' || c == ',')) {
        operands += entry && sections <= 2 ? 1 : 0;
        entry = false;
        if (c == ':' && ++sections > 2) break;
        continue;
      }
      if (!std::isspace(static_cast<unsigned char>(c))) entry = true;
    }
    if (entry && sections <= 2) ++operands;
    int highest = -1;
    for (const auto& [b, e] : lits)
      for (std::size_t k = b; k + 1 < e; ++k) {
        if (text[k] != '%') continue;
        if (text[k + 1] == '%') {
          ++k;
          continue;
        }
        std::size_t d = k + 1;
        if (d < e && std::isalpha(static_cast<unsigned char>(text[d]))) ++d;  // %c0, %x1: a modifier
        if (d >= e || !std::isdigit(static_cast<unsigned char>(text[d]))) continue;
        int v = 0;
        for (; d < e && std::isdigit(static_cast<unsigned char>(text[d])) && v < 100000; ++d) v = v * 10 + (text[d] - '0');
        highest = std::max(highest, v);
      }
    if (highest < operands) return std::nullopt;
    return "\"kernsim_invalid_asm_operand_" + std::to_string(highest) + "_of_" + std::to_string(operands) + ";\"";
  });
}

std::string target_for_ptx(const std::string& target) {
  if (target.rfind("sm_", 0) != 0)
    throw Error(ErrorKind::Compile, "target `" + target + "` is not an NVIDIA target (sm_90a, sm_100a)");
  return target;
}

}  // namespace

// Bytes one lane loads with a SASS load opcode (LDG.E.128 16, .64 8, .U8/.S8 1, .U16/.S16 2,
// else 4).
int sass_load_bytes(const std::string& op) {
  auto has = [&](const char* s) { return op.find(s) != std::string::npos; };
  if (has(".256")) return 32;
  if (has(".128")) return 16;
  if (has(".64")) return 8;
  if (has(".U16") || has(".S16")) return 2;
  if (has(".U8") || has(".S8")) return 1;
  return 4;
}

struct SassLoop { int loads = 0, bytes = 0; };

// Innermost loops of each function in nvdisasm's listing, as global/generic load counts and
// the bytes a lane loads per iteration, in address order. A loop is a backward branch; its body
// runs from the target to the branch.
std::map<std::string, std::vector<SassLoop>> sass_loops(const std::string& listing) {
  struct Ins { std::uint64_t addr; std::string text; };
  std::map<std::string, std::vector<SassLoop>> out;
  std::string fn;
  std::vector<Ins> code;
  std::map<std::string, std::uint64_t> labels;
  std::vector<std::string> pending;  // labels waiting for the next instruction's address
  auto flush = [&] {
    if (fn.empty()) return;
    std::vector<std::pair<std::size_t, std::size_t>> loops;  // [first, last] instruction index
    for (std::size_t i = 0; i < code.size(); ++i) {
      const std::string& t = code[i].text;
      const auto b = t.find("BRA");
      const auto q = t.find('`');
      if (b == std::string::npos || q == std::string::npos) continue;
      const auto lb = t.find('(', q), le = t.find(')', q);
      if (lb == std::string::npos || le == std::string::npos) continue;
      auto it = labels.find(t.substr(lb + 1, le - lb - 1));
      if (it == labels.end() || it->second > code[i].addr) continue;
      std::size_t first = 0;
      while (first < code.size() && code[first].addr < it->second) ++first;
      loops.push_back({first, i});
    }
    std::sort(loops.begin(), loops.end());
    for (std::size_t a = 0; a < loops.size(); ++a) {
      bool inner = true;  // contains no other loop
      for (std::size_t b = 0; b < loops.size() && inner; ++b)
        if (b != a && loops[b].first >= loops[a].first && loops[b].second <= loops[a].second && loops[b] != loops[a]) inner = false;
      if (!inner) continue;
      SassLoop l;
      for (std::size_t i = loops[a].first; i <= loops[a].second; ++i) {
        std::istringstream ws(code[i].text);
        std::string op;
        ws >> op;
        if (!op.empty() && op[0] == '@') ws >> op;
        if (op.rfind("LDG", 0) == 0 || op == "LD" || op.rfind("LD.", 0) == 0) {
          ++l.loads;
          l.bytes += sass_load_bytes(op);
        }
      }
      out[fn].push_back(l);
    }
  };
  std::istringstream ss(listing);
  std::string line;
  const std::regex sec_re(R"(^\s*\.section\s+\.text\.([^,\s]+))");
  const std::regex ins_re(R"(^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;)");
  const std::regex lab_re(R"(^(\.L_x_\d+):)");
  std::smatch mt;
  while (std::getline(ss, line)) {
    if (std::regex_search(line, mt, sec_re)) {
      flush();
      fn = mt[1];
      code.clear();
      labels.clear();
      pending.clear();
      continue;
    }
    if (std::regex_search(line, mt, lab_re)) { pending.push_back(mt[1]); continue; }
    if (std::regex_search(line, mt, ins_re)) {
      const std::uint64_t a = std::stoull(mt[1], nullptr, 16);
      for (auto& l : pending) labels[l] = a;
      pending.clear();
      code.push_back({a, mt[2]});
    }
  }
  flush();
  return out;
}

// Whether a loop of the PTX (a backward `bra`, or any indirect `brx`) holds a load that may read
// global memory (`ld`/`ldu` outside .shared/.local/.param/.const). The SASS loops nvdisasm finds
// are only ever matched to such loops (mark_unrolled_loads, isa/ptx/ptxas_passes.h), so without
// one its listing changes nothing and its start (~0.25 s, most of an uncached compile once the
// prelude is precompiled) is skipped.
bool has_loop_with_global_load(const DeviceModule& m) {
  const auto mod = isa::ptx::parse_module(m.text, m.origin.string());
  for (const auto& f : mod.functions) {
    std::map<std::string, std::size_t> label_at;
    std::vector<std::size_t> loads;
    for (std::size_t i = 0; i < f.body.size(); ++i) {
      const auto& st = f.body[i];
      if (st.kind == isa::ptx::ast::Statement::Kind::Label) label_at[st.label] = i;
      if (st.kind != isa::ptx::ast::Statement::Kind::Instr || st.instr.parts.empty()) continue;
      const auto& parts = st.instr.parts;
      if (parts[0] == "ld" || parts[0] == "ldu") {
        bool other_space = false;
        for (const auto& x : parts)
          for (const char* sp : {"shared", "local", "param", "const"}) other_space = other_space || x.rfind(sp, 0) == 0;
        if (!other_space) loads.push_back(i);
      }
      if (parts[0] == "brx" && !loads.empty()) return true;
      if (parts[0] != "bra" || st.instr.operands.empty()) continue;
      const auto it = label_at.find(st.instr.operands[0].name);
      if (it != label_at.end() && !loads.empty() && loads.back() > it->second) return true;
    }
  }
  return false;
}

void fill_resources(DeviceModule& m) {
  auto tool = ptxas();
  for (auto& k : m.kernels) k.resources.sass_source = "unavailable (ptxas or nvdisasm not found)";
  if (tool) {
    const std::string stem = "kernsim_ptxas_" + sha256_hex(m.text).substr(0, 16);
    fs::path tmp = fs::temp_directory_path() / (stem + ".ptx");
    fs::path cubin = fs::temp_directory_path() / (stem + ".cubin");
    write_file_atomic(tmp, m.text);
    ProcessResult r = run_process({tool->string(), "-arch=" + m.target, "-v", tmp.string(), "-o", cubin.string()});
    std::error_code ec;
    fs::remove(tmp, ec);
    if (r.exit_code == 0 && !has_loop_with_global_load(m)) {
      for (auto& k : m.kernels) k.resources.sass_source = "not needed (no PTX loop loads global memory)";
    } else if (r.exit_code == 0) {
      if (auto dis = nvdisasm()) {
        ProcessResult d = run_process({dis->string(), "-c", cubin.string()});
        if (d.exit_code == 0) {
          auto loops = sass_loops(d.out);
          for (auto& k : m.kernels) {
            auto it = loops.find(k.name);
            k.resources.sass_loop_loads.clear();
            k.resources.sass_loop_load_bytes.clear();
            if (it != loops.end())
              for (const SassLoop& l : it->second) {
                k.resources.sass_loop_loads.push_back(l.loads);
                k.resources.sass_loop_load_bytes.push_back(l.bytes);
              }
            k.resources.sass_source = "nvdisasm";
          }
        }
      }
    }
    fs::remove(cubin, ec);
    if (r.exit_code == 0) {
      std::string cur;
      std::stringstream ss(r.err);
      std::string line;
      std::regex fn_re(R"(Compiling entry function '([^']+)')");
      std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
      std::regex used_re(R"(Used (\d+) registers)");
      std::regex smem_re(R"((\d+) bytes smem)");
      // ptxas 12.x/13.x: "(C7511/C7512/C7514) Potential Performance Loss: wgmma.mma_async
      // instructions are serialized due to <reason> in (or: for) the function '<name>'"
      std::regex serial_re(R"(wgmma\.mma_async instructions are serialized.*(?:in|for) the function '([^']+)')");
      std::smatch mt;
      for (; std::getline(ss, line);) {
        if (std::regex_search(line, mt, serial_re)) {
          for (auto& k : m.kernels)
            if (k.name == mt[1]) k.resources.wgmma_serialized = true;
          continue;
        }
        if (std::regex_search(line, mt, fn_re)) { cur = mt[1]; continue; }
        for (auto& k : m.kernels) {
          if (k.name != cur) continue;
          if (std::regex_search(line, mt, frame_re)) {
            k.resources.local_bytes = std::stoll(mt[1]);
            k.resources.spill_stores = std::stoi(mt[2]);
            k.resources.spill_loads = std::stoi(mt[3]);
          }
          if (std::regex_search(line, mt, used_re)) {
            k.resources.registers = std::stoi(mt[1]);
            k.resources.source = "ptxas";
            if (std::regex_search(line, mt, smem_re)) k.resources.static_shared = std::stoll(mt[1]);
          }
        }
      }
      return;
    }
    // ptxas rejected the PTX (e.g. a feature it does not accept for this target): estimate below.
  }
  for (auto& k : m.kernels) k.resources.source = "estimate";
}

DeviceModule compile(const fs::path& source, const CompileOptions& opt) {
  std::string ext = source.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".hip" || ext == ".s" || ext == ".hsaco" || ext == ".co" || opt.target.rfind("gfx", 0) == 0) return compile_amd(source, opt);
  if (ext != ".cu" && ext != ".ptx" && ext != ".ll" && ext != ".bc")
    throw Error(ErrorKind::LaunchSpec, "`source`: unsupported file type `" + ext + "` (" + source.string() +
                                           "); expected .cu .ptx .ll .bc .hip .s .hsaco .co" +
                                           (ext == ".cpp" ? " (a .cpp is compiled as HIP, as hipcc does, for AMD parts only)" : ""));
  const std::string target = target_for_ptx(opt.target);
  std::string bytes = read_file(source, "kernel source");
  check_host_reads(source, bytes, opt.extra_flags, ext == ".cu" ? "c" : "asm");

  DeviceModule m;
  m.kind = IsaKind::Ptx;
  m.target = target;
  m.origin = source;

  Sha256 key;
  // a .cu source is hashed without its comments and extra whitespace (source_key.h): a
  // resubmission that changes only those hits the cache
  key.field(kFrontendVersion).field(ext).field(ext == ".cu" ? "src-norm-1" : "bytes");
  key.field(ext == ".cu" ? normalize_for_cache_key(bytes) : bytes).field(target);
  for (const auto& f : opt.extra_flags) key.field(f);
  key.field(tool_identity(ptxas())).field(tool_identity(nvdisasm()));
  if (ext == ".cu") {
    key.field(tool_version(clang())).field(fs::absolute(source).parent_path().string());
    key.field(cccl_include_dir().value_or(fs::path()).string());
  }
  if (ext == ".ll" || ext == ".bc") key.field(tool_version(llc()));
  const std::string hash = key.hex();
  const fs::path entry = cache_dir() / "v1" / hash.substr(0, 2) / hash;

  if (opt.use_cache && fs::exists(entry / "module.ptx") && fs::exists(entry / "meta.json")) {
    try {
      json meta = json::parse(read_file(entry / "meta.json"));
      if (deps_unchanged(meta.at("deps"))) {
        m.text = read_file(entry / "module.ptx");
        // the entry is shared by files of one text in one directory: the PTX's .file directive
        // (line attribution) names the file that made it, so it is renamed to this one
        if (ext == ".cu") rename_source_file(m.text, meta.value("source_path", std::string()), fs::absolute(source).string());
        m.producer = meta.at("producer").get<std::string>();
        list_kernels(m);
        for (auto& k : m.kernels)
          for (const auto& jk : meta.at("kernels"))
            if (jk.at("name") == k.name) {
              k.resources.registers = jk.at("registers");
              k.resources.static_shared = jk.at("static_shared");
              k.resources.local_bytes = jk.at("local_bytes");
              k.resources.spill_stores = jk.at("spill_stores");
              k.resources.spill_loads = jk.at("spill_loads");
              k.resources.source = jk.at("source");
              k.resources.sass_loop_loads = jk.value("sass_loop_loads", std::vector<int>{});
              k.resources.sass_loop_load_bytes = jk.value("sass_loop_load_bytes", std::vector<int>{});
              k.resources.sass_source = jk.value("sass_source", std::string("unavailable"));
              k.resources.wgmma_serialized = jk.value("wgmma_serialized", false);
            }
        m.from_cache = true;
        return m;
      }
    } catch (const std::exception&) {
      // a damaged cache entry is recompiled
    }
  }

  std::vector<Dep> deps;
  if (ext == ".ptx") {
    m.text = bytes;
    m.producer = "ptx file";
  } else if (ext == ".cu") {
    fs::path tmpdir = fs::temp_directory_path() / ("kernsim_cc_" + hash.substr(0, 16) + "_" + std::to_string(::getpid()) + "_" +
                                                  std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    fs::create_directories(tmpdir);
    fs::path out = tmpdir / "out.ptx", dep = tmpdir / "out.d";
    std::vector<std::string> base = {clang().string(), "-x", "cuda", "--cuda-gpu-arch=" + target, "--cuda-device-only",
                                     "-S", "-O3", "-gline-tables-only", "-std=c++17", "--cuda-path=" + cuda_path().string(),
                                     "-Wno-unknown-cuda-version"};
    if (auto cccl = cccl_include_dir()) {
      base.push_back("-isystem");
      base.push_back(cccl->string());
    }
    std::vector<std::string> argv = base;
    for (const auto& a : {std::string("-MD"), std::string("-MF"), dep.string(), std::string("-o"), out.string()}) argv.push_back(a);
    const std::size_t user_at = argv.size();
    for (const auto& f : opt.extra_flags) argv.push_back(f);
    argv.push_back(source.string());
    // The CUDA wrapper headers from a precompiled prelude (pch.h); any failure with it reruns the
    // command without it, so errors, the nvcc leniency below and a stale PCH behave as before.
    ProcessResult r;
    // The source's leading #include <...> lines join the prelude when their PCH exists or can
    // be built (pch.h: at their second compile, if every header is guard-skipped on re-reading).
    std::optional<fs::path> pch;
    if (const std::string preamble = leading_system_includes(bytes); !preamble.empty())
      pch = prelude_pch({base, opt.extra_flags, tool_version(clang()), ".cu", preamble});
    if (!pch) pch = prelude_pch({base, opt.extra_flags, tool_version(clang()), ".cu", ""});
    if (pch) {
      std::vector<std::string> with = argv;
      const auto use = pch_use_args(*pch);
      with.insert(with.begin() + static_cast<std::ptrdiff_t>(user_at), use.begin(), use.end());
      r = run_process(with);
    }
    if (!pch || r.exit_code != 0) {
      const ProcessResult failed = r;
      r = run_process(argv);
      if (pch && r.exit_code == 0) discard_pch(*pch, failed.err);
    }
    if (r.exit_code != 0 && (r.err.find("invalid % escape in inline assembly string") != std::string::npos ||
                             r.err.find("invalid operand number in inline asm string") != std::string::npos)) {
      // nvcc leniencies (double_register_percents, neutralize_bad_asm_operands): preprocess,
      // rewrite the extended asm templates, compile the result without the CUDA headers again.
      // Only a source clang rejects takes this path, so every other compile is unchanged.
      std::vector<std::string> pre = argv;
      std::replace(pre.begin(), pre.end(), std::string("-S"), std::string("-E"));
      const fs::path pp = tmpdir / "pp.cu";
      *std::find(pre.begin(), pre.end(), out.string()) = pp.string();
      ProcessResult e = run_process(pre);
      std::string text = e.exit_code == 0 ? read_file(pp) : std::string();
      int rewritten = 0;
      if (e.exit_code == 0) rewritten = double_register_percents(text) + neutralize_bad_asm_operands(text);
      if (rewritten > 0) {
        write_file_atomic(pp, text);
        std::vector<std::string> again;
        for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
          if (argv[i] == "-MD") continue;
          if (argv[i] == "-MF") { ++i; continue; }
          again.push_back(argv[i]);
        }
        again.push_back("-nocudainc");  // pp.cu already holds the wrapper headers
        again.push_back(pp.string());
        r = run_process(again);
      }
    }
    if (r.exit_code != 0) {
      std::error_code ec;
      fs::remove_all(tmpdir, ec);
      throw Error(ErrorKind::Compile, "clang could not compile " + source.string() + " for " + target + ":\n" + r.err);
    }
    m.text = read_file(out);
    deps = parse_depfile(read_file(dep), source);
    std::error_code ec;
    fs::remove_all(tmpdir, ec);
    m.producer = "clang 22 (" + tool_version(clang()) + ")";
  } else {  // .ll / .bc
    fs::path out = fs::temp_directory_path() / ("kernsim_llc_" + hash.substr(0, 16) + ".ptx");
    ProcessResult r = run_process({llc().string(), "-march=nvptx64", "-mcpu=" + target, "-O3", source.string(), "-o", out.string()});
    if (r.exit_code != 0) throw Error(ErrorKind::Compile, "llc could not compile " + source.string() + " for " + target + ":\n" + r.err);
    m.text = read_file(out);
    std::error_code ec;
    fs::remove(out, ec);
    m.producer = "llc 22";
  }
  list_kernels(m);
  fill_resources(m);
  if (opt.use_cache) {
    try {
      write_file_atomic(entry / "module.ptx", m.text);
      write_file_atomic(entry / "meta.json", module_to_json(m, deps).dump(1));
    } catch (const Error&) {
      // an unwritable cache only costs speed
    }
  }
  return m;
}

}  // namespace kernsim::frontends
