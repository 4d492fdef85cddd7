// Post-dominator analysis with Boost.Graph: dominators of the reversed CFG rooted at a virtual
// exit node. Used for SIMT reconvergence (a divergent branch reconverges at its block's
// immediate post-dominator).
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
