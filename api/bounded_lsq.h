// Bounded nonlinear least squares: Levenberg-Marquardt with box constraints (Eigen).
//
// Minimises cost(x) = 1/2 |r(x)|^2 subject to lower <= x <= upper. The caller supplies the
// residuals and the Jacobian (the calibrator computes it by finite differences of simulations,
// with a sparsity it knows), so one "evaluation" may be expensive: the solver counts them and
// never evaluates a point twice in a row.
//
// Each iteration fixes the variables that sit on a bound with the gradient pushing outward
// (the active set), solves the damped normal equations (J^T J + lambda diag(J^T J)) d = -J^T r
// for the others, projects x + d onto the box and accepts the step when the cost falls
// (lambda shrinks) or retries with more damping. Variables whose Jacobian column is zero do not
// move. Deterministic: no randomness, no dependence on threads.
#pragma once

#include <Eigen/Dense>

#include <functional>
#include <string>

namespace kernsim::api {

struct BoundedLsqProblem {
  Eigen::VectorXd lower, upper;  // one entry per variable; lower <= upper
  std::function<Eigen::VectorXd(const Eigen::VectorXd& x)> residuals;
  // Jacobian at x, given r = residuals(x): rows = residuals, columns = variables.
  std::function<Eigen::MatrixXd(const Eigen::VectorXd& x, const Eigen::VectorXd& r)> jacobian;
};

struct BoundedLsqOptions {
  int max_iterations = 10;
  double initial_lambda = 1e-3;
  double relative_tolerance = 1e-6;  // stop when the cost falls by less than this fraction
  int max_retries = 6;               // rejected steps (more damping) per iteration
  // Called with the starting cost (iteration 0) and after every accepted step.
  std::function<void(int iteration, double cost)> on_step;
};

struct BoundedLsqResult {
  Eigen::VectorXd x;
  double initial_cost = 0, cost = 0;  // 1/2 |r|^2
  int iterations = 0;                 // accepted steps
  int residual_evaluations = 0, jacobian_evaluations = 0;
  std::string stop_reason;
};

// x0 is projected onto the box first.
BoundedLsqResult solve_bounded_lsq(const BoundedLsqProblem& p, Eigen::VectorXd x0, const BoundedLsqOptions& opts = {});

}  // namespace kernsim::api
