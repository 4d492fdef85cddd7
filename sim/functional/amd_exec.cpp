// Launch setup, wave state, control flow, barriers and the functional driver for AMDGCN kernels.
#include <algorithm>
#include <cstdio>

#include "sim/functional/amd_impl.h"

namespace kernsim::sim {

namespace {
// "120" or "0.5": a limit as the user wrote it
std::string limit_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}
}  // namespace


using namespace amd;
using isa::amdgcn::KernelArg;
using isa::amdgcn::MemKind;

namespace amd {
std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
}  // namespace amd

namespace {

// Where code objects live in the simulated address space (below the launch's buffers).
constexpr std::uint64_t kCodeBase = 0x0000600000000000ull;

template <class T>
void put(std::vector<std::uint8_t>& b, std::size_t off, T v) {
  if (off + sizeof(T) <= b.size()) std::memcpy(b.data() + off, &v, sizeof(T));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// code object and kernel

std::uint64_t map_code_object(const isa::amdgcn::CodeObject& co, GlobalMemory& mem, const std::string& label) {
  const std::uint64_t base = kCodeBase;
  for (const auto& seg : co.segments) {
    if (seg.bytes.empty()) continue;
    if (mem.find(base + seg.vaddr, 1)) continue;  // already mapped
    mem.map_at(base + seg.vaddr, seg.bytes.size(),
               "code object " + label + (seg.executable ? " (code)" : seg.writable ? " (data)" : " (read-only data)"),
               !seg.writable);
    std::memcpy(mem.find(base + seg.vaddr, 1)->data(), seg.bytes.data(), seg.bytes.size());
  }
  for (const auto& r : co.relocations) {
    Allocation* a = mem.find(base + r.offset, 8);
    if (!a) continue;
    std::uint64_t v = base + static_cast<std::uint64_t>(r.addend) + (r.relative ? 0 : r.symbol_value);
    std::memcpy(a->data() + (base + r.offset - a->base), &v, 8);
  }
  return base;
}

AmdKernel::AmdKernel(const isa::amdgcn::Program& program, const isa::amdgcn::Kernel& kernel, GlobalMemory& memory,
                     std::uint64_t code_base, LaunchDims dims, std::vector<std::uint8_t> user_args, AmdExecOptions options)
    : prog_(program), kernel_(kernel), mem_(memory), code_base_(code_base), dims_(dims), opts_(std::move(options)) {
  const std::int32_t e = prog_.find(kernel_.code_addr);
  if (e < 0)
    throw Error(ErrorKind::Parse, "kernel `" + opts_.kernel_name + "`: its entry " + hex(kernel_.code_addr) +
                                      " is not an instruction of the code object");
  entry_ = static_cast<std::uint32_t>(e);
  limit_ = opts_.max_wave_instructions;
  if (opts_.wall_time_limit_s > 0)
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opts_.wall_time_limit_s));
  packed_tid_ = prog_.target == "gfx90a" || prog_.target == "gfx942" || prog_.target == "gfx950";
  private_bytes_ = kernel_.private_segment_fixed_size;
  if (kernel_.uses_dynamic_stack || kernel_.kd.uses_dynamic_stack) private_bytes_ += opts_.dynamic_stack_bytes;
  private_bytes_ = (private_bytes_ + 15u) & ~15u;
  // VGPRs and AGPRs each wave gets: those the kernel's code names — the instructions reachable
  // from its entry through branches and static calls, or every instruction of the code object when
  // it jumps through a register (s_setpc / s_swappc) — and the kernel's allocation when it indexes
  // VGPRs through M0. (Sizing by the whole code object made every workgroup of a small kernel next
  // to a large one allocate and clear the large one's register file.)
  {
    namespace I = isa::amdgcn;
    const std::size_t n = prog_.insts.size();
    std::vector<std::uint8_t> seen(n, 0);
    std::vector<std::uint32_t> todo{entry_};
    bool indirect = false, indexing = false;
    int nv = 0, na = 0;
    while (!todo.empty() && !indirect) {
      std::uint32_t i = todo.back();
      todo.pop_back();
      for (; i < n && !seen[i]; ++i) {
        seen[i] = 1;
        const I::Inst& in = prog_.insts[i];
        auto count = [&](const I::Operand& o) {
          if (o.kind == I::Kind::Vgpr) nv = std::max(nv, o.reg + std::max<int>(1, o.regs));
          if (o.kind == I::Kind::Agpr) na = std::max(na, o.reg + std::max<int>(1, o.regs));
        };
        for (int d = 0; d < in.ndst; ++d) count(in.dst[d]);
        for (int k = 0; k < in.nsrc; ++k) count(in.src[k]);
        if (in.op == I::Op::s_set_gpr_idx_on) indexing = true;
        if (in.op == I::Op::s_setpc_b64 || in.op == I::Op::s_swappc_b64) { indirect = true; break; }
        const bool branch = in.fmt == I::Fmt::Sopp && in.target >= 0;
        if ((branch || in.op == I::Op::s_call_b64) && in.target >= 0) todo.push_back(static_cast<std::uint32_t>(in.target));
        if (in.op == I::Op::s_endpgm || in.op == I::Op::s_branch || in.op == I::Op::s_trap || in.op == I::Op::s_code_end) break;
      }
    }
    if (indirect) {
      nv = prog_.max_vgpr;
      na = prog_.max_agpr;
      for (const I::Inst& in : prog_.insts) indexing |= in.op == I::Op::s_set_gpr_idx_on;
    }
    vgprs_ = std::max(nv, 3);
    agprs_ = na;
    if (indexing) vgprs_ = std::max({vgprs_, kernel_.vgpr_count, 3});
  }

  // kernarg segment: explicit arguments, then the hidden ones the metadata lists
  // The runtime hands out kernarg segments in 64-byte multiples, and LLVM's wide scalar loads of the
  // last arguments may read a few bytes past kernarg_segment_size (s_load_dwordx4 of 12 bytes of
  // arguments); those bytes are zero.
  std::size_t size = std::max<std::size_t>({user_args.size(), kernel_.kernarg_segment_size, 8});
  size = (size + 63) & ~std::size_t{63};
  std::vector<std::uint8_t> ka(size, 0);
  std::memcpy(ka.data(), user_args.data(), user_args.size());
  int dims_used = dims.grid[2] > 1 || dims.block[2] > 1 ? 3 : dims.grid[1] > 1 || dims.block[1] > 1 ? 2 : 1;
  for (const KernelArg& a : kernel_.args) {
    const std::string& k = a.value_kind;
    auto axis = [&](const char* prefix) -> int {
      std::size_t n = std::strlen(prefix);
      if (k.size() == n + 1 && k.compare(0, n, prefix) == 0) return k[n] - 'x';
      return -1;
    };
    int ax;
    if ((ax = axis("hidden_block_count_")) >= 0) put<std::uint32_t>(ka, a.offset, dims.grid[ax]);
    else if ((ax = axis("hidden_group_size_")) >= 0) put<std::uint16_t>(ka, a.offset, static_cast<std::uint16_t>(dims.block[ax]));
    else if ((ax = axis("hidden_remainder_")) >= 0) put<std::uint16_t>(ka, a.offset, 0);
    else if ((ax = axis("hidden_global_offset_")) >= 0) put<std::uint64_t>(ka, a.offset, 0);
    else if (k == "hidden_grid_dims") put<std::uint16_t>(ka, a.offset, static_cast<std::uint16_t>(dims_used));
    else if (k == "hidden_dynamic_lds_size") put<std::uint32_t>(ka, a.offset, dims.dynamic_shared);
    else if (k == "hidden_shared_base") put<std::uint32_t>(ka, a.offset, static_cast<std::uint32_t>(kSharedAperture >> 32));
    else if (k == "hidden_private_base") put<std::uint32_t>(ka, a.offset, static_cast<std::uint32_t>(kPrivateAperture >> 32));
  }

  // the dispatch packet and a queue, for code that reads them (code object v4, dispatch_ptr)
  std::vector<std::uint8_t> pkt(64, 0);
  put<std::uint16_t>(pkt, 2, static_cast<std::uint16_t>(dims_used));
  for (int d = 0; d < 3; ++d) {
    put<std::uint16_t>(pkt, 4 + 2 * d, static_cast<std::uint16_t>(dims.block[d]));
    put<std::uint32_t>(pkt, 12 + 4 * d, dims.grid[d] * dims.block[d]);
  }
  put<std::uint32_t>(pkt, 24, private_bytes_);
  put<std::uint32_t>(pkt, 28, kernel_.group_segment_fixed_size + dims.dynamic_shared);
  put<std::uint64_t>(pkt, 32, code_base_ + kernel_.descriptor_addr);
  queue_addr_ = mem_.allocate(256, "HSA queue (kernsim placeholder)", true);
  kernarg_addr_ = mem_.allocate(ka.size(), "kernarg segment of `" + opts_.kernel_name + "`", true);
  std::memcpy(mem_.find(kernarg_addr_, 1)->data(), ka.data(), ka.size());
  put<std::uint64_t>(pkt, 40, kernarg_addr_);
  dispatch_addr_ = mem_.allocate(64, "dispatch packet", true);
  std::memcpy(mem_.find(dispatch_addr_, 1)->data(), pkt.data(), pkt.size());
  for (const KernelArg& a : kernel_.args)  // an offset past the segment (a damaged code object's metadata) is skipped, as in put()
    if (a.value_kind == "hidden_queue_ptr" && std::size_t{a.offset} + 8 <= ka.size())
      std::memcpy(mem_.find(kernarg_addr_, 1)->data() + a.offset, &queue_addr_, 8);
}

AmdKernel::~AmdKernel() = default;

void AmdKernel::check_limits() const {
  if (wave_insts_ > limit_ && wave_insts_ <= opts_.max_wave_instructions)
    throw ProbeStopped("kernel `" + opts_.kernel_name + "`: a probe reached its bound of wave instructions");
  if (wave_insts_ > opts_.max_wave_instructions)
    throw Error(ErrorKind::KernelFault, "kernel `" + opts_.kernel_name + "` exceeded the instruction limit of " +
                                            std::to_string(opts_.max_wave_instructions) +
                                            " wave instructions (an endless loop?); raise it with --max-instructions");
  if (opts_.wall_time_limit_s > 0 && std::chrono::steady_clock::now() > deadline_)
    throw Error(ErrorKind::KernelFault, "kernel `" + opts_.kernel_name + "` exceeded the wall-time limit of " +
                                            limit_text(opts_.wall_time_limit_s) + " s after " + std::to_string(wave_insts_) +
                                            " wave instructions; raise the limit with --time-limit SECONDS (Python: wall_time_limit_s), 0 for none");
}

void AmdKernel::run_all() {
  const std::uint64_t n = dims_.num_blocks();
  for (std::uint64_t g = 0; g < n; ++g) {
    AmdWorkgroup wg(*this, g);
    wg.run();
  }
}

// ---------------------------------------------------------------------------------------------
// workgroup

AmdWorkgroup::Impl::Impl(AmdKernel& kernel, std::uint64_t linear_id) : k(kernel), p(kernel.program()), linear(linear_id) {
  const LaunchDims& d = k.dims();
  const auto& kd = k.kernel().kd;
  wgid = {static_cast<std::uint32_t>(linear_id % d.grid[0]), static_cast<std::uint32_t>((linear_id / d.grid[0]) % d.grid[1]),
          static_cast<std::uint32_t>(linear_id / (std::uint64_t{d.grid[0]} * d.grid[1]))};
  ocp_fp8 = p.target == "gfx950";
  const std::uint32_t threads = d.threads_per_block();
  const int nw = static_cast<int>((threads + kLanes - 1) / kLanes);
  nv = k.vgprs();
  na = k.agprs();
  priv_bytes = k.private_bytes();
  vfile.assign(static_cast<std::size_t>(nw) * nv * kLanes, 0);
  afile.assign(static_cast<std::size_t>(nw) * std::max(na, 1) * kLanes, 0);
  lds.assign(std::size_t{k.kernel().group_segment_fixed_size} + d.dynamic_shared, 0);
  if (priv_bytes) priv.assign(static_cast<std::size_t>(nw) * kLanes * priv_bytes, 0);
  waves.resize(nw);
  live = nw;

  // user SGPRs in the order of the kernel descriptor's enables
  std::array<std::uint32_t, 32> user{};
  int u = 0;
  auto push64 = [&](std::uint64_t v) {
    user[u++] = static_cast<std::uint32_t>(v);
    user[u++] = static_cast<std::uint32_t>(v >> 32);
  };
  if (kd.user_private_segment_buffer) {
    // a buffer resource over the private aperture (kernsim's scratch is per lane, not swizzled)
    push64(kPrivateAperture);
    user[u++] = 0xffffffffu;
    user[u++] = 0;
  }
  if (kd.user_dispatch_ptr) push64(k.dispatch_packet_address());
  if (kd.user_queue_ptr) push64(k.queue_address());
  if (kd.user_kernarg_segment_ptr) push64(k.kernarg_address());
  if (kd.user_dispatch_id) push64(0);
  if (kd.user_flat_scratch_init) push64(kPrivateAperture);
  if (kd.user_private_segment_size) user[u++] = priv_bytes;
  if (kd.kernarg_preload_dwords) {
    const Allocation* ka = k.memory().find(k.kernarg_address(), 1);
    for (int i = 0; i < kd.kernarg_preload_dwords && u < 32; ++i) {
      std::uint32_t v = 0;
      std::size_t off = static_cast<std::size_t>(kd.kernarg_preload_offset_dwords + i) * 4;
      if (off + 4 <= ka->size) std::memcpy(&v, ka->data() + off, 4);
      user[u++] = v;
    }
  }
  int sys = std::max(u, kd.user_sgpr_count);

  for (int wi = 0; wi < nw; ++wi) {
    Wave& w = waves[wi];
    w.index = wi;
    w.hw_id = static_cast<std::uint32_t>(wi) & 0xfu;  // WAVE_ID until the timing model places the wave
    w.pc = k.entry();
    w.v = vfile.data() + static_cast<std::size_t>(wi) * nv * kLanes;
    w.a = afile.data() + static_cast<std::size_t>(wi) * std::max(na, 1) * kLanes;
    if (priv_bytes) w.priv = priv.data() + static_cast<std::size_t>(wi) * kLanes * priv_bytes;
    const std::uint32_t first = static_cast<std::uint32_t>(wi) * kLanes;
    const std::uint32_t n = std::min<std::uint32_t>(kLanes, threads - first);
    w.valid = n == kLanes ? kAllLanes : ((std::uint64_t{1} << n) - 1);
    w.set_exec(w.valid);
    for (int i = 0; i < u; ++i) w.s[i] = user[i];
    int s = sys;
    for (int ax = 0; ax < 3; ++ax)
      if (kd.enable_workgroup_id[ax]) w.s[s++] = wgid[ax];
    if (kd.enable_workgroup_info) w.s[s++] = static_cast<std::uint32_t>(nw);
    // work-item IDs (counted up from the wave's first work-item: no divisions per lane)
    std::uint32_t tx = first % d.block[0], ty = (first / d.block[0]) % d.block[1], tz = first / (d.block[0] * d.block[1]);
    for (std::uint32_t l = 0; l < n; ++l) {
      if (k.packed_workitem_ids()) {
        w.v[l] = tx | (ty << 10) | (tz << 20);
      } else {
        w.v[l] = tx;
        if (kd.enable_vgpr_workitem_id >= 1) w.v[kLanes + l] = ty;
        if (kd.enable_vgpr_workitem_id >= 2) w.v[2 * kLanes + l] = tz;
      }
      if (++tx == d.block[0]) {
        tx = 0;
        if (++ty == d.block[1]) {
          ty = 0;
          ++tz;
        }
      }
    }
  }
}

AmdWorkgroup::AmdWorkgroup(AmdKernel& kernel, std::uint64_t linear) : impl_(std::make_unique<Impl>(kernel, linear)) {}
AmdWorkgroup::~AmdWorkgroup() = default;

int AmdWorkgroup::num_waves() const { return static_cast<int>(impl_->waves.size()); }
bool AmdWorkgroup::wave_done(int w) const { return impl_->waves[w].done; }
bool AmdWorkgroup::wave_waiting(int w) const { return impl_->waves[w].waiting; }
bool AmdWorkgroup::done() const { return impl_->live == 0; }
std::uint32_t AmdWorkgroup::next_pc(int w) const { return impl_->waves[w].pc; }
const std::uint64_t* AmdWorkgroup::lane_addresses(int w) const { return impl_->waves[w].addrs.data(); }
void AmdWorkgroup::lane_spaces(int w, std::uint64_t& global, std::uint64_t& lds, std::uint64_t& scratch) const {
  const auto& wv = impl_->waves[w];
  global = wv.lanes_global;
  lds = wv.lanes_lds;
  scratch = wv.lanes_scratch;
}
std::uint64_t AmdWorkgroup::lds_dma_base(int w) const { return impl_->waves[w].lds_dma_base; }
std::array<std::uint32_t, 3> AmdWorkgroup::id() const { return impl_->wgid; }
std::uint64_t AmdWorkgroup::linear_id() const { return impl_->linear; }
std::uint32_t AmdWorkgroup::lds_bytes() const { return static_cast<std::uint32_t>(impl_->lds.size()); }
void AmdWorkgroup::place(int w, const AmdPlacement& where) {
  Wave& wv = impl_->waves.at(static_cast<std::size_t>(w));
  wv.hw_id = where.hw_id();
  wv.xcc_id = where.xcc & 0xfu;
}

std::string AmdWorkgroup::Impl::lane_name(const Wave& w, int lane) const {
  const LaunchDims& d = k.dims();
  std::string s = "workgroup (" + std::to_string(wgid[0]) + "," + std::to_string(wgid[1]) + "," + std::to_string(wgid[2]) + ")";
  if (lane < 0) return s + " wave " + std::to_string(w.index);
  const std::uint32_t t = static_cast<std::uint32_t>(w.index) * kLanes + static_cast<std::uint32_t>(lane);
  const std::uint32_t tx = t % d.block[0], ty = (t / d.block[0]) % d.block[1], tz = t / (d.block[0] * d.block[1]);
  return s + " work-item (" + std::to_string(tx) + "," + std::to_string(ty) + "," + std::to_string(tz) + ") (wave " +
         std::to_string(w.index) + " lane " + std::to_string(lane) + ")";
}

void AmdWorkgroup::Impl::fault(const Wave& w, const Inst& in, int lane, const std::string& what) const {
  throw Error(ErrorKind::KernelFault,
              "kernel `" + k.options().kernel_name + "`, " + p.describe(in) + ", " + lane_name(w, lane) + ": " + what);
}

void AmdWorkgroup::Impl::unsupported(const Inst& in, const std::string& what) const {
  throw Error(ErrorKind::Unsupported,
              "kernel `" + k.options().kernel_name + "`, " + p.describe(in) + ": kernsim does not implement " + what);
}

// ---------------------------------------------------------------------------------------------
// step

namespace {

bool is_vector(Fmt f) {
  switch (f) {
    case Fmt::Vop1: case Fmt::Vop2: case Fmt::Vopc: case Fmt::Vop3: case Fmt::Vop3p: case Fmt::Mfma: case Fmt::Ds:
    case Fmt::Flat: case Fmt::Global: case Fmt::Scratch: case Fmt::Mubuf:
      return true;
    default:
      return false;
  }
}

// VGPR indexing mode (s_set_gpr_idx_on): the VGPR operands of a VALU instruction that M0[15:12]
// selects (bit 0 src0, 1 src1, 2 src2, 3 vdst) name the register M0[7:0] above the encoded one.
// An index past the kernel's VGPRs is a fault (the hardware's out-of-range behaviour is not
// something a correct kernel relies on).
Inst indexed(const AmdWorkgroup::Impl& c, const Wave& w, const Inst& in) {
  Inst r = in;
  const std::uint32_t m0 = w.s[kM0];
  const int idx = static_cast<int>(m0 & 0xffu);
  const unsigned sel = (m0 >> 12) & 0xfu;
  auto shift = [&](Operand& o, const char* role) {
    if (o.kind != Kind::Vgpr) return;
    if (o.reg + idx + o.regs > c.nv)
      c.fault(w, in, -1, std::string("VGPR indexing (M0[7:0] = ") + std::to_string(idx) + ") moves " + role + " v" +
                             std::to_string(o.reg) + " to v" + std::to_string(o.reg + idx) + ", past the kernel's " +
                             std::to_string(c.nv) + " VGPRs");
    o.reg = static_cast<std::uint16_t>(o.reg + idx);
  };
  static const char* const kRole[3] = {"src0", "src1", "src2"};
  for (int i = 0; i < 3; ++i)
    if ((sel >> i) & 1u) shift(r.src[i], kRole[i]);
  if (sel & 8u) shift(r.dst[0], "the destination");
  return r;
}

void release_barrier(AmdWorkgroup::Impl& c) {
  for (auto& w : c.waves) w.waiting = false;
  c.arrived = 0;
}

}  // namespace

AmdStepInfo AmdWorkgroup::step(int wi) {
  Impl& c = *impl_;
  Wave& w = c.waves[wi];
  const Inst& in = c.p.insts[w.pc];
  AmdStepInfo info;
  info.pc = w.pc;
  info.active = w.exec();
  info.vector = is_vector(in.fmt);
  c.k.count(info.active, info.vector);
  std::uint32_t next = w.pc + 1;
  w.spaces = 0;
  if (w.spin.suspect) [[unlikely]] {
    if (w.pc >= w.spin.head && w.pc <= w.spin.pc) c.k.note_suspect_step();
    else w.spin.suspect = false;  // it left the loop it was suspected in
  }

  if (in.op == Op::Unknown)
    c.unsupported(in, c.p.notes[in.text].empty() ? std::string("this instruction") : "this instruction: " + c.p.notes[in.text]);
  if (in.op == Op::Invalid)
    c.fault(w, in, -1, "the bytes at this address are not a valid " + c.p.target + " instruction (corrupt code or a jump into data)");

  switch (in.fmt) {
    case Fmt::Sopp:
      switch (in.op) {
        case Op::s_endpgm:
          w.done = true;
          --c.live;
          info.kind = AmdStepInfo::Kind::Exited;
          if (c.arrived > 0 && c.arrived == c.live) {
            release_barrier(c);
            info.released_barrier = true;
          }
          info.next_pc = w.pc;
          return info;
        case Op::s_branch: next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_scc0: if (!w.scc) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_scc1: if (w.scc) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_vccz: if (w.vcc() == 0) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_vccnz: if (w.vcc() != 0) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_execz: if (w.exec() == 0) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_cbranch_execnz: if (w.exec() != 0) next = static_cast<std::uint32_t>(in.target); break;
        case Op::s_barrier:
          c.k.memory().note_store();  // an arrival is progress the endless-loop watch must see
          w.pc = next;
          ++c.arrived;
          if (c.arrived >= c.live) {
            release_barrier(c);
            info.released_barrier = true;
          } else {
            w.waiting = true;
            info.kind = AmdStepInfo::Kind::BarrierWait;
          }
          info.next_pc = next;
          return info;
        case Op::s_trap:
          c.fault(w, in, -1, "s_trap: the kernel trapped (assert, __builtin_trap or abort)");
        case Op::s_code_end:
          c.fault(w, in, -1, "execution ran past the end of the code (s_code_end padding)");
        case Op::s_set_gpr_idx_off: w.gpr_idx = false; break;
        case Op::s_set_gpr_idx_mode: {  // M0[15:12] = the operand mask; the mode's enable is unchanged
          const std::uint32_t mask = in.nsrc >= 1 && in.src[0].kind == Kind::Imm ? static_cast<std::uint32_t>(in.src[0].imm)
                                                                                  : static_cast<std::uint32_t>(in.simm);
          w.s[kM0] = (w.s[kM0] & ~0xf000u) | ((mask & 0xfu) << 12);
          break;
        }
        default:
          break;  // s_nop, s_waitcnt, s_sleep, s_setprio, s_sendmsg, cache and perf hints: no functional effect
      }
      break;
    case Fmt::Sop1:
      if (in.op == Op::s_getpc_b64) {
        sset64(w, in.dst[0], c.k.code_base() + in.addr + in.size);
      } else if (in.op == Op::s_setpc_b64 || in.op == Op::s_swappc_b64) {
        const std::uint64_t to = sget64(w, in.src[0]);
        if (in.op == Op::s_swappc_b64) sset64(w, in.dst[0], c.k.code_base() + in.addr + in.size);
        const std::int32_t t = to >= c.k.code_base() ? c.p.find(to - c.k.code_base()) : -1;
        if (t < 0) c.fault(w, in, -1, "jump to " + hex(to) + ", which is not an instruction of the code object");
        next = static_cast<std::uint32_t>(t);
      } else if (in.op == Op::s_set_gpr_idx_idx) {
        w.s[kM0] = (w.s[kM0] & ~0xffu) | (sget(w, in.src[0]) & 0xffu);
      } else {
        c.salu(w, in);
      }
      break;
    case Fmt::Sopk:
      if (in.op == Op::s_call_b64) {
        sset64(w, in.dst[0], c.k.code_base() + in.addr + in.size);
        next = static_cast<std::uint32_t>(in.target);
      } else {
        c.salu(w, in);
      }
      break;
    case Fmt::Sop2:
    case Fmt::Sopc:
      if (in.op == Op::s_set_gpr_idx_on) {  // M0[7:0] = S0[7:0], M0[15:12] = the operand mask, mode on
        const std::uint32_t mask = in.nsrc >= 2 && in.src[1].kind == Kind::Imm ? static_cast<std::uint32_t>(in.src[1].imm)
                                                                                : static_cast<std::uint32_t>(in.simm);
        w.s[kM0] = (w.s[kM0] & ~0xf0ffu) | (sget(w, in.src[0]) & 0xffu) | ((mask & 0xfu) << 12);
        w.gpr_idx = true;
        break;
      }
      c.salu(w, in);
      break;
    case Fmt::Smem:
      c.smem(w, in);
      if (in.op == Op::s_store) c.k.memory().note_store();
      break;
    case Fmt::Vop1: case Fmt::Vop2: case Fmt::Vop3: case Fmt::Vop3p:
      if (w.gpr_idx) c.valu(w, indexed(c, w, in));
      else c.valu(w, in);
      break;
    case Fmt::Vopc:
      if (w.gpr_idx) c.vcmp(w, indexed(c, w, in));
      else c.vcmp(w, in);
      break;
    case Fmt::Mfma: case Fmt::Ds: case Fmt::Flat: case Fmt::Global: case Fmt::Scratch: case Fmt::Mubuf:
      if (w.gpr_idx) c.unsupported(in, "this instruction while VGPR indexing mode is on (kernsim indexes VALU operands only)");
      if (in.fmt == Fmt::Mfma) c.mfma(w, in);
      else if (in.fmt == Fmt::Ds) c.ds(w, in);
      else c.vmem(w, in);
      if (in.fmt != Fmt::Mfma && (in.mem.kind == MemKind::Store || in.mem.kind == MemKind::Atomic)) c.k.memory().note_store();
      break;
    case Fmt::None: c.unsupported(in, "this instruction");
  }
  if (next >= c.p.insts.size()) c.fault(w, in, -1, "execution ran past the end of the code object's text");
  if (next <= w.pc && in.fmt == Fmt::Sopp && (++w.spin.backedges & (kWaveSpinSampleEvery - 1)) == 0) [[unlikely]]
    c.watch_backedge(w, w.pc, next);
  w.pc = next;
  info.next_pc = next;
  info.spaces = w.spaces;
  return info;
}

// ---------------------------------------------------------------------------------------------
// endless loops (WaveSpin in amd_impl.h)

[[gnu::noinline]] void AmdWorkgroup::Impl::watch_backedge(Wave& w, std::uint32_t pc, std::uint32_t head) {
  WaveSpin& s = w.spin;
  const std::uint64_t stores = k.memory().stores();
  const std::size_t nvec = static_cast<std::size_t>(nv) * kLanes, nacc = static_cast<std::size_t>(na) * kLanes;
  const bool scalar_same = s.pc == pc && s.stores == stores && s.scc == w.scc && s.s.size() == w.s.size() &&
                           std::equal(w.s.begin(), w.s.end(), s.s.begin());
  const bool vector_same = scalar_same && s.vector_copied && std::equal(w.v, w.v + nvec, s.v.begin()) &&
                           (nacc == 0 || std::equal(w.a, w.a + nacc, s.a.begin()));
  if (!vector_same) {
    if (!scalar_same) {
      s.pc = pc;
      s.head = head;
      s.stores = stores;
      s.scc = w.scc;
      s.s.assign(w.s.begin(), w.s.end());
      s.vector_copied = false;
    } else {  // the scalar state repeats: copy the vector registers for the next sample
      s.v.assign(w.v, w.v + nvec);
      s.a.assign(w.a, w.a + nacc);
      s.vector_copied = true;
    }
    s.suspect = false;
    return;
  }
  if (!s.suspect || s.progress != k.progress()) {
    // the first repeat, or other waves moved since: watch one more round, letting them run
    s.suspect = true;
    s.progress = k.progress();
    s.yield = true;
    return;
  }
  endless_loop(w);
}

void AmdWorkgroup::Impl::endless_loop(const Wave& w) const {
  std::string msg = "kernel `" + k.options().kernel_name + "`, workgroup (" + std::to_string(wgid[0]) + "," + std::to_string(wgid[1]) +
                    "," + std::to_string(wgid[2]) + ") wave " + std::to_string(w.index) + ": endless loop at " +
                    p.describe(p.insts[w.spin.pc]) + " (the loop from " + p.describe(p.insts[w.spin.head]) +
                    "): the wave's registers repeat every " + std::to_string(kWaveSpinSampleEvery) +
                    " iterations while no wave of the launch stores to memory or makes progress";
  // the address it waits on: the last global load in the loop (w.addrs holds the last access)
  for (std::uint32_t i = w.spin.head; i <= w.spin.pc; ++i) {
    const Inst& in = p.insts[i];
    const bool vmem = in.fmt == Fmt::Flat || in.fmt == Fmt::Global || in.fmt == Fmt::Mubuf || in.fmt == Fmt::Smem;
    if (!vmem || in.mem.kind != MemKind::Load) continue;
    const std::uint64_t m = w.exec();
    const std::uint64_t a = w.addrs[m ? std::countr_zero(m) : 0];
    msg += "; it waits on address " + hex(a);
    if (const Allocation* al = k.memory().find(a, 1)) msg += " (" + al->label + " + " + std::to_string(a - al->base) + ")";
    msg += ", which nothing writes";
    break;
  }
  throw EndlessLoop(msg);
}

void AmdWorkgroup::run() {
  Impl& c = *impl_;
  while (c.live > 0) {
    bool progress = false;
    for (int wi = 0; wi < num_waves(); ++wi) {
      Wave& w = c.waves[wi];
      while (!w.done && !w.waiting) {
        step(wi);
        progress = true;
        if (w.spin.yield) {  // suspected of an endless loop: the other waves may free it
          w.spin.yield = false;
          break;
        }
      }
    }
    if (!progress)
      throw Error(ErrorKind::Internal, "kernsim bug: workgroup " + std::to_string(c.linear) +
                                           " has waves waiting at a barrier that can never complete");
  }
}

}  // namespace kernsim::sim
