// Reading AMDGPU code objects with LLVM's ELF and MessagePack readers.
#include "isa/amdgcn/code_object.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/error.h"
#include "isa/amdgcn/llvm_entry.h"

namespace kernsim::isa::amdgcn {

namespace {

using ELFT = llvm::object::ELF64LE;

[[noreturn]] void fail(const std::string& origin, const std::string& what) {
  throw Error(ErrorKind::Parse, origin + ": not a usable AMDGPU code object: " + what);
}

template <class T>
T take(llvm::Expected<T> e, const std::string& origin, const char* what) {
  if (!e) fail(origin, std::string(what) + ": " + llvm::toString(e.takeError()));
  return std::move(*e);
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The largest loadable segment kernsim allocates (code objects of real kernels are kilobytes to a
// few megabytes; a larger p_memsz is a damaged or crafted file).
constexpr std::uint64_t kMaxSegmentBytes = std::uint64_t{1} << 30;

// Kernel arguments: the AMDHSA ABI passes at most 4 KiB of explicit arguments; with the hidden
// ones a segment stays far below this bound, past which metadata is damaged or crafted.
constexpr std::uint64_t kMaxKernargBytes = std::uint64_t{1} << 16;

std::uint32_t rd32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

KernelDescriptor decode_descriptor(const std::uint8_t* p) {
  KernelDescriptor d;
  d.group_segment_fixed_size = rd32(p + 0);
  d.private_segment_fixed_size = rd32(p + 4);
  d.kernarg_size = rd32(p + 8);
  std::memcpy(&d.kernel_code_entry_byte_offset, p + 16, 8);
  d.rsrc3 = rd32(p + 44);
  d.rsrc1 = rd32(p + 48);
  d.rsrc2 = rd32(p + 52);
  std::memcpy(&d.code_properties, p + 56, 2);
  std::memcpy(&d.kernarg_preload, p + 58, 2);
  const std::uint32_t r2 = d.rsrc2;
  d.enable_private_segment = r2 & 1u;
  d.user_sgpr_count = static_cast<int>((r2 >> 1) & 0x1f);
  d.enable_workgroup_id[0] = (r2 >> 7) & 1u;
  d.enable_workgroup_id[1] = (r2 >> 8) & 1u;
  d.enable_workgroup_id[2] = (r2 >> 9) & 1u;
  d.enable_workgroup_info = (r2 >> 10) & 1u;
  d.enable_vgpr_workitem_id = static_cast<int>((r2 >> 11) & 3u);
  const std::uint16_t cp = d.code_properties;
  d.user_private_segment_buffer = cp & 1u;
  d.user_dispatch_ptr = (cp >> 1) & 1u;
  d.user_queue_ptr = (cp >> 2) & 1u;
  d.user_kernarg_segment_ptr = (cp >> 3) & 1u;
  d.user_dispatch_id = (cp >> 4) & 1u;
  d.user_flat_scratch_init = (cp >> 5) & 1u;
  d.user_private_segment_size = (cp >> 6) & 1u;
  d.wavefront_size32 = (cp >> 10) & 1u;
  d.uses_dynamic_stack = (cp >> 11) & 1u;
  d.kernarg_preload_dwords = d.kernarg_preload & 0x7f;
  d.kernarg_preload_offset_dwords = d.kernarg_preload >> 7;
  d.accum_offset = static_cast<int>(((d.rsrc3 & 0x3f) + 1) * 4);
  return d;
}

std::int64_t num(llvm::msgpack::DocNode& n) {
  if (n.getKind() == llvm::msgpack::Type::Int) return n.getInt();
  if (n.getKind() == llvm::msgpack::Type::UInt) return static_cast<std::int64_t>(n.getUInt());
  if (n.getKind() == llvm::msgpack::Type::Boolean) return n.getBool() ? 1 : 0;
  return 0;
}

std::string str(llvm::msgpack::DocNode& n) {
  return n.getKind() == llvm::msgpack::Type::String ? n.getString().str() : std::string();
}

// LLVM's msgpack::Document orders map keys with operator<, which only knows scalar keys: a map
// or array as a key (crafted metadata) is llvm_unreachable, which a release libLLVM runs past
// into a SIGSEGV (found by fuzzing, tests/fuzz/regressions/code_object). The blob is walked with
// the streaming reader first: every map key must be a string (all AMDHSA metadata keys are), and
// nesting is bounded.
void check_metadata_shape(llvm::StringRef blob, const std::string& origin) {
  llvm::msgpack::Reader reader(blob);
  struct Level {
    std::uint64_t left;  // objects still to read at this level (a map of N entries: 2N)
    bool map;
  };
  std::vector<Level> stack{{1, false}};
  while (!stack.empty()) {
    if (stack.back().left == 0) {
      stack.pop_back();
      continue;
    }
    const bool key = stack.back().map && stack.back().left % 2 == 0;
    --stack.back().left;
    llvm::msgpack::Object o;
    auto got = reader.read(o);
    if (!got) fail(origin, "the AMDGPU metadata note is not MessagePack: " + llvm::toString(got.takeError()));
    if (!*got) fail(origin, "the AMDGPU metadata note ends inside a value");
    if (key && o.Kind != llvm::msgpack::Type::String) fail(origin, "the AMDGPU metadata has a map key that is not a string");
    if (o.Kind == llvm::msgpack::Type::Map || o.Kind == llvm::msgpack::Type::Array) {
      if (stack.size() > 64) fail(origin, "the AMDGPU metadata nests deeper than 64 levels");
      stack.push_back({o.Kind == llvm::msgpack::Type::Map ? 2 * std::uint64_t{o.Length} : std::uint64_t{o.Length},
                       o.Kind == llvm::msgpack::Type::Map});
    }
  }
}

void read_metadata(CodeObject& co, llvm::ArrayRef<std::uint8_t> desc, const std::string& origin) {
  llvm::msgpack::Document doc;
  llvm::StringRef blob(reinterpret_cast<const char*>(desc.data()), desc.size());
  check_metadata_shape(blob, origin);
  if (!doc.readFromBlob(blob, false)) fail(origin, "the AMDGPU metadata note is not MessagePack");
  auto& root = doc.getRoot();
  if (root.getKind() != llvm::msgpack::Type::Map) fail(origin, "the AMDGPU metadata is not a map");
  auto& m = root.getMap();
  if (auto it = m.find("amdhsa.target"); it != m.end()) co.target_id = str(it->second);
  if (auto it = m.find("amdhsa.version"); it != m.end() && it->second.getKind() == llvm::msgpack::Type::Array) {
    auto& v = it->second.getArray();
    if (v.size() >= 2) co.code_object_version = static_cast<int>(num(v[1])) + 3;  // 1.0 -> v3, 1.1 -> v4, 1.2 -> v5
  }
  auto kit = m.find("amdhsa.kernels");
  if (kit == m.end() || kit->second.getKind() != llvm::msgpack::Type::Array) return;
  for (auto& kn : kit->second.getArray()) {
    if (kn.getKind() != llvm::msgpack::Type::Map) continue;
    auto& km = kn.getMap();
    auto get = [&](const char* key) -> llvm::msgpack::DocNode* {
      auto i = km.find(key);
      return i == km.end() ? nullptr : &i->second;
    };
    std::string sym = get(".symbol") ? str(*get(".symbol")) : std::string();
    std::string name = get(".name") ? str(*get(".name")) : std::string();
    if (sym.size() > 3 && sym.compare(sym.size() - 3, 3, ".kd") == 0) sym.resize(sym.size() - 3);
    Kernel* k = nullptr;
    for (auto& cand : co.kernels)
      if (cand.name == sym || cand.name == name) k = &cand;
    if (!k) continue;  // metadata for a kernel whose symbol is absent: ignore
    k->has_metadata = true;
    if (auto* n = get(".kernarg_segment_size")) k->kernarg_segment_size = static_cast<std::uint32_t>(num(*n));
    if (k->kernarg_segment_size > kMaxKernargBytes)
      fail(origin, "kernel `" + k->name + "`: a kernarg segment of " + std::to_string(k->kernarg_segment_size) + " bytes, beyond the " +
                       std::to_string(kMaxKernargBytes) + "-byte limit");
    if (auto* n = get(".kernarg_segment_align")) k->kernarg_segment_align = static_cast<std::uint32_t>(num(*n));
    if (auto* n = get(".group_segment_fixed_size")) k->group_segment_fixed_size = static_cast<std::uint32_t>(num(*n));
    if (auto* n = get(".private_segment_fixed_size")) k->private_segment_fixed_size = static_cast<std::uint32_t>(num(*n));
    if (auto* n = get(".sgpr_count")) k->sgpr_count = static_cast<int>(num(*n));
    if (auto* n = get(".vgpr_count")) k->vgpr_count = static_cast<int>(num(*n));
    if (auto* n = get(".agpr_count")) k->agpr_count = static_cast<int>(num(*n));
    if (auto* n = get(".sgpr_spill_count")) k->sgpr_spill_count = static_cast<int>(num(*n));
    if (auto* n = get(".vgpr_spill_count")) k->vgpr_spill_count = static_cast<int>(num(*n));
    if (auto* n = get(".wavefront_size")) k->wavefront_size = static_cast<int>(num(*n));
    if (auto* n = get(".max_flat_workgroup_size")) k->max_flat_workgroup_size = static_cast<int>(num(*n));
    if (auto* n = get(".uses_dynamic_stack")) k->uses_dynamic_stack = num(*n) != 0;
    if (auto* n = get(".reqd_workgroup_size"); n && n->getKind() == llvm::msgpack::Type::Array) {
      auto& a = n->getArray();
      for (std::size_t i = 0; i < 3 && i < a.size(); ++i) k->reqd_workgroup_size[i] = static_cast<int>(num(a[i]));
    }
    if (auto* n = get(".args"); n && n->getKind() == llvm::msgpack::Type::Array) {
      for (auto& an : n->getArray()) {
        if (an.getKind() != llvm::msgpack::Type::Map) continue;
        auto& am = an.getMap();
        KernelArg a;
        if (auto i = am.find(".name"); i != am.end()) a.name = str(i->second);
        if (auto i = am.find(".value_kind"); i != am.end()) a.value_kind = str(i->second);
        if (auto i = am.find(".address_space"); i != am.end()) a.address_space = str(i->second);
        if (auto i = am.find(".offset"); i != am.end()) a.offset = static_cast<std::uint32_t>(num(i->second));
        if (auto i = am.find(".size"); i != am.end()) a.size = static_cast<std::uint32_t>(num(i->second));
        if (std::uint64_t{a.offset} + a.size > kMaxKernargBytes)
          fail(origin, "kernel `" + k->name + "`: argument `" + a.name + "` at offset " + std::to_string(a.offset) + " of " +
                           std::to_string(a.size) + " bytes lies beyond the " + std::to_string(kMaxKernargBytes) + "-byte kernarg limit");
        k->args.push_back(std::move(a));
      }
    }
  }
}

}  // namespace

namespace {

// The .debug_line rows of every compile unit as address ranges (the rows of a sequence, each up to
// the next; line-0 rows kept so that they end the range before them), sorted by address. A code
// object without DWARF, or one LLVM cannot read as an object file, has none.
std::vector<LineRange> read_line_ranges(const std::vector<std::uint8_t>& elf) {
  std::vector<LineRange> out;
  llvm::MemoryBufferRef buf(llvm::StringRef(reinterpret_cast<const char*>(elf.data()), elf.size()), "code object");
  auto obj = llvm::object::ObjectFile::createObjectFile(buf);
  if (!obj) {
    llvm::consumeError(obj.takeError());
    return out;
  }
  auto ctx = llvm::DWARFContext::create(**obj, llvm::DWARFContext::ProcessDebugRelocations::Ignore, nullptr, "",
                                        [](llvm::Error e) { llvm::consumeError(std::move(e)); },
                                        [](llvm::Error e) { llvm::consumeError(std::move(e)); });
  for (const auto& cu : ctx->compile_units()) {
    const llvm::DWARFDebugLine::LineTable* lt = ctx->getLineTableForUnit(cu.get());
    if (!lt) continue;
    const char* dir = cu->getCompilationDir();
    for (std::size_t i = 0; i + 1 < lt->Rows.size(); ++i) {
      const auto& r = lt->Rows[i];
      if (r.EndSequence) continue;
      LineRange lr;
      lr.begin = r.Address.Address;
      lr.end = lt->Rows[i + 1].Address.Address;
      lr.line = r.Line;
      if (lr.end <= lr.begin) continue;
      if (r.Line) lt->getFileNameByIndex(r.File, dir ? dir : "", llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, lr.file);
      out.push_back(std::move(lr));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LineRange& a, const LineRange& b) { return a.begin < b.begin; });
  return out;
}

}  // namespace

CodeObject read_code_object_llvm(const std::vector<std::uint8_t>& elf, const std::string& origin) {
  if (elf.size() < 64 || std::memcmp(elf.data(), "\x7f" "ELF", 4) != 0) fail(origin, "no ELF header");
  llvm::StringRef bytes(reinterpret_cast<const char*>(elf.data()), elf.size());
  auto file = take(llvm::object::ELFFile<ELFT>::create(bytes), origin, "ELF");
  const auto& eh = file.getHeader();
  if (eh.e_machine != llvm::ELF::EM_AMDGPU) fail(origin, "the ELF machine is not AMDGPU (EM_AMDGPU)");

  CodeObject co;
  // processor from e_flags
  const unsigned mach = eh.e_flags & llvm::ELF::EF_AMDGPU_MACH;
  switch (mach) {
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942: co.target = "gfx942"; break;
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950: co.target = "gfx950"; break;
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A: co.target = "gfx90a"; break;
    case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX908: co.target = "gfx908"; break;
    default: {
      char b[16];
      std::snprintf(b, sizeof b, "0x%x", mach);
      co.target = std::string("unknown processor (e_flags mach ") + b + ")";
    }
  }

  auto phdrs = take(file.program_headers(), origin, "program headers");
  for (const auto& ph : phdrs) {
    if (ph.p_type == llvm::ELF::PT_LOAD) {
      if (ph.p_offset > elf.size() || ph.p_filesz > elf.size() - ph.p_offset) fail(origin, "a PT_LOAD segment runs past the end of the file");
      // a segment's memory is allocated: bounded before that (real code objects hold a few MB)
      if (ph.p_memsz > kMaxSegmentBytes)
        fail(origin, "a PT_LOAD segment of " + std::to_string(ph.p_memsz) + " bytes in memory, above the " + std::to_string(kMaxSegmentBytes) +
                         " kernsim loads");
      if (ph.p_vaddr > ~std::uint64_t{0} - ph.p_memsz) fail(origin, "a PT_LOAD segment at " + hex(ph.p_vaddr) + " wraps around the address space");
      Segment s;
      s.vaddr = ph.p_vaddr;
      s.bytes.assign(static_cast<std::size_t>(ph.p_memsz), 0);
      if (const std::size_t n = static_cast<std::size_t>(std::min(ph.p_filesz, ph.p_memsz)); n > 0)
        std::memcpy(s.bytes.data(), elf.data() + ph.p_offset, n);
      s.writable = ph.p_flags & llvm::ELF::PF_W;
      s.executable = ph.p_flags & llvm::ELF::PF_X;
      co.segments.push_back(std::move(s));
    }
  }

  auto sections = take(file.sections(), origin, "section headers");
  const typename ELFT::Shdr* symtab = nullptr;
  for (const auto& sh : sections) {
    auto name = take(file.getSectionName(sh), origin, "section name");
    if (name == ".text") {
      auto c = take(file.getSectionContents(sh), origin, ".text");
      co.text_addr = sh.sh_addr;
      co.text.assign(c.begin(), c.end());
      if (co.text_addr > ~std::uint64_t{0} - co.text.size()) fail(origin, ".text at " + hex(co.text_addr) + " wraps around the address space");
    }
    if (sh.sh_type == llvm::ELF::SHT_SYMTAB) symtab = &sh;
    if (!symtab && sh.sh_type == llvm::ELF::SHT_DYNSYM) symtab = &sh;
  }
  if (co.text.empty()) fail(origin, "no .text section");
  if (!symtab) fail(origin, "no symbol table");

  // symbols: functions (kernels and callees) and kernel descriptors (`name.kd`)
  auto syms = take(file.symbols(symtab), origin, "symbols");
  auto strtab = take(file.getStringTableForSymtab(*symtab), origin, "symbol names");
  std::vector<std::pair<std::string, std::uint64_t>> descriptors;
  for (const auto& s : syms) {
    auto nm = take(s.getName(strtab), origin, "symbol name");
    if (nm.empty() || s.st_shndx == llvm::ELF::SHN_UNDEF || s.st_shndx == llvm::ELF::SHN_ABS) continue;
    if (s.getType() == llvm::ELF::STT_FUNC) co.symbols.push_back({nm.str(), s.st_value, s.st_size, true});
    else if (s.getType() == llvm::ELF::STT_OBJECT) {
      co.symbols.push_back({nm.str(), s.st_value, s.st_size, false});
      if (nm.ends_with(".kd") && s.st_size >= 64) descriptors.emplace_back(nm.drop_back(3).str(), s.st_value);
    }
  }
  std::sort(co.symbols.begin(), co.symbols.end(), [](const Symbol& a, const Symbol& b) { return a.addr < b.addr; });
  co.symbols.erase(std::unique(co.symbols.begin(), co.symbols.end(),
                               [](const Symbol& a, const Symbol& b) { return a.addr == b.addr && a.name == b.name; }),
                   co.symbols.end());

  auto read_at = [&](std::uint64_t vaddr, std::size_t n) -> const std::uint8_t* {
    for (const auto& seg : co.segments)  // no sum that can wrap: a descriptor address near 2^64 is outside
      if (vaddr >= seg.vaddr && vaddr - seg.vaddr <= seg.bytes.size() && n <= seg.bytes.size() - (vaddr - seg.vaddr))
        return seg.bytes.data() + (vaddr - seg.vaddr);
    return nullptr;
  };
  for (const auto& [name, addr] : descriptors) {
    const std::uint8_t* p = read_at(addr, 64);
    if (!p) fail(origin, "kernel descriptor `" + name + ".kd` at " + hex(addr) + " lies outside the loadable segments");
    Kernel k;
    k.name = name;
    k.descriptor_addr = addr;
    k.kd = decode_descriptor(p);
    k.code_addr = addr + static_cast<std::uint64_t>(k.kd.kernel_code_entry_byte_offset);
    if (k.code_addr < co.text_addr || k.code_addr - co.text_addr >= co.text.size() || k.code_addr % 4)
      fail(origin, "kernel `" + name + "`: its entry " + hex(k.code_addr) + " (descriptor at " + hex(addr) + " + " +
                       std::to_string(k.kd.kernel_code_entry_byte_offset) + ") is not an instruction of .text");
    for (const auto& s : co.symbols)
      if (s.is_function && s.addr == k.code_addr) k.code_size = s.size;
    k.group_segment_fixed_size = k.kd.group_segment_fixed_size;
    k.private_segment_fixed_size = k.kd.private_segment_fixed_size;
    k.kernarg_segment_size = k.kd.kernarg_size;
    if (k.kernarg_segment_size > kMaxKernargBytes)
      fail(origin, "kernel `" + name + "`: its descriptor gives a kernarg segment of " + std::to_string(k.kernarg_segment_size) +
                       " bytes, beyond the " + std::to_string(kMaxKernargBytes) + "-byte limit");
    k.wavefront_size = k.kd.wavefront_size32 ? 32 : 64;
    co.kernels.push_back(std::move(k));
  }

  // metadata note (now that the kernels exist)
  for (const auto& sh : sections) {
    if (sh.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : file.notes(sh, err))
      if (note.getType() == llvm::ELF::NT_AMDGPU_METADATA && note.getName() == "AMDGPU") read_metadata(co, note.getDesc(4), origin);
    if (err) fail(origin, "notes: " + llvm::toString(std::move(err)));
  }
  if (co.target_id.empty()) co.target_id = "amdgcn-amd-amdhsa--" + co.target;

  // dynamic relocations (pointers in data: RELATIVE64, ABS64 against defined symbols)
  for (const auto& sh : sections) {
    if (sh.sh_type != llvm::ELF::SHT_RELA) continue;
    auto relas = take(file.relas(sh), origin, "relocations");
    const typename ELFT::Shdr* rsym = nullptr;
    if (sh.sh_link < sections.size()) rsym = &sections[sh.sh_link];
    for (const auto& r : relas) {
      const std::uint32_t type = r.getType(false);
      Relocation rel;
      rel.offset = r.r_offset;
      rel.addend = r.r_addend;
      if (type == llvm::ELF::R_AMDGPU_RELATIVE64) {
        rel.relative = true;
      } else if (type == llvm::ELF::R_AMDGPU_ABS64 && rsym) {
        auto sym = take(file.getRelocationSymbol(r, rsym), origin, "relocation symbol");
        if (!sym || sym->st_shndx == llvm::ELF::SHN_UNDEF)
          fail(origin, "relocation at " + hex(r.r_offset) + " refers to an undefined symbol (the code object needs a runtime library)");
        rel.relative = false;
        rel.symbol_value = sym->st_value;
      } else if (type == llvm::ELF::R_AMDGPU_NONE) {
        continue;
      } else {
        fail(origin, "unsupported dynamic relocation type " + std::to_string(type) + " at " + hex(r.r_offset));
      }
      if (!read_at(rel.offset, 8)) fail(origin, "relocation at " + hex(r.r_offset) + " lies outside the loadable segments");
      co.relocations.push_back(rel);
    }
  }
  co.lines = read_line_ranges(elf);
  return co;
}

}  // namespace kernsim::isa::amdgcn
