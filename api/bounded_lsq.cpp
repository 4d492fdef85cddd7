// Box-constrained Levenberg-Marquardt; see bounded_lsq.h.
#include "api/bounded_lsq.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/error.h"

namespace kernsim::api {

namespace {

Eigen::VectorXd project(const Eigen::VectorXd& x, const BoundedLsqProblem& p) {
  return x.cwiseMax(p.lower).cwiseMin(p.upper);
}

}  // namespace

BoundedLsqResult solve_bounded_lsq(const BoundedLsqProblem& p, Eigen::VectorXd x0, const BoundedLsqOptions& opts) {
  const Eigen::Index n = x0.size();
  KERNSIM_ASSERT(p.lower.size() == n && p.upper.size() == n, "bounds and start point differ in size");
  KERNSIM_ASSERT((p.lower.array() <= p.upper.array()).all(), "a lower bound exceeds its upper bound");
  BoundedLsqResult res;
  Eigen::VectorXd x = project(x0, p);
  Eigen::VectorXd r = p.residuals(x);
  ++res.residual_evaluations;
  double cost = 0.5 * r.squaredNorm();
  res.initial_cost = cost;
  if (opts.on_step) opts.on_step(0, cost);
  double lambda = opts.initial_lambda;
  res.stop_reason = "iteration limit";
  for (int it = 0; it < opts.max_iterations; ++it) {
    if (cost == 0) { res.stop_reason = "zero residual"; break; }
    const Eigen::MatrixXd J = p.jacobian(x, r);
    ++res.jacobian_evaluations;
    KERNSIM_ASSERT(J.rows() == r.size() && J.cols() == n, "Jacobian has the wrong shape");
    const Eigen::VectorXd g = J.transpose() * r;  // gradient of the cost
    const Eigen::MatrixXd A = J.transpose() * J;
    // Active set: on a bound, and the descent direction (-g) points out of the box; or a
    // variable the residuals do not depend on.
    std::vector<Eigen::Index> free;
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool at_lo = x[i] <= p.lower[i] && g[i] > 0;
      const bool at_hi = x[i] >= p.upper[i] && g[i] < 0;
      if (!at_lo && !at_hi && A(i, i) > 0) free.push_back(i);
    }
    if (free.empty()) { res.stop_reason = "every variable is on a bound or has no evidence"; break; }
    const Eigen::Index m = static_cast<Eigen::Index>(free.size());
    Eigen::MatrixXd Af(m, m);
    Eigen::VectorXd gf(m);
    for (Eigen::Index a = 0; a < m; ++a) {
      gf[a] = g[free[static_cast<std::size_t>(a)]];
      for (Eigen::Index b = 0; b < m; ++b) Af(a, b) = A(free[static_cast<std::size_t>(a)], free[static_cast<std::size_t>(b)]);
    }
    bool accepted = false;
    for (int retry = 0; retry <= opts.max_retries; ++retry) {
      Eigen::MatrixXd M = Af;
      for (Eigen::Index a = 0; a < m; ++a) M(a, a) += lambda * Af(a, a);
      const Eigen::VectorXd df = M.ldlt().solve(-gf);
      Eigen::VectorXd xn = x;
      for (Eigen::Index a = 0; a < m; ++a) xn[free[static_cast<std::size_t>(a)]] += df[a];
      xn = project(xn, p);
      if ((xn - x).norm() <= 1e-12 * (1 + x.norm())) {
        lambda *= 10;
        continue;
      }
      Eigen::VectorXd rn = p.residuals(xn);
      ++res.residual_evaluations;
      const double cn = 0.5 * rn.squaredNorm();
      if (cn < cost) {
        const double drop = (cost - cn) / cost;
        x = xn;
        r = rn;
        cost = cn;
        lambda = std::max(1e-9, lambda * 0.3);
        accepted = true;
        ++res.iterations;
        if (opts.on_step) opts.on_step(res.iterations, cost);
        if (drop < opts.relative_tolerance) res.stop_reason = "converged (cost falls by less than the tolerance)";
        break;
      }
      lambda *= 10;
    }
    if (!accepted) { res.stop_reason = "converged (no step lowers the cost)"; break; }
    if (res.stop_reason.starts_with("converged")) break;
  }
  res.x = x;
  res.cost = cost;
  return res;
}

}  // namespace kernsim::api
