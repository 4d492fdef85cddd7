// Post-dominator analysis with Boost.Graph (dominators of the reversed CFG rooted at a virtual
// exit node), used for SIMT reconvergence: a divergent branch reconverges at its block's
// immediate post-dominator; and the register estimate of a kernel without ptxas output.
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
