// The PTX decoder: ptx::Module -> ptx::Program for one kernel and the functions it calls.
#include "isa/ptx/decode.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "base/error.h"
#include "isa/ptx/ops.h"

namespace kernsim::isa::ptx {
namespace {

Ty parse_ty(std::string_view s) {
  static const std::unordered_map<std::string_view, Ty> m = {
      {"b8", Ty::B8}, {"b16", Ty::B16}, {"b32", Ty::B32}, {"b64", Ty::B64}, {"b128", Ty::B128},
      {"u8", Ty::U8}, {"u16", Ty::U16}, {"u32", Ty::U32}, {"u64", Ty::U64},
      {"s8", Ty::S8}, {"s16", Ty::S16}, {"s32", Ty::S32}, {"s64", Ty::S64},
      {"f16", Ty::F16}, {"f16x2", Ty::F16x2}, {"bf16", Ty::BF16}, {"bf16x2", Ty::BF16x2},
      {"f32", Ty::F32}, {"f64", Ty::F64}, {"pred", Ty::Pred}, {"tf32", Ty::TF32},
      {"e4m3", Ty::E4M3}, {"e5m2", Ty::E5M2}, {"e4m3x2", Ty::E4M3x2}, {"e5m2x2", Ty::E5M2x2},
      {"f32x2", Ty::F32x2}};
  auto it = m.find(s);
  return it == m.end() ? Ty::None : it->second;
}

Cmp parse_cmp(std::string_view s) {
  static const std::unordered_map<std::string_view, Cmp> m = {
      {"eq", Cmp::Eq}, {"ne", Cmp::Ne}, {"lt", Cmp::Lt}, {"le", Cmp::Le}, {"gt", Cmp::Gt}, {"ge", Cmp::Ge},
      {"lo", Cmp::Lo}, {"ls", Cmp::Ls}, {"hi", Cmp::Hi}, {"hs", Cmp::Hs}, {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
      {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
  auto it = m.find(s);
  return it == m.end() ? Cmp::None : it->second;
}

Rnd parse_rnd(std::string_view s) {
  static const std::unordered_map<std::string_view, Rnd> m = {
      {"rn", Rnd::Rn}, {"rz", Rnd::Rz}, {"rm", Rnd::Rm}, {"rp", Rnd::Rp}, {"rna", Rnd::Rna},
      {"rni", Rnd::Rni}, {"rzi", Rnd::Rzi}, {"rmi", Rnd::Rmi}, {"rpi", Rnd::Rpi}};
  auto it = m.find(s);
  return it == m.end() ? Rnd::None : it->second;
}

Space parse_space(std::string_view s) {
  if (s == "global") return Space::Global;
  if (s == "shared" || s == "shared::cta") return Space::Shared;
  if (s == "shared::cluster") return Space::SharedCluster;
  if (s == "local") return Space::Local;
  if (s == "param" || s == "param::entry" || s == "param::func") return Space::Param;
  if (s == "const") return Space::Const;
  return Space::Generic;
}

bool is_space_name(std::string_view s) {
  return s == "global" || s == "shared" || s == "shared::cta" || s == "shared::cluster" || s == "local" || s == "param" || s == "const" ||
         s == "param::entry" || s == "param::func";
}

// The special registers kernsim provides, with their width.
struct SpecialDef { const char* name; int bits; };
const SpecialDef kSpecials[] = {
    {"%tid.x", 32}, {"%tid.y", 32}, {"%tid.z", 32}, {"%ntid.x", 32}, {"%ntid.y", 32}, {"%ntid.z", 32},
    {"%ctaid.x", 32}, {"%ctaid.y", 32}, {"%ctaid.z", 32}, {"%nctaid.x", 32}, {"%nctaid.y", 32}, {"%nctaid.z", 32},
    {"%laneid", 32}, {"%warpid", 32}, {"%nwarpid", 32}, {"%smid", 32}, {"%nsmid", 32},
    {"%lanemask_eq", 32}, {"%lanemask_le", 32}, {"%lanemask_lt", 32}, {"%lanemask_ge", 32}, {"%lanemask_gt", 32},
    {"%clock", 32}, {"%clock_hi", 32}, {"%dynamic_smem_size", 32}, {"%total_smem_size", 32}, {"%aggr_smem_size", 32},
    {"%globaltimer_lo", 32}, {"%globaltimer_hi", 32},
    {"%cluster_ctaid.x", 32}, {"%cluster_ctaid.y", 32}, {"%cluster_ctaid.z", 32},
    {"%cluster_nctaid.x", 32}, {"%cluster_nctaid.y", 32}, {"%cluster_nctaid.z", 32},
    {"%cluster_ctarank", 32}, {"%cluster_nctarank", 32}, {"%is_explicit_cluster", 32},
    {"%clusterid.x", 32}, {"%clusterid.y", 32}, {"%clusterid.z", 32},
    {"%nclusterid.x", 32}, {"%nclusterid.y", 32}, {"%nclusterid.z", 32},
    {"%clock64", 64}, {"%globaltimer", 64}, {"%gridid", 64},
};

struct Binding {
  enum Kind { RegB, RangeB, LocalSym, FrameParamSym, KernelParamSym, SharedSym, GlobalSym } kind = RegB;
  Reg reg;               // RegB; RangeB: base register
  std::int64_t count = 0;
  std::int64_t offset = 0;  // symbol offset / address
  int bytes = 0;
};

class Decoder {
 public:
  Decoder(const ast::Module& m, std::string_view source, const std::string& origin) : m_(m), origin_(origin) {
    p_.origin = origin;
    p_.target = m.target;
    p_.version = m.version;
    p_.lines.emplace_back();
    std::size_t start = 0;
    for (std::size_t i = 0; i <= source.size(); ++i)
      if (i == source.size() || source[i] == '\n') {
        p_.lines.emplace_back(source.substr(start, i - start));
        start = i + 1;
      }
    for (std::size_t i = 0; i < m.functions.size(); ++i)
      if (m.functions[i].has_body || !module_funcs_.count(m.functions[i].name))
        module_funcs_[m.functions[i].name] = static_cast<int>(i);
    for (std::size_t i = 0; i < m.globals.size(); ++i) module_syms_[m.globals[i].name] = static_cast<int>(i);
  }

  Program run(const std::string& kernel) {
    auto it = module_funcs_.find(kernel);
    if (it == module_funcs_.end() || !m_.functions[it->second].is_entry)
      throw Error(ErrorKind::Internal, "kernsim bug: decode_kernel called for unknown kernel " + kernel);
    // Reachable functions, kernel first.
    std::vector<int> order{it->second};
    std::map<int, int> index_of{{it->second, 0}};
    for (std::size_t k = 0; k < order.size(); ++k) {
      const ast::Function& f = m_.functions[order[k]];
      for (const auto& st : f.body) {
        if (st.kind != ast::Statement::Kind::Instr || st.instr.parts.empty() || st.instr.parts[0] != "call") continue;
        for (const auto& o : st.instr.operands) {
          if (o.kind != ast::Operand::Kind::Symbol) continue;
          auto fit = module_funcs_.find(o.name);
          if (fit == module_funcs_.end() || m_.functions[fit->second].is_entry) continue;
          if (!m_.functions[fit->second].has_body)
            throw Error(ErrorKind::Unsupported, origin_ + ":" + std::to_string(st.line) + ": call to `" + o.name +
                                                    "`, which is declared but not defined in this module (no linking of "
                                                    "external device functions)");
          if (!index_of.count(fit->second)) {
            index_of[fit->second] = static_cast<int>(order.size());
            order.push_back(fit->second);
          }
        }
      }
    }
    func_index_ = index_of;
    layout_statics(order);
    p_.functions.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) decode_function(m_.functions[order[k]], static_cast<std::uint32_t>(k));
    return std::move(p_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw Error(ErrorKind::Parse, origin_ + ":" + std::to_string(line) + ": " + msg);
  }

  // ---- statics -----------------------------------------------------------------------------
  void collect_symbol_refs(const ast::Operand& o, std::set<std::string>& out) {
    if ((o.kind == ast::Operand::Kind::Symbol || o.kind == ast::Operand::Kind::Addr) && !o.name.empty() && module_syms_.count(o.name))
      out.insert(o.name);
    for (const auto& e : o.elems) collect_symbol_refs(e, out);
  }

  void layout_statics(const std::vector<int>& order) {
    std::set<std::string> used;
    std::vector<ast::Decl> local_shared;  // .shared declared inside function bodies
    for (int fi : order)
      for (const auto& st : m_.functions[fi].body) {
        if (st.kind == ast::Statement::Kind::Instr)
          for (const auto& o : st.instr.operands) collect_symbol_refs(o, used);
      }
    // statics referenced from initialisers of used statics
    bool grew = true;
    while (grew) {
      grew = false;
      for (const auto& g : m_.globals)
        if (used.count(g.name))
          for (const auto& [off, sym] : g.init_symbols)
            if (module_syms_.count(sym) && used.insert(sym).second) grew = true;
    }
    std::uint64_t shared_off = 0, global_off = 0;
    int max_shared_align = 16;
    for (const auto& g : m_.globals) {
      if (!used.count(g.name)) continue;
      Symbol s;
      s.name = g.name;
      s.space = g.space == "shared" ? Space::Shared : g.space == "const" ? Space::Const : Space::Global;
      s.bytes = g.total_bytes();
      s.align = std::max(1, g.align ? g.align : static_cast<int>(g.element_bytes()));
      s.is_extern = g.is_extern || g.array == 0;
      s.init = g.init;
      s.init_symbols = g.init_symbols;
      if (s.space == Space::Shared) {
        if (s.is_extern) {
          max_shared_align = std::max(max_shared_align, s.align);
        } else {
          shared_off = (shared_off + s.align - 1) / s.align * s.align;
          s.addr = shared_off;
          shared_off += static_cast<std::uint64_t>(s.bytes);
        }
      } else {
        if (s.is_extern && s.bytes == 0)
          throw Error(ErrorKind::Unsupported, origin_ + ":" + std::to_string(g.line) + ": extern ." + g.space + " `" + g.name +
                                                  "` has no definition in this module");
        std::uint64_t a = std::max(256, s.align);
        global_off = (global_off + a - 1) / a * a;
        s.addr = kGlobalBase + global_off;
        global_off += static_cast<std::uint64_t>(std::max<std::int64_t>(s.bytes, 1));
      }
      sym_index_[s.name] = static_cast<int>(p_.symbols.size());
      p_.symbols.push_back(std::move(s));
    }
    p_.static_shared_bytes = shared_off;
    extern_shared_align_ = static_cast<std::uint64_t>(max_shared_align);
    p_.dynamic_shared_offset = (shared_off + max_shared_align - 1) / max_shared_align * max_shared_align;
    for (auto& s : p_.symbols)
      if (s.space == Space::Shared && s.is_extern) s.addr = p_.dynamic_shared_offset;
    statics_bytes_ = global_off;
  }

  // ---- constants and specials --------------------------------------------------------------
  Reg const32(std::uint32_t v) {
    auto it = c32_.find(v);
    if (it != c32_.end()) return {Bank::C32, it->second};
    std::uint32_t idx = static_cast<std::uint32_t>(p_.c32.size() / 32);
    p_.c32.insert(p_.c32.end(), 32, v);
    c32_[v] = idx;
    return {Bank::C32, idx};
  }
  Reg const64(std::uint64_t v) {
    auto it = c64_.find(v);
    if (it != c64_.end()) return {Bank::C64, it->second};
    std::uint32_t idx = static_cast<std::uint32_t>(p_.c64.size() / 32);
    p_.c64.insert(p_.c64.end(), 32, v);
    c64_[v] = idx;
    return {Bank::C64, idx};
  }
  Reg constant(std::uint64_t v, int bits) { return bits > 32 ? const64(v) : const32(static_cast<std::uint32_t>(v)); }

  std::optional<Reg> special(const std::string& name, int line) {
    for (const auto& s : kSpecials) {
      if (name != s.name) continue;
      auto& names = s.bits == 64 ? p_.special_names64 : p_.special_names32;
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return Reg{s.bits == 64 ? Bank::S64 : Bank::S32, static_cast<std::uint32_t>(i)};
      names.push_back(name);
      if (s.bits == 64) p_.nspecial64 = static_cast<std::uint32_t>(names.size());
      else p_.nspecial32 = static_cast<std::uint32_t>(names.size());
      return Reg{s.bits == 64 ? Bank::S64 : Bank::S32, static_cast<std::uint32_t>(names.size() - 1)};
    }
    if (name.rfind("%envreg", 0) == 0 || name.rfind("%pm", 0) == 0 || name.rfind("%reserved_smem", 0) == 0) {
      // environment and performance-monitor registers read as zero in a simulator
      (void)line;
      return const32(0);
    }
    return std::nullopt;
  }

  // ---- scopes ------------------------------------------------------------------------------
  const Binding* lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    // %r5 against a range %r<8>
    std::size_t d = name.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(name[d - 1]))) --d;
    if (d == name.size() || d == 0 || name.size() - d > 9) return nullptr;  // no range holds 10^9 registers
    std::string prefix = name.substr(0, d);
    std::int64_t n = std::stoll(name.substr(d));
    if (name.size() - d > 1 && name[d] == '0') return nullptr;  // %r05 is not %r5
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(prefix + "<>");
      if (f != it->end() && n < f->second.count) {
        scratch_ = f->second;
        scratch_.kind = Binding::RegB;
        scratch_.reg.idx += static_cast<std::uint32_t>(scratch_.bytes == 16 ? 2 * n : n);  // .b128: two each
        return &scratch_;
      }
    }
    return nullptr;
  }

  Bank bank_for(const std::string& type) {
    if (type == "pred") return Bank::Pred;
    int bytes = type_bytes(type);
    if (bytes == 8) return Bank::R64;
    if (bytes >= 1 && bytes <= 4) return Bank::R32;
    return Bank::None;
  }

  void declare(const ast::Decl& d, Function& f) {
    auto& scope = scopes_.back();
    if (d.space == "reg") {
      Bank b = bank_for(d.type);
      if (b == Bank::None && d.type == "b128") {  // two 64-bit registers each, low half first (reg128)
        if (d.vector != 1) fail(d.line, "vector register declarations are not supported");
        const std::int64_t n = d.range > 0 ? d.range : 1;
        Binding bnd;
        bnd.reg = {Bank::R64, f.n64};
        bnd.bytes = 16;
        f.n64 += static_cast<std::uint32_t>(2 * n);
        bnd.kind = d.range > 0 ? Binding::RangeB : Binding::RegB;
        bnd.count = d.range > 0 ? n : 0;
        scope[d.name + (d.range > 0 ? "<>" : "")] = bnd;
        return;
      }
      if (b == Bank::None) fail(d.line, "register type ." + d.type + " is not supported (registers of 1 to 8 bytes)");
      std::uint32_t& counter = b == Bank::Pred ? f.npred : b == Bank::R64 ? f.n64 : f.n32;
      std::int64_t n = d.range > 0 ? d.range : 1;
      std::int64_t lanes = d.vector;  // .reg .v2 .b32 is rare; keep each element a register
      if (lanes != 1) fail(d.line, "vector register declarations are not supported");
      Binding bnd;
      bnd.reg = {b, counter};
      counter += static_cast<std::uint32_t>(n);
      if (d.range > 0) {
        bnd.kind = Binding::RangeB;
        bnd.count = n;
        scope[d.name + "<>"] = bnd;
      } else {
        bnd.kind = Binding::RegB;
        scope[d.name] = bnd;
      }
      return;
    }
    if (d.space == "local") {
      int align = std::max(1, d.align);
      f.local_bytes = (f.local_bytes + align - 1) / align * align;
      Binding bnd;
      bnd.kind = Binding::LocalSym;
      bnd.offset = f.local_bytes;
      bnd.bytes = static_cast<int>(d.total_bytes());
      f.local_bytes += static_cast<std::uint32_t>(d.total_bytes());
      scope[d.name] = bnd;
      return;
    }
    if (d.space == "param") {
      scope[d.name] = frame_param(d, f);
      return;
    }
    if (d.space == "shared") {
      // function-scope .shared: a CTA static like a module-scope one
      Symbol s;
      s.name = d.name;
      s.space = Space::Shared;
      s.bytes = d.total_bytes();
      s.align = std::max(1, d.align ? d.align : static_cast<int>(d.element_bytes()));
      if (d.is_extern || d.array == 0) {
        s.is_extern = true;
        extern_shared_align_ = std::max<std::uint64_t>(extern_shared_align_, static_cast<std::uint64_t>(s.align));
        p_.dynamic_shared_offset = (p_.dynamic_shared_offset + extern_shared_align_ - 1) / extern_shared_align_ * extern_shared_align_;
        s.addr = p_.dynamic_shared_offset;
        for (auto& other : p_.symbols)
          if (other.space == Space::Shared && other.is_extern) other.addr = p_.dynamic_shared_offset;
      } else {
        std::uint64_t off = (p_.static_shared_bytes + s.align - 1) / s.align * s.align;
        s.addr = off;
        p_.static_shared_bytes = off + static_cast<std::uint64_t>(s.bytes);
        // the dynamic shared memory (extern arrays) follows every static, at the externs' alignment
        const std::uint64_t a = std::max<std::uint64_t>(16, extern_shared_align_);
        p_.dynamic_shared_offset = std::max<std::uint64_t>(p_.dynamic_shared_offset, (p_.static_shared_bytes + a - 1) / a * a);
        for (auto& other : p_.symbols)
          if (other.space == Space::Shared && other.is_extern) other.addr = p_.dynamic_shared_offset;
      }
      Binding bnd;
      bnd.kind = Binding::SharedSym;
      bnd.offset = static_cast<std::int64_t>(s.addr);
      scope[d.name] = bnd;
      p_.symbols.push_back(std::move(s));
      return;
    }
    if (d.space == "branchtargets") {
      branch_table_names_[d.name] = d;
      return;
    }
    fail(d.line, "." + d.space + " declarations inside a function are not supported");
  }

  Binding frame_param(const ast::Decl& d, Function& f) {
    int align = std::max(1, d.align ? d.align : static_cast<int>(d.element_bytes()));
    f.param_bytes = (f.param_bytes + align - 1) / align * align;
    Binding bnd;
    bnd.kind = Binding::FrameParamSym;
    bnd.offset = f.param_bytes;
    bnd.bytes = static_cast<int>(d.total_bytes());
    f.param_bytes += static_cast<std::uint32_t>(std::max<std::int64_t>(d.total_bytes(), 1));
    return bnd;
  }

  // ---- operands ----------------------------------------------------------------------------
  [[noreturn]] void b128_elsewhere(const std::string& name, int line) {
    throw Error(ErrorKind::Unsupported, origin_ + ":" + std::to_string(line) + ": the .b128 register `" + name +
                                            "` outside ld/st .b128 and clusterlaunchcontrol.query_cancel (kernsim "
                                            "holds .b128 registers for those only)");
  }
  // A .b128 register: its low and high 64-bit halves.
  std::pair<Reg, Reg> reg128(const ast::Operand& o, int line) {
    const Binding* b = o.kind == ast::Operand::Kind::Reg || o.kind == ast::Operand::Kind::Symbol ? lookup(o.name) : nullptr;
    if (!b || b->kind != Binding::RegB || b->bytes != 16) fail(line, "`" + o.name + "` is not a .b128 register");
    return {b->reg, Reg{Bank::R64, b->reg.idx + 1}};
  }

  Reg reg_of(const ast::Operand& o, int line) {
    if (const Binding* b = lookup(o.name)) {
      if (b->kind == Binding::RegB && b->bytes == 16) b128_elsewhere(o.name, line);
      if (b->kind == Binding::RegB) return b->reg;
      fail(line, "`" + o.name + "` is not a register");
    }
    if (auto s = special(o.name, line)) return *s;
    fail(line, "undeclared register `" + o.name + "`");
  }

  bool names_register(const ast::Operand& o) const {
    const Binding* b = o.kind == ast::Operand::Kind::Symbol ? lookup(o.name) : nullptr;
    return b && b->kind == Binding::RegB;
  }

  Reg dst(const ast::Operand& o, int line) {
    if (o.kind == ast::Operand::Kind::Sink) return Reg{};
    if (names_register(o)) {  // registers may be named without `%`
      if (lookup(o.name)->bytes == 16) b128_elsewhere(o.name, line);
      return lookup(o.name)->reg;
    }
    if (o.kind != ast::Operand::Kind::Reg) fail(line, "destination must be a register");
    Reg r = reg_of(o, line);
    if (r.bank == Bank::S32 || r.bank == Bank::S64) fail(line, "cannot write special register `" + o.name + "`");
    return r;
  }

  // Address value of a symbol used as an operand (mov %rd, sym).
  std::optional<std::uint64_t> symbol_value(const std::string& name, std::int64_t off, Space* space = nullptr) {
    if (const Binding* b = lookup(name)) {
      switch (b->kind) {
        case Binding::SharedSym: if (space) *space = Space::Shared; return static_cast<std::uint64_t>(b->offset + off);
        case Binding::KernelParamSym: if (space) *space = Space::Param; return static_cast<std::uint64_t>(b->offset + off);
        default: return std::nullopt;
      }
    }
    auto it = sym_index_.find(name);
    if (it == sym_index_.end()) return std::nullopt;
    const Symbol& s = p_.symbols[it->second];
    if (space) *space = s.space;
    return s.addr + static_cast<std::uint64_t>(off);
  }

  Reg src(const ast::Operand& o, int bits, int line) {
    switch (o.kind) {
      case ast::Operand::Kind::Reg: {
        Reg r = reg_of(o, line);
        return r;
      }
      case ast::Operand::Kind::Imm: {
        std::uint64_t v = static_cast<std::uint64_t>(o.ival);
        if (bits == 1) {  // a predicate immediate: non-zero is true (clang emits mov.pred p, 1; Triton mov.pred p, -1)
          return constant(v != 0 ? 1 : 0, 32);
        }
        if (bits < 64 && bits > 0) v &= (bits == 32 ? 0xffffffffull : ((1ull << bits) - 1));
        return constant(v, bits);
      }
      case ast::Operand::Kind::F32Imm: {
        if (bits == 64) {
          float f;
          std::uint32_t b32 = static_cast<std::uint32_t>(o.fbits);
          std::memcpy(&f, &b32, 4);
          double d = f;
          std::uint64_t b64;
          std::memcpy(&b64, &d, 8);
          return const64(b64);
        }
        return const32(static_cast<std::uint32_t>(o.fbits));
      }
      case ast::Operand::Kind::F64Imm: {
        if (bits == 64) return const64(o.fbits);
        double d;
        std::memcpy(&d, &o.fbits, 8);
        float f = static_cast<float>(d);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        return const32(b);
      }
      case ast::Operand::Kind::Symbol: {
        if (names_register(o)) {
          if (lookup(o.name)->bytes == 16) b128_elsewhere(o.name, line);
          return lookup(o.name)->reg;
        }
        if (auto v = symbol_value(o.name, o.ival)) return constant(*v, bits);
        fail(line, "unknown symbol `" + o.name + "`");
      }
      default: fail(line, "unexpected operand form");
    }
  }

  Addr addr(const ast::Operand& o, Space space, int line, Space* resolved = nullptr) {
    if (o.kind != ast::Operand::Kind::Addr) fail(line, "expected an address operand [..]");
    Addr a;
    a.offset = o.ival;
    if (o.name.empty()) {
      a.kind = AddrBase::Absolute;
      return a;
    }
    if (const Binding* b = lookup(o.name)) {
      switch (b->kind) {
        case Binding::RegB: if (b->bytes == 16) b128_elsewhere(o.name, line); a.kind = AddrBase::Reg; a.base = b->reg; return a;
        case Binding::LocalSym: a.kind = AddrBase::FrameLocal; a.offset += b->offset; if (resolved) *resolved = Space::Local; return a;
        case Binding::FrameParamSym: a.kind = AddrBase::FrameParam; a.offset += b->offset; if (resolved) *resolved = Space::Param; return a;
        case Binding::KernelParamSym: a.kind = AddrBase::Absolute; a.offset += b->offset; if (resolved) *resolved = Space::Param; return a;
        case Binding::SharedSym: a.kind = AddrBase::Absolute; a.offset += b->offset; if (resolved) *resolved = Space::Shared; return a;
        default: break;
      }
    }
    if (o.name[0] == '%') {
      a.kind = AddrBase::Reg;
      a.base = reg_of(ast::Operand{ast::Operand::Kind::Reg, o.name}, line);
      return a;
    }
    auto it = sym_index_.find(o.name);
    if (it == sym_index_.end()) fail(line, "unknown symbol `" + o.name + "` in address");
    const Symbol& s = p_.symbols[it->second];
    a.kind = AddrBase::Absolute;
    a.offset += static_cast<std::int64_t>(s.addr);
    if (resolved) *resolved = s.space;
    (void)space;
    return a;
  }

  // ---- instructions ------------------------------------------------------------------------
  struct Parts {
    std::vector<Ty> types;
    std::set<std::string> mods;
    std::vector<std::string> ordered;  // modifiers in order
    bool has(const char* m) const { return mods.count(m) > 0; }
    Ty type(std::size_t i) const { return i < types.size() ? types[i] : Ty::None; }
  };

  Parts split(const ast::Instr& in) {
    Parts p;
    for (std::size_t i = 1; i < in.parts.size(); ++i) {
      Ty t = parse_ty(in.parts[i]);
      // "shared::cta" etc. stay modifiers
      if (t != Ty::None) p.types.push_back(t);
      else { p.mods.insert(in.parts[i]); p.ordered.push_back(in.parts[i]); }
    }
    return p;
  }

  void push_ops(Inst& inst, std::initializer_list<Reg> dsts, std::initializer_list<Reg> srcs) {
    inst.ops = static_cast<std::uint32_t>(p_.regs.size());
    for (Reg r : dsts) p_.regs.push_back(r);
    for (Reg r : srcs) p_.regs.push_back(r);
    inst.ndst = static_cast<std::uint8_t>(dsts.size());
    inst.nsrc = static_cast<std::uint8_t>(srcs.size());
  }
  void push_ops(Inst& inst, const std::vector<Reg>& dsts, const std::vector<Reg>& srcs) {
    inst.ops = static_cast<std::uint32_t>(p_.regs.size());
    for (Reg r : dsts) p_.regs.push_back(r);
    for (Reg r : srcs) p_.regs.push_back(r);
    inst.ndst = static_cast<std::uint8_t>(dsts.size());
    inst.nsrc = static_cast<std::uint8_t>(srcs.size());
  }

  static int width_of(Ty t) {
    int b = ty_bits(t);
    if (t == Ty::Pred) return 1;
    return b > 32 ? 64 : 32;
  }

  std::vector<Reg> vec_regs(const ast::Operand& o, int bits, int line, bool is_dst) {
    std::vector<Reg> r;
    if (o.kind == ast::Operand::Kind::Vec) {
      for (const auto& e : o.elems) r.push_back(is_dst ? dst(e, line) : src(e, bits, line));
    } else {
      r.push_back(is_dst ? dst(o, line) : src(o, bits, line));
    }
    return r;
  }

  void need(const ast::Instr& in, std::size_t n, std::size_t max = 0) {
    if (in.operands.size() < n || (max && in.operands.size() > max))
      fail(in.line, "`" + in.opcode + "` expects " + std::to_string(n) + (max && max != n ? "-" + std::to_string(max) : "") +
                        " operands, got " + std::to_string(in.operands.size()));
  }

  // decode() looks the opcode up in the table (isa/ptx/ops.def), applies the modifiers every
  // instruction may carry, reads the operands with the parse function of the row's form, and
  // takes the pipe and the machine-instruction count from the row's rules (finish()).
  Inst decode(const ast::Instr& in, const ast::Function& ast_f, Function& f) {
    (void)ast_f;
    Inst inst;
    inst.line = static_cast<std::uint32_t>(in.line);
    if (!in.guard.empty()) {
      inst.guard = reg_of(ast::Operand{ast::Operand::Kind::Reg, in.guard}, in.line);
      if (inst.guard.bank != Bank::Pred) fail(in.line, "guard `" + in.guard + "` is not a predicate");
      inst.guard_neg = in.guard_negated;
    }
    Parts P = split(in);
    inst.type = P.type(0);
    for (const auto& m : P.ordered) {
      if (Rnd r = parse_rnd(m); r != Rnd::None) inst.rnd = r;
      if (m == "ftz") inst.flags |= kFtz;
      if (m == "sat" || m == "satfinite") inst.flags |= (m == "sat" ? kSat : kSatFinite);
      if (m == "approx") inst.flags |= kApprox;
      if (m == "full") inst.flags |= kFull;
      if (m == "wide") inst.flags |= kWide;
      if (m == "hi") inst.flags |= kHi;
      if (m == "lo") inst.flags |= kLo;
      if (m == "uni") inst.flags |= kUni;
      if (m == "relu") inst.flags |= kRelu;
      if (m == "NaN") inst.flags |= kNaN;
      if (m == "xorsign") inst.flags |= kXorsign;
      if (m == "abs") inst.flags |= kAbs;
      if (m == "relaxed") inst.flags |= kRelaxed;
    }
    const Mnemonic* mn = find_mnemonic(in.parts);
    if (!mn) {
      unsupported(inst, in, "");
    } else if (mn->unsupported) {
      unsupported(inst, in, mn->unsupported);
    } else {
      inst.op = mn->op;
      inst.flags |= mn->flags;
      switch (op_info(inst.op).space) {
        case SpaceFrom::None: break;
        case SpaceFrom::Modifier:
          for (const auto& m : P.ordered)
            if (is_space_name(m)) inst.space = parse_space(m);
          break;
        case SpaceFrom::Shared: inst.space = Space::Shared; break;
      }
      operands(inst, in, P, *mn, f);
    }
    inst.unit = unit_of(inst);
    inst.weight = static_cast<std::uint8_t>(machine_insts(inst));
    return inst;
  }

  void operands(Inst& inst, const ast::Instr& in, const Parts& P, const Mnemonic& mn, Function& f) {
    switch (mn.form) {
      case Form::Alu: return decode_alu(inst, in, P, mn.srcs, true);
      case Form::Sources: return decode_alu(inst, in, P, mn.srcs, false);
      case Form::DstPred: return decode_dst_pred(inst, in, P, mn.srcs);
      case Form::Compare: return decode_compare(inst, in, P);
      case Form::Mov: return decode_mov(inst, in);
      case Form::Policy: return decode_policy(inst, in);
      case Form::Cvt: return decode_cvt(inst, in, P);
      case Form::Cvta: return decode_cvta(inst, in, P);
      case Form::LdSt: return decode_ld_st(inst, in, P);
      case Form::Atomic: return decode_atomic(inst, in, P);
      case Form::CpAsync: return decode_cp_async(inst, in, P);
      case Form::WaitGroup: return decode_wait_group(inst, in, P);
      case Form::Ldmatrix: return decode_ldmatrix(inst, in, P);
      case Form::Barrier: return decode_barrier(inst, in, P);
      case Form::Vote: return decode_vote(inst, in, P);
      case Form::Bra: return decode_bra(inst, in);
      case Form::BrxIdx: return decode_brx(inst, in);
      case Form::Call: return decode_call(inst, in, f);
      case Form::NoOperands: return push_ops(inst, {}, {});
      case Form::Mma: return decode_mma(inst, in, P);
      case Form::Wmma: return decode_wmma(inst, in, P);
      case Form::Wgmma: return decode_wgmma(inst, in, P);
      case Form::Mbarrier: return decode_mbarrier(inst, in, P);
      case Form::Bulk: return decode_bulk(inst, in, P);
      case Form::BulkTensor: return decode_bulk_tensor(inst, in, P);
      case Form::Tensormap: return decode_tensormap(inst, in, P);
      case Form::Tcgen05: return decode_tcgen05(inst, in, P);
      case Form::Clc: return decode_clc(inst, in, P);
      case Form::Derived: break;
    }
    throw Error(ErrorKind::Internal, "kernsim bug: ops.def row `" + std::string(to_string(inst.op)) + "` has no operand form");
  }

  // The modifiers and checks particular to one opcode of the register forms (Alu, Sources,
  // DstPred), before their operands are read. Returns why the instruction is unsupported, or
  // nullptr.
  const char* op_modifiers(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    switch (inst.op) {
      case Op::Mad:
        if (ty_is_float(inst.type)) inst.op = Op::Fma;  // mad.f32 is fma.f32
        [[fallthrough]];
      case Op::Add: case Op::Sub: case Op::Mad24: case Op::Fma:
        if (P.has("cc")) inst.flags |= kCarryOut;
        break;
      case Op::Min: case Op::Max:
        need(in, 3, 4);  // PTX 8.0 has three-input min/max: d, a, b, c (decode_alu reads the third source)
        break;
      case Op::Bfind:
        if (P.has("shiftamt")) inst.flags |= kShiftLeft;
        break;
      case Op::Shf:
        if (P.has("l")) inst.flags |= kShiftLeft;
        if (P.has("clamp")) inst.flags |= kShiftClamp;
        break;
      case Op::Prmt: {
        static const char* modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        for (int i = 0; i < 6; ++i)
          if (P.has(modes[i])) inst.imm = static_cast<std::uint32_t>(i + 1);
        break;
      }
      case Op::Lop3:
        if (in.operands.size() == 5) {
          if (in.operands[4].kind != ast::Operand::Kind::Imm) fail(L, "lop3 truth table must be an immediate");
          inst.imm = static_cast<std::uint32_t>(in.operands[4].ival) & 0xff;
        }
        break;
      case Op::Dp2a:
        inst.flags |= P.has("hi") ? kHi : kLo;
        [[fallthrough]];
      case Op::Dp4a: case Op::Slct:
        inst.type2 = P.type(1);
        break;
      case Op::Testp: {
        static const char* k[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
        for (int i = 0; i < 6; ++i)
          if (P.has(k[i])) inst.sub = static_cast<std::uint8_t>(i);
        break;
      }
      case Op::Shfl:
        if (!P.has("sync")) return "shfl without .sync (removed in PTX 6.4 for sm_70+)";
        inst.sub = static_cast<std::uint8_t>(P.has("up") ? ShflMode::Up : P.has("down") ? ShflMode::Down
                                             : P.has("bfly") ? ShflMode::Bfly : ShflMode::Idx);
        break;
      case Op::Match:
        inst.sub = P.has("all") ? 1 : 0;
        break;
      case Op::Movmatrix:
        if (!P.has("m8n8") || !P.has("trans") || inst.type != Ty::B16) return "movmatrix other than .m8n8.trans.b16";
        break;
      case Op::Redux: {
        static const std::pair<const char*, AtomOp> ops[] = {{"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},
                                                            {"and", AtomOp::And}, {"or", AtomOp::Or}, {"xor", AtomOp::Xor}};
        for (const auto& [n, o] : ops)
          if (P.has(n)) inst.sub = static_cast<std::uint8_t>(o);
        if (ty_is_float(inst.type)) return "floating-point redux.sync (sm_100a)";
        break;
      }
      default: break;
    }
    return nullptr;
  }

  // One source operand as a letter of a row's srcs string says (see ops.def).
  Reg source(Inst& inst, char kind, const ast::Operand& o, int line) {
    const int w = width_of(inst.type);
    switch (kind) {
      case 'w': return src(o, w, line);
      case 'i': return src(o, 32, line);
      case 'x': return src(o, 64, line);
      case 'c': return src(o, (inst.flags & kWide) ? 64 : w, line);
      case 'p': inst.imm = o.negate ? 1 : 0; return src(o, 1, line);
      default: throw Error(ErrorKind::Internal, std::string("kernsim bug: ops.def source kind `") + kind + "`");
    }
  }

  // Alu: d, a, b, ... (with_dst); Sources: a, b, ... — one operand per letter of srcs; a `k` is
  // an immediate op_modifiers() has read.
  void decode_alu(Inst& inst, const ast::Instr& in, const Parts& P, std::string_view srcs, bool with_dst) {
    if (const char* why = op_modifiers(inst, in, P)) return unsupported(inst, in, why);
    const std::size_t first = with_dst ? 1 : 0;
    if ((inst.op == Op::Min || inst.op == Op::Max) && in.operands.size() == 4) srcs = "www";  // three-input form
    need(in, first + srcs.size(), first + srcs.size());
    std::vector<Reg> d, s;
    if (with_dst) d.push_back(dst(in.operands[0], in.line));
    for (std::size_t i = 0; i < srcs.size(); ++i)
      if (srcs[i] != 'k') s.push_back(source(inst, srcs[i], in.operands[first + i], in.line));
    push_ops(inst, d, s);
  }

  // DstPred: d[|p], a, ..., membermask — a value destination, an optional predicate destination
  // (Reg{} when absent), then one source per letter of srcs.
  void decode_dst_pred(Inst& inst, const ast::Instr& in, const Parts& P, std::string_view srcs) {
    if (const char* why = op_modifiers(inst, in, P)) return unsupported(inst, in, why);
    std::string names;
    for (std::size_t k = 0; k < srcs.size(); ++k)
      names += std::string(", ") + (k + 1 == srcs.size() ? "membermask" : std::string(1, static_cast<char>('a' + k)));
    auto wrong = [&] { fail(in.line, "`" + in.opcode + "`: expects d[|p]" + names); };
    if (in.operands.empty()) wrong();
    std::vector<Reg> d, s;
    std::size_t i = 0;
    d.push_back(dst(in.operands[i++], in.line));
    if (in.operands.size() == srcs.size() + 2) d.push_back(dst(in.operands[i++], in.line));
    else d.push_back(Reg{});
    if (in.operands.size() - i != srcs.size()) wrong();
    for (std::size_t k = 0; k < srcs.size(); ++k) s.push_back(source(inst, srcs[k], in.operands[i + k], in.line));
    push_ops(inst, d, s);
  }

  // setp.cmp[.bool].type d[|q], a, b[, {!}c]; set.cmp[.bool].dtype.stype d, a, b[, {!}c]
  void decode_compare(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    for (const auto& m : P.ordered) {
      if (Cmp c = parse_cmp(m); c != Cmp::None) inst.cmp = c;
      if (m == "and") inst.boolop = BoolOp::And;
      if (m == "or") inst.boolop = BoolOp::Or;
      if (m == "xor") inst.boolop = BoolOp::Xor;
    }
    if (inst.cmp == Cmp::None) fail(L, "`" + in.opcode + "`: missing comparison");
    const bool setp = inst.op == Op::Setp;
    // setp.type: compare type = type; set.dtype.stype: type = dtype, type2 = compare type
    Ty cmp_ty = setp ? inst.type : P.type(1);
    if (!setp) inst.type2 = P.type(1);
    int w = width_of(cmp_ty);
    std::vector<Reg> d, s;
    std::size_t i = 0;
    if (in.operands.size() < 3) fail(L, "`" + in.opcode + "`: expects a destination and two source operands");  // found by fuzzing
    d.push_back(dst(in.operands[i++], L));
    // setp p|q: the parser delivers q as the next operand when written with '|'
    bool two = setp && in.operands.size() == (inst.boolop == BoolOp::None ? 4u : 5u);
    if (two) d.push_back(dst(in.operands[i++], L));
    else d.push_back(Reg{});
    if (in.operands.size() < i + 2) fail(L, "`" + in.opcode + "`: expects two source operands");
    s.push_back(src(in.operands[i++], w, L));
    s.push_back(src(in.operands[i++], w, L));
    if (inst.boolop != BoolOp::None) {
      if (i >= in.operands.size()) fail(L, "`" + in.opcode + "`: missing predicate operand c");
      const ast::Operand& c = in.operands[i++];
      s.push_back(src(c, 1, L));
      inst.imm = c.negate ? 1 : 0;
    }
    if (i != in.operands.size()) fail(L, "`" + in.opcode + "`: wrong number of operands");
    push_ops(inst, d, s);
  }

  void decode_mov(Inst& inst, const ast::Instr& in) {
    const int L = in.line;
    need(in, 2, 2);
    const ast::Operand& d0 = in.operands[0];
    const ast::Operand& s0 = in.operands[1];
    int w = width_of(inst.type);
    if (s0.kind == ast::Operand::Kind::Symbol && !names_register(s0)) {
      if (const Binding* b = lookup(s0.name); b && b->kind == Binding::LocalSym) {
        inst.op = Op::MovFrameLocal;
        inst.addr.kind = AddrBase::FrameLocal;
        inst.addr.offset = b->offset + s0.ival;
        push_ops(inst, {dst(d0, L)}, {});
      } else if (b && b->kind == Binding::FrameParamSym) {
        fail(L, "taking the address of a .func parameter is not supported");
      } else {
        if (module_funcs_.count(s0.name)) fail(L, "function pointers are not supported (`" + s0.name + "`)");
        push_ops(inst, {dst(d0, L)}, {src(s0, w, L)});
      }
    } else if (d0.kind == ast::Operand::Kind::Vec) {
      // unpack: mov.b64 {a, b}, %rd
      inst.vec = static_cast<std::uint8_t>(d0.elems.size());
      push_ops(inst, vec_regs(d0, 0, L, true), {src(s0, w, L)});
    } else if (s0.kind == ast::Operand::Kind::Vec) {
      inst.vec = static_cast<std::uint8_t>(s0.elems.size());
      int ew = ty_bits(inst.type) / static_cast<int>(s0.elems.size());
      push_ops(inst, {dst(d0, L)}, vec_regs(s0, ew > 32 ? 64 : 32, L, false));
      inst.flags |= kWide;  // marks "pack"
    } else {
      push_ops(inst, {dst(d0, L)}, {src(s0, inst.type == Ty::Pred ? 1 : w, L)});
    }
  }

  // createpolicy: an opaque cache-policy handle; kernsim models no policies, the value is never
  // interpreted
  void decode_policy(Inst& inst, const ast::Instr& in) {
    need(in, 2, 4);
    inst.type = Ty::B64;
    push_ops(inst, {dst(in.operands[0], in.line)}, {const64(0)});
  }

  void decode_cvt(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    inst.type2 = P.type(1);
    if ((inst.type == Ty::F16x2 || inst.type == Ty::BF16x2 || inst.type == Ty::E4M3x2 || inst.type == Ty::E5M2x2) &&
        in.operands.size() == 3) {
      inst.op = Op::CvtPack;
      push_ops(inst, {dst(in.operands[0], L)}, {src(in.operands[1], width_of(inst.type2), L), src(in.operands[2], width_of(inst.type2), L)});
      return;
    }
    need(in, 2, 2);
    push_ops(inst, {dst(in.operands[0], L)}, {src(in.operands[1], width_of(inst.type2), L)});
  }

  void decode_cvta(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    need(in, 2, 2);
    if (P.has("to")) inst.flags |= kCvtaTo;
    int w = width_of(inst.type);
    if (in.operands[1].kind == ast::Operand::Kind::Symbol) {
      if (const Binding* b = lookup(in.operands[1].name); b && b->kind == Binding::LocalSym) {
        // cvta.local.u64 %rd, depot: generic address of a frame-local symbol
        inst.op = Op::MovFrameLocal;
        inst.addr.kind = AddrBase::FrameLocal;
        inst.addr.offset = b->offset + in.operands[1].ival;
        inst.flags |= kWide;  // generic (adds the local window)
        push_ops(inst, {dst(in.operands[0], L)}, {});
        return;
      }
    }
    push_ops(inst, {dst(in.operands[0], L)}, {src(in.operands[1], w, L)});
  }

  // A memory operand whose generic space the symbol it names resolves (ld [shared_sym]).
  void memory_operand(Inst& inst, const ast::Operand& o, int line) {
    Space resolved = inst.space;
    inst.addr = addr(o, inst.space, line, &resolved);
    if (inst.space == Space::Generic && resolved != Space::Generic && inst.addr.kind != AddrBase::Reg) inst.space = resolved;
  }

  void decode_ld_st(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const bool is_ld = inst.op == Op::Ld;
    for (const auto& m : P.ordered) {
      if (m == "v2") inst.vec = 2;
      if (m == "v4") inst.vec = 4;
      if (m == "v8") inst.vec = 8;
      if (m == "nc") inst.flags |= kUni;  // read-only path
      // cache operators and memory-model qualifiers that take the access past L1
      if (m == "cg" || m == "cs" || m == "cv" || m == "lu" || m == "volatile" || m == "relaxed" || m == "acquire" ||
          m == "release" || m == "mmio")
        inst.flags |= kBypassL1;
    }
    need(in, 2, 3);
    if (inst.type == Ty::B128) {  // one .b128 register: its two 64-bit halves, as .v2.b64
      if (inst.vec != 1) fail(L, "vectors of .b128 in " + in.parts[0] + " are not supported");
      const auto [lo, hi] = reg128(is_ld ? in.operands[0] : in.operands[1], L);
      memory_operand(inst, is_ld ? in.operands[1] : in.operands[0], L);
      inst.type = Ty::B64;
      inst.vec = 2;
      if (is_ld) push_ops(inst, {lo, hi}, {});
      else push_ops(inst, {}, {lo, hi});
      return;
    }
    const ast::Operand& data = is_ld ? in.operands[0] : in.operands[1];
    memory_operand(inst, is_ld ? in.operands[1] : in.operands[0], L);
    int w = width_of(inst.type);
    if (is_ld) push_ops(inst, vec_regs(data, w, L, true), {});
    else push_ops(inst, {}, vec_regs(data, w, L, false));
    if (static_cast<int>(is_ld ? inst.ndst : inst.nsrc) != inst.vec) fail(L, "vector width does not match the register list");
  }

  void decode_atomic(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    static const std::pair<const char*, AtomOp> ops[] = {{"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},
                                                        {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}, {"and", AtomOp::And},
                                                        {"or", AtomOp::Or}, {"xor", AtomOp::Xor}, {"exch", AtomOp::Exch},
                                                        {"cas", AtomOp::Cas}};
    bool found = false;
    for (const auto& m : P.ordered) {
      for (const auto& [n, o] : ops)
        if (m == n) { inst.sub = static_cast<std::uint8_t>(o); found = true; }
      if (m == "v2" || m == "v4" || m == "v8") fail(L, "vector atomics are not supported");
    }
    if (!found) fail(L, "`" + in.opcode + "`: unknown atomic operation");
    int w = width_of(inst.type);
    std::size_t i = 0;
    Reg d;
    if (inst.op == Op::Atom) d = dst(in.operands[i++], L);
    memory_operand(inst, in.operands[i++], L);
    std::vector<Reg> s;
    while (i < in.operands.size()) s.push_back(src(in.operands[i++], w, L));
    if (s.empty() || s.size() > 2) fail(L, "`" + in.opcode + "`: wrong number of operands");
    if (inst.op == Op::Atom) push_ops(inst, {d}, s);
    else push_ops(inst, std::vector<Reg>{}, s);
  }

  // cp.async.ca|cg.shared.global [dst], [src], size[, src-size][, cache-policy]
  void decode_cp_async(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    need(in, 3, 5);
    Space r1 = Space::Shared, r2 = Space::Global;
    inst.addr = addr(in.operands[0], Space::Shared, L, &r1);
    inst.addr2 = addr(in.operands[1], Space::Global, L, &r2);
    if (in.operands[2].kind != ast::Operand::Kind::Imm) fail(L, "cp.async copy size must be an immediate");
    inst.shape[0] = static_cast<std::int16_t>(in.operands[2].ival);
    std::vector<Reg> s;
    // optional src-size (register or immediate); a trailing cache policy is ignored
    if (in.operands.size() >= 4 && !(P.has("L2::cache_hint") && in.operands.size() == 4))
      s.push_back(src(in.operands[3], 32, L));
    else
      s.push_back(const32(static_cast<std::uint32_t>(in.operands[2].ival)));
    push_ops(inst, {}, s);
  }

  // cp.async.wait_group N; cp.async.bulk.wait_group{.read} N
  void decode_wait_group(Inst& inst, const ast::Instr& in, const Parts& P) {
    need(in, 1, 1);
    if (in.operands[0].kind != ast::Operand::Kind::Imm) fail(in.line, "`" + in.opcode + "` needs an immediate group count");
    inst.imm = static_cast<std::uint32_t>(in.operands[0].ival);
    if (P.has("read")) inst.sub = 1;
    push_ops(inst, {}, {});
  }

  // ---- mbarriers and bulk copies (sim/functional/ptx_async.cpp executes them) ---------------

  // The state space of an mbarrier or bulk-copy address: .shared{::cta} and .shared::cluster
  // are shared memory (kClusterSpace marks the cluster form), none is a generic address.
  static Space async_space(const std::string& m, Inst& inst, bool mark_cluster) {
    if (m == "shared" || m == "shared::cta") return Space::Shared;
    if (m == "shared::cluster") {
      if (mark_cluster) inst.flags |= kClusterSpace;
      return Space::Shared;
    }
    if (m == "global") return Space::Global;
    return Space::Generic;
  }

  // An mbarrier operand [addr] as a register source (the base, or a constant for a symbol) and
  // a byte offset in Inst::imm: bulk copies name a third address that Inst::addr/addr2 cannot hold.
  Reg mbar_operand(Inst& inst, const ast::Operand& o, int line) {
    Addr a = addr(o, Space::Shared, line);
    if (a.kind == AddrBase::Absolute) {
      inst.imm = 0;
      return const32(static_cast<std::uint32_t>(a.offset));
    }
    if (a.kind != AddrBase::Reg) fail(line, "`" + o.name + "`: an mbarrier operand must be a register or a .shared symbol");
    inst.imm = static_cast<std::uint32_t>(a.offset);
    return a.base;
  }

  // mbarrier.init [a], count; .arrive{_drop}{.expect_tx|.noComplete} state|_, [a]{, count|tx};
  // .expect_tx/.complete_tx [a], tx; .test_wait/.try_wait{.parity} p, [a], state|parity{, hint};
  // .inval [a]; .pending_count d, state; cp.async.mbarrier.arrive{.noinc} [a]
  void decode_mbarrier(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    for (const auto& m : P.ordered) {
      if (is_space_name(m) || m == "shared::cluster") inst.space = async_space(m, inst, true);
      if (m == "expect_tx" && inst.op != Op::MbarExpectTx) inst.sub |= kMbarExpectTx;
      if (m == "noComplete") inst.sub |= kMbarNoComplete;
      if (m == "parity") inst.sub |= kMbarParity;
      if (m == "noinc") inst.sub |= kMbarNoInc;
    }
    inst.type = Ty::B64;
    const auto& o = in.operands;
    auto mbar = [&](std::size_t i) {
      if (i >= o.size()) fail(L, "`" + in.opcode + "`: missing the mbarrier address operand");
      memory_operand(inst, o[i], L);
    };
    switch (inst.op) {
      case Op::MbarInit: need(in, 2, 2); mbar(0); return push_ops(inst, {}, {src(o[1], 32, L)});
      case Op::MbarExpectTx: case Op::MbarCompleteTx: need(in, 2, 2); mbar(0); return push_ops(inst, {}, {src(o[1], 32, L)});
      case Op::MbarInval: case Op::CpAsyncMbarArrive: need(in, 1, 1); mbar(0); return push_ops(inst, {}, {});
      case Op::MbarPendingCount: need(in, 2, 2); return push_ops(inst, {dst(o[0], L)}, {src(o[1], 64, L)});
      case Op::MbarArrive: case Op::MbarArriveDrop: {
        need(in, 2, 3);
        mbar(1);
        // sources: the arrival count (1 by default) and the expected transaction bytes (0)
        Reg count = const32(1), tx = const32(0);
        if (o.size() == 3) ((inst.sub & kMbarExpectTx) ? tx : count) = src(o[2], 32, L);
        if ((inst.sub & kMbarExpectTx) && o.size() != 3) fail(L, "`" + in.opcode + "`: expects state, [addr], txCount");
        return push_ops(inst, {dst(o[0], L)}, {count, tx});
      }
      case Op::MbarTestWait: case Op::MbarTryWait: {
        need(in, 3, 4);
        mbar(1);
        if (o.size() == 4) inst.sub |= kMbarHint;
        std::vector<Reg> s{src(o[2], (inst.sub & kMbarParity) ? 32 : 64, L)};
        if (o.size() == 4) s.push_back(src(o[3], 32, L));
        return push_ops(inst, {dst(o[0], L)}, s);
      }
      default: break;
    }
    fail(L, "kernsim bug: `" + in.opcode + "` reached the mbarrier decoder");
  }

  // cp.async.bulk.dst.src.completion [dst], [src], size{, [mbar]}{, ctaMask}{, policy};
  // cp.reduce.async.bulk.dst.src.completion.op.type (the same operands);
  // cp.async.bulk.prefetch.L2.global [src], size{, policy}
  void decode_bulk(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    std::vector<Space> spaces;
    for (const auto& m : P.ordered)
      if (is_space_name(m) || m == "shared::cluster") spaces.push_back(async_space(m, inst, spaces.empty()));
    const bool multicast = P.has("multicast::cluster");  // Inst::shape[2]: a ctaMask source follows the mbarrier
    if (P.has("cp_mask")) return unsupported(inst, in, "byte-masked bulk stores (.cp_mask, sm_100)");
    const bool hint = P.has("L2::cache_hint");
    const auto& o = in.operands;
    if (inst.op == Op::BulkPrefetch) {
      need(in, 2, 3);
      inst.space = Space::Global;
      inst.addr2 = addr(o[0], Space::Global, L);
      return push_ops(inst, {}, {src(o[1], 32, L)});
    }
    if (spaces.size() != 2) fail(L, "`" + in.opcode + "`: expects .dst.src state spaces");
    const bool to_shared = spaces[0] == Space::Shared;
    const bool from_global = spaces[1] == Space::Global;
    BulkDir dir = BulkDir::GlobalToShared;
    if (!to_shared) dir = BulkDir::SharedToGlobal;
    else if (!from_global) dir = BulkDir::SharedToCluster;
    inst.shape[0] = static_cast<std::int16_t>(dir);
    inst.space = spaces[0];
    if (inst.op == Op::BulkReduce) bulk_reduce_op(inst, in, P);
    const bool with_mbar = to_shared;
    if (multicast && dir != BulkDir::GlobalToShared) fail(L, "`" + in.opcode + "`: .multicast::cluster copies from global to shared::cluster only");
    const int n = (with_mbar ? 4 : 3) + (multicast ? 1 : 0);
    need(in, n, n + (hint ? 1 : 0));
    inst.shape[2] = static_cast<std::int16_t>(multicast ? 1 : 0);
    inst.addr = addr(o[0], spaces[0], L);
    inst.addr2 = addr(o[1], spaces[1], L);
    std::vector<Reg> s{src(o[2], 32, L)};
    if (with_mbar) s.push_back(mbar_operand(inst, o[3], L));
    if (multicast) s.push_back(src(o[4], 32, L));
    push_ops(inst, {}, s);
  }

  // The reduction of cp.reduce.async.bulk{.tensor}: Inst::sub the AtomOp, Inst::type3 its type.
  void bulk_reduce_op(Inst& inst, const ast::Instr& in, const Parts& P) {
    static const std::pair<const char*, AtomOp> ops[] = {{"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max},
                                                        {"inc", AtomOp::Inc}, {"dec", AtomOp::Dec}, {"and", AtomOp::And},
                                                        {"or", AtomOp::Or},   {"xor", AtomOp::Xor}};
    bool found = false;
    for (const auto& [n, op] : ops)
      if (P.has(n)) { inst.sub = static_cast<std::uint8_t>(op); found = true; }
    if (!found) fail(in.line, "`" + in.opcode + "`: missing the reduction (.add, .min, .max, .inc, .dec, .and, .or, .xor)");
    inst.type3 = P.type(0);  // a tensor reduction's type is its tensor map's
    if (inst.type3 == Ty::None && inst.op != Op::TensorReduce) fail(in.line, "`" + in.opcode + "`: missing the element type");
  }

  // tensormap.replace.mode.field{.space}.b1024.type [map], {ord,} value (Inst::sub the field, sources
  // the ordinal (0 when the field has none) and the value); tensormap.cp_fenceproxy.global.
  // shared::cta.tensormap::generic.release.gpu.sync.aligned [dst], [src], size
  void decode_tensormap(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const auto& o = in.operands;
    if (inst.op == Op::TensormapCopy) {
      need(in, 3, 3);
      inst.addr = addr(o[0], Space::Global, L);
      inst.addr2 = addr(o[1], Space::Shared, L);
      return push_ops(inst, {}, {src(o[2], 32, L)});
    }
    static const std::pair<const char*, TmapField> fields[] = {
        {"global_address", TmapField::GlobalAddress}, {"rank", TmapField::Rank}, {"box_dim", TmapField::BoxDim},
        {"global_dim", TmapField::GlobalDim}, {"global_stride", TmapField::GlobalStride}, {"element_stride", TmapField::ElementStride},
        {"elemtype", TmapField::ElemType}, {"interleave_layout", TmapField::InterleaveLayout}, {"swizzle_mode", TmapField::SwizzleMode},
        {"swizzle_atomicity", TmapField::SwizzleAtomicity}, {"fill_mode", TmapField::FillMode}};
    bool found = false;
    for (const auto& [n, f] : fields)
      if (P.has(n)) { inst.sub = static_cast<std::uint8_t>(f); found = true; }
    if (!found) fail(L, "`" + in.opcode + "`: unknown tensor-map field");
    if (!P.has("tile")) return unsupported(inst, in, "tensormap.replace of an im2col map");
    inst.space = P.has("global") ? Space::Global : P.has("shared::cta") || P.has("shared") ? Space::Shared : Space::Generic;
    const Ty vt = P.types.empty() ? Ty::B32 : P.types.back();
    const auto f = static_cast<TmapField>(inst.sub);
    const bool ordinal = f == TmapField::BoxDim || f == TmapField::GlobalDim || f == TmapField::GlobalStride || f == TmapField::ElementStride;
    need(in, ordinal ? 3 : 2, ordinal ? 3 : 2);
    memory_operand(inst, o[0], L);
    const Reg ord = ordinal ? src(o[1], 32, L) : const32(0);
    push_ops(inst, {}, {ord, src(o[ordinal ? 2 : 1], ty_bits(vt) == 64 ? 64 : 32, L)});
  }

  // cp.async.bulk.tensor.Nd.dst.src{.load_mode}.completion{.multicast::cluster}{.L2::cache_hint}
  //   [dst], [tmap, {c0, ...}], [mbar]{, ctaMask}{, policy}   (loads)
  //   [tmap, {c0, ...}], [src]                                (stores, reductions: .global.shared::cta)
  // cp.async.bulk.prefetch.tensor.Nd.L2.global{.load_mode} [tmap, {c0, ...}]
  // Inst::shape: {dims, direction (BulkDir), has a multicast mask, the map's space}; sources: the coordinates,
  // then the mbarrier (loads), then the multicast mask.
  void decode_bulk_tensor(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    int dims = 0;
    std::vector<Space> spaces;
    for (const auto& m : P.ordered) {
      if (m.size() == 2 && m[1] == 'd' && m[0] >= '1' && m[0] <= '5') dims = m[0] - '0';
      if (is_space_name(m) || m == "shared::cluster") spaces.push_back(async_space(m, inst, spaces.empty()));
      if (m.rfind("im2col", 0) == 0) return unsupported(inst, in, "TMA im2col mode");
      if (m.rfind("tile::", 0) == 0) return unsupported(inst, in, "TMA tile mode " + m + " (sm_100)");
    }
    if (!dims) fail(L, "`" + in.opcode + "`: missing the dimension (.1d .. .5d)");
    const bool multicast = P.has("multicast::cluster");
    const bool hint = P.has("L2::cache_hint");
    const auto& o = in.operands;
    const bool prefetch = inst.op == Op::TensorPrefetch;
    const bool load = !prefetch && !spaces.empty() && spaces[0] == Space::Shared;
    if (inst.op == Op::TensorReduce) bulk_reduce_op(inst, in, P);
    inst.shape = {static_cast<std::int16_t>(dims), static_cast<std::int16_t>(load ? BulkDir::GlobalToShared : BulkDir::SharedToGlobal),
                  static_cast<std::int16_t>(multicast ? 1 : 0), 0};
    const std::size_t base = prefetch ? 1 : load ? 3 : 2;
    need(in, base + (multicast ? 1 : 0), base + (multicast ? 1 : 0) + (hint ? 1 : 0));
    const ast::Operand& t = o[prefetch ? 0 : load ? 1 : 0];
    if (t.kind != ast::Operand::Kind::Addr || t.elems.size() != 1 || t.elems[0].kind != ast::Operand::Kind::Vec)
      fail(L, "`" + in.opcode + "`: the tensor operand must be [tensorMap, {coordinates}]");
    if (static_cast<int>(t.elems[0].elems.size()) != dims)
      fail(L, "`" + in.opcode + "`: " + std::to_string(t.elems[0].elems.size()) + " coordinates for a " + std::to_string(dims) + "d copy");
    ast::Operand tmap = t;
    tmap.elems.clear();
    Space tmap_space = Space::Generic;  // a kernel parameter named directly: its param-space offset
    inst.addr2 = addr(tmap, Space::Generic, L, &tmap_space);
    inst.shape[3] = static_cast<std::int16_t>(tmap_space);
    std::vector<Reg> s;
    for (const auto& c : t.elems[0].elems) s.push_back(src(c, 32, L));
    if (!prefetch) inst.addr = addr(o[load ? 0 : 1], Space::Shared, L);
    inst.space = Space::Shared;
    if (load) s.push_back(mbar_operand(inst, o[2], L));
    if (multicast) s.push_back(src(o[3], 32, L));
    push_ops(inst, {}, s);
  }

  void decode_ldmatrix(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    inst.shape[0] = P.has("x4") ? 4 : P.has("x2") ? 2 : 1;
    if (P.has("trans")) inst.flags |= kTrans;
    if (!P.has("m8n8")) return unsupported(inst, in, "ldmatrix/stmatrix shapes other than m8n8");
    need(in, 2, 2);
    Space r = Space::Shared;
    if (inst.op == Op::Ldmatrix) {
      inst.addr = addr(in.operands[1], Space::Shared, L, &r);
      push_ops(inst, vec_regs(in.operands[0], 32, L, true), {});
      if (inst.ndst != inst.shape[0]) fail(L, "ldmatrix register count does not match .x" + std::to_string(inst.shape[0]));
    } else {
      inst.addr = addr(in.operands[0], Space::Shared, L, &r);
      push_ops(inst, {}, vec_regs(in.operands[1], 32, L, false));
      if (inst.nsrc != inst.shape[0]) fail(L, "stmatrix register count does not match .x" + std::to_string(inst.shape[0]));
    }
  }

  // bar.sync|arrive id[, count]; bar.red.popc|and|or d, id[, count], {!}p
  void decode_barrier(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    if (P.has("cluster")) return unsupported(inst, in, "cluster barriers");
    BarKind k = BarKind::Sync;
    if (P.has("arrive")) k = BarKind::Arrive;
    if (P.has("red")) k = P.has("popc") ? BarKind::RedPopc : P.has("and") ? BarKind::RedAnd : BarKind::RedOr;
    inst.sub = static_cast<std::uint8_t>(k);
    std::vector<Reg> d, s;
    std::size_t i = 0;
    if (k == BarKind::RedPopc || k == BarKind::RedAnd || k == BarKind::RedOr) d.push_back(dst(in.operands[i++], L));
    if (i >= in.operands.size()) fail(L, "`" + in.opcode + "`: missing barrier id");
    s.push_back(src(in.operands[i++], 32, L));  // barrier id
    std::size_t remaining = in.operands.size() - i;
    bool is_red = k == BarKind::RedPopc || k == BarKind::RedAnd || k == BarKind::RedOr;
    if ((is_red && remaining == 2) || (!is_red && remaining == 1)) s.push_back(src(in.operands[i++], 32, L));  // thread count
    else s.push_back(Reg{});
    if (is_red) {
      if (i >= in.operands.size()) fail(L, "`" + in.opcode + "`: missing predicate");
      inst.imm = in.operands[i].negate ? 1 : 0;
      s.push_back(src(in.operands[i++], 1, L));
    }
    if (i != in.operands.size()) fail(L, "`" + in.opcode + "`: wrong number of operands");
    push_ops(inst, d, s);
  }

  // vote{.sync}.all|any|uni|ballot d, {!}p[, membermask]
  void decode_vote(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    inst.sub = static_cast<std::uint8_t>(P.has("all") ? VoteMode::All : P.has("any") ? VoteMode::Any
                                         : P.has("uni") ? VoteMode::Uni : VoteMode::Ballot);
    need(in, 2, 3);
    Reg mask = in.operands.size() == 3 ? src(in.operands[2], 32, L) : const32(0xffffffffu);
    inst.imm = in.operands[1].negate ? 1 : 0;
    push_ops(inst, {dst(in.operands[0], L)}, {src(in.operands[1], 1, L), mask});
  }

  void decode_brx(Inst& inst, const ast::Instr& in) {
    const int L = in.line;
    need(in, 2, 2);
    auto it = branch_table_names_.find(in.operands[1].name);
    if (it == branch_table_names_.end()) fail(L, "brx.idx: `" + in.operands[1].name + "` is not a .branchtargets table");
    inst.imm = static_cast<std::uint32_t>(p_.branch_tables.size());
    p_.branch_tables.emplace_back();
    for (const auto& [k, label] : it->second.init_symbols)
      pending_labels_.push_back({static_cast<std::uint32_t>(p_.insts.size()), label, L, static_cast<int>(k), block_chain_});
    p_.branch_tables.back().resize(it->second.init_symbols.size(), 0);
    push_ops(inst, {}, {src(in.operands[0], 32, L)});
  }

  void decode_bra(Inst& inst, const ast::Instr& in) {
    need(in, 1, 1);
    if (in.operands[0].kind != ast::Operand::Kind::Symbol) fail(in.line, "bra target must be a label");
    pending_labels_.push_back({static_cast<std::uint32_t>(p_.insts.size()), in.operands[0].name, in.line, -1, block_chain_});
    push_ops(inst, {}, {});
  }

  void unsupported(Inst& inst, const ast::Instr& in, const std::string& what) {
    inst.op = Op::Unsupported;
    inst.imm = static_cast<std::uint32_t>(unsupported_names_.size());
    unsupported_names_.push_back(what.empty() ? in.opcode : in.opcode + " (" + what + ")");
    push_ops(inst, {}, {});
  }

  void decode_call(Inst& inst, const ast::Instr& in, Function& f) {
    // call{.uni} (ret0, ...), func, (arg0, ...) {, prototype};
    const int L = in.line;
    std::vector<const ast::Operand*> rets, args;
    const ast::Operand* fn = nullptr;
    std::size_t i = 0;
    // call{.uni} (ret0, ...), func, (arg0, ...) {, prototype};  -- lists arrive as Vec "()"
    if (i < in.operands.size() && in.operands[i].kind == ast::Operand::Kind::Vec && in.operands[i].name == "()") {
      for (const auto& e : in.operands[i].elems) rets.push_back(&e);
      ++i;
    }
    if (i >= in.operands.size()) fail(L, "call: missing function");
    if (in.operands[i].kind == ast::Operand::Kind::Reg) return unsupported(inst, in, "indirect calls through a register");
    if (in.operands[i].kind != ast::Operand::Kind::Symbol || !module_funcs_.count(in.operands[i].name))
      fail(L, "call: `" + in.operands[i].name + "` is not a function of this module");
    fn = &in.operands[i++];
    if (i < in.operands.size() && in.operands[i].kind == ast::Operand::Kind::Vec && in.operands[i].name == "()") {
      for (const auto& e : in.operands[i].elems) args.push_back(&e);
      ++i;
    }
    if (i < in.operands.size() && in.operands[i].kind == ast::Operand::Kind::Symbol) ++i;  // prototype
    if (i != in.operands.size()) fail(L, "call: unexpected operands");
    auto mit = module_funcs_.find(fn->name);
    int module_idx = mit->second;
    auto fit = func_index_.find(module_idx);
    if (fit == func_index_.end()) fail(L, "call to a function outside the reachable set");
    const ast::Function& callee_ast = m_.functions[module_idx];
    CallSite cs;
    cs.callee = fit->second;
    if (args.size() != callee_ast.params.size() || rets.size() != callee_ast.returns.size())
      fail(L, "call to `" + fn->name + "`: " + std::to_string(args.size()) + " arguments and " + std::to_string(rets.size()) +
                  " results, the function takes " + std::to_string(callee_ast.params.size()) + " and returns " +
                  std::to_string(callee_ast.returns.size()));
    // Callee formal offsets: formals first, then returns, in declaration order (as frame_param lays them out).
    std::int32_t off = 0;
    auto place = [&](const ast::Decl& d) {
      int align = std::max(1, d.align ? d.align : static_cast<int>(d.element_bytes()));
      off = (off + align - 1) / align * align;
      std::int32_t at = off;
      off += static_cast<std::int32_t>(std::max<std::int64_t>(d.total_bytes(), 1));
      return at;
    };
    std::vector<std::int32_t> formal_off, ret_off;
    for (const auto& d : callee_ast.params) formal_off.push_back(place(d));
    for (const auto& d : callee_ast.returns) ret_off.push_back(place(d));
    auto caller_param = [&](const ast::Operand* o) -> std::pair<std::int32_t, int> {
      const Binding* b = lookup(o->name);
      if (!b || b->kind != Binding::FrameParamSym) fail(L, "call argument `" + o->name + "` is not a .param of the caller");
      return {static_cast<std::int32_t>(b->offset), b->bytes};
    };
    for (std::size_t k = 0; k < args.size(); ++k) {
      auto [co, bytes] = caller_param(args[k]);
      cs.args.push_back({co, formal_off[k], static_cast<std::int32_t>(std::min<std::int64_t>(bytes, callee_ast.params[k].total_bytes()))});
    }
    for (std::size_t k = 0; k < rets.size(); ++k) {
      auto [co, bytes] = caller_param(rets[k]);
      cs.rets.push_back({co, ret_off[k], static_cast<std::int32_t>(std::min<std::int64_t>(bytes, callee_ast.returns[k].total_bytes()))});
    }
    inst.target = cs.callee;
    inst.imm = static_cast<std::uint32_t>(p_.calls.size());
    p_.calls.push_back(std::move(cs));
    if (std::find(f.callees.begin(), f.callees.end(), static_cast<std::uint32_t>(inst.target)) == f.callees.end())
      f.callees.push_back(static_cast<std::uint32_t>(inst.target));
    push_ops(inst, {}, {});
  }

  void decode_mma(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    if (P.has("sp") || in.parts.size() > 1 && in.parts[1] == "sp") return unsupported(inst, in, "sparse mma");
    int m = 0, n = 0, k = 0;
    for (const auto& mod : P.ordered)
      if (mod.size() > 1 && mod[0] == 'm' && std::sscanf(mod.c_str(), "m%dn%dk%d", &m, &n, &k) == 3) break;
    if (!m) fail(L, "mma: missing shape");
    inst.shape = {static_cast<std::int16_t>(m), static_cast<std::int16_t>(n), static_cast<std::int16_t>(k), 0};
    // types: d, a, b, c (f64: single type; some forms omit)
    if (P.types.size() == 4) { inst.type = P.types[0]; inst.type2 = P.types[1]; inst.type3 = P.types[3]; if (P.types[1] != P.types[2]) inst.shape[3] = static_cast<std::int16_t>(P.types[2]); }
    else if (P.types.size() == 1) { inst.type = inst.type2 = inst.type3 = P.types[0]; }
    else if (P.types.size() == 2) { inst.type = P.types[0]; inst.type2 = P.types[1]; inst.type3 = P.types[0]; }
    else fail(L, "mma: unexpected type list");
    if (P.has("satfinite")) inst.flags |= kSatFinite;
    // layouts: .row.col required for most shapes
    if (P.has("col") && !P.has("row") && !(m == 8 && n == 8 && k == 4)) inst.flags |= kTrans;
    const Ty a = inst.type2;  // the A/B type, which selects the tensor pipe (ops.def: UnitRule::Matrix)
    need(in, 4, 4);
    auto list = [&](const ast::Operand& o, bool d, int bits) { return vec_regs(o, bits, L, d); };
    int dbits = width_of(inst.type) , cbits = width_of(inst.type3);
    std::vector<Reg> D = list(in.operands[0], true, dbits);
    std::vector<Reg> A = list(in.operands[1], false, a == Ty::F64 ? 64 : 32);
    std::vector<Reg> B = list(in.operands[2], false, a == Ty::F64 ? 64 : 32);
    std::vector<Reg> C = list(in.operands[3], false, cbits);
    std::vector<Reg> S = A;
    S.insert(S.end(), B.begin(), B.end());
    S.insert(S.end(), C.begin(), C.end());
    inst.imm = static_cast<std::uint32_t>(A.size() | (B.size() << 8) | (C.size() << 16));
    push_ops(inst, D, S);
  }

  void decode_wmma(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    int m = 0, n = 0, k = 0;
    for (const auto& mod : P.ordered)
      if (mod.size() > 1 && mod[0] == 'm' && std::sscanf(mod.c_str(), "m%dn%dk%d", &m, &n, &k) == 3) break;
    if (!m) fail(L, "wmma: missing shape");
    inst.shape = {static_cast<std::int16_t>(m), static_cast<std::int16_t>(n), static_cast<std::int16_t>(k), 0};
    if (inst.op == Op::WmmaLoad || inst.op == Op::WmmaStore) {
      std::string frag = in.parts.size() > 2 ? in.parts[2] : "";
      inst.sub = frag == "a" ? 0 : frag == "b" ? 1 : frag == "c" ? 2 : 3;  // d
      if (P.has("col")) inst.flags |= kTrans;  // column-major memory layout
      inst.type = P.types.empty() ? Ty::None : P.types.back();
      Space r = inst.space;
      if (inst.op == Op::WmmaLoad) {
        need(in, 2, 3);
        inst.addr = addr(in.operands[1], inst.space, L, &r);
        Reg stride = in.operands.size() == 3 ? src(in.operands[2], 32, L) : Reg{};
        push_ops(inst, vec_regs(in.operands[0], 32, L, true), {stride});
      } else {
        need(in, 2, 3);
        inst.addr = addr(in.operands[0], inst.space, L, &r);
        Reg stride = in.operands.size() == 3 ? src(in.operands[2], 32, L) : Reg{};
        std::vector<Reg> s = vec_regs(in.operands[1], 32, L, false);
        s.insert(s.begin(), stride);
        push_ops(inst, {}, s);
      }
      if (inst.space == Space::Generic && r != Space::Generic && inst.addr.kind != AddrBase::Reg) inst.space = r;
      return;
    }
    // wmma.mma
    if (P.types.size() == 2) { inst.type = P.types[0]; inst.type3 = P.types[1]; inst.type2 = Ty::F16; }
    else if (P.types.size() == 4) { inst.type = P.types[0]; inst.type2 = P.types[1]; inst.type3 = P.types[3]; }
    else if (P.types.size() == 3) { inst.type = P.types[0]; inst.type2 = P.types[1]; inst.type3 = P.types[2]; }
    else fail(L, "wmma.mma: unexpected type list");
    // layouts: alayout.blayout
    std::vector<std::string> lay;
    for (const auto& mod : P.ordered)
      if (mod == "row" || mod == "col") lay.push_back(mod);
    if (lay.size() != 2) fail(L, "wmma.mma: expects .alayout.blayout");
    inst.sub = static_cast<std::uint8_t>((lay[0] == "col" ? 1 : 0) | (lay[1] == "col" ? 2 : 0));
    need(in, 4, 4);
    std::vector<Reg> D = vec_regs(in.operands[0], 32, L, true);
    std::vector<Reg> A = vec_regs(in.operands[1], 32, L, false);
    std::vector<Reg> B = vec_regs(in.operands[2], 32, L, false);
    std::vector<Reg> C = vec_regs(in.operands[3], 32, L, false);
    std::vector<Reg> S = A;
    S.insert(S.end(), B.begin(), B.end());
    S.insert(S.end(), C.begin(), C.end());
    inst.imm = static_cast<std::uint32_t>(A.size() | (B.size() << 8) | (C.size() << 16));
    push_ops(inst, D, S);
  }

  // wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype d, a-desc|{a}, b-desc, scale-d
  // {, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}}: the PTX ISA's forms per type. Inst:
  // type D, type2 A, shape {64, N, K, B type}, sub 1 when A is in registers, imm kWgmma* bits;
  // destinations the D list, sources A (descriptor or 4 registers), the B descriptor, scale-d.
  void decode_wgmma(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    if (P.has("sp")) return unsupported(inst, in, "sparse wgmma");
    if (p_.target.find("sm_90a") == std::string::npos)
      fail(L, "wgmma.mma_async needs .target sm_90a (the module targets " + (p_.target.empty() ? std::string("none") : p_.target) + ")");
    int m = 0, n = 0, k = 0;
    for (const auto& mod : P.ordered)
      if (mod.size() > 1 && mod[0] == 'm' && std::sscanf(mod.c_str(), "m%dn%dk%d", &m, &n, &k) == 3) break;
    if (P.types.size() != 3) fail(L, "wgmma.mma_async: expects .dtype.atype.btype");
    const Ty td = P.types[0], ta = P.types[1], tb = P.types[2];
    const bool half = ta == Ty::F16 || ta == Ty::BF16, fp8 = ta == Ty::E4M3 || ta == Ty::E5M2;
    const bool integer = ta == Ty::S8 || ta == Ty::U8;
    const int want_k = half ? 16 : ta == Ty::TF32 ? 8 : 32;
    const bool types_ok = half ? tb == ta && (td == Ty::F32 || (td == Ty::F16 && ta == Ty::F16))
                          : ta == Ty::TF32 ? tb == ta && td == Ty::F32
                          : fp8 ? (tb == Ty::E4M3 || tb == Ty::E5M2) && (td == Ty::F32 || td == Ty::F16)
                          : integer && (tb == Ty::S8 || tb == Ty::U8) && td == Ty::S32;
    if (!types_ok)
      fail(L, "wgmma.mma_async: ." + std::string(to_string(td)) + "." + to_string(ta) + "." + to_string(tb) +
                  " is not a type combination of the PTX ISA");
    const bool n_ok = integer ? (n >= 8 && n <= 24 && n % 8 == 0) || (n >= 32 && n <= 256 && n % 16 == 0)
                              : n >= 8 && n <= 256 && n % 8 == 0;
    if (m != 64 || k != want_k || !n_ok)
      fail(L, "wgmma.mma_async: shape ." + (m ? "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k) : std::string("(none)")) +
                  " is not legal for ." + to_string(ta) + " (m64nNk" + std::to_string(want_k) + ", N " +
                  (integer ? "8, 16, 24 or 32..256 in steps of 16" : "8..256 in steps of 8") + ")");
    if (P.has("satfinite") && !integer) fail(L, "wgmma.mma_async: .satfinite is for the integer types");
    if (P.has("satfinite")) inst.flags |= kSatFinite;
    inst.type = td;
    inst.type2 = ta;
    inst.shape = {64, static_cast<std::int16_t>(n), static_cast<std::int16_t>(k), static_cast<std::int16_t>(tb)};
    const bool rs = in.operands.size() > 1 && in.operands[1].kind == ast::Operand::Kind::Vec;
    inst.sub = rs ? 1 : 0;
    // immediates after scale-d: scale-a, scale-b (floats), trans-a (f16/bf16 with A in shared memory), trans-b (f16/bf16)
    const std::size_t nimm = integer ? 0 : half ? (rs ? 3 : 4) : 2;
    need(in, 4 + nimm, 4 + nimm);
    auto imm = [&](std::size_t i, bool scale) {
      const ast::Operand& o = in.operands[i];
      if (o.kind != ast::Operand::Kind::Imm) fail(L, "wgmma.mma_async: operand " + std::to_string(i + 1) + " must be an immediate");
      if (scale ? o.ival != 1 && o.ival != -1 : o.ival != 0 && o.ival != 1)
        fail(L, "wgmma.mma_async: operand " + std::to_string(i + 1) + (scale ? " (imm-scale) must be 1 or -1" : " (imm-trans) must be 0 or 1"));
      return scale ? o.ival == -1 : o.ival == 1;
    };
    std::uint32_t bits = 0;
    if (nimm >= 2) bits |= (imm(4, true) ? kWgmmaNegA : 0u) | (imm(5, true) ? kWgmmaNegB : 0u);
    if (nimm == 4) bits |= (imm(6, false) ? kWgmmaTransA : 0u) | (imm(7, false) ? kWgmmaTransB : 0u);
    if (nimm == 3) bits |= imm(6, false) ? kWgmmaTransB : 0u;
    inst.imm = bits;
    const int dregs = td == Ty::F16 ? n / 4 : n / 2;
    std::vector<Reg> D = vec_regs(in.operands[0], 32, L, true);
    if (static_cast<int>(D.size()) != dregs)
      fail(L, "wgmma.mma_async: D has " + std::to_string(D.size()) + " registers, ." + to_string(td) + " m64n" + std::to_string(n) +
                  " needs " + std::to_string(dregs));
    std::vector<Reg> S = rs ? vec_regs(in.operands[1], 32, L, false) : std::vector<Reg>{src(in.operands[1], 64, L)};
    if (rs && S.size() != 4) fail(L, "wgmma.mma_async: A in registers takes 4 registers, got " + std::to_string(S.size()));
    S.push_back(src(in.operands[2], 64, L));
    S.push_back(src(in.operands[3], 1, L));  // scale-d: a predicate, or an immediate (non-zero: true)
    push_ops(inst, D, S);
  }

  // ---- tcgen05 (sm_100a; sim/functional/ptx_tcgen05.cpp executes them) -----------------------

  // A tensor-memory address operand [taddr+off]: its base register and its offset as a constant
  // source (the offset may name lanes, bits 16-31, as well as columns).
  std::pair<Reg, Reg> tmem_operand(const ast::Operand& o, int line) {
    const Addr a = addr(o, Space::Generic, line);
    if (a.kind == AddrBase::Absolute) return {const32(0), const32(static_cast<std::uint32_t>(a.offset))};
    if (a.kind != AddrBase::Reg) fail(line, "a tensor-memory address must be a register, optionally with an offset");
    return {a.base, const32(static_cast<std::uint32_t>(a.offset))};
  }

  // tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols; .dealloc ... taddr, nCols;
  // .relinquish_alloc_permit; .mma (tcgen05_mma); .commit.cta_group.mbarrier::arrive::one
  // {.shared::cluster}{.multicast::cluster}.b64 [mbar]{, ctaMask}; .ld/.st (tcgen05_ld_st);
  // .cp (tcgen05_cp); .shift.cta_group.down [taddr]; .wait::ld/st; .fence::before/after_thread_sync.
  void decode_tcgen05(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const std::string& t = p_.target;
    const bool ok_target = t.find("sm_100a") != std::string::npos || t.find("sm_100f") != std::string::npos ||
                           t.find("sm_101a") != std::string::npos || t.find("sm_103a") != std::string::npos ||
                           t.find("sm_103f") != std::string::npos || t.find("sm_110a") != std::string::npos;
    if (!ok_target)
      fail(L, "`" + in.opcode + "` needs .target sm_100a (or another tcgen05 target); the module targets " +
                  (t.empty() ? std::string("none") : t));
    inst.shape[0] = P.has("cta_group::2") ? 2 : 1;
    const auto& o = in.operands;
    switch (inst.op) {
      case Op::Tcgen05Alloc:
        need(in, 2, 2);
        inst.space = P.has("shared::cta") || P.has("shared") ? Space::Shared : Space::Generic;
        memory_operand(inst, o[0], L);
        return push_ops(inst, {}, {src(o[1], 32, L)});
      case Op::Tcgen05Dealloc: need(in, 2, 2); return push_ops(inst, {}, {src(o[0], 32, L), src(o[1], 32, L)});
      case Op::Tcgen05Relinquish: case Op::Tcgen05WaitLd: case Op::Tcgen05WaitSt: case Op::Tcgen05Fence:
        need(in, 0, 0);
        return push_ops(inst, {}, {});
      case Op::Tcgen05Commit: {
        for (const auto& m : P.ordered)
          if (is_space_name(m)) inst.space = async_space(m, inst, true);
        if (!P.has("mbarrier::arrive::one")) fail(L, "`" + in.opcode + "`: the completion mechanism must be .mbarrier::arrive::one");
        const bool mc = P.has("multicast::cluster");
        need(in, mc ? 2 : 1, mc ? 2 : 1);
        if (mc) inst.sub |= kTcMulticast;
        std::vector<Reg> s{mbar_operand(inst, o[0], L)};
        if (mc) s.push_back(src(o[1], 32, L));
        return push_ops(inst, {}, s);
      }
      case Op::Tcgen05Mma: return decode_tcgen05_mma(inst, in, P);
      case Op::Tcgen05Ld: case Op::Tcgen05St: return decode_tcgen05_ld_st(inst, in, P);
      case Op::Tcgen05Cp: return decode_tcgen05_cp(inst, in, P);
      case Op::Tcgen05Shift: {  // tcgen05.shift.cta_group.down [taddr] (either order of the qualifiers)
        if (!P.has("down")) fail(L, "`" + in.opcode + "`: expects .down (the only direction of tcgen05.shift)");
        need(in, 1, 1);
        const auto [base, off] = tmem_operand(o[0], L);
        return push_ops(inst, {}, {base, off});
      }
      default: break;
    }
    fail(L, "kernsim bug: `" + in.opcode + "` reached the tcgen05 decoder");
  }

  // clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128
  //   [addr], [mbar]: sources the mbarrier (Inst::imm its offset), the response address in Inst::addr;
  //   Inst::sub 1 with .multicast::cluster::all.
  // clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp;
  //   .get_first_ctaid::{x,y,z}.b32.b128 d, resp; .get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp:
  //   sources the response's halves; Inst::shape[0] 0 is_canceled, 1-3 x/y/z, 4 the vector.
  void decode_clc(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const auto& o = in.operands;
    const std::string& t = p_.target;
    const std::size_t at = t.find("sm_");
    const int sm = at == std::string::npos ? 0 : std::atoi(t.c_str() + at + 3);
    if (sm < 100)
      fail(L, "`" + in.opcode + "` needs .target sm_100 or later; the module targets " + (t.empty() ? std::string("none") : t));
    need(in, 2, 2);
    if (inst.op == Op::ClcTryCancel) {
      if (!P.has("mbarrier::complete_tx::bytes"))
        fail(L, "`" + in.opcode + "`: the completion mechanism must be .mbarrier::complete_tx::bytes");
      if (P.has("multicast::cluster::all")) inst.sub = 1;
      inst.space = P.has("shared::cta") ? Space::Shared : Space::Generic;
      memory_operand(inst, o[0], L);
      std::vector<Reg> s{mbar_operand(inst, o[1], L)};
      return push_ops(inst, {}, s);
    }
    const auto [lo, hi] = reg128(o[1], L);
    if (P.has("is_canceled")) {
      inst.shape[0] = 0;
      return push_ops(inst, {dst(o[0], L)}, {lo, hi});
    }
    if (!P.has("get_first_ctaid") && !P.has("get_first_ctaid::x") && !P.has("get_first_ctaid::y") &&
        !P.has("get_first_ctaid::z"))
      fail(L, "`" + in.opcode + "`: expects .is_canceled or .get_first_ctaid");
    inst.shape[0] = P.has("get_first_ctaid::x") ? 1 : P.has("get_first_ctaid::y") ? 2 : P.has("get_first_ctaid::z") ? 3 : 4;
    std::vector<Reg> d = vec_regs(o[0], 32, L, true);
    if (d.size() != (inst.shape[0] == 4 ? 4u : 1u))
      fail(L, "`" + in.opcode + "`: " + (inst.shape[0] == 4 ? "the .v4 form takes four registers" : "one destination"));
    push_ops(inst, d, {lo, hi});
  }

  // The sources every tcgen05.mma form starts with: d base, d offset, A (a descriptor, or a
  // tensor-memory base and kTcATmem), A offset, B descriptor, idesc.
  std::vector<Reg> tcgen05_mma_operands(Inst& inst, const std::vector<ast::Operand>& o, int L) {
    const auto [d_base, d_off] = tmem_operand(o[0], L);
    std::vector<Reg> s{d_base, d_off};
    if (o[1].kind == ast::Operand::Kind::Addr) {
      inst.sub |= kTcATmem;
      const auto [a_base, a_off] = tmem_operand(o[1], L);
      s.push_back(a_base);
      s.push_back(a_off);
    } else {
      s.push_back(src(o[1], 64, L));
      s.push_back(const32(0));
    }
    s.push_back(src(o[2], 64, L));
    s.push_back(src(o[3], 32, L));
    return s;
  }

  // tcgen05.mma.sp / .ws.sp: takes the [sp-meta-tmem] operand that follows b-desc out of `o` (so the
  // rest decodes as the dense form's) and marks the instruction kTcSparse; an empty operand otherwise.
  ast::Operand take_sp_meta(Inst& inst, const ast::Instr& in, const Parts& P, std::vector<ast::Operand>& o) {
    ast::Operand meta;
    if (!P.has("sp")) return meta;
    if (o.size() < 6 || o[3].kind != ast::Operand::Kind::Addr)
      fail(in.line, "`" + in.opcode + "`: the sparse forms take [sp-meta-tmem] after b-desc");
    meta = o[3];
    o.erase(o.begin() + 3);
    inst.sub |= kTcSparse;
    return meta;
  }
  // The metadata address as sources 8-9 (after enable-input-d and scale-input-d) of a sparse form.
  void push_sp_meta(const Inst& inst, const ast::Operand& meta, std::vector<Reg>& s, int L) {
    if (!(inst.sub & kTcSparse)) return;
    const auto [mb, moff] = tmem_operand(meta, L);
    s.push_back(mb);
    s.push_back(moff);
  }

  // tcgen05.mma.cta_group.kind{.collector::a::op} [d], a-desc|[a], b-desc, idesc, {mask}, enable-input-d{, scale-input-d};
  // tcgen05.mma.cta_group.kind.block_scale{.scale_vectorsize} [d], a-desc|[a], b-desc, idesc, [scale-A], [scale-B],
  // enable-input-d. Sources: d base, d offset, A (descriptor, or tensor-memory base), A offset, B descriptor, idesc,
  // enable-input-d, scale-input-d (constant 0 when absent), then (.sp: tcgen05.mma.sp [d], a, b-desc,
  // [sp-meta-tmem], idesc, ...) the metadata's base and offset, then the 4 (8) disable-output-lane words if
  // given, or (.block_scale) the scale-A base and offset and the scale-B base and offset.
  void decode_tcgen05_mma(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    if (P.has("ashift")) return unsupported(inst, in, "tcgen05.mma .ashift (convolution A shift)");
    TcKind kind;
    if (P.has("kind::f16")) kind = TcKind::F16;
    else if (P.has("kind::tf32")) kind = TcKind::Tf32;
    else if (P.has("kind::f8f6f4")) kind = TcKind::F8f6f4;
    else if (P.has("kind::i8")) kind = TcKind::I8;
    else if (P.has("kind::mxf8f6f4")) kind = TcKind::Mxf8f6f4;
    else if (P.has("kind::mxf4")) kind = TcKind::Mxf4;
    else if (P.has("kind::mxf4nvf4")) kind = TcKind::Mxf4nvf4;
    else fail(L, "`" + in.opcode + "`: expects .kind::f16, ::tf32, ::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4 or ::mxf4nvf4");
    inst.shape[1] = static_cast<std::int16_t>(kind);
    const bool scaled = kind == TcKind::Mxf8f6f4 || kind == TcKind::Mxf4 || kind == TcKind::Mxf4nvf4;
    if (scaled != P.has("block_scale") && !P.has("ws"))
      fail(L, "`" + in.opcode + "`: " +
                  (scaled ? "the block-scaled kinds need .block_scale" : ".block_scale needs .kind::mxf8f6f4, ::mxf4 or ::mxf4nvf4"));
    if (P.has("ws")) {
      if (scaled || P.has("block_scale")) fail(L, "`" + in.opcode + "`: tcgen05.mma.ws takes .kind::f16, ::tf32, ::f8f6f4 or ::i8");
      return decode_tcgen05_mma_ws(inst, in, P);
    }
    if (scaled) return decode_tcgen05_mma_block_scale(inst, in, P, kind);
    auto o = in.operands;
    const ast::Operand meta = take_sp_meta(inst, in, P, o);
    if (o.size() < 5 || o.size() > 7) fail(L, "`" + in.opcode + "`: takes 5 to 7 operands (8 with .sp)");
    const bool mask = o.size() >= 6 && o[4].kind == ast::Operand::Kind::Vec;
    const std::size_t en = mask ? 5 : 4;
    if (o.size() > en + 2) fail(L, "`" + in.opcode + "`: too many operands");
    const bool scale = o.size() == en + 2;
    if (scale && kind != TcKind::F16 && kind != TcKind::Tf32) fail(L, "`" + in.opcode + "`: scale-input-d is only for .kind::f16 and .kind::tf32");
    if (scale && (o[en + 1].kind != ast::Operand::Kind::Imm || o[en + 1].ival < 0 || o[en + 1].ival > 15))
      fail(L, "`" + in.opcode + "`: scale-input-d must be an immediate in 0..15");
    std::vector<Reg> s = tcgen05_mma_operands(inst, o, L);
    s.push_back(src(o[en], 1, L));
    s.push_back(scale ? src(o[en + 1], 32, L) : const32(0));
    if (scale) inst.sub |= kTcScaleD;
    push_sp_meta(inst, meta, s, L);
    if (mask) {
      std::vector<Reg> m = vec_regs(o[4], 32, L, false);
      if (m.size() != 4u * static_cast<unsigned>(inst.shape[0]))
        fail(L, "`" + in.opcode + "`: disable-output-lane has " + std::to_string(m.size()) + " words, .cta_group::" +
                    std::to_string(inst.shape[0]) + " takes " + std::to_string(4 * inst.shape[0]));
      s.insert(s.end(), m.begin(), m.end());
    }
    push_ops(inst, {}, s);
  }

  // tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector::bN::op} [d], a-desc|[a], b-desc{, [sp-meta-tmem]}, idesc,
  // enable-input-d{, zero-column-mask-desc}: kinds f16, tf32, f8f6f4, i8 (PTX ISA "tcgen05.mma.ws"). Sources as
  // tcgen05.mma's (scale-input-d the constant 0), then (.sp) the metadata's base and offset, then the 64-bit
  // mask descriptor if given; sub kTcWs,
  // and kTcBReuse when B comes from a collector buffer (::use, ::lastuse) rather than shared memory.
  void decode_tcgen05_mma_ws(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    if (inst.shape[0] != 1) fail(L, "`" + in.opcode + "`: tcgen05.mma.ws takes .cta_group::1 only");
    inst.sub |= kTcWs;
    for (const auto& m : P.ordered)
      if (m.rfind("collector::b", 0) == 0 && (m.find("::use") != std::string::npos || m.find("::lastuse") != std::string::npos))
        inst.sub |= kTcBReuse;
    auto o = in.operands;
    const ast::Operand meta = take_sp_meta(inst, in, P, o);
    if (o.size() < 5 || o.size() > 6) fail(L, "`" + in.opcode + "`: takes 5 or 6 operands (6 or 7 with .sp)");
    std::vector<Reg> s = tcgen05_mma_operands(inst, o, L);
    s.push_back(src(o[4], 1, L));
    s.push_back(const32(0));
    push_sp_meta(inst, meta, s, L);
    if (o.size() == 6) s.push_back(src(o[5], 64, L));
    push_ops(inst, {}, s);
  }

  // The block-scaled form (decode_tcgen05_mma's comment). .scale_vec::NX gives the scales per row of A
  // (and per column of B) of one mma; .block32 is 1X for .kind::mxf8f6f4 and 2X for the fp4 kinds,
  // .block16 is 4X (PTX ISA "Block Scaling"); without one, ::mxf8f6f4 and ::mxf4 take .block32 and
  // ::mxf4nvf4 is an error. inst.shape[2] holds the N of NX.
  void decode_tcgen05_mma_block_scale(Inst& inst, const ast::Instr& in, const Parts& P, TcKind kind) {
    const int L = in.line;
    int vec = 0;
    if (P.has("scale_vec::1X")) vec = 1;
    else if (P.has("scale_vec::2X")) vec = 2;
    else if (P.has("scale_vec::4X") || P.has("block16")) vec = 4;
    else if (P.has("block32") || kind != TcKind::Mxf4nvf4) vec = kind == TcKind::Mxf8f6f4 ? 1 : 2;
    else fail(L, "`" + in.opcode + "`: .kind::mxf4nvf4 needs a .scale_vec::2X/4X (or .block32/.block16) qualifier");
    const bool ok = kind == TcKind::Mxf8f6f4 ? vec == 1 : kind == TcKind::Mxf4 ? vec == 2 : vec >= 2;
    if (!ok)
      fail(L, "`" + in.opcode + "`: .scale_vec::" + std::to_string(vec) + "X is not valid for this kind (" +
                  "::mxf8f6f4 takes 1X, ::mxf4 2X, ::mxf4nvf4 2X or 4X)");
    inst.shape[2] = static_cast<std::int16_t>(vec);
    inst.sub |= kTcBlockScale;
    auto o = in.operands;
    const ast::Operand meta = take_sp_meta(inst, in, P, o);
    if (o.size() != 7) fail(L, "`" + in.opcode + "`: takes 7 operands (8 with .sp)");
    std::vector<Reg> s = tcgen05_mma_operands(inst, o, L);
    s.push_back(src(o[6], 1, L));
    s.push_back(const32(0));
    push_sp_meta(inst, meta, s, L);
    for (int i : {4, 5}) {
      if (o[i].kind != ast::Operand::Kind::Addr) fail(L, "`" + in.opcode + "`: the scale operands are tensor-memory addresses [taddr]");
      const auto [b, off] = tmem_operand(o[i], L);
      s.push_back(b);
      s.push_back(off);
    }
    push_ops(inst, {}, s);
  }

  // tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc. Sources: taddr base,
  // taddr offset, s-desc. .64x128b needs .warpx2::02_13 or ::01_23 and .32x128b needs .warpx4
  // (PTX ISA "tcgen05.cp"); shape[3] the source bits of the decompressing forms (6 or 4), else 0.
  void decode_tcgen05_cp(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    static const char* kShapes[] = {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b"};
    int sh = -1;
    for (int i = 0; i < 5; ++i)
      if (P.has(kShapes[i])) sh = i;
    if (sh < 0) fail(L, "`" + in.opcode + "`: expects a shape .128x256b, .4x256b, .128x128b, .64x128b or .32x128b");
    const TcCpMulticast mc = P.has("warpx2::02_13")   ? TcCpMulticast::Warpx2_02_13
                             : P.has("warpx2::01_23") ? TcCpMulticast::Warpx2_01_23
                             : P.has("warpx4")        ? TcCpMulticast::Warpx4
                                                      : TcCpMulticast::None;
    const TcCpMulticast want = sh == 3 ? mc : sh == 4 ? TcCpMulticast::Warpx4 : TcCpMulticast::None;
    if (mc != want || (sh == 3 && mc == TcCpMulticast::None))
      fail(L, "`" + in.opcode + "`: ." + kShapes[sh] +
                  (sh == 3   ? " needs .warpx2::02_13 or .warpx2::01_23"
                   : sh == 4 ? " needs .warpx4"
                             : " takes no multicast qualifier"));
    const bool b6 = P.has("b6x16_p32"), b4 = P.has("b4x16_p64");
    if (P.has("b8x16") != (b6 || b4) || (b6 && b4))
      fail(L, "`" + in.opcode + "`: decompression takes .b8x16 with one of .b6x16_p32 and .b4x16_p64");
    inst.shape[3] = static_cast<std::int16_t>(b6 ? 6 : b4 ? 4 : 0);
    inst.shape[1] = static_cast<std::int16_t>(sh);
    inst.shape[2] = static_cast<std::int16_t>(mc);
    need(in, 2, 2);
    const auto [base, off] = tmem_operand(in.operands[0], L);
    push_ops(inst, {}, {base, off, src(in.operands[1], 64, L)});
  }

  // tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};
  // tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;
  // tcgen05.ld.red.sync.aligned.{32x32b,16x32bx2}.num.{min,max}{.abs}{.NaN}.{f32,u32,s32} r, redval, [taddr]{, imm}.
  // Sources: taddr base, taddr offset (then, for st, the data registers); destinations: ld's registers
  // (then, for ld.red, redval).
  void decode_tcgen05_ld_st(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const bool ld = inst.op == Op::Tcgen05Ld, red = ld && P.has("red");
    if (red) decode_tcgen05_ld_red(inst, in, P);
    static const char* kShapes[] = {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"};
    static const int kRegs[] = {1, 1, 2, 4, 1};  // registers per .x1 (the PTX ISA's table of .num and .shape)
    int sh = -1, num = 0;
    for (const auto& m : P.ordered) {
      for (int i = 0; i < 5; ++i)
        if (m == kShapes[i]) sh = i;
      if (m.size() > 1 && m[0] == 'x' && std::all_of(m.begin() + 1, m.end(), ::isdigit)) num = std::stoi(m.substr(1));
      if (m == (ld ? "pack::16b" : "unpack::16b")) inst.sub |= kTcPack;
    }
    if (sh < 0) fail(L, "`" + in.opcode + "`: expects a shape .32x32b, .16x64b, .16x128b, .16x256b or .16x32bx2");
    const int max_num = sh == 2 ? 64 : sh == 3 ? 32 : 128;
    if (num < 1 || num > max_num || (num & (num - 1)))
      fail(L, "`" + in.opcode + "`: .x" + std::to_string(num) + " is not legal for ." + kShapes[sh] + " (.x1 .. .x" +
                  std::to_string(max_num) + ", powers of two)");
    if (red && ((sh != 0 && sh != 4) || num < 2))
      fail(L, "`" + in.opcode + "`: tcgen05.ld.red takes .32x32b or .16x32bx2 with .x2 or more");
    inst.shape[1] = static_cast<std::int16_t>(sh);
    inst.shape[2] = static_cast<std::int16_t>(num);
    if (!red) inst.type = Ty::B32;
    const bool split = sh == 4;
    const auto& o = in.operands;
    const std::size_t nops = (split ? 3u : 2u) + (red ? 1u : 0u);
    need(in, static_cast<int>(nops), static_cast<int>(nops));
    const ast::Operand& data = ld ? o[0] : o.back();
    const auto [base, off] = tmem_operand(ld ? o[red ? 2 : 1] : o[0], L);
    if (split) {
      const ast::Operand& imm = ld ? o[red ? 3 : 2] : o[1];
      if (imm.kind != ast::Operand::Kind::Imm) fail(L, "`" + in.opcode + "`: immHalfSplitoff must be an immediate");
      inst.imm = static_cast<std::uint32_t>(imm.ival);
    }
    std::vector<Reg> regs = vec_regs(data, 32, L, ld);
    const int want = kRegs[sh] * num;
    if (static_cast<int>(regs.size()) != want)
      fail(L, "`" + in.opcode + "`: has " + std::to_string(regs.size()) + " registers, ." + kShapes[sh] + ".x" +
                  std::to_string(num) + " takes " + std::to_string(want));
    std::vector<Reg> s{base, off};
    if (red) regs.push_back(dst(o[1], L));
    if (ld) return push_ops(inst, regs, s);
    s.insert(s.end(), regs.begin(), regs.end());
    push_ops(inst, {}, s);
  }

  // The qualifiers of tcgen05.ld.red (PTX ISA "tcgen05.ld", PTX ISA 8.8): .min or .max, .f32 (with
  // .abs and .NaN) or .u32/.s32, no .pack::16b; the targets that have it (sm_101a/sm_110a, sm_103f
  // and later in the family; not the B200's sm_100a, where ptxas refuses it).
  void decode_tcgen05_ld_red(Inst& inst, const ast::Instr& in, const Parts& P) {
    const int L = in.line;
    const std::string& t = p_.target;
    if (t.find("sm_101a") == std::string::npos && t.find("sm_103") == std::string::npos &&
        t.find("sm_110") == std::string::npos)
      fail(L, "`" + in.opcode + "`: tcgen05.ld.red needs .target sm_101a, sm_103a/f or sm_110a/f (not sm_100a); the module targets " +
                  (t.empty() ? std::string("none") : t));
    if (P.has("min") == P.has("max")) fail(L, "`" + in.opcode + "`: tcgen05.ld.red needs one of .min and .max");
    inst.sub |= P.has("min") ? kTcRedMin : kTcRedMax;
    inst.type = P.type(0);
    if (P.types.size() != 1 || (inst.type != Ty::F32 && inst.type != Ty::U32 && inst.type != Ty::S32))
      fail(L, "`" + in.opcode + "`: tcgen05.ld.red needs one type, .f32, .u32 or .s32");
    if (P.has("abs")) inst.sub |= kTcRedAbs;
    if (P.has("NaN")) inst.sub |= kTcRedNaN;
    if ((P.has("abs") || P.has("NaN")) && inst.type != Ty::F32)
      fail(L, "`" + in.opcode + "`: .abs and .NaN are for .f32 only");
    if (P.has("pack::16b")) fail(L, "`" + in.opcode + "`: tcgen05.ld.red takes no .pack::16b");
  }

  // ---- functions ---------------------------------------------------------------------------
  void decode_function(const ast::Function& af, std::uint32_t index) {
    Function& f = p_.functions[index];
    f.name = af.name;
    f.is_entry = af.is_entry;
    f.first = static_cast<std::uint32_t>(p_.insts.size());
    if (af.reqntid) f.reqntid = *af.reqntid;
    if (af.maxntid) f.maxntid = *af.maxntid;
    if (af.reqnctapercluster) f.reqnctapercluster = *af.reqnctapercluster;
    f.explicitcluster = af.explicitcluster;
    f.maxclusterrank = af.maxclusterrank;
    scopes_.clear();
    scopes_.emplace_back();
    // parameters
    if (af.is_entry) {
      int off = 0;
      for (const auto& d : af.params) {
        ParamInfo pi;
        pi.name = d.name;
        pi.bytes = static_cast<int>(d.total_bytes());
        pi.align = std::max(1, d.align ? d.align : static_cast<int>(d.element_bytes()));
        pi.type = d.type;
        pi.is_aggregate = d.array >= 0;
        pi.is_pointer = !pi.is_aggregate && pi.bytes == 8 && (d.type == "u64" || d.type == "b64" || d.type == "s64" || d.is_ptr);
        pi.declared_ptr = d.is_ptr;
        off = (off + pi.align - 1) / pi.align * pi.align;
        pi.offset = off;
        off += pi.bytes;
        Binding b;
        b.kind = Binding::KernelParamSym;
        b.offset = pi.offset;
        b.bytes = pi.bytes;
        scopes_.back()[d.name] = b;
        f.params.push_back(pi);
      }
    } else {
      for (const auto& d : af.params) {
        Binding b = frame_param(d, f);
        scopes_.back()[d.name] = b;
        f.params.push_back({d.name, b.bytes, d.align, false, d.array >= 0, d.type, static_cast<int>(b.offset)});
      }
      for (const auto& d : af.returns) {
        Binding b = frame_param(d, f);
        scopes_.back()[d.name] = b;
        f.returns.push_back({d.name, b.bytes, d.align, false, d.array >= 0, d.type, static_cast<int>(b.offset)});
      }
    }
    // body; labels belong to the { } block they are defined in (Triton and inline asm repeat
    // `waitLoop:` in one block per wait), keyed by (name, block)
    std::map<std::pair<std::string, int>, std::uint32_t> labels;
    pending_labels_.clear();
    block_chain_ = {0};
    int blocks = 0;
    for (const auto& st : af.body) {
      switch (st.kind) {
        case ast::Statement::Kind::ScopeBegin: scopes_.emplace_back(); block_chain_.push_back(++blocks); break;
        case ast::Statement::Kind::ScopeEnd:
          if (scopes_.size() > 1) scopes_.pop_back();
          if (block_chain_.size() > 1) block_chain_.pop_back();
          break;
        case ast::Statement::Kind::Decl: declare(st.decl, f); break;
        case ast::Statement::Kind::Label:
          if (labels.count({st.label, block_chain_.back()})) fail(st.line, "label `" + st.label + "` defined twice");
          labels[{st.label, block_chain_.back()}] = static_cast<std::uint32_t>(p_.insts.size());
          break;
        case ast::Statement::Kind::Instr: {
          Inst inst = decode(st.instr, af, f);
          inst.func = index;
          for (int k = 0; k < inst.nsrc; ++k) {  // reads a clock: the executor refreshes it first
            const Reg& r = p_.regs[inst.ops + inst.ndst + k];
            const std::string* nm = r.bank == Bank::S32 ? &p_.special_names32[r.idx] : r.bank == Bank::S64 ? &p_.special_names64[r.idx] : nullptr;
            if (nm && (nm->rfind("%clock", 0) == 0 || nm->rfind("%globaltimer", 0) == 0 || *nm == "%smid"))
              inst.flags |= kReadsClock;
          }
          p_.insts.push_back(inst);
          break;
        }
      }
    }
    // a function that falls off its end returns
    if (p_.insts.size() == f.first || (p_.insts.back().op != Op::Ret && p_.insts.back().op != Op::Exit &&
                                       !(p_.insts.back().op == Op::Bra && p_.insts.back().guard.bank == Bank::None))) {
      Inst r;
      r.op = Op::Ret;
      r.unit = Unit::Branch;
      r.func = index;
      r.line = p_.insts.empty() ? 0 : p_.insts.back().line;
      r.ops = static_cast<std::uint32_t>(p_.regs.size());
      p_.insts.push_back(r);
    }
    f.end = static_cast<std::uint32_t>(p_.insts.size());
    for (const auto& pl : pending_labels_) {
      auto it = labels.end();
      for (auto b = pl.blocks.rbegin(); b != pl.blocks.rend() && it == labels.end(); ++b) it = labels.find({pl.name, *b});
      if (it == labels.end()) fail(pl.line, "branch to undefined label `" + pl.name + "`");
      Inst& bi = p_.insts[pl.at];
      if (bi.op == Op::BrxIdx) p_.branch_tables[bi.imm][static_cast<std::size_t>(pl.slot)] = it->second;
      else bi.target = static_cast<std::int32_t>(it->second);
    }
    branch_table_names_.clear();
    for (std::uint32_t i = f.first; i < f.end; ++i)
      if (p_.insts[i].op == Op::Unsupported) unsupported_index_.push_back(i);
    compute_reconvergence(f);
  }

  void compute_reconvergence(const Function& f) {
    // basic blocks
    std::vector<std::uint32_t> leaders{f.first};
    for (std::uint32_t i = f.first; i < f.end; ++i) {
      const Inst& in = p_.insts[i];
      if (in.op == Op::Bra) {
        leaders.push_back(static_cast<std::uint32_t>(in.target));
        if (i + 1 < f.end) leaders.push_back(i + 1);
      } else if (in.op == Op::BrxIdx) {
        for (std::uint32_t t : p_.branch_tables[in.imm]) leaders.push_back(t);
        if (i + 1 < f.end) leaders.push_back(i + 1);
      } else if ((in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap) && i + 1 < f.end) {
        leaders.push_back(i + 1);
      }
    }
    std::sort(leaders.begin(), leaders.end());
    leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
    const int nb = static_cast<int>(leaders.size());
    auto block_of = [&](std::uint32_t pc) {
      return static_cast<int>(std::upper_bound(leaders.begin(), leaders.end(), pc) - leaders.begin()) - 1;
    };
    std::vector<std::vector<int>> succ(nb);
    for (int b = 0; b < nb; ++b) {
      std::uint32_t last = (b + 1 < nb ? leaders[b + 1] : f.end) - 1;
      const Inst& in = p_.insts[last];
      bool uncond = in.guard.bank == Bank::None;
      auto add = [&](int s) { if (std::find(succ[b].begin(), succ[b].end(), s) == succ[b].end()) succ[b].push_back(s); };
      if (in.op == Op::Bra) {
        add(block_of(static_cast<std::uint32_t>(in.target)));
        if (!uncond && last + 1 < f.end) add(block_of(last + 1));
      } else if (in.op == Op::BrxIdx) {
        for (std::uint32_t t : p_.branch_tables[in.imm]) add(block_of(t));
        if (!uncond && last + 1 < f.end) add(block_of(last + 1));
      } else if (in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap) {
        add(nb);  // exit
        if (!uncond && last + 1 < f.end) add(block_of(last + 1));
      } else if (last + 1 < f.end) {
        add(block_of(last + 1));
      } else {
        add(nb);
      }
    }
    std::vector<int> ipdom = immediate_post_dominators(succ);
    for (std::uint32_t i = f.first; i < f.end; ++i) {
      Inst& in = p_.insts[i];
      if (in.op != Op::Bra && in.op != Op::BrxIdx && in.op != Op::Ret && in.op != Op::Exit) continue;
      int b = block_of(i);
      int pd = ipdom[b];
      in.reconv = (pd < 0 || pd >= nb) ? -1 : static_cast<std::int32_t>(leaders[pd]);
    }
  }

 public:
  std::vector<std::string> unsupported_names_;
  std::vector<std::uint32_t> unsupported_index_;
  std::uint64_t extern_shared_align_ = 1;  // the largest alignment of an extern .shared array (dynamic shared memory)
  std::uint64_t statics_bytes_ = 0;

 private:
  const ast::Module& m_;
  std::string origin_;
  Program p_;
  std::map<std::string, int> module_funcs_;
  std::map<std::string, int> module_syms_;
  std::map<int, int> func_index_;
  std::map<std::string, int> sym_index_;
  std::unordered_map<std::uint32_t, std::uint32_t> c32_;
  std::unordered_map<std::uint64_t, std::uint32_t> c64_;
  std::vector<std::map<std::string, Binding>> scopes_;
  mutable Binding scratch_;
  struct PendingLabel { std::uint32_t at; std::string name; int line; int slot; std::vector<int> blocks; };
  std::vector<int> block_chain_{0};  // the { } blocks around the statement being decoded, outermost first
  std::map<std::string, ast::Decl> branch_table_names_;
  std::vector<PendingLabel> pending_labels_;
};

}  // namespace

Program decode_kernel(const ast::Module& module, const std::string& kernel, std::string_view source, const std::string& origin,
                      const SassLoops& sass) {
  Decoder d(module, source, origin);
  Program p = d.run(kernel);
  p.unsupported = std::move(d.unsupported_names_);
  apply_ptxas_passes(p, sass);
  return p;
}

}  // namespace kernsim::isa::ptx
