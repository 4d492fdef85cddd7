// Thread-block clusters (sm_90): the CTAs of a cluster, their distributed shared memory, the
// cluster barrier (barrier.cluster.arrive/wait), mapa, and the functional driver that runs a
// cluster's CTAs together.
//
// A .shared::cluster address names CTA rank r as (r + 1) x kClusterRankStride + offset, the own
// CTA's shared::cta addresses (below the stride) being valid shared::cluster addresses too
// (isa/ptx/program.h). mapa of the executing CTA's own rank gives its shared::cta address, as
// on the hardware, where the shared::cta window lies inside the shared::cluster window.
#include <cstdio>

#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

namespace P = isa::ptx;

std::uint64_t LaunchDims::cluster_cta(std::uint64_t index, std::uint32_t rank) const {
  const std::uint64_t ncx = grid[0] / cluster[0], ncy = grid[1] / cluster[1];
  const std::uint64_t cx = index % ncx, cy = (index / ncx) % ncy, cz = index / (ncx * ncy);
  const std::uint64_t rx = rank % cluster[0], ry = (rank / cluster[0]) % cluster[1],
                      rz = rank / (cluster[0] * cluster[1]);
  const std::uint64_t x = cx * cluster[0] + rx, y = cy * cluster[1] + ry, z = cz * cluster[2] + rz;
  return x + y * grid[0] + z * std::uint64_t{grid[0]} * grid[1];
}

std::uint64_t LaunchDims::cluster_of(std::uint64_t cta_linear) const {
  const std::uint64_t x = cta_linear % grid[0], y = (cta_linear / grid[0]) % grid[1],
                      z = cta_linear / (std::uint64_t{grid[0]} * grid[1]);
  const std::uint64_t ncx = grid[0] / cluster[0], ncy = grid[1] / cluster[1];
  return x / cluster[0] + ncx * (y / cluster[1] + ncy * (z / cluster[2]));
}

std::unique_ptr<PtxCta> PtxKernel::make_cta(std::uint64_t cta_linear) {
  if (dims_.cluster_ctas() > 1)
    throw Error(ErrorKind::Internal, "kernsim bug: CTA " + std::to_string(cta_linear) +
                                         " of a launch with clusters made without its cluster");
  return std::make_unique<PtxCta>(*this, cta_linear);
}

std::vector<std::unique_ptr<PtxCta>> PtxKernel::make_cluster(std::uint64_t index) {
  std::vector<std::unique_ptr<PtxCta>> ctas;
  const std::uint32_t n = dims_.cluster_ctas();
  if (n == 1 && !dims_.explicit_cluster) {
    ctas.push_back(std::make_unique<PtxCta>(*this, index));
    return ctas;
  }
  auto st = std::make_shared<ClusterState>();
  st->index = index;
  st->members.assign(n, nullptr);
  const std::uint64_t ncx = dims_.grid[0] / dims_.cluster[0], ncy = dims_.grid[1] / dims_.cluster[1];
  st->id = {static_cast<std::uint32_t>(index % ncx), static_cast<std::uint32_t>((index / ncx) % ncy),
            static_cast<std::uint32_t>(index / (ncx * ncy))};
  for (std::uint32_t r = 0; r < n; ++r)
    ctas.push_back(std::make_unique<PtxCta>(*this, dims_.cluster_cta(index, r), st, r));
  return ctas;
}

// The cluster special registers of this CTA.
std::uint32_t PtxCta::Impl::cluster_special(const std::string& nm) const {
  const LaunchDims& d = k.dims();
  const auto axis = [&](std::size_t prefix) {
    return static_cast<std::size_t>(nm.size() > prefix ? nm[prefix] - 'x' : 0);
  };
  if (nm == "%cluster_ctarank") {
    const auto& c = d.cluster;
    return ctaid[0] % c[0] + (ctaid[1] % c[1]) * c[0] + (ctaid[2] % c[2]) * c[0] * c[1];
  }
  if (nm == "%cluster_nctarank") return d.cluster_ctas();
  if (nm == "%is_explicit_cluster") return d.explicit_cluster ? 1 : 0;
  if (nm.starts_with("%clusterid.")) return ctaid[axis(11)] / d.cluster[axis(11)];
  if (nm.starts_with("%nclusterid.")) return d.grid[axis(12)] / d.cluster[axis(12)];
  if (nm.starts_with("%cluster_ctaid.")) return ctaid[axis(15)] % d.cluster[axis(15)];
  if (nm.starts_with("%cluster_nctaid.")) return d.cluster[axis(16)];
  throw Error(ErrorKind::Internal, "kernsim bug: unknown cluster special register " + nm);
}

// ---------------------------------------------------------------------------------------------
// distributed shared memory

std::uint8_t* PtxCta::Impl::cluster_shared(Warp& w, const Inst& in, int lane, std::uint32_t target,
                                           std::uint64_t offset, std::uint32_t bytes, bool write) {
  const std::string what = std::string(write ? "write" : "read") + " of " + std::to_string(bytes) +
                           " bytes at shared::cluster offset " + std::to_string(offset) + " of CTA rank " +
                           std::to_string(target);
  if (target >= cluster_size())
    fault(w, in, lane,
          what + ": the cluster has " + std::to_string(cluster_size()) + " CTA" + (cluster_size() == 1 ? "" : "s"));
  Impl* t = cluster ? cluster->members[target] : this;
  if (!t) fault(w, in, lane, what + ": that CTA has exited (its shared memory is gone)");
  if (offset + bytes > t->shared.size() || offset >= t->shared.size())
    fault(w, in, lane,
          what + " is out of bounds: the CTA has " + std::to_string(t->shared.size()) + " bytes of shared memory");
  return t->shared.data() + offset;
}

std::uint64_t PtxCta::Impl::cluster_map(Warp& w, const Inst& in, int lane, std::uint64_t a, std::uint32_t target,
                                        bool generic) {
  if (generic) {
    if (a < P::kSharedWindow || a >= P::kSharedWindow + P::kWindowSize) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
      fault(w, in, lane, std::string("mapa of generic address ") + buf + ", which is not shared memory");
    }
    a -= P::kSharedWindow;
  }
  if (target >= cluster_size())
    fault(
        w, in, lane,
        "mapa to CTA rank " + std::to_string(target) + " of a cluster of " + std::to_string(cluster_size()) + " CTAs");
  const std::uint64_t off = a % P::kClusterRankStride;
  const std::uint64_t r = target == rank ? off : (target + 1) * P::kClusterRankStride + off;
  return generic ? r + P::kSharedWindow : r;
}

// ---------------------------------------------------------------------------------------------
// the cluster barrier

namespace {

std::uint32_t cluster_live_threads(const ClusterState& cl) {
  std::uint32_t n = 0;
  for (const auto* m : cl.members)
    if (m) n += m->live_threads;
  return n;
}

// Completes the current phase when every live thread of the cluster has arrived.
bool try_complete_cluster(ClusterState& cl) {
  if (cl.arrived == 0 || cl.arrived < cluster_live_threads(cl)) return false;
  ++cl.completed;
  cl.arrived = 0;
  for (auto* m : cl.members) {
    if (!m) continue;
    for (Warp& o : m->warps) {
      o.cluster_arrived = 0;
      if (o.cluster_wait && o.cluster_phase < cl.completed) {
        o.cluster_wait = false;
        o.cluster_pending = false;
        --m->cluster_waiting;
      }
    }
  }
  return true;
}

}  // namespace

// A launch without clusters runs each CTA as a cluster of one (%cluster_nctarank 1): its state is
// made when it first uses the cluster barrier.
void PtxCta::Impl::ensure_cluster() {
  if (cluster) return;
  cluster = std::make_shared<ClusterState>();
  cluster->members = {this};
  cluster->id = ctaid;
  cluster->index = linear;
}

bool PtxCta::Impl::cluster_arrive(Warp& w, std::uint32_t mask) {
  ensure_cluster();
  const std::uint32_t lanes = mask & ~w.exited & ~w.cluster_arrived;
  cluster->arrived += static_cast<std::uint32_t>(std::popcount(lanes));
  w.cluster_arrived |= lanes;
  w.cluster_pending = true;
  w.cluster_phase = cluster->completed;
  return try_complete_cluster(*cluster);
}

bool PtxCta::Impl::cluster_wait_at(Warp& w, const Inst& in, std::uint32_t mask, StepInfo& info) {
  if (!w.cluster_pending)
    fault(w, in, std::countr_zero(mask | (1u << 31)),
          "barrier.cluster.wait without a barrier.cluster.arrive before it");
  ensure_cluster();
  if (cluster->completed > w.cluster_phase) {
    w.cluster_pending = false;
    return false;
  }
  w.cluster_wait = true;
  ++cluster_waiting;
  info.kind = StepInfo::Kind::BarrierWait;
  check_cluster_deadlock();
  return false;
}

bool PtxCta::Impl::cluster_lanes_exit(Warp& w, std::uint32_t lanes) {
  if (!cluster) return false;
  const std::uint32_t counted = lanes & w.cluster_arrived;
  cluster->arrived -= static_cast<std::uint32_t>(std::popcount(counted));
  w.cluster_arrived &= ~counted;
  return try_complete_cluster(*cluster);
}

void PtxCta::Impl::check_cluster_deadlock() {
  if (!cluster) return;
  int live = 0, waiting = 0, at_cluster = 0;
  for (const auto* m : cluster->members) {
    if (!m) continue;
    live += m->live_warps;
    waiting += m->waiting_warps + m->cluster_waiting;
    at_cluster += m->cluster_waiting;
  }
  if (live == 0 || waiting < live || at_cluster == 0) return;
  std::string detail;
  for (const auto* m : cluster->members) {
    if (!m || m->live_warps == 0) continue;
    int at_bar = 0, at_cl = 0;
    for (const Warp& o : m->warps) {
      at_bar += o.waiting;
      at_cl += o.cluster_wait;
    }
    detail += " CTA rank " + std::to_string(m->rank) + ": " + std::to_string(at_cl) +
              " warps at barrier.cluster.wait, " + std::to_string(at_bar) + " at bar.sync;";
  }
  throw Error(ErrorKind::KernelFault,
              "kernel `" + k.options().kernel_name + "`, cluster (" + std::to_string(cluster->id[0]) + "," +
                  std::to_string(cluster->id[1]) + "," + std::to_string(cluster->id[2]) +
                  "): cluster barrier deadlock: " + std::to_string(cluster->arrived) + " of " +
                  std::to_string(cluster_live_threads(*cluster)) + " threads arrived at barrier.cluster;" + detail +
                  " every live warp waits and none can arrive");
}

// ---------------------------------------------------------------------------------------------
// the functional driver

// The cluster's CTAs take turns: each warp runs until it waits (bar.sync, barrier.cluster.wait),
// exits, or is suspected of spinning on a value another CTA writes (SpinWatch yields).
void run_cluster(ClusterState& cl) {
  for (bool live = true; live;) {
    live = false;
    bool progress = false;
    for (auto* m : cl.members) {
      if (!m || m->live_warps == 0) continue;
      live = true;
      for (int wi = 0; wi < static_cast<int>(m->warps.size()); ++wi) {
        Warp& w = m->warps[static_cast<std::size_t>(wi)];
        while (!w.stack.empty() && !w.waiting && !w.cluster_wait) {
          m->self.step(wi);
          progress = true;
          if (w.spin.yield) {
            w.spin.yield = false;
            break;
          }
        }
      }
    }
    if (live && !progress) {
      for (auto* m : cl.members)
        if (m && m->live_warps > 0) {
          m->check_cluster_deadlock();
          m->deadlock();
        }
    }
  }
}

}  // namespace kernsim::sim
