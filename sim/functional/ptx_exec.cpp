// SIMT control flow, barriers, calls and the functional driver for PTX kernels.
#include <algorithm>
#include <cstdio>

#include "isa/ptx/ops.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace {
// "120" or "0.5": a limit as the user wrote it
std::string limit_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}
}  // namespace


using isa::ptx::AddrBase;
using isa::ptx::BarKind;

// ---------------------------------------------------------------------------------------------
// statics

void map_program_statics(const isa::ptx::Program& p, GlobalMemory& mem) {
  for (const auto& s : p.symbols) {
    if (s.space == Space::Shared) continue;
    if (mem.find(s.addr, 1)) continue;  // already mapped (shared GlobalMemory across launches)
    mem.map_at(s.addr, static_cast<std::uint64_t>(std::max<std::int64_t>(s.bytes, 1)),
               "static `" + s.name + "` (." + to_string(s.space) + ")", s.space == Space::Const);
    Allocation* a = mem.find(s.addr, 1);
    std::memcpy(a->data(), s.init.data(), std::min<std::size_t>(s.init.size(), a->size));
    for (const auto& [off, sym] : s.init_symbols) {
      for (const auto& t : p.symbols)
        if (t.name == sym && off + 8 <= a->size) {
          std::uint64_t v;
          std::memcpy(&v, a->data() + off, 8);
          v += t.addr;
          std::memcpy(a->data() + off, &v, 8);
        }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// kernel

PtxKernel::PtxKernel(const isa::ptx::Program& program, GlobalMemory& memory, LaunchDims dims,
                     std::vector<std::uint8_t> params, ExecOptions options)
    : prog_(program), mem_(memory), dims_(dims), params_(std::move(params)), opts_(std::move(options)) {
  limit_ = opts_.max_warp_instructions;
  if (opts_.wall_time_limit_s > 0)
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opts_.wall_time_limit_s));
}

bool PtxKernel::set_addresses_only(bool on) {
  if (on && !sliced_) {
    roles_ = isa::ptx::address_slice(prog_);
    sliced_ = true;
  }
  addresses_only_ = on && !roles_.empty();
  return addresses_only_;
}

void PtxKernel::count(std::uint32_t active) {
  ++warp_insts_;
  thread_insts_ += static_cast<std::uint64_t>(std::popcount(active));
  if (warp_insts_ > limit_) over_limit();
  if ((warp_insts_ & 0x3fff) == 0 && opts_.wall_time_limit_s > 0 && std::chrono::steady_clock::now() > deadline_)
    throw Error(ErrorKind::KernelFault, "kernel `" + opts_.kernel_name + "` exceeded the wall-time limit of " +
                                            limit_text(opts_.wall_time_limit_s) + " s after " + std::to_string(warp_insts_) +
                                            " warp instructions; raise the limit with --time-limit SECONDS (Python: wall_time_limit_s), 0 for none");
}

void PtxKernel::cap_instructions(std::uint64_t more) {
  const std::uint64_t room = opts_.max_warp_instructions - std::min(opts_.max_warp_instructions, warp_insts_);
  limit_ = more >= room ? opts_.max_warp_instructions : warp_insts_ + more;  // saturating
}

void PtxKernel::over_limit() const {
  if (warp_insts_ <= opts_.max_warp_instructions)
    throw ProbeStopped("kernel `" + opts_.kernel_name + "`: a probe reached its bound of warp instructions");
  throw Error(ErrorKind::KernelFault, "kernel `" + opts_.kernel_name + "` exceeded the instruction limit of " +
                                          std::to_string(opts_.max_warp_instructions) +
                                          " warp instructions (an endless loop?); raise it with --max-instructions");
}

void PtxKernel::run_all() {
  if (dims_.cluster_ctas() > 1 || dims_.explicit_cluster) {
    // in order; a cluster that clusterlaunchcontrol.try_cancel took is skipped (its canceller ran it)
    std::uint64_t next = 0;
    const std::uint64_t n = dims_.num_clusters();
    set_canceller([&]() -> std::optional<std::uint64_t> {
      if (next >= n) return std::nullopt;
      return next++;
    });
    try {
      while (next < n) make_cluster(next++).front()->run();
    } catch (...) {
      canceller_ = nullptr;
      throw;
    }
    canceller_ = nullptr;
    return;
  }
  const std::uint64_t n = dims_.num_blocks();
  for (std::uint64_t c = 0; c < n; ++c) {
    PtxCta cta(*this, c);
    cta.run();
  }
}

// ---------------------------------------------------------------------------------------------
// CTA

PtxCta::PtxCta(PtxKernel& kernel, std::uint64_t cta_linear, std::shared_ptr<ClusterState> cluster, std::uint32_t rank)
    : impl_(std::make_unique<Impl>(*this, kernel, cta_linear, std::move(cluster), rank)) {
  if (impl_->cluster) impl_->cluster->members[rank] = impl_.get();
}
PtxCta::~PtxCta() {
  if (impl_->cluster) impl_->cluster->members[impl_->rank] = nullptr;  // its shared memory is gone
}

int PtxCta::num_warps() const { return static_cast<int>(impl_->warps.size()); }
bool PtxCta::warp_done(int w) const { return impl_->warps[w].stack.empty(); }
bool PtxCta::warp_waiting(int w) const { return impl_->warps[w].waiting || impl_->warps[w].cluster_wait; }
bool PtxCta::done() const { return impl_->live_warps == 0; }
std::uint32_t PtxCta::next_pc(int w) const {
  const Warp& wp = impl_->warps[w];
  return wp.stack.empty() ? 0 : wp.stack.back().pc;
}
std::uint32_t PtxCta::next_mask(int w) const {
  const Warp& wp = impl_->warps[w];
  return wp.stack.empty() ? 0 : wp.stack.back().mask;
}
const std::uint64_t* PtxCta::lane_addresses(int w) const { return impl_->warps[w].addrs.data(); }
std::uint64_t PtxCta::lane_value(int w, isa::ptx::Reg r, int lane) const {
  return impl_->get(impl_->warps[w], r, lane);
}
void PtxCta::set_lane_value(int w, isa::ptx::Reg r, int lane, std::uint64_t v) {
  impl_->put(impl_->warps[w], r, lane, v);
}
std::uint64_t PtxCta::fragment_pitch(int w) const { return impl_->warps[w].frag_pitch; }
const AsyncStep& PtxCta::async_step(int w) const { return impl_->warps[w].async; }
void PtxCta::mbarrier_deadlock() const { impl_->mbar_deadlock(); }
std::array<std::uint32_t, 3> PtxCta::cta_id() const { return impl_->ctaid; }
std::uint64_t PtxCta::linear_id() const { return impl_->linear; }
std::uint32_t PtxCta::shared_bytes() const { return impl_->shared_size(); }

PtxCta::Impl::Impl(PtxCta& s, PtxKernel& kernel, std::uint64_t cta_linear, std::shared_ptr<ClusterState> cl, std::uint32_t r)
    : self(s), k(kernel), p(kernel.program()), linear(cta_linear), cluster(std::move(cl)), rank(r) {
  const LaunchDims& d = k.dims();
  ctaid = {static_cast<std::uint32_t>(cta_linear % d.grid[0]),
           static_cast<std::uint32_t>((cta_linear / d.grid[0]) % d.grid[1]),
           static_cast<std::uint32_t>(cta_linear / (std::uint64_t{d.grid[0]} * d.grid[1]))};
  const std::uint32_t threads = d.threads_per_block();
  shared.assign(p.dynamic_shared_offset + d.dynamic_shared, 0);
  if (p.dynamic_shared_offset == 0 && d.dynamic_shared == 0) shared.assign(p.static_shared_bytes, 0);
  const isa::ptx::Function& f = p.functions[0];
  const int nw = static_cast<int>((threads + 31) / 32);
  warps.resize(nw);
  live_threads = threads;
  live_warps = nw;
  for (int wi = 0; wi < nw; ++wi) {
    Warp& w = warps[wi];
    w.index = wi;
    std::uint32_t first = static_cast<std::uint32_t>(wi) * 32;
    std::uint32_t n = std::min<std::uint32_t>(32, threads - first);
    w.valid = n == 32 ? kFullMask : ((1u << n) - 1);
    Frame fr;
    fr.func = 0;
    w.frames.push_back(fr);
    w.r32.assign(std::size_t{f.n32} * 32, 0);
    w.r64.assign(std::size_t{f.n64} * 32, 0);
    w.pred.assign(std::max<std::uint32_t>(f.npred, 1), 0);
    for (int l = 0; l < 32; ++l) {
      if (f.local_bytes) w.lm().local[l].assign(f.local_bytes, 0);
      if (f.param_bytes) w.lm().params[l].assign(f.param_bytes, 0);
    }
    w.bind_frame();
    w.stack.push_back({f.first, kNoReconv, w.valid});
    // special registers
    w.s32.assign(std::size_t{p.nspecial32} * 32, 0);
    w.s64.assign(std::size_t{p.nspecial64} * 32, 0);
    for (std::uint32_t si = 0; si < p.nspecial32; ++si) {
      const std::string& nm = p.special_names32[si];
      std::uint32_t* row = w.s32.data() + std::size_t{si} * 32;
      // the register's kind once (string compares), its value per lane after
      enum class S { TidX, TidY, TidZ, Const, Lane, LaneEq, LaneLe, LaneLt, LaneGe, LaneGt };
      S kind = S::Const;
      std::uint32_t c = 0;
      if (nm == "%tid.x") kind = S::TidX;
      else if (nm == "%tid.y") kind = S::TidY;
      else if (nm == "%tid.z") kind = S::TidZ;
      else if (nm == "%laneid") kind = S::Lane;
      else if (nm == "%lanemask_eq") kind = S::LaneEq;
      else if (nm == "%lanemask_le") kind = S::LaneLe;
      else if (nm == "%lanemask_lt") kind = S::LaneLt;
      else if (nm == "%lanemask_ge") kind = S::LaneGe;
      else if (nm == "%lanemask_gt") kind = S::LaneGt;
      else {
        if (nm == "%ntid.x") c = d.block[0];
        else if (nm == "%ntid.y") c = d.block[1];
        else if (nm == "%ntid.z") c = d.block[2];
        else if (nm == "%ctaid.x") c = ctaid[0];
        else if (nm == "%ctaid.y") c = ctaid[1];
        else if (nm == "%ctaid.z") c = ctaid[2];
        else if (nm == "%nctaid.x") c = d.grid[0];
        else if (nm == "%nctaid.y") c = d.grid[1];
        else if (nm == "%nctaid.z") c = d.grid[2];
        else if (nm.starts_with("%cluster") || nm.starts_with("%ncluster") || nm == "%is_explicit_cluster") c = cluster_special(nm);
        else if (nm == "%warpid") c = static_cast<std::uint32_t>(wi);
        else if (nm == "%nwarpid") c = k.options().max_warps_per_sm;
        else if (nm == "%smid") c = 0;
        else if (nm == "%nsmid") c = k.options().num_sms;
        else if (nm == "%dynamic_smem_size") c = d.dynamic_shared;
        else if (nm == "%total_smem_size" || nm == "%aggr_smem_size") c = static_cast<std::uint32_t>(shared.size());
        else c = 0;  // clocks are filled on read
      }
      for (int l = 0; l < 32; ++l) {
        const std::uint32_t t = first + static_cast<std::uint32_t>(l);
        std::uint32_t v = 0;
        switch (kind) {
          case S::TidX: v = t % d.block[0]; break;
          case S::TidY: v = (t / d.block[0]) % d.block[1]; break;
          case S::TidZ: v = t / (d.block[0] * d.block[1]); break;
          case S::Const: v = c; break;
          case S::Lane: v = static_cast<std::uint32_t>(l); break;
          case S::LaneEq: v = 1u << l; break;
          case S::LaneLe: v = l == 31 ? kFullMask : (2u << l) - 1; break;
          case S::LaneLt: v = (1u << l) - 1; break;
          case S::LaneGe: v = ~((1u << l) - 1); break;
          case S::LaneGt: v = l == 31 ? 0 : ~((2u << l) - 1); break;
        }
        row[l] = v;
      }
    }
  }
}

std::string PtxCta::Impl::thread_name(const Warp& w, int lane) const {
  const LaunchDims& d = k.dims();
  std::uint32_t t = static_cast<std::uint32_t>(w.index) * 32 + static_cast<std::uint32_t>(lane);
  std::uint32_t tx = t % d.block[0], ty = (t / d.block[0]) % d.block[1], tz = t / (d.block[0] * d.block[1]);
  return "block (" + std::to_string(ctaid[0]) + "," + std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) +
         ") thread (" + std::to_string(tx) + "," + std::to_string(ty) + "," + std::to_string(tz) + ")";
}

void PtxCta::Impl::fault(const Warp& w, const Inst& in, int lane, const std::string& what) {
  throw Error(ErrorKind::KernelFault, "kernel `" + k.options().kernel_name + "`, " + p.describe(in) + ", " +
                                          thread_name(w, lane) + ": " + what);
}

void PtxCta::Impl::unsupported(const Inst& in, const std::string& what) {
  throw Error(ErrorKind::Unsupported, "kernel `" + k.options().kernel_name + "`, " + p.describe(in) +
                                          ": kernsim does not implement " + what);
}

void PtxCta::Impl::bad_bank(Reg r, int bits) {
  throw Error(ErrorKind::Internal, "kernsim bug: operand bank " + std::to_string(static_cast<int>(r.bank)) +
                                       " used as a " + std::to_string(bits) + "-bit row");
}

// ---------------------------------------------------------------------------------------------
// control flow helpers

namespace {

void pop_done(PtxCta::Impl& c, Warp& w);

void remove_lanes(Warp& w, std::uint32_t lanes, std::size_t from) {
  for (std::size_t i = from; i < w.stack.size(); ++i) w.stack[i].mask &= ~lanes;
}

void finish_frame(PtxCta::Impl& c, Warp& w) {
  Frame fr = w.frames.back();
  const isa::ptx::CallSite& cs = c.p.calls[fr.call_site];
  const Frame& caller = w.frames[w.frames.size() - 2];
  std::uint32_t m = fr.returned;
  while (m) {
    int l = std::countr_zero(m);
    m &= m - 1;
    for (const auto& r : cs.rets)
      std::memcpy(w.lm().params[l].data() + caller.param_base + r[0], w.lm().params[l].data() + fr.param_base + r[1],
                  static_cast<std::size_t>(r[2]));
  }
  w.frames.pop_back();
  w.r32.resize(std::size_t{fr.r32} * 32);
  w.r64.resize(std::size_t{fr.r64} * 32);
  w.pred.resize(fr.pred);
  w.bind_frame();
}

void pop_done(PtxCta::Impl& c, Warp& w) {
  while (!w.stack.empty()) {
    SimtEntry& top = w.stack.back();
    if (top.mask != 0 && static_cast<std::int32_t>(top.pc) != top.reconv) break;
    w.stack.pop_back();
    if (w.frames.size() > 1 && w.stack.size() == w.frames.back().simt_base) finish_frame(c, w);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// barriers

namespace {

void release(PtxCta::Impl& c, int id) {
  Barrier& b = c.barriers[id];
  c.waiting_warps -= static_cast<int>(b.waiting.size());
  for (int wi : b.waiting) {
    c.warps[wi].waiting = false;
    c.warps[wi].barrier_id = -1;
  }
  b.waiting.clear();
  b.arrived = 0;
  b.red_popc = 0;
  b.red_and = true;
  b.red_or = false;
}

bool try_complete(PtxCta::Impl& c, int id) {
  Barrier& b = c.barriers[id];
  if (b.arrived == 0 && b.waiting.empty()) return false;
  std::uint32_t need = b.expected ? b.expected : c.live_threads;
  if (b.arrived < need) return false;
  release(c, id);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// step

StepInfo PtxCta::step(int wi) {
  Impl& c = *impl_;
  Warp& w = c.warps[wi];
  StepInfo info;
  SimtEntry& top = w.stack.back();
  const std::uint32_t pc = top.pc;
  const Inst& in = c.p.insts[pc];
  info.pc = pc;
  std::uint32_t mask = top.mask;
  std::uint32_t gm = mask;
  if (in.guard.bank != Bank::None) {
    std::uint32_t pv = w.curp[in.guard.idx];
    gm = mask & (in.guard_neg ? ~pv : pv);
  }
  info.active = gm;
  c.k.count(gm);
  if (w.spin.suspect) [[unlikely]] {
    if (pc >= w.spin.head && pc <= w.spin.pc) c.k.note_suspect_step();
    else w.spin.suspect = false;  // it left the loop it was suspected in
  }

  if (!w.wgmma.empty()) [[unlikely]] c.wgmma_hazard(w, in);

  switch (in.op) {
    case Op::Bra: {
      std::uint32_t taken = gm;
      std::uint32_t not_taken = mask & ~taken;
      if (not_taken == 0) {
        top.pc = static_cast<std::uint32_t>(in.target);
        if (top.pc <= pc && (++w.spin.backedges & (kSpinSampleEvery - 1)) == 0) [[unlikely]] {
          pop_done(c, w);
          c.watch_backedge(w, pc, static_cast<std::uint32_t>(in.target));
          break;
        }
      } else if (taken == 0) {
        top.pc = pc + 1;
      } else {
        // The parent entry now waits at the reconvergence point with the union mask; the two
        // paths run first (taken path on top) and pop when they reach it. Without a
        // reconvergence point (the paths leave by ret/exit) the parent is never resumed.
        std::int32_t rc = in.reconv;
        top.pc = rc < 0 ? 0xffffffffu : static_cast<std::uint32_t>(rc);
        SimtEntry nt{pc + 1, rc, not_taken};
        SimtEntry tk{static_cast<std::uint32_t>(in.target), rc, taken};
        w.stack.push_back(nt);
        w.stack.push_back(tk);
      }
      pop_done(c, w);
      break;
    }
    case Op::BrxIdx: {
      // multi-way branch: lanes grouped by target, each group pushed with the common
      // reconvergence point
      const auto& table = c.p.branch_tables[in.imm];
      const std::uint32_t* idx = c.row32(w, c.p.src(in, 0));
      std::array<std::uint32_t, 32> tgt{};
      std::uint32_t pending = gm;
      for_lanes(gm, [&](int l) {
        if (idx[l] >= table.size())
          c.fault(w, in, l, "brx.idx index " + std::to_string(idx[l]) + " outside its " + std::to_string(table.size()) + "-entry table");
        tgt[l] = table[idx[l]];
      });
      std::uint32_t not_taken = mask & ~gm;
      if (gm == 0) { top.pc = pc + 1; pop_done(c, w); break; }
      std::uint32_t first_t = tgt[std::countr_zero(gm)];
      bool uniform = not_taken == 0;
      for_lanes(gm, [&](int l) { uniform = uniform && tgt[l] == first_t; });
      if (uniform) { top.pc = first_t; pop_done(c, w); break; }
      std::int32_t rc = in.reconv;
      top.pc = rc < 0 ? 0xffffffffu : static_cast<std::uint32_t>(rc);
      if (not_taken) w.stack.push_back({pc + 1, rc, not_taken});
      while (pending) {
        std::uint32_t t = tgt[std::countr_zero(pending)];
        std::uint32_t group = 0;
        for_lanes(pending, [&](int l) { if (tgt[l] == t) group |= 1u << l; });
        pending &= ~group;
        w.stack.push_back({t, rc, group});
      }
      pop_done(c, w);
      break;
    }
    case Op::Exit:
    case Op::Ret: {
      bool leaves_kernel = in.op == Op::Exit || w.frames.size() == 1;
      if (gm != mask) top.pc = pc + 1;
      if (leaves_kernel) {
        if (gm) c.k.memory().note_store();  // fewer live threads may complete a barrier
        w.exited |= gm;
        remove_lanes(w, gm, 0);
        c.live_threads -= static_cast<std::uint32_t>(std::popcount(gm));
        if (gm && c.cluster_lanes_exit(w, gm)) info.released_cluster_barrier = true;
        // lanes leaving may complete barriers other warps wait at
        for (int id = 0; id < 16; ++id)
          if (!c.barriers[id].waiting.empty() && try_complete(c, id)) info.released_barrier = true;
      } else {
        Frame& fr = w.frames.back();
        fr.returned |= gm;
        remove_lanes(w, gm, fr.simt_base);
      }
      pop_done(c, w);
      if (w.stack.empty()) {
        --c.live_warps;
        info.kind = StepInfo::Kind::Exited;
      }
      if (c.live_warps > 0 && c.waiting_warps == c.live_warps) c.deadlock();
      c.check_cluster_deadlock();
      break;
    }
    case Op::Trap:
      if (gm) c.fault(w, in, std::countr_zero(gm), "trap executed (the kernel aborted itself)");
      top.pc = pc + 1;
      break;
    case Op::Call: {
      top.pc = pc + 1;
      if (gm == 0) break;
      if (w.frames.size() >= 256) c.fault(w, in, std::countr_zero(gm), "call stack deeper than 256 frames");
      const isa::ptx::CallSite& cs = c.p.calls[in.imm];
      const isa::ptx::Function& callee = c.p.functions[static_cast<std::size_t>(cs.callee)];
      const Frame& caller = w.frames.back();
      const isa::ptx::Function& cf = c.p.functions[caller.func];
      Frame fr;
      fr.func = static_cast<std::uint32_t>(cs.callee);
      fr.r32 = static_cast<std::uint32_t>(w.r32.size() / 32);
      fr.r64 = static_cast<std::uint32_t>(w.r64.size() / 32);
      fr.pred = static_cast<std::uint32_t>(w.pred.size());
      fr.local_base = caller.local_base + cf.local_bytes;
      fr.param_base = caller.param_base + cf.param_bytes;
      fr.simt_base = w.stack.size();
      fr.call_site = static_cast<std::int32_t>(in.imm);
      w.r32.resize(w.r32.size() + std::size_t{callee.n32} * 32, 0);
      w.r64.resize(w.r64.size() + std::size_t{callee.n64} * 32, 0);
      w.pred.resize(w.pred.size() + callee.npred, 0);
      for (int l = 0; l < 32; ++l) {
        if (w.lm().local[l].size() < fr.local_base + callee.local_bytes) w.lm().local[l].resize(fr.local_base + callee.local_bytes, 0);
        if (w.lm().params[l].size() < fr.param_base + callee.param_bytes) w.lm().params[l].resize(fr.param_base + callee.param_bytes, 0);
      }
      std::uint32_t m = gm;
      while (m) {
        int l = std::countr_zero(m);
        m &= m - 1;
        for (const auto& a : cs.args)
          std::memcpy(w.lm().params[l].data() + fr.param_base + a[1], w.lm().params[l].data() + caller.param_base + a[0],
                      static_cast<std::size_t>(a[2]));
      }
      w.frames.push_back(fr);
      w.bind_frame();
      w.stack.push_back({callee.first, kNoReconv, gm});
      break;
    }
    case Op::Bar: {
      top.pc = pc + 1;
      c.k.memory().note_store();  // barrier state is shared: an arrival is progress
      const auto kind = static_cast<BarKind>(in.sub);
      std::uint32_t id = c.row32(w, c.p.src(in, 0))[std::countr_zero(mask | 1u)];
      if (id >= 16) c.fault(w, in, std::countr_zero(mask | 1u), "barrier id " + std::to_string(id) + " (0-15 exist)");
      Barrier& b = c.barriers[id];
      Reg cnt = c.p.src(in, 1);
      std::uint32_t expected = cnt.bank == Bank::None ? 0 : c.row32(w, cnt)[std::countr_zero(mask | 1u)];
      if (expected % 32 != 0 && expected != 0)
        c.fault(w, in, std::countr_zero(mask | 1u), "barrier thread count " + std::to_string(expected) + " is not a multiple of 32");
      if (b.arrived == 0) b.expected = expected;
      // On sm_70+ a barrier counts threads; every thread of an arriving warp counts.
      std::uint32_t arriving = static_cast<std::uint32_t>(std::popcount(mask & ~w.exited));
      if (kind == BarKind::RedPopc || kind == BarKind::RedAnd || kind == BarKind::RedOr) {
        std::uint32_t pv = c.predr(w, c.p.src(in, 2));
        if (in.imm) pv = ~pv;
        pv &= mask;
        b.red_popc += static_cast<std::uint32_t>(std::popcount(pv));
        b.red_and = b.red_and && (pv == mask);
        b.red_or = b.red_or || pv != 0;
      }
      b.arrived += arriving;
      if (kind == BarKind::Arrive) {
        if (try_complete(c, static_cast<int>(id))) info.released_barrier = true;
        break;
      }
      w.waiting = true;
      w.barrier_id = static_cast<int>(id);
      b.waiting.push_back(wi);
      ++c.waiting_warps;
      info.kind = StepInfo::Kind::BarrierWait;
      // reduction result is delivered when the barrier completes
      std::uint32_t popc = b.red_popc;
      bool rand = b.red_and, ror = b.red_or;
      if (try_complete(c, static_cast<int>(id))) {
        info.released_barrier = true;
        info.kind = StepInfo::Kind::Executed;
        if (kind == BarKind::RedPopc || kind == BarKind::RedAnd || kind == BarKind::RedOr) {
          // write the result to every warp that took part (they were all waiting at this barrier)
          for (Warp& o : c.warps) {
            if (o.stack.empty()) continue;
            const Inst& oin = c.p.insts[o.stack.back().pc - 1];
            if (oin.op != Op::Bar || &oin != &in) continue;
            Reg d = c.p.dst(in, 0);
            std::uint32_t om = o.stack.back().mask;
            for (int l = 0; l < 32; ++l)
              if (om >> l & 1) c.put(o, d, l, kind == BarKind::RedPopc ? popc : kind == BarKind::RedAnd ? rand : ror);
          }
        }
      }
      if (c.waiting_warps == c.live_warps) c.deadlock();
      c.check_cluster_deadlock();
      break;
    }
    case Op::BarClusterArrive:
    case Op::BarClusterWait:
      top.pc = pc + 1;
      c.k.memory().note_store();  // the cluster's barrier state is shared: an arrival is progress
      if (gm && in.op == Op::BarClusterArrive && c.cluster_arrive(w, gm)) info.released_cluster_barrier = true;
      if (gm && in.op == Op::BarClusterWait) c.cluster_wait_at(w, in, gm, info);
      pop_done(c, w);
      break;
    case Op::Unsupported:
      c.unsupported(in, c.p.unsupported[in.imm]);
    default: {
      top.pc = pc + 1;
      const isa::ptx::SliceRole role = c.k.addresses_only() ? c.k.slice_role(pc) : isa::ptx::SliceRole::Execute;
      if (role == isa::ptx::SliceRole::Skip) [[unlikely]] {
        pop_done(c, w);
        break;
      }
      c.no_transfer = role == isa::ptx::SliceRole::AddressesOnly;
      if (gm != 0 || in.op == Op::Shfl || in.op == Op::Vote || in.op == Op::BarWarp) {
        if (in.flags & isa::ptx::kReadsClock) {
          // %globaltimer counts nanoseconds on the Unix epoch, as a real part's does: simulated
          // time (at the device clock) from a fixed, plausible start (kGlobalTimerStartNs), so a
          // kernel cannot tell from it that it is simulated, and runs stay deterministic
          const std::uint64_t gtimer = kGlobalTimerStartNs + static_cast<std::uint64_t>(static_cast<double>(clock_) * ns_per_cycle_);
          for (std::uint32_t si = 0; si < c.p.nspecial32; ++si) {
            const std::string& nm = c.p.special_names32[si];
            std::uint32_t v = nm == "%clock" ? static_cast<std::uint32_t>(clock_) : nm == "%clock_hi" ? static_cast<std::uint32_t>(clock_ >> 32)
                              : nm == "%globaltimer_lo" ? static_cast<std::uint32_t>(gtimer) : nm == "%globaltimer_hi" ? static_cast<std::uint32_t>(gtimer >> 32) : 0;
            if (nm == "%clock" || nm == "%clock_hi" || nm == "%globaltimer_lo" || nm == "%globaltimer_hi")
              std::fill_n(w.s32.data() + std::size_t{si} * 32, 32, v);
            if (nm == "%smid") std::fill_n(w.s32.data() + std::size_t{si} * 32, 32, smid_);
          }
          for (std::uint32_t si = 0; si < c.p.nspecial64; ++si) {
            const std::string& nm = c.p.special_names64[si];
            // %clock64 counts core cycles; %globaltimer nanoseconds since the Unix epoch
            std::uint64_t v = nm == "%globaltimer" ? gtimer : clock_;
            std::fill_n(w.s64.data() + std::size_t{si} * 32, 32, v);
          }
        }
        switch (in.unit) {
          case isa::Unit::Mem:
            if (isa::ptx::is_async_op(in.op)) {  // stores are noted there: a failing wait stores nothing
              info.space = c.exec_async(w, in, gm);
              info.async = true;
              break;
            }
            if (in.op != Op::Ld && in.op != Op::Ldmatrix && in.op != Op::Prefetch && in.op != Op::WmmaLoad) c.k.memory().note_store();
            info.space = (in.op == Op::WmmaLoad || in.op == Op::WmmaStore) ? c.exec_mma(w, in, gm) : c.exec_mem(w, in, gm);
            break;
          case isa::Unit::TensorF16: case isa::Unit::TensorTf32: case isa::Unit::TensorI8: case isa::Unit::TensorFp8:
          case isa::Unit::TensorF64:
            if (in.op == Op::WgmmaMma) c.exec_wgmma(w, in, gm);
            else c.exec_mma(w, in, gm);
            break;
          case isa::Unit::Sync:
            if (in.op == Op::CpAsync) info.space = c.exec_mem(w, in, gm);
            else if (in.op == Op::WgmmaFence || in.op == Op::WgmmaCommit || in.op == Op::WgmmaWait) c.exec_wgmma(w, in, gm);
            else c.exec_warp(w, in, gm);
            break;
          default:
            if (in.op == Op::Cvt || in.op == Op::CvtPack) c.exec_cvt(w, in, gm);
            else if (in.op == Op::Activemask) c.exec_warp(w, in, gm);
            else c.exec_alu(w, in, gm);
        }
      }
      pop_done(c, w);
      break;
    }
  }
  if (!w.stack.empty()) info.next_pc = w.stack.back().pc;
  return info;
}

// ---------------------------------------------------------------------------------------------
// endless loops

void snapshot(const Warp& w, SpinWatch& s) {
  s.r32 = w.r32;
  s.r64 = w.r64;
  s.pred = w.pred;
  s.s32 = w.s32;
  s.s64 = w.s64;
  s.stack.clear();
  for (const SimtEntry& e : w.stack) {
    s.stack.push_back(e.pc);
    s.stack.push_back(static_cast<std::uint32_t>(e.reconv));
    s.stack.push_back(e.mask);
  }
  s.exited = w.exited;
  s.carry = w.carry;
}

bool same_state(const Warp& w, const SpinWatch& s) {
  if (w.exited != s.exited || w.carry != s.carry || w.stack.size() * 3 != s.stack.size()) return false;
  for (std::size_t i = 0; i < w.stack.size(); ++i)
    if (w.stack[i].pc != s.stack[3 * i] || static_cast<std::uint32_t>(w.stack[i].reconv) != s.stack[3 * i + 1] ||
        w.stack[i].mask != s.stack[3 * i + 2])
      return false;
  return w.pred == s.pred && w.r32 == s.r32 && w.r64 == s.r64 && w.s32 == s.s32 && w.s64 == s.s64;
}

[[gnu::noinline]] void PtxCta::Impl::watch_backedge(Warp& w, std::uint32_t pc, std::uint32_t head) {
  SpinWatch& s = w.spin;
  const std::uint64_t stores = k.memory().stores();
  if (s.pc != pc || s.stores != stores || !same_state(w, s)) {
    s.pc = pc;
    s.head = head;
    s.stores = stores;
    s.suspect = false;
    snapshot(w, s);
    return;
  }
  if (!s.suspect || s.progress != k.progress()) {
    // the first repeat, or other warps moved since: watch one more round, letting them run
    s.suspect = true;
    s.progress = k.progress();
    s.yield = true;
    return;
  }
  endless_loop(w);
}

void PtxCta::Impl::endless_loop(const Warp& w) {
  const Inst& br = p.insts[w.spin.pc];
  std::string msg = "kernel `" + k.options().kernel_name + "`, block (" + std::to_string(ctaid[0]) + "," + std::to_string(ctaid[1]) +
                    "," + std::to_string(ctaid[2]) + ") warp " + std::to_string(w.index) + ": endless loop at " + p.describe(br) +
                    " (the loop from " + p.describe(p.insts[w.spin.head]) + "): the warp's registers and predicates repeat every " +
                    std::to_string(kSpinSampleEvery) + " iterations while no thread of the launch stores to memory or makes progress";
  // the address it waits on: the last load in the loop (w.addrs holds the last memory access)
  for (std::uint32_t i = w.spin.head; i <= w.spin.pc; ++i)
    if (p.insts[i].op == Op::Ld) {
      const std::uint32_t m = w.stack.empty() ? 1u : w.stack.back().mask;
      const std::uint64_t a = w.addrs[std::countr_zero(m | (1u << 31))];
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
      msg += "; it waits on address " + std::string(buf);
      if (const Allocation* al = k.memory().find(a, 1)) msg += " (" + al->label + " + " + std::to_string(a - al->base) + ")";
      msg += ", which nothing writes";
      break;
    }
  throw EndlessLoop(msg);
}

void PtxCta::Impl::deadlock() {
  // every live warp waits at a barrier that cannot complete
  std::string detail;
  for (const Warp& w : warps) {
    if (w.stack.empty()) continue;
    const Inst& in = p.insts[w.stack.back().pc - 1];
    const Barrier& b = barriers[static_cast<std::size_t>(std::max(w.barrier_id, 0))];
    detail += " warp " + std::to_string(w.index) + " waits at barrier " + std::to_string(w.barrier_id) + " (" + p.describe(in) +
              ", " + std::to_string(b.arrived) + " of " + std::to_string(b.expected ? b.expected : live_threads) +
              " threads arrived);";
  }
  throw Error(ErrorKind::KernelFault, "kernel `" + k.options().kernel_name + "`, block (" + std::to_string(ctaid[0]) + "," +
                                          std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) + "): barrier deadlock:" +
                                          detail + " " + std::to_string(live_threads) +
                                          " threads are live and none can arrive");
}

void PtxCta::Impl::mbar_deadlock() const {
  std::string detail;
  for (const Warp& w : warps) {
    if (w.stack.empty()) continue;
    const std::uint32_t pc = w.stack.back().pc;
    if (w.waiting) {
      detail += " warp " + std::to_string(w.index) + " waits at barrier " + std::to_string(w.barrier_id) + ";";
      continue;
    }
    std::uint64_t v = 0;
    if (w.mbar_addr + 8 <= shared.size()) std::memcpy(&v, shared.data() + w.mbar_addr, 8);
    char buf[160];
    std::snprintf(buf, sizeof buf, " warp %d waits on the mbarrier at shared 0x%x (phase %u, %u of %u arrivals pending, tx-count %d)", w.index,
                  w.mbar_addr, static_cast<unsigned>((v >> 61) & 1), static_cast<unsigned>(v & 0xfffff),
                  static_cast<unsigned>((v >> 20) & 0xfffff),
                  static_cast<int>(((v >> 40) & 0x100000) ? static_cast<std::int64_t>((v >> 40) & 0x1fffff) - (1 << 21) : static_cast<std::int64_t>((v >> 40) & 0x1fffff)));
    detail += std::string(buf) + " at " + p.describe(p.insts[pc > 0 ? pc - 1 : 0]) + ";";
  }
  throw Error(ErrorKind::KernelFault, "kernel `" + k.options().kernel_name + "`, block (" + std::to_string(ctaid[0]) + "," +
                                          std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) + "): mbarrier deadlock:" + detail +
                                          " no thread can arrive and no copy is in flight, so no phase can complete");
}

// The functional driver: each warp runs until it waits at a barrier, fails an mbarrier wait or is
// suspected of an endless loop; then the others run. A round in which every live warp only
// repeated a failing mbarrier wait (or waits at a barrier) can never end: a named deadlock.
void PtxCta::run() {
  Impl& c = *impl_;
  if (c.cluster) return run_cluster(*c.cluster);
  const int nw = static_cast<int>(c.warps.size());
  for (Warp& w : c.warps) w.mbar_blocked = w.spin.yield = false;  // left over from a timed start
  while (c.live_warps > 0) {
    if (c.cluster) return run_cluster(*c.cluster);  // it used the cluster barrier: a cluster of one
    bool progress = false, all_stuck = true, any_mbar = false;
    for (int wi = 0; wi < nw; ++wi) {
      Warp& w = c.warps[wi];
      while (!w.stack.empty() && !w.waiting && !w.cluster_wait) {
        step(wi);
        progress = true;
        if (w.spin.yield) {  // suspected of an endless loop or blocked on an mbarrier: the other warps may free it
          w.spin.yield = false;
          break;
        }
      }
      const bool blocked = w.mbar_blocked;
      w.mbar_blocked = false;
      if (w.stack.empty() || w.waiting) continue;
      any_mbar |= blocked;
      all_stuck &= blocked && w.mbar_stuck;
    }
    if (!progress && c.live_warps > 0) c.deadlock();
    if (any_mbar && all_stuck && c.live_warps > 0) c.mbar_deadlock();
  }
}

}  // namespace kernsim::sim
