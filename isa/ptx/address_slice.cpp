// The address slice of a kernel (address_slice.h): a fixed point over registers and state spaces.
#include "isa/ptx/address_slice.h"

#include <algorithm>

namespace kernsim::isa::ptx {

namespace {

// Instructions that only write their destination registers from their sources (and lanes of the
// same warp): with no destination needed, skipping them changes nothing else.
bool register_only(const Inst& in) {
  if (in.flags & (kCarryIn | kCarryOut)) return false;  // the carry flag is state beyond the registers
  switch (in.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Mad:
    case Op::Mul24:
    case Op::Mad24:
    case Op::Sad:
    case Op::Div:
    case Op::Rem:
    case Op::Abs:
    case Op::Neg:
    case Op::Min:
    case Op::Max:
    case Op::Popc:
    case Op::Clz:
    case Op::Bfind:
    case Op::Brev:
    case Op::Bfe:
    case Op::Bfi:
    case Op::Prmt:
    case Op::And:
    case Op::Or:
    case Op::Xor:
    case Op::Not:
    case Op::Cnot:
    case Op::Lop3:
    case Op::Shl:
    case Op::Shr:
    case Op::Shf:
    case Op::Dp4a:
    case Op::Dp2a:
    case Op::Fma:
    case Op::Rcp:
    case Op::Sqrt:
    case Op::Rsqrt:
    case Op::Sin:
    case Op::Cos:
    case Op::Lg2:
    case Op::Ex2:
    case Op::Tanh:
    case Op::Copysign:
    case Op::Testp:
    case Op::Setp:
    case Op::Selp:
    case Op::Slct:
    case Op::Set:
    case Op::Mov:
    case Op::Cvt:
    case Op::CvtPack:
    case Op::Cvta:
    case Op::Isspacep:
    case Op::Mma:
    case Op::WmmaMma:
    case Op::Shfl:
    case Op::Vote:
    case Op::Redux:
    case Op::Movmatrix:
      return true;
    default:
      return false;
  }
}

bool reads_memory(const Inst& in) {
  return in.unit == Unit::Mem || in.op == Op::CpAsync;
}

// State spaces as bits; a generic address may be any of global, shared and local.
std::uint32_t space_bits(Space s) {
  switch (s) {
    case Space::Generic:
      return (1u << static_cast<int>(Space::Global)) | (1u << static_cast<int>(Space::Shared)) |
             (1u << static_cast<int>(Space::Local)) | (1u << static_cast<int>(Space::SharedCluster));
    case Space::Shared:
    case Space::SharedCluster:
      return (1u << static_cast<int>(Space::Shared)) | (1u << static_cast<int>(Space::SharedCluster));
    default:
      return 1u << static_cast<int>(s);
  }
}

class Slice {
 public:
  explicit Slice(const Program& p) : p_(p) {
    std::uint32_t n = 1;
    for (const Reg& r : p.regs) n = std::max(n, r.idx + 1);
    for (const Inst& in : p.insts) n = std::max({n, in.guard.idx + 1, in.addr.base.idx + 1, in.addr2.base.idx + 1});
    needed_.assign(3 * std::size_t{n}, 0);
    n_ = n;
    for (const Inst& in : p.insts)
      if (!register_only(in) && in.op != Op::Ld && in.op != Op::St && reads_memory(in)) copies_ = true;
  }

  std::vector<SliceRole> run() {
    std::vector<std::uint8_t> data(p_.insts.size(), 0);  // the instruction's values (or data) are needed
    for (bool changed = true; changed;) {
      const std::uint32_t spaces = spaces_;
      changed = false;
      for (std::size_t i = 0; i < p_.insts.size(); ++i) {
        const Inst& in = p_.insts[i];
        changed |= mark_address(in);
        if (data[i] || !needs_data(in)) continue;
        data[i] = 1;
        changed = true;
        mark(in.guard);
        for (int k = 0; k < in.nsrc; ++k) mark(p_.src(in, k));
        if (in.op == Op::Ld || (reads_memory(in) && any_dst_needed(in)))
          spaces_ |= space_bits(in.space);  // what it reads must be real
      }
      // a copy between spaces (cp.async, bulk and tensor copies, ...) carries data from one to the
      // other: once any space must be real, every one is
      if ((spaces_ & space_bits(Space::Generic)) && copies_)
        spaces_ |= space_bits(Space::Generic);  // (params and constants: nothing writes them)
      changed |= spaces_ != spaces;
    }
    std::vector<SliceRole> roles(p_.insts.size(), SliceRole::Execute);
    for (std::size_t i = 0; i < p_.insts.size(); ++i) {
      const Inst& in = p_.insts[i];
      if (data[i]) continue;
      if (in.op == Op::Ld || in.op == Op::St)
        roles[i] = SliceRole::AddressesOnly;
      else if (register_only(in))
        roles[i] = SliceRole::Skip;
    }
    return roles;
  }

 private:
  // whether the instruction's values (a load's data, a store's written data) are needed
  bool needs_data(const Inst& in) const {
    if (in.op == Op::Ld) return any_dst_needed(in);
    if (in.op == Op::St) return (space_bits(in.space) & spaces_) != 0;
    if (register_only(in)) return any_dst_needed(in);
    return true;  // branches, barriers, atomics, copies, ...: always, with every operand
  }
  // an instruction that runs at all needs its guard; one that touches memory, its address
  bool mark_address(const Inst& in) {
    if (register_only(in)) return false;  // marked with its data
    bool changed = mark(in.guard);
    if (in.addr.kind == AddrBase::Reg) changed |= mark(in.addr.base);
    if (in.addr2.kind == AddrBase::Reg) changed |= mark(in.addr2.base);
    return changed;
  }
  bool any_dst_needed(const Inst& in) const {
    for (int k = 0; k < in.ndst; ++k)
      if (const std::uint8_t* f = flag(p_.dst(in, k)); f && *f) return true;
    return false;
  }
  bool mark(const Reg& r) {
    std::uint8_t* f = flag(r);
    if (!f || *f) return false;
    *f = 1;
    return true;
  }
  std::uint8_t* flag(const Reg& r) { return const_cast<std::uint8_t*>(static_cast<const Slice*>(this)->flag(r)); }
  const std::uint8_t* flag(const Reg& r) const {
    switch (r.bank) {
      case Bank::Pred:
        return &needed_[r.idx];
      case Bank::R32:
        return &needed_[n_ + r.idx];
      case Bank::R64:
        return &needed_[2 * std::size_t{n_} + r.idx];
      default:
        return nullptr;  // constants and special registers: read-only
    }
  }

  const Program& p_;
  std::vector<std::uint8_t> needed_;  // per register of the banks Pred, R32, R64
  std::uint32_t n_ = 0;
  std::uint32_t spaces_ = 0;  // spaces something needed reads
  bool copies_ = false;       // the kernel has memory instructions beyond ld and st
};

}  // namespace

std::vector<SliceRole> address_slice(const Program& p) {
  if (p.functions.size() != 1 || !p.calls.empty()) return {};
  for (const Inst& in : p.insts)
    if (in.op == Op::Call) return {};
  return Slice(p).run();
}

}  // namespace kernsim::isa::ptx
