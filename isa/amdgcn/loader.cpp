// read_code_object() and decode(): the LLVM-backed reader, loaded on first use (llvm_entry.h).
//
// The module is looked for, in order: at $KERNSIM_AMDGCN_LLVM (a path), beside the binary or
// shared object this code is linked into (the `kernsim` CLI, the Python extension), beside
// /proc/self/exe, and where the build put it.
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "isa/amdgcn/llvm_entry.h"

#ifdef KERNSIM_AMDGCN_LLVM_MODULE
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#endif

namespace kernsim::isa::amdgcn {

namespace {

#ifdef KERNSIM_AMDGCN_LLVM_MODULE
constexpr const char* kModuleName = "libkernsim_amdgcn_llvm.so";

std::vector<std::string> module_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("KERNSIM_AMDGCN_LLVM"); env && *env) c.emplace_back(env);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&module_candidates), &info) && info.dli_fname && *info.dli_fname)
    c.push_back((std::filesystem::path(info.dli_fname).parent_path() / kModuleName).string());
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) c.push_back((exe.parent_path() / kModuleName).string());
  c.emplace_back(KERNSIM_AMDGCN_LLVM_MODULE);
  return c;
}

const LlvmEntry* load_module() {
  std::string tried;
  for (const std::string& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": no such file";
      continue;
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "dlopen failed");
      continue;
    }
    auto get = reinterpret_cast<const LlvmEntry* (*)()>(dlsym(h, "kernsim_amdgcn_llvm_entry"));
    const LlvmEntry* e = get ? get() : nullptr;
    if (e && e->abi == kLlvmEntryAbi && e->read && e->decode) return e;
    tried += "\n  " + path + ": not this build's module (no matching kernsim_amdgcn_llvm_entry)";
  }
  throw Error(ErrorKind::Io, std::string("cannot load kernsim's AMDGCN code-object reader (") + kModuleName +
                                 ", which links libLLVM); tried:" + tried +
                                 "\n(set KERNSIM_AMDGCN_LLVM to its path, or rebuild kernsim)");
}
#endif

const LlvmEntry& entry() {
#ifdef KERNSIM_AMDGCN_LLVM_MODULE
  static const LlvmEntry* e = load_module();
  return *e;
#else
  return *kernsim_amdgcn_llvm_entry();
#endif
}

}  // namespace

CodeObject read_code_object(const std::vector<std::uint8_t>& elf, const std::string& origin) {
  return entry().read(elf, origin);
}

Program decode(std::shared_ptr<const CodeObject> code, const std::string& origin) {
  return entry().decode(std::move(code), origin);
}

}  // namespace kernsim::isa::amdgcn
