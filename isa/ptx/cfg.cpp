// Post-dominator analysis with Boost.Graph: dominators of the reversed CFG rooted at a virtual
// exit node. Used for SIMT reconvergence (a divergent branch reconverges at its block's
// immediate post-dominator).
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dominator_tree.hpp>

#include "isa/ptx/decode.h"

namespace kernsim::isa::ptx {

std::vector<int> immediate_post_dominators(const std::vector<std::vector<int>>& succ) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  const int n = static_cast<int>(succ.size());
  const int exit = n;
  // Reversed graph: edge v -> u for every CFG edge u -> v; nodes that reach no exit (infinite
  // loops) get an edge to the exit so that every node has a post-dominator.
  Graph g(n + 1);
  for (int u = 0; u < n; ++u)
    for (int v : succ[u]) boost::add_edge(static_cast<Vertex>(v), static_cast<Vertex>(u), g);
  // Nodes that cannot reach the exit: connect them so the analysis is total.
  std::vector<char> reaches(n + 1, 0);
  reaches[exit] = 1;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int u = 0; u < n; ++u) {
      if (reaches[u]) continue;
      for (int v : succ[u])
        if (reaches[v]) { reaches[u] = 1; changed = true; break; }
    }
  }
  for (int u = 0; u < n; ++u)
    if (!reaches[u]) boost::add_edge(static_cast<Vertex>(exit), static_cast<Vertex>(u), g);

  std::vector<Vertex> idom(boost::num_vertices(g), boost::graph_traits<Graph>::null_vertex());
  auto index = boost::get(boost::vertex_index, g);
  auto dom_map = boost::make_iterator_property_map(idom.begin(), index);
  boost::lengauer_tarjan_dominator_tree(g, static_cast<Vertex>(exit), dom_map);
  std::vector<int> out(n, -1);
  for (int u = 0; u < n; ++u)
    out[u] = idom[u] == boost::graph_traits<Graph>::null_vertex() ? -1 : static_cast<int>(idom[u]);
  return out;
}

}  // namespace kernsim::isa::ptx

namespace kernsim::isa::ptx {

int estimate_registers(const Program& p) {
  const Function& f = p.functions[0];
  const std::uint32_t n = f.n32 + f.n64;
  std::vector<std::int64_t> first(n, -1), last(n, -1);
  auto touch = [&](const Reg& r, std::int64_t i) {
    // int64 on every branch: with uint32 operands the -1 would become 4294967295
    std::int64_t k = r.bank == Bank::R32 ? std::int64_t{r.idx} : r.bank == Bank::R64 ? std::int64_t{f.n32} + r.idx : -1;
    if (k < 0) return;
    if (first[k] < 0) first[k] = i;
    last[k] = i;
  };
  for (std::uint32_t i = f.first; i < f.end; ++i) {
    const Inst& in = p.insts[i];
    for (int k = 0; k < in.ndst + in.nsrc; ++k) touch(p.regs[in.ops + k], i);
    if (in.addr.kind == AddrBase::Reg) touch(in.addr.base, i);
    // a backward branch keeps everything live across the loop alive until the branch
    if (in.op == Op::Bra && in.target >= 0 && static_cast<std::uint32_t>(in.target) < i)
      for (std::uint32_t k = 0; k < n; ++k)
        if (first[k] >= 0 && first[k] < in.target && last[k] >= in.target) last[k] = i;
  }
  std::vector<int> delta(f.end - f.first + 2, 0);
  for (std::uint32_t k = 0; k < n; ++k) {
    if (first[k] < 0) continue;
    int w = k >= f.n32 ? 2 : 1;
    delta[static_cast<std::size_t>(first[k] - f.first)] += w;
    delta[static_cast<std::size_t>(last[k] - f.first + 1)] -= w;
  }
  int live = 0, peak = 0;
  for (int d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return std::min(255, std::max(16, peak + 8));  // + a few for addresses and predicates
}

}  // namespace kernsim::isa::ptx

namespace kernsim::isa::ptx {

void mark_uniform_addresses(Program& p) {
  for (const Function& f : p.functions) {
    // registers of this function that may differ between lanes
    std::vector<char> varying(static_cast<std::size_t>(f.n32 + f.n64 + f.npred), 0);
    auto idx = [&](const Reg& r) -> int {
      switch (r.bank) {
        case Bank::R32: return static_cast<int>(r.idx);
        case Bank::R64: return static_cast<int>(f.n32 + r.idx);
        case Bank::Pred: return static_cast<int>(f.n32 + f.n64 + r.idx);
        default: return -1;
      }
    };
    auto special_varies = [&](const Reg& r) {
      if (r.bank != Bank::S32 && r.bank != Bank::S64) return false;
      const std::string& n = r.bank == Bank::S32 ? p.special_names32[r.idx] : p.special_names64[r.idx];
      return n.rfind("%tid", 0) == 0 || n == "%laneid" || n.rfind("%lanemask", 0) == 0;
    };
    auto varies = [&](const Reg& r) {
      int i = idx(r);
      return (i >= 0 && varying[static_cast<std::size_t>(i)]) || special_varies(r);
    };
    auto addr_varies = [&](const Inst& in) { return in.addr.kind == AddrBase::Reg && varies(in.addr.base); };
    bool changed = true;
    while (changed) {
      changed = false;
      for (std::uint32_t i = f.first; i < f.end; ++i) {
        const Inst& in = p.insts[i];
        bool v = in.guard.bank != Bank::None && varies(in.guard);
        for (int k = 0; k < in.nsrc && !v; ++k) v = varies(p.regs[in.ops + in.ndst + k]);
        switch (in.op) {
          case Op::Ld: v = v || (in.space != Space::Param && addr_varies(in)) || in.addr.kind == AddrBase::FrameLocal ||
                           in.addr.kind == AddrBase::FrameParam; break;
          case Op::Atom: case Op::Shfl: case Op::Match: case Op::Ldmatrix: case Op::WmmaLoad: case Op::Mma:
          case Op::WmmaMma: case Op::Call: v = true; break;
          case Op::Vote: case Op::Redux: case Op::Activemask: v = false; break;  // same result in every lane
          default: break;
        }
        if (!v) continue;
        for (int k = 0; k < in.ndst; ++k) {
          int d = idx(p.regs[in.ops + k]);
          if (d >= 0 && !varying[static_cast<std::size_t>(d)]) {
            varying[static_cast<std::size_t>(d)] = 1;
            changed = true;
          }
        }
      }
    }
    for (std::uint32_t i = f.first; i < f.end; ++i) {
      Inst& in = p.insts[i];
      const bool mem = in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red;
      if (!mem || in.addr.kind == AddrBase::FrameLocal || in.addr.kind == AddrBase::FrameParam) continue;
      if (addr_varies(in)) continue;
      in.flags |= kUniformAddress;
      const bool int_add = static_cast<AtomOp>(in.sub) == AtomOp::Add && !ty_is_float(in.type);
      if ((in.op == Op::Atom || in.op == Op::Red) && int_add) in.flags |= kWarpAggregated;
    }
  }
}

namespace {

bool is_global_load(const Inst& in) {
  return in.op == Op::Ld && (in.space == Space::Global || in.space == Space::Generic) && in.addr.kind == AddrBase::Reg;
}

}  // namespace

int mark_unrolled_loads(Program& p, const std::vector<int>& sass_loop_loads, const std::vector<int>& sass_loop_load_bytes) {
  if (p.functions.empty()) return 0;
  const Function& f = p.functions[0];
  // innermost PTX loops of the kernel function: backward branches, [header, latch]
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops;
  for (std::uint32_t i = f.first; i < f.end; ++i) {
    const Inst& in = p.insts[i];
    if (in.op == Op::Bra && in.target >= static_cast<std::int32_t>(f.first) && static_cast<std::uint32_t>(in.target) <= i)
      loops.push_back({static_cast<std::uint32_t>(in.target), i});
  }
  std::sort(loops.begin(), loops.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> inner;
  for (std::size_t a = 0; a < loops.size(); ++a) {
    bool contains = false;
    for (std::size_t b = 0; b < loops.size() && !contains; ++b)
      contains = b != a && loops[b] != loops[a] && loops[b].first >= loops[a].first && loops[b].second <= loops[a].second;
    if (!contains) inner.push_back(loops[a]);
  }
  auto reg_index = [&](const Reg& r) -> int {
    switch (r.bank) {
      case Bank::R32: return static_cast<int>(r.idx);
      case Bank::R64: return static_cast<int>(f.n32 + r.idx);
      case Bank::Pred: return static_cast<int>(f.n32 + f.n64 + r.idx);
      default: return -1;
    }
  };
  // Which SASS loop is which PTX loop: ptxas may lay the loops out in another order, so a
  // SASS loop matches a PTX loop when it loads a whole multiple of the PTX loop's loads and,
  // where the widths are known, the same multiple of its bytes per lane. Each PTX loop takes the
  // first such SASS loop from where the previous match left off (then from the start).
  const std::size_t nsass = sass_loop_loads.size();
  const bool widths = sass_loop_load_bytes.size() == nsass;
  std::vector<char> used(nsass, 0);
  auto factor_of = [&](std::size_t j, int ptx_loads, int ptx_bytes) {
    const int n = sass_loop_loads[j];
    if (used[j] || n <= 0 || n % ptx_loads) return 0;
    const int f = n / ptx_loads;
    if (widths && sass_loop_load_bytes[j] != f * ptx_bytes) return 0;
    return f;
  };
  std::size_t cursor = 0;
  int unrolled = 0;
  for (const auto& [h, l] : inner) {
    int ptx_loads = 0, ptx_bytes = 0;
    for (std::uint32_t i = h; i <= l; ++i)
      if (is_global_load(p.insts[i])) {
        ++ptx_loads;
        ptx_bytes += std::max(1, ty_bits(p.insts[i].type) / 8) * std::max<int>(1, p.insts[i].vec);
      }
    if (!ptx_loads) continue;
    std::size_t j = nsass;
    for (std::size_t k = 0; k < nsass && j == nsass; ++k) {
      const std::size_t c = (cursor + k) % nsass;
      if (factor_of(c, ptx_loads, ptx_bytes)) j = c;
    }
    if (j == nsass) continue;  // no SASS loop like it: assume nothing
    const int factor = factor_of(j, ptx_loads, ptx_bytes);
    used[j] = 1;
    cursor = j + 1;
    // a remainder loop ptxas keeps after the unrolled one carries the PTX loop's own count
    if (factor > 1 && cursor < nsass && factor_of(cursor, ptx_loads, ptx_bytes) == 1) used[cursor++] = 1;
    if (factor < 2) continue;
    ++unrolled;
    for (std::uint32_t i = h; i <= l; ++i) {
      Inst& ld = p.insts[i];
      if (!is_global_load(ld)) continue;
      // registers that depend on this load's value anywhere in the loop (around the back edge too)
      std::vector<char> tainted(static_cast<std::size_t>(f.n32 + f.n64 + f.npred), 0);
      for (int k = 0; k < ld.ndst; ++k)
        if (int d = reg_index(p.regs[ld.ops + k]); d >= 0) tainted[static_cast<std::size_t>(d)] = 1;
      for (bool changed = true; changed;) {
        changed = false;
        for (std::uint32_t j = h; j <= l; ++j) {
          const Inst& in = p.insts[j];
          bool t = false;
          for (int k = 0; k < in.nsrc && !t; ++k)
            if (int x = reg_index(p.regs[in.ops + in.ndst + k]); x >= 0) t = tainted[static_cast<std::size_t>(x)];
          if (!t && (in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom) && in.addr.kind == AddrBase::Reg)
            if (int x = reg_index(in.addr.base); x >= 0) t = tainted[static_cast<std::size_t>(x)];
          if (!t) continue;
          for (int k = 0; k < in.ndst; ++k)
            if (int d = reg_index(p.regs[in.ops + k]); d >= 0 && !tainted[static_cast<std::size_t>(d)]) {
              tainted[static_cast<std::size_t>(d)] = 1;
              changed = true;
            }
        }
      }
      const int base = reg_index(ld.addr.base);
      if (base >= 0 && tainted[static_cast<std::size_t>(base)]) continue;  // its address comes from its own value
      ld.batch = static_cast<std::uint8_t>(std::min(factor, 255));
      ld.batch_slot = p.n_batch_slots++;
    }
  }
  return unrolled;
}

}  // namespace kernsim::isa::ptx
