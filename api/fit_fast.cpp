// The fast tier's coefficient fit; see fit_fast.h.
#include "api/fit_fast.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/bounded_lsq.h"
#include "api/validate.h"
#include "base/error.h"
#include "cost_model/fast_model.h"
#include "cost_model/fast_report.h"

namespace kernsim::api {
namespace {

struct Sample {
  std::string id;
  double measured_us = 0;
  cost::KernelProfile profile;
  cost::LaunchGeometry geometry;
  device::DeviceSpec timed;  // the device the report was made on (the tensor clock for mma kernels)
};

device::FastTier from(const Eigen::VectorXd& x) {
  device::FastTier c;
  c.overlap_exponent = x[0];
  c.latency_scale = x[1];
  c.l2_reuse_fraction = x[2];
  return c;
}

}  // namespace

FastFitResult fit_fast(const std::vector<FastFitSet>& sets, const device::DeviceSpec& dev, int threads) {
  FastFitResult res;
  // The fit's starting point and box: a p-norm between a sum (1) and nearly a max (16); the
  // dependent path scaled 0.2x-3x; a twentieth to all of the L2 keeping re-read data. The start
  // is the middle of the box, not a hardware number.
  res.start = {3.0, 1.0, 0.5};
  Eigen::VectorXd lo(3), hi(3), x0(3);
  lo << 1.0, 0.2, 0.05;
  hi << 16.0, 3.0, 1.0;
  x0 << res.start.overlap_exponent, res.start.latency_scale, res.start.l2_reuse_fraction;
  device::DeviceSpec d = dev;
  d.fast = res.start;
  std::vector<Sample> samples;
  for (const FastFitSet& s : sets) {
    const ValidationSummary v = validate(s.specs, s.measured, d, threads, "", Tier::Fast);
    for (const ValidationRow& r : v.rows) {
      if (!r.failure.empty()) {
        res.skipped.push_back(r.id + ": " + r.failure);
        continue;
      }
      Sample x;
      x.id = r.id;
      x.measured_us = r.measured_us;
      const nlohmann::json j = nlohmann::json::parse(r.fast_report);
      cost::profile_from_json(j.at("fast").at("profile"), x.profile, x.geometry);
      x.timed = d;
      x.timed.clocks.core_mhz =
          j.at("clock_mhz").get<double>();  // the report's clock (the tensor clock for mma kernels)
      samples.push_back(std::move(x));
    }
  }
  if (samples.size() < 3) throw Error(ErrorKind::Io, "fit-fast: fewer than 3 measured launches ran in the fast tier");
  auto predict_all = [&](const device::FastTier& c) {
    std::vector<double> out;
    for (const Sample& s : samples) out.push_back(cost::predict(s.profile, s.geometry, s.timed, c).time_us);
    return out;
  };
  BoundedLsqProblem prob;
  prob.lower = lo;
  prob.upper = hi;
  prob.residuals = [&](const Eigen::VectorXd& x) {
    const std::vector<double> p = predict_all(from(x));
    Eigen::VectorXd r(static_cast<Eigen::Index>(p.size()));
    for (std::size_t i = 0; i < p.size(); ++i)
      r[static_cast<Eigen::Index>(i)] = std::log(p[i] / samples[i].measured_us);
    return r;
  };
  prob.jacobian = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& r) {
    Eigen::MatrixXd jac(r.size(), x.size());
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      Eigen::VectorXd y = x;
      const double h = 1e-4 * std::max(1.0, std::fabs(x[k]));
      y[k] = std::min(hi[k], x[k] + h);
      const double step = y[k] - x[k];
      if (step <= 0) y[k] = x[k] - h;
      jac.col(k) = (prob.residuals(y) - r) / (y[k] - x[k]);
    }
    return jac;
  };
  BoundedLsqOptions o;
  o.max_iterations = 50;
  const BoundedLsqResult fit = solve_bounded_lsq(prob, x0, o);
  res.fitted = from(fit.x);
  res.iterations = fit.iterations;
  res.stop_reason = fit.stop_reason;
  const std::vector<double> before = predict_all(res.start), after = predict_all(res.fitted);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    res.rows.push_back({samples[i].id, samples[i].measured_us, before[i], after[i]});
    res.start_mape += std::fabs(before[i] / samples[i].measured_us - 1) / static_cast<double>(samples.size());
    res.fitted_mape += std::fabs(after[i] / samples[i].measured_us - 1) / static_cast<double>(samples.size());
  }
  return res;
}

std::string to_text(const FastFitResult& r) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-36s %12s %12s %8s %12s %8s\n", "launch", "measured_us", "start_us", "error",
                "fitted_us", "error");
  o << buf;
  for (const FastFitRow& x : r.rows) {
    std::snprintf(buf, sizeof buf, "%-36s %12.2f %12.2f %+7.1f%% %12.2f %+7.1f%%\n", x.id.c_str(), x.measured_us,
                  x.start_us, 100 * (x.start_us / x.measured_us - 1), x.fitted_us,
                  100 * (x.fitted_us / x.measured_us - 1));
    o << buf;
  }
  for (const std::string& s : r.skipped) o << "skipped " << s << "\n";
  std::snprintf(buf, sizeof buf,
                "%zu launches: MAPE %.1f%% at the start (p %.2f, latency x%.2f, L2 reuse %.2f), %.1f%% fitted (p %.3f, "
                "latency x%.3f, "
                "L2 reuse %.3f); %d iterations (%s)\n",
                r.rows.size(), 100 * r.start_mape, r.start.overlap_exponent, r.start.latency_scale,
                r.start.l2_reuse_fraction, 100 * r.fitted_mape, r.fitted.overlap_exponent, r.fitted.latency_scale,
                r.fitted.l2_reuse_fraction, r.iterations, r.stop_reason.c_str());
  o << buf;
  return o.str();
}

std::string fitted_fast_yaml(const FastFitResult& r, const std::vector<FastFitSet>& sets) {
  std::string from;
  for (const FastFitSet& s : sets) from += (from.empty() ? "" : ", ") + s.measured.filename().string();
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "fast:\n"
      "  overlap_exponent: {value: %.4g, source: \"kernsim fit-fast on %s\", confidence: fitted, residual: %.3f}\n"
      "  latency_scale: {value: %.4g, source: \"kernsim fit-fast on %s\", confidence: fitted, residual: %.3f}\n"
      "  l2_reuse_fraction: {value: %.4g, source: \"kernsim fit-fast on %s\", confidence: fitted, residual: %.3f}\n",
      r.fitted.overlap_exponent, from.c_str(), r.fitted_mape, r.fitted.latency_scale, from.c_str(), r.fitted_mape,
      r.fitted.l2_reuse_fraction, from.c_str(), r.fitted_mape);
  return buf;
}

}  // namespace kernsim::api
