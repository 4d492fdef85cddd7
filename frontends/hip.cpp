// The AMD frontend: HIP, AMDGCN assembly, LLVM IR and ready code objects to an AMDGPU code object
// for gfx942 (MI300X) or gfx950 (MI355X).
//
//   .cu         CUDA, ported: compiled as HIP (below) with kernsim's CUDA-compatibility headers
//               (hip_include/cuda_compat) force-included, after a preprocessing pass whose output
//               the port's scan reads for 32-lane-warp assumptions (frontends/cuda_port.h).
//   .hip        clang-22 -x hip --offload-arch=<gfx> --cuda-device-only -nogpuinc -nogpulib with
//               kernsim's own device headers (frontends/hip_include), ROCm's ocml/ockl bitcode and
//               kernsim's __oclc_* control constants linked as builtin bitcode, -O3, code object v5;
//               clang's AMDGPU backend and lld produce the code object.
//   .ll / .bc   clang-22 for amdgcn-amd-amdhsa with the same device libraries, then ld.lld-22.
//   .s          llvm-mc-22 (AMDGCN assembly with its .amdhsa_kernel directives), then ld.lld-22.
//   .hsaco .co  as they are (hipcc, Triton), after checking the processor.
//
// Like the CUDA path it runs the LLVM drivers rather than libclang (what users run; a compiler
// crash cannot take the simulator down) and caches the code object on disk by a hash of the
// source, flags, target, compiler and device libraries, revalidated against the headers the
// source included.
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "base/error.h"
#include "base/files.h"
#include "base/hash.h"
#include "base/process.h"
#include "frontends/source_policy.h"
#include "frontends/compile.h"
#include "frontends/cuda_port.h"
#include "frontends/source_key.h"
#include "isa/amdgcn/code_object.h"

namespace kernsim::frontends {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kHipFrontendVersion = "hip-frontend-3";  // 3: -gline-tables-only

fs::path require(const char* env, const std::vector<std::string>& names, const std::string& what) {
  std::vector<std::string> cands;
  if (const char* e = std::getenv(env); e && *e) cands.push_back(e);
  cands.insert(cands.end(), names.begin(), names.end());
  if (auto p = find_program(cands)) return *p;
  throw Error(ErrorKind::Compile, what + " not found (looked for " + names.front() + "; set " + env + "); run ./scripts/install-deps.sh");
}

fs::path clang() { return require("KERNSIM_CLANG", {"clang++-22", "/usr/lib/llvm-22/bin/clang++"}, "clang 22"); }
fs::path llvm_mc() { return require("KERNSIM_LLVM_MC", {"llvm-mc-22", "/usr/lib/llvm-22/bin/llvm-mc"}, "llvm-mc 22"); }
fs::path lld() { return require("KERNSIM_LLD", {"ld.lld-22", "/usr/lib/llvm-22/bin/ld.lld"}, "ld.lld 22"); }

std::string version_of(const fs::path& tool) {
  static std::mutex mu;
  static std::map<std::string, std::string> memo;
  std::lock_guard<std::mutex> lock(mu);
  auto it = memo.find(tool.string());
  if (it != memo.end()) return it->second;
  ProcessResult r = run_process({tool.string(), "--version"});
  std::string first = r.out.substr(0, r.out.find('\n'));
  memo[tool.string()] = first;
  return first;
}

// ROCm's device libraries (ocml, ockl) as LLVM bitcode.
fs::path device_lib_dir() {
  std::vector<fs::path> cands;
  if (const char* e = std::getenv("KERNSIM_ROCM_DEVICE_LIBS"); e && *e) cands.emplace_back(e);
  cands.emplace_back("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode");
  cands.emplace_back("/opt/rocm/amdgcn/bitcode");
  cands.emplace_back("/usr/lib/llvm-22/lib/clang/22/lib/amdgcn/bitcode");
  for (const auto& c : cands) {
    std::error_code ec;
    if (fs::exists(c / "ocml.bc", ec) && fs::exists(c / "ockl.bc", ec)) return c;
  }
  throw Error(ErrorKind::Compile, "ROCm device libraries (ocml.bc, ockl.bc) not found in /usr/lib/x86_64-linux-gnu/amdgcn/bitcode "
                                  "or /opt/rocm/amdgcn/bitcode; install rocm-device-libs (./scripts/install-deps.sh) or set "
                                  "KERNSIM_ROCM_DEVICE_LIBS");
}

fs::path hip_include_dir() {
  fs::path p = data_dir() / "frontends" / "hip_include";
  std::error_code ec;
  if (!fs::exists(p / "hip" / "hip_runtime.h", ec))
    throw Error(ErrorKind::Io, "kernsim's HIP device headers are missing (" + p.string() + "/hip/hip_runtime.h); set KERNSIM_DATA_DIR");
  return p;
}

std::string temp_tag(const std::string& hash) {
  return hash.substr(0, 16) + "_" + std::to_string(::getpid()) + "_" +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

// The __oclc_* control constants the device libraries read, for one processor. Debian's
// rocm-device-libs stop at gfx940, so kernsim writes its own: ISA version, code object ABI 5,
// IEEE denormals, no finite-only or unsafe math, correctly rounded sqrt, wave64.
fs::path oclc_bitcode(const std::string& target, int cov) {
  const int isa = isa::amdgcn::isa_version_number(target);
  std::ostringstream src;
  src << "#define K(T, name, v) __attribute__((visibility(\"hidden\"))) const __attribute__((address_space(4))) T name = v;\n"
      << "K(int, __oclc_ISA_version, " << isa << ")\n"
      << "K(int, __oclc_ABI_version, " << cov * 100 << ")\n"
      << "K(unsigned char, __oclc_daz_opt, 0)\n"
      << "K(unsigned char, __oclc_finite_only_opt, 0)\n"
      << "K(unsigned char, __oclc_unsafe_math_opt, 0)\n"
      << "K(unsigned char, __oclc_correctly_rounded_sqrt32, 1)\n"
      << "K(unsigned char, __oclc_wavefrontsize64, 1)\n";
  const std::string text = src.str();
  const std::string hash = sha256_hex(text + target + std::to_string(cov) + version_of(clang()));
  const fs::path out = cache_dir() / "amd" / ("oclc-" + target + "-v" + std::to_string(cov) + "-" + hash.substr(0, 16) + ".bc");
  std::error_code ec;
  if (fs::exists(out, ec)) return out;
  fs::create_directories(out.parent_path(), ec);
  const std::string tag = temp_tag(hash);
  const fs::path c = out.parent_path() / ("oclc-" + tag + ".c"), bc = out.parent_path() / ("oclc-" + tag + ".bc");
  write_file_atomic(c, text);
  ProcessResult r = run_process({clang().string(), "-x", "c", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + target,
                                 "-mcode-object-version=" + std::to_string(cov), "-nogpulib", "-O2", "-emit-llvm", "-c", c.string(), "-o", bc.string()});
  fs::remove(c, ec);
  if (r.exit_code != 0) throw Error(ErrorKind::Compile, "clang could not build the __oclc_* constants for " + target + ":\n" + r.err);
  fs::rename(bc, out, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot write " + out.string() + ": " + ec.message());
  return out;
}

std::vector<std::string> device_lib_flags(const std::string& target, int cov) {
  const fs::path dir = device_lib_dir();
  std::vector<std::string> f;
  for (const fs::path& bc : {dir / "ocml.bc", dir / "ockl.bc", oclc_bitcode(target, cov)}) {
    f.push_back("-Xclang");
    f.push_back("-mlink-builtin-bitcode");
    f.push_back("-Xclang");
    f.push_back(bc.string());
  }
  return f;
}

std::int64_t mtime_of(const fs::path& p) {
  std::error_code ec;
  auto t = fs::last_write_time(p, ec);
  return ec ? 0 : static_cast<std::int64_t>(t.time_since_epoch().count());
}

// The main source is left out (its text is in the cache key), as in the CUDA frontend.
json depfile_deps(const std::string& text, const fs::path& source) {
  json deps = json::array();
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    s += text[i];
  }
  auto colon = s.find(": ");
  if (colon == std::string::npos) return deps;
  std::stringstream ss(s.substr(colon + 2));
  std::string p;
  while (ss >> p) {
    if (p == source.string()) continue;
    std::error_code ec;
    deps.push_back({{"path", p}, {"size", fs::file_size(p, ec)}, {"mtime", mtime_of(p)}});
  }
  return deps;
}

bool deps_unchanged(const json& deps) {
  for (const auto& d : deps) {
    std::error_code ec;
    fs::path p = d.at("path").get<std::string>();
    if (!fs::exists(p, ec) || fs::file_size(p, ec) != d.at("size").get<std::uintmax_t>() ||
        mtime_of(p) != d.at("mtime").get<std::int64_t>())
      return false;
  }
  return true;
}

// Kernels and their resources from the code object's descriptors and metadata.
void list_amd_kernels(DeviceModule& m) {
  const isa::amdgcn::CodeObject co = isa::amdgcn::read_code_object(m.binary, m.origin.string());
  if (co.target != m.target)
    throw Error(ErrorKind::Compile, m.origin.string() + " is a code object for " + co.target + ", but the device is " + m.target +
                                        "; code objects run only on the processor they were built for");
  m.kernels.clear();
  for (const auto& k : co.kernels) {
    KernelInfo ki;
    ki.name = k.name;
    ki.demangled = demangle(k.name);
    Resources& r = ki.resources;
    r.registers = k.vgpr_count;
    r.agprs = k.agpr_count;
    r.sgprs = k.sgpr_count;
    r.static_shared = k.group_segment_fixed_size;
    r.local_bytes = k.private_segment_fixed_size;
    r.spill_stores = k.vgpr_spill_count + k.sgpr_spill_count;
    r.source = k.has_metadata ? "code object metadata" : "kernel descriptor";
    m.kernels.push_back(std::move(ki));
  }
}

std::string lower_ext(const fs::path& p) {
  std::string e = p.extension().string();
  for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// A ported CUDA source that clang refused: a CUDA header the port has no counterpart for, or inline
// assembly (PTX), is unsupported by name; anything else is a compile error that says the source
// went through the port.
[[noreturn]] void port_fail(const fs::path& source, const std::string& target, const ProcessResult& r, const PortScan& scan = {}) {
  static const std::regex missing(R"(fatal error: '([^']+)' file not found)");
  std::smatch m;
  const std::string what = "CUDA on AMD (" + source.string() + " compiled as HIP for " + target + ", docs/cuda_on_amd.md): ";
  static const std::regex cuda_header(R"(^(cuda|cub/|thrust/|cooperative_groups|mma\.h|crt/|curand|cublas|cufft|cusparse|cutlass/|cute/|nv|sm_\d|device_|vector_|texture_|surface_|math_functions|sm_))");
  if (std::regex_search(r.err, m, missing) && std::regex_search(m[1].str(), cuda_header))
    throw Error(ErrorKind::Unsupported, what + "<" + m[1].str() + "> has no counterpart in kernsim's CUDA-compatibility headers " +
                                            "(cuda_runtime.h, cuda_fp16.h, cuda_bf16.h, math_constants.h, ...); clang said:\n" + r.err);
  if (!scan.asm_lines.empty()) {
    std::string where;
    for (const auto& [file, line] : scan.asm_lines) where += (where.empty() ? "" : ", ") + file + ":" + std::to_string(line);
    throw Error(ErrorKind::Unsupported, what + "inline assembly (PTX) at " + where + " cannot run on an AMD part; clang said:\n" + r.err);
  }
  throw Error(ErrorKind::Compile, "clang could not compile " + source.string() + " for " + target + " as HIP (kernsim's CUDA-on-AMD port, docs/cuda_on_amd.md):\n" + r.err + r.out);
}

}  // namespace

DeviceModule compile_amd(const fs::path& source, const CompileOptions& opt) {
  const std::string ext = lower_ext(source);
  const std::string& target = opt.target;
  if (target.rfind("gfx", 0) != 0)
    throw Error(ErrorKind::Compile, "`" + source.string() + "` is an AMD source (" + ext + "); the device's target is " + target +
                                        ". AMD sources run on mi300x (gfx942) and mi355x (gfx950)");
  if (target != "gfx942" && target != "gfx950")
    throw Error(ErrorKind::Unsupported, "target `" + target + "`: kernsim compiles AMD code for gfx942 and gfx950 only");
  if (ext == ".ptx")
    throw Error(ErrorKind::Unsupported, "`" + source.string() + "` is PTX, which runs on NVIDIA targets only; the device is " + target +
                                            " (a CUDA source, .cu, is ported to AMD automatically: docs/cuda_on_amd.md)");
  if (ext != ".hip" && ext != ".cpp" && ext != ".cu" && ext != ".s" && ext != ".hsaco" && ext != ".co" && ext != ".ll" && ext != ".bc")
    throw Error(ErrorKind::LaunchSpec, "`source`: unsupported file type `" + ext + "` (" + source.string() +
                                           ") for " + target + "; expected .hip .cpp .cu .s .hsaco .co .ll .bc");
  const bool port = ext == ".cu";  // CUDA compiled as HIP (docs/cuda_on_amd.md)
  // a .cpp is HIP, as hipcc compiles it (HipKittens' kernels are .cpp files)
  const bool hip = ext == ".hip" || ext == ".cpp" || port;
  const std::string bytes = read_file(source, "kernel source");
  if (ext != ".hsaco" && ext != ".co") check_host_reads(source, bytes, opt.extra_flags, hip ? "c" : "asm");

  DeviceModule m;
  m.kind = IsaKind::Amdgcn;
  m.target = target;
  m.origin = source;

  if (ext == ".hsaco" || ext == ".co") {
    m.binary.assign(bytes.begin(), bytes.end());
    m.producer = "code object file";
    list_amd_kernels(m);
    return m;
  }

  Sha256 key;
  // a .hip source is hashed without its comments and extra whitespace (source_key.h); a ported
  // .cu is not, as its warnings quote its lines
  const bool normalized = ext == ".hip" || ext == ".cpp";
  key.field(kHipFrontendVersion).field(ext).field(normalized ? "src-norm-1" : "bytes");
  key.field(normalized ? normalize_for_cache_key(bytes) : bytes).field(target);
  for (const auto& f : opt.extra_flags) key.field(f);
  if (ext == ".s") {
    key.field(version_of(llvm_mc())).field(version_of(lld()));
  } else {
    key.field(version_of(clang())).field(version_of(lld()));
    const fs::path libs = device_lib_dir();
    for (const char* lib : {"ocml.bc", "ockl.bc"}) key.field(std::to_string(fs::file_size(libs / lib))).field(std::to_string(mtime_of(libs / lib)));
    if (hip) key.field(fs::absolute(source).parent_path().string()).field(hip_include_dir().string());
    if (port) key.field("cuda-port-1");
  }
  const std::string hash = key.hex();
  const fs::path entry = cache_dir() / "v1" / hash.substr(0, 2) / hash;

  if (opt.use_cache && fs::exists(entry / "module.hsaco") && fs::exists(entry / "meta.json")) {
    try {
      json meta = json::parse(read_file(entry / "meta.json"));
      if (deps_unchanged(meta.at("deps"))) {
        std::string co = read_file(entry / "module.hsaco");
        m.binary.assign(co.begin(), co.end());
        m.producer = meta.at("producer").get<std::string>();
        list_amd_kernels(m);
        if (port) {
          m.port = "cuda-as-hip";
          for (const auto& w : meta.at("warnings"))
            m.warnings.push_back({w.at("name"), w.at("file"), w.at("line"), w.at("code"), w.at("message")});
        }
        m.from_cache = true;
        return m;
      }
    } catch (const std::exception&) {
      // a damaged cache entry is rebuilt
    }
  }

  const fs::path tmp = fs::temp_directory_path() / ("kernsim_amd_" + temp_tag(hash));
  fs::create_directories(tmp);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  const fs::path out = tmp / "out.hsaco";
  json deps = json::array();
  bool cacheable = true;

  auto fail = [&](const std::string& tool, const ProcessResult& r) {
    throw Error(ErrorKind::Compile, tool + " could not compile " + source.string() + " for " + target + ":\n" + r.err + r.out);
  };
  if (hip) {
    const fs::path dep = tmp / "out.d";
    std::vector<std::string> argv = {clang().string(), "-x", "hip", "--offload-arch=" + target, "--cuda-device-only",
                                     "--no-gpu-bundle-output", "-nogpuinc", "-nogpulib", "-mcode-object-version=5",
                                     // .debug_line for the report's by_line (docs/report.md)
                                     "-std=c++17", "-O3", "-gline-tables-only", "-I", hip_include_dir().string(),
                                     // <hip_bf16.h> without `hip/`: ROCm users add -I/opt/rocm/include/hip
                                     // (HipKittens' Makefiles do); searched last, so it shadows nothing
                                     "-idirafter", (hip_include_dir() / "hip").string(), "-include", "__kernsim_hip_prelude.h",
                                     // the compilation unit's id names a symbol in the code object;
                                     // clang's default hashes the arguments, temporary paths and
                                     // all, so the same source gave other bytes in every process
                                     "-cuid=" + hash.substr(0, 16)};
    if (port)
      for (auto& f : cuda_port_flags(hip_include_dir())) argv.push_back(f);
    PortScan scan;
    if (port) {  // the preprocessor's view of the source, for the scan (and to name a missing header)
      std::vector<std::string> pre = argv;
      for (const char* a : {"-E", "-dD", "-o", "-"}) pre.push_back(a);
      for (const auto& f : opt.extra_flags) pre.push_back(f);
      pre.push_back(source.string());
      ProcessResult p = run_process(pre);
      if (p.exit_code != 0) port_fail(source, target, p);
      scan = scan_cuda_port(p.out, hip_include_dir());
    }
    for (const char* a : {"-c", "-o"}) argv.push_back(a);
    argv.push_back(out.string());
    // the headers the source includes, for the cache (-MD is ignored with --cuda-device-only -c)
    for (const char* a : {"-dependency-file", dep.c_str(), "-MT", "out"}) {
      argv.push_back("-Xclang");
      argv.push_back(a);
    }
    for (auto& f : device_lib_flags(target, 5)) argv.push_back(f);
    for (const auto& f : opt.extra_flags) argv.push_back(f);
    argv.push_back(source.string());
    ProcessResult r = run_process(argv);
    if (r.exit_code != 0) {
      if (port) port_fail(source, target, r, scan);
      fail("clang", r);
    }
    std::error_code ec;
    if (fs::exists(dep, ec)) deps = depfile_deps(read_file(dep), source);
    else cacheable = false;  // without the list of headers a cached entry could go stale
    m.producer = "clang 22 HIP (" + version_of(clang()) + ")";
    if (port) {
      add_ballot_width_warnings(scan, r.err);
      add_mask_width_warnings(scan, r.err);
      m.port = "cuda-as-hip";
      m.warnings = std::move(scan.warnings);
      m.producer = "clang 22 CUDA as HIP (" + version_of(clang()) + ")";
    }
  } else if (ext == ".ll" || ext == ".bc") {
    if (ext == ".ll" && bytes.find("target triple") != std::string::npos && bytes.find("amdgcn") == std::string::npos)
      throw Error(ErrorKind::Compile, source.string() + ": the LLVM IR's target triple is not amdgcn; kernsim compiles IR for " +
                                          target + " only when it was generated for amdgcn-amd-amdhsa");
    // The device libraries must be linked with the IR's own code object version (clang 22 defaults
    // to 6, hipcc of ROCm 6 to 5): read it from the module flags.
    std::string ir = bytes;
    if (ext == ".bc") {
      const fs::path text = tmp / "in.ll";
      ProcessResult d = run_process({clang().string(), "-x", "ir", "-target", "amdgcn-amd-amdhsa", "-S", "-emit-llvm", "-o",
                                     text.string(), source.string()});
      if (d.exit_code != 0) fail("clang", d);
      ir = read_file(text);
    }
    int cov = 5;
    const std::string flag = "\"amdhsa_code_object_version\", i32 ";
    if (auto p = ir.find(flag); p != std::string::npos) cov = std::atoi(ir.c_str() + p + flag.size()) / 100;
    if (cov < 4 || cov > 6) cov = 5;
    const fs::path obj = tmp / "out.o";
    std::vector<std::string> argv = {clang().string(), "-x", "ir", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + target,
                                     "-mcode-object-version=" + std::to_string(cov), "-nogpulib", "-O3", "-c", "-o", obj.string()};
    for (auto& f : device_lib_flags(target, cov)) argv.push_back(f);
    for (const auto& f : opt.extra_flags) argv.push_back(f);
    argv.push_back(source.string());
    ProcessResult r = run_process(argv);
    if (r.exit_code != 0) fail("clang", r);
    ProcessResult l = run_process({lld().string(), "-shared", "--no-undefined", obj.string(), "-o", out.string()});
    if (l.exit_code != 0) fail("ld.lld", l);
    m.producer = "clang 22 from LLVM IR";
  } else {  // .s
    const fs::path obj = tmp / "out.o";
    ProcessResult r = run_process({llvm_mc().string(), "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target, "-filetype=obj",
                                   source.string(), "-o", obj.string()});
    if (r.exit_code != 0) fail("llvm-mc", r);
    ProcessResult l = run_process({lld().string(), "-shared", "--no-undefined", obj.string(), "-o", out.string()});
    if (l.exit_code != 0) fail("ld.lld", l);
    m.producer = "llvm-mc 22 assembly";
  }
  std::string co = read_file(out, "code object");
  m.binary.assign(co.begin(), co.end());
  list_amd_kernels(m);
  if (opt.use_cache && cacheable) {
    try {
      write_file_atomic(entry / "module.hsaco", co);
      json warnings = json::array();
      for (const auto& w : m.warnings)
        warnings.push_back({{"name", w.name}, {"file", w.file}, {"line", w.line}, {"code", w.code}, {"message", w.message}});
      write_file_atomic(entry / "meta.json", json{{"producer", m.producer}, {"target", target}, {"deps", deps}, {"warnings", warnings}}.dump(1));
    } catch (const Error&) {
      // an unwritable cache only costs speed
    }
  }
  return m;
}

}  // namespace kernsim::frontends
