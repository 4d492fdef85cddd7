// Fitting device parameters to a measurement; see calibrate.h.
#include "api/calibrate.h"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "api/bounded_lsq.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "base/error.h"
#include "base/files.h"
#include "device/loader.h"
#include "device/writer.h"

namespace kernsim::api {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFitSource = "KERNSIM_FIT";

struct Param {
  std::string key;
  const EvidenceRow* row = nullptr;
  double base = 0, scale = 1, lower = 0, upper = 0;
  std::optional<double> direct;
  bool all_launches = false;             // the row says "*"
  std::set<std::string> launch_results;  // results whose replays it moves
};

struct Launch {
  LaunchSpec spec;
  std::string result;                    // the first result its notes name
  std::vector<std::string> results;
  double measured_us = 0;
  std::vector<std::size_t> params;       // indices of the parameters that move it
  bool tied = false;                     // explicitly tied to some fitted parameter
};

std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * v);
  return b;
}

double round_significant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double mag = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return std::round(v * mag) / mag;
}

double rms(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s / static_cast<double>(v.size()));
}

fs::path default_specs_dir(const Measurement& m, const device::DeviceSpec& base) {
  fs::path root = data_dir() / "calibration" / "microbenchmarks";
  if (!m.specs_dir.empty()) return root / m.specs_dir;
  return root / (base.vendor == device::Vendor::Nvidia ? "cuda/specs" : "hip/specs");
}

// Parameter names the user asked for, checked against the schema and the evidence table.
std::vector<std::string> requested_params(const CalibrateOptions& opts, const device::DeviceSpec& base) {
  std::vector<std::string> out;
  for (const auto& k : opts.params) {
    if (!device::is_schema_key(base, k)) {
      std::string why;
      try {
        (void)device::get_number(base, k);
      } catch (const Error& e) {
        why = e.what();
      }
      throw Error(ErrorKind::Usage, "--params: unknown parameter `" + k + "` (" + why + ")");
    }
    if (device::is_integer_key(base, k))
      throw Error(ErrorKind::Usage, "--params: `" + k + "` is an integer (a count or size), not a fitted parameter");
    if (!find_evidence(k, base.vendor)) {
      std::string known;
      for (const auto& r : evidence_table())
        if (find_evidence(r.param, base.vendor) == &r) known += (known.empty() ? "" : ", ") + r.param;
      throw Error(ErrorKind::Usage, "--params: `" + k + "` has no row in the evidence table (api/calibration_evidence.cpp); "
                                    "parameters with evidence: " + known);
    }
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

class Simulator {
 public:
  Simulator(const device::DeviceSpec& base, const std::vector<Param>& params, std::vector<Launch>& launches, int threads)
      : base_(base), params_(params), launches_(launches), threads_(std::max(1, threads)) {}

  struct Job {
    std::size_t launch;
    std::vector<double> values;  // every parameter's value
  };

  // Simulated times of the jobs, in order; runs the ones not cached, in parallel. A launch that
  // fails is an error, or, with `failures`, NaN and its message there.
  std::vector<double> run(const std::vector<Job>& jobs, std::vector<std::string>* failures = nullptr) {
    std::vector<std::pair<std::string, std::vector<double>>> keys;
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      keys.push_back(key_of(jobs[i]));
      if (!cache_.count(keys.back()) &&
          std::none_of(todo.begin(), todo.end(), [&](std::size_t t) { return keys[t] == keys.back(); }))
        todo.push_back(i);
    }
    std::vector<double> times(todo.size(), 0);
    std::vector<std::string> errors(todo.size());
    tbb::task_arena arena(threads_);
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, todo.size(), [&](std::size_t t) {
        const Job& j = jobs[todo[t]];
        try {
          times[t] = run_launch(launches_[j.launch].spec, device_at(j.values), {}).time_us;
        } catch (const Error& e) {
          errors[t] = std::string(to_string(e.kind())) + ": " + e.what();
        }
      });
    });
    simulations_ += static_cast<int>(todo.size());
    if (failures) failures->assign(jobs.size(), "");
    for (std::size_t t = 0; t < todo.size(); ++t) {
      if (!errors[t].empty() && failures) {
        (*failures)[todo[t]] = errors[t];
        continue;
      }
      if (!errors[t].empty()) {
        const Job& j = jobs[todo[t]];
        std::string at;
        for (std::size_t p : launches_[j.launch].params) at += " " + params_[p].key + "=" + fmt(j.values[p]);
        throw Error(ErrorKind::Unsupported, "launch `" + launches_[j.launch].spec.id + "` failed during the fit (at" + at +
                                                "): " + errors[t]);
      }
      cache_[keys[todo[t]]] = times[t];
    }
    std::vector<double> out;
    for (const auto& k : keys) {
      auto it = cache_.find(k);
      out.push_back(it == cache_.end() ? std::numeric_limits<double>::quiet_NaN() : it->second);
    }
    return out;
  }

  device::DeviceSpec device_at(const std::vector<double>& values) const {
    device::DeviceSpec d = base_;
    for (std::size_t p = 0; p < params_.size(); ++p) device::set_number(d, params_[p].key, values[p]);
    return d;
  }

  int simulations() const { return simulations_; }

 private:
  // Only the parameters that move a launch are part of its cache key.
  std::pair<std::string, std::vector<double>> key_of(const Job& j) const {
    std::vector<double> v;
    for (std::size_t p : launches_[j.launch].params) v.push_back(j.values[p]);
    return {launches_[j.launch].spec.id, v};
  }

  const device::DeviceSpec& base_;
  const std::vector<Param>& params_;
  std::vector<Launch>& launches_;
  int threads_;
  std::map<std::pair<std::string, std::vector<double>>, double> cache_;
  int simulations_ = 0;
};

}  // namespace

CalibrationResult calibrate(const Measurement& m, const device::DeviceSpec& base, const CalibrateOptions& opts) {
  if (!(opts.range > 0 && opts.range < 1)) throw Error(ErrorKind::Usage, "--range must be between 0 and 1 (exclusive)");
  if (!(opts.step > 0 && opts.step < 0.5)) throw Error(ErrorKind::Usage, "--step must be between 0 and 0.5");
  CalibrationResult res;
  res.measurement_file = m.file.string();
  res.measurement_device = m.device_name;
  res.base_name = base.name;
  const std::vector<std::string> asked = requested_params(opts, base);

  // ---- launches with a measured replay ----
  std::vector<Launch> launches;
  if (opts.launches) {
    fs::path dir = opts.specs_dir ? *opts.specs_dir : default_specs_dir(m, base);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      if (opts.specs_dir) throw Error(ErrorKind::Io, "--specs: not a directory: " + dir.string());
      res.notes.push_back("no launch specs at " + dir.string() + ": direct evidence only");
    } else {
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        Launch l;
        l.spec = parse_launch_spec(f);
        if (l.spec.id.empty()) l.spec.id = f.stem().string();
        auto it = m.results.find("spec." + l.spec.id);
        if (it == m.results.end()) continue;
        l.measured_us = it->second.value;
        l.results = measured_results_of(l.spec.notes);
        l.result = l.results.empty() ? "" : l.results.front();
        if (l.measured_us > 0) launches.push_back(std::move(l));
      }
    }
  }

  // ---- parameters ----
  std::vector<Param> params;
  auto make_param = [&](const EvidenceRow& row) {
    Param p;
    p.key = row.param;
    p.row = &row;
    p.base = device::get_number(base, row.param);
    p.direct = row.direct.eval(&m, &base);
    if (p.direct && !(*p.direct > 0)) p.direct.reset();
    for (const auto& l : row.launches) {
      if (l == "*") p.all_launches = true;
      else p.launch_results.insert(l);
    }
    return p;
  };
  auto has_launch = [&](const Param& p) {
    return std::any_of(launches.begin(), launches.end(), [&](const Launch& l) {
      return std::any_of(l.results.begin(), l.results.end(), [&](const std::string& r) { return p.launch_results.count(r) > 0; });
    });
  };
  if (asked.empty()) {
    for (const auto& row : evidence_table()) {
      if (find_evidence(row.param, base.vendor) != &row || !device::is_schema_key(base, row.param)) continue;
      if (!base.provenance.count(row.param)) continue;  // an optional key this part does not have
      Param p = make_param(row);
      if (p.direct || has_launch(p)) params.push_back(std::move(p));
    }
    if (params.empty())
      throw Error(ErrorKind::Io, m.file.string() + ": no result gives evidence for any parameter of " + base.name);
  } else {
    for (const auto& k : asked) {
      Param p = make_param(*find_evidence(k, base.vendor));
      if (!p.direct && !has_launch(p)) {
        std::string missing;
        p.row->direct.eval(&m, &base, &missing);
        std::string want = p.row->direct.text.empty() ? "" : "`" + p.row->direct.text + "`";
        if (!missing.empty()) want += " (lacks `" + missing + "`)";
        std::string ls;
        for (const auto& r : p.launch_results) ls += (ls.empty() ? "" : ", ") + ("spec replays measuring " + r);
        throw Error(ErrorKind::Io, m.file.string() + ": no evidence for parameter `" + k + "`: it needs " + want +
                                       (ls.empty() ? "" : (want.empty() ? "" : " or ") + ls));
      }
      params.push_back(std::move(p));
    }
  }

  // ---- bounds and scales ----
  for (auto& p : params) {
    const double lo_phys = p.row->lower.text.empty() ? 0.0 : p.row->lower.eval(nullptr, &base).value_or(0.0);
    const double hi_phys = p.row->upper.text.empty() ? std::numeric_limits<double>::infinity()
                                                     : p.row->upper.eval(nullptr, &base).value_or(std::numeric_limits<double>::infinity());
    const double centre = p.base > 0 ? p.base : p.direct.value_or(0.0);
    if (!(centre > 0))
      throw Error(ErrorKind::DeviceFile, base.file.string() + ": key `" + p.key + "` is 0 and the measurement gives no value to start from");
    p.scale = centre;
    p.lower = std::max(lo_phys, centre * (1 - opts.range));
    p.upper = std::min(hi_phys, centre * (1 + opts.range));
    if (p.lower > p.upper)
      throw Error(ErrorKind::DeviceFile, base.file.string() + ": key `" + p.key + "` = " + fmt(p.base) +
                                             " lies outside its physical limits [" + fmt(lo_phys) + ", " + fmt(hi_phys) + "]");
  }

  // ---- which launches each parameter moves ----
  for (auto& l : launches) {
    for (std::size_t i = 0; i < params.size(); ++i) {
      bool explicit_tie = std::any_of(l.results.begin(), l.results.end(), [&](const std::string& r) { return params[i].launch_results.count(r) > 0; });
      l.tied |= explicit_tie;
      if (explicit_tie || params[i].all_launches) l.params.push_back(i);
    }
  }
  launches.erase(std::remove_if(launches.begin(), launches.end(), [](const Launch& l) { return !l.tied; }), launches.end());

  Simulator sim(base, params, launches, opts.threads);
  std::vector<double> base_values;
  for (const auto& p : params) base_values.push_back(std::clamp(p.base, p.lower, p.upper));

  // A launch that does not run at the base point is left out (named in the notes).
  {
    std::vector<Simulator::Job> jobs;
    for (std::size_t i = 0; i < launches.size(); ++i) jobs.push_back({i, base_values});
    std::vector<std::string> failures;
    sim.run(jobs, &failures);
    std::vector<Launch> ok;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      if (failures[i].empty()) ok.push_back(std::move(launches[i]));
      else res.notes.push_back("launch " + launches[i].spec.id + " left out (it does not run at the base point): " + failures[i]);
    }
    launches = std::move(ok);
  }

  // ---- the least-squares problem, in scaled units x = value / scale ----
  const std::size_t np = params.size();
  std::vector<std::size_t> direct_rows;  // parameter index of each direct residual
  for (std::size_t i = 0; i < np; ++i)
    if (params[i].direct) direct_rows.push_back(i);
  const std::size_t nr = direct_rows.size() + launches.size();
  auto values_of = [&](const Eigen::VectorXd& x) {
    std::vector<double> v(np);
    for (std::size_t i = 0; i < np; ++i) v[i] = x[static_cast<Eigen::Index>(i)] * params[i].scale;
    return v;
  };
  auto launch_times = [&](const std::vector<double>& v) {
    std::vector<Simulator::Job> jobs;
    for (std::size_t i = 0; i < launches.size(); ++i) jobs.push_back({i, v});
    return sim.run(jobs);
  };
  auto residuals_at = [&](const std::vector<double>& v, const std::vector<double>& times) {
    Eigen::VectorXd r(static_cast<Eigen::Index>(nr));
    Eigen::Index k = 0;
    for (std::size_t i : direct_rows) r[k++] = (v[i] - *params[i].direct) / *params[i].direct;
    for (std::size_t i = 0; i < launches.size(); ++i) r[k++] = (times[i] - launches[i].measured_us) / launches[i].measured_us;
    return r;
  };

  BoundedLsqProblem prob;
  prob.lower.resize(static_cast<Eigen::Index>(np));
  prob.upper.resize(static_cast<Eigen::Index>(np));
  Eigen::VectorXd x0(static_cast<Eigen::Index>(np));
  for (std::size_t i = 0; i < np; ++i) {
    const auto e = static_cast<Eigen::Index>(i);
    prob.lower[e] = params[i].lower / params[i].scale;
    prob.upper[e] = params[i].upper / params[i].scale;
    x0[e] = base_values[i] / params[i].scale;
  }
  prob.residuals = [&](const Eigen::VectorXd& x) {
    auto v = values_of(x);
    return residuals_at(v, launch_times(v));
  };
  prob.jacobian = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& r) {
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nr), static_cast<Eigen::Index>(np));
    const auto v = values_of(x);
    Eigen::Index k = 0;
    for (std::size_t i : direct_rows) J(k++, static_cast<Eigen::Index>(i)) = params[i].scale / *params[i].direct;
    // One perturbed point per parameter; only the launches it moves are simulated there.
    std::vector<double> h(np);
    std::vector<Simulator::Job> jobs;
    std::vector<std::pair<std::size_t, std::size_t>> where;  // (launch, parameter)
    for (std::size_t i = 0; i < np; ++i) {
      const auto e = static_cast<Eigen::Index>(i);
      h[i] = opts.step * std::max(std::fabs(x[e]), 1e-3);
      if (x[e] + h[i] > prob.upper[e]) h[i] = -h[i];
      std::vector<double> vp = v;
      vp[i] = (x[e] + h[i]) * params[i].scale;
      for (std::size_t l = 0; l < launches.size(); ++l)
        if (std::find(launches[l].params.begin(), launches[l].params.end(), i) != launches[l].params.end()) {
          jobs.push_back({l, vp});
          where.push_back({l, i});
        }
    }
    const auto t = sim.run(jobs);
    const auto base_r0 = static_cast<Eigen::Index>(direct_rows.size());
    for (std::size_t q = 0; q < jobs.size(); ++q) {
      const auto [l, i] = where[q];
      const double rp = (t[q] - launches[l].measured_us) / launches[l].measured_us;
      J(base_r0 + static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(i)) = (rp - r[base_r0 + static_cast<Eigen::Index>(l)]) / h[i];
    }
    return J;
  };

  BoundedLsqOptions lo;
  lo.max_iterations = opts.max_iterations;
  // Simulated times move in steps of whole cycles and events: a cost that falls by less than
  // 0.1% per iteration has converged as far as the evidence can tell.
  lo.relative_tolerance = 1e-3;
  if (opts.progress) {
    opts.progress("fitting " + std::to_string(np) + " parameters to " + std::to_string(direct_rows.size()) + " direct results and " +
                  std::to_string(launches.size()) + " launches (" + std::to_string(sim.simulations()) + " simulations so far)");
    lo.on_step = [&](int it, double cost) {
      opts.progress((it == 0 ? std::string("start") : "iteration " + std::to_string(it)) + ": RMS relative residual " +
                    fmt(100 * std::sqrt(2 * cost / std::max<double>(1, static_cast<double>(nr)))) + "%, " +
                    std::to_string(sim.simulations()) + " simulations");
    };
  }
  const BoundedLsqResult fit = solve_bounded_lsq(prob, x0, lo);

  // ---- report ----
  // The file gets 5 significant digits (far below any measurement's noise); the "after" column
  // is evaluated at exactly what the file says.
  std::vector<double> v1 = values_of(fit.x);
  for (std::size_t i = 0; i < np; ++i) v1[i] = std::clamp(round_significant(v1[i], 5), params[i].lower, params[i].upper);
  const std::vector<double> v0 = base_values;
  const std::vector<double> t0 = launch_times(v0), t1 = launch_times(v1);
  const Eigen::VectorXd r0 = residuals_at(v0, t0), r1 = residuals_at(v1, t1);
  res.rms_before = std::sqrt(r0.squaredNorm() / std::max<double>(1, static_cast<double>(nr)));
  res.rms_after = std::sqrt(r1.squaredNorm() / std::max<double>(1, static_cast<double>(nr)));
  res.iterations = fit.iterations;
  res.stop_reason = fit.stop_reason;
  for (std::size_t l = 0; l < launches.size(); ++l)
    res.launches.push_back({launches[l].spec.id, launches[l].result, launches[l].measured_us, t0[l], t1[l]});
  res.fitted = sim.device_at(v1);
  res.fitted.name = opts.name.empty() ? base.name + "-fitted" : opts.name;
  std::string src = "kernsim calibrate: fitted to " + m.file.filename().string();
  if (!m.device_name.empty()) src += " (" + m.device_name + (m.created.empty() ? "" : ", measured " + m.created) + ")";
  res.fitted.sources[kFitSource] = src;
  for (std::size_t i = 0; i < np; ++i) {
    ParamFit pf;
    const Param& p = params[i];
    pf.key = p.key;
    pf.base = p.base;
    pf.fitted = v1[i];
    pf.lower = p.lower;
    pf.upper = p.upper;
    pf.direct_formula = p.row->direct.text;
    pf.direct = p.direct;
    const auto& bp = base.provenance_of(p.key);
    pf.base_source = bp.source + ", " + to_string(bp.confidence);
    const double span = p.upper - p.lower;
    pf.at_bound = span > 0 && (v1[i] <= p.lower + 1e-9 * span || v1[i] >= p.upper - 1e-9 * span);
    std::vector<double> e0, e1;
    std::string detail;
    if (p.direct) {
      e0.push_back((v0[i] - *p.direct) / *p.direct);
      e1.push_back((v1[i] - *p.direct) / *p.direct);
      detail = "direct " + p.row->direct.text + " = " + fmt(*p.direct) + " (" + pct(e1.back()) + ")";
    }
    std::string ls;
    for (std::size_t l = 0; l < launches.size(); ++l) {
      bool tied = std::any_of(launches[l].results.begin(), launches[l].results.end(), [&](const std::string& r) { return p.launch_results.count(r) > 0; });
      if (!tied) continue;
      pf.launch_ids.push_back(launches[l].spec.id);
      e0.push_back((t0[l] - launches[l].measured_us) / launches[l].measured_us);
      e1.push_back((t1[l] - launches[l].measured_us) / launches[l].measured_us);
      ls += (ls.empty() ? "" : ", ") + launches[l].spec.id + " " + pct(e1.back());
    }
    if (!ls.empty()) detail += (detail.empty() ? "" : "; ") + ("launches " + ls);
    pf.residual_before = rms(e0);
    pf.residual_after = rms(e1);
    res.params.push_back(pf);

    device::Provenance prov;
    prov.source = kFitSource;
    prov.confidence = device::Confidence::Fitted;
    prov.residual = std::round(pf.residual_after * 1e6) / 1e6;
    prov.note = detail + "; base " + fmt(p.base) + " (" + pf.base_source + "), bounds [" + fmt(p.lower) + ", " + fmt(p.upper) + "]" +
                (pf.at_bound ? ", at a bound" : "");
    res.fitted.provenance[p.key] = prov;
  }
  res.simulations = sim.simulations();
  return res;
}

std::string to_text(const CalibrationResult& r) {
  std::ostringstream o;
  char b[512];
  o << "calibrate " << r.base_name << " against " << r.measurement_file
    << (r.measurement_device.empty() ? "" : " (" + r.measurement_device + ")") << "\n\n";
  std::snprintf(b, sizeof b, "%-38s %10s %10s %-22s %10s %17s %17s\n", "parameter", "base", "fitted", "bounds", "direct",
                "direct err", "evidence rms");
  o << b;
  for (const auto& p : r.params) {
    std::string bounds = "[" + fmt(p.lower) + ", " + fmt(p.upper) + "]" + (p.at_bound ? "*" : "");
    std::string derr = p.direct ? pct((p.base - *p.direct) / *p.direct) + " -> " + pct((p.fitted - *p.direct) / *p.direct) : "-";
    std::string rr = pct(p.residual_before).substr(1) + " -> " + pct(p.residual_after).substr(1);
    std::snprintf(b, sizeof b, "%-38s %10s %10s %-22s %10s %17s %17s\n", p.key.c_str(), fmt(p.base).c_str(), fmt(p.fitted).c_str(),
                  bounds.c_str(), p.direct ? fmt(*p.direct).c_str() : "-", derr.c_str(), rr.c_str());
    o << b;
  }
  if (std::any_of(r.params.begin(), r.params.end(), [](const ParamFit& p) { return p.at_bound; }))
    o << "(* the fitted value is on a bound)\n";
  if (!r.launches.empty()) {
    std::snprintf(b, sizeof b, "\n%-36s %-34s %11s %11s %11s %9s %9s\n", "launch", "measures", "measured_us", "before_us",
                  "after_us", "err before", "err after");
    o << b;
    for (const auto& l : r.launches) {
      std::snprintf(b, sizeof b, "%-36s %-34s %11.3f %11.3f %11.3f %9s %9s\n", l.id.c_str(), l.result.c_str(), l.measured_us,
                    l.before_us, l.after_us, pct((l.before_us - l.measured_us) / l.measured_us).c_str(),
                    pct((l.after_us - l.measured_us) / l.measured_us).c_str());
      o << b;
    }
  }
  std::snprintf(b, sizeof b, "\nRMS relative residual %.2f%% -> %.2f%% over %zu parameters and %zu launches; %d iterations (%s), %d simulations\n",
                100 * r.rms_before, 100 * r.rms_after, r.params.size(), r.launches.size(), r.iterations, r.stop_reason.c_str(),
                r.simulations);
  o << b;
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  return o.str();
}

std::string fitted_device_yaml(const CalibrationResult& r) {
  std::string header = r.fitted.name + ": " + r.base_name + " with " + std::to_string(r.params.size()) +
                       (r.params.size() == 1 ? " parameter" : " parameters") + " fitted by `kernsim calibrate` to " + fs::path(r.measurement_file).filename().string() + ".\n" +
                       "Fitted values say `confidence: fitted`, with the RMS relative residual of their evidence.";
  return device::to_device_yaml(r.fitted, header);
}

}  // namespace kernsim::api
