// kernsim._core — the nanobind extension under the Python package: a thin layer over api/embed.h.
//
// Deliberately small (it compiles in seconds): values cross as Python dicts, lists, str and
// bytes; the Python side (python/kernsim/*.py) builds launch specs, maps numpy dtypes and raises
// the exception classes. Every call that simulates or compiles releases the GIL, so Python
// threads and the oneTBB workers of a batch run at the same time.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/devices.h"
#include "api/embed.h"
#include "api/errors.h"
#include "api/launch_spec.h"
#include "api/run.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace kernsim::python {
namespace {

using api::Error;
using api::ErrorKind;

const char* kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return "Usage";
    case ErrorKind::DeviceFile: return "DeviceFile";
    case ErrorKind::LaunchSpec: return "LaunchSpec";
    case ErrorKind::Io: return "Io";
    case ErrorKind::Compile: return "Compile";
    case ErrorKind::Parse: return "Parse";
    case ErrorKind::Unsupported: return "Unsupported";
    case ErrorKind::KernelFault: return "KernelFault";
    case ErrorKind::NotImplemented: return "NotImplemented";
    case ErrorKind::Internal: return "Internal";
  }
  return "Internal";
}

nb::dict kw(std::initializer_list<std::pair<const char*, nb::object>> items) {
  nb::dict d;
  for (const auto& [k, v] : items) d[k] = v;
  return d;
}

nb::dict error_dict(ErrorKind k, const std::string& msg) {
  nb::dict d;
  d["ok"] = false;
  d["error_kind"] = kind_name(k);
  d["error_label"] = std::string(to_string(k));
  d["error"] = msg;
  return d;
}

template <class T>
T get(const nb::dict& d, const char* key, T fallback) {
  return d.contains(key) ? nb::cast<T>(d[key]) : fallback;
}

nb::dict module_dict(const api::ModuleDesc& m) {
  nb::list kernels;
  for (const auto& k : m.kernels) {
    nb::list params;
    for (const auto& p : k.params)
      params.append(kw({{"name", nb::cast(p.name)}, {"type", nb::cast(p.type)}, {"bytes", nb::cast(p.bytes)}, {"is_pointer", nb::cast(p.is_pointer)}, {"is_aggregate", nb::cast(p.is_aggregate)}}));
    const auto& r = k.resources;
    nb::dict res = kw({{"registers", nb::cast(r.registers)}, {"agprs", nb::cast(r.agprs)}, {"sgprs", nb::cast(r.sgprs)},
                       {"static_shared_bytes", nb::cast(k.static_shared_bytes)}, {"local_bytes", nb::cast(r.local_bytes)},
                       {"spill_stores", nb::cast(r.spill_stores)}, {"spill_loads", nb::cast(r.spill_loads)},
                       {"source", nb::cast(r.source)}});
    kernels.append(kw({{"name", nb::cast(k.name)}, {"demangled", nb::cast(k.demangled)}, {"params", nb::cast(params)}, {"resources", nb::cast(res)}, {"reqntid", nb::cast(nb::make_tuple(k.reqntid[0], k.reqntid[1], k.reqntid[2]))}, {"maxntid", nb::cast(nb::make_tuple(k.maxntid[0], k.maxntid[1], k.maxntid[2]))}}));
  }
  nb::list warnings;
  for (const auto& w : m.warnings)
    warnings.append(kw({{"name", nb::cast(w.name)}, {"file", nb::cast(w.file)}, {"line", nb::cast(w.line)}, {"code", nb::cast(w.code)}, {"message", nb::cast(w.message)}}));
  return kw({{"source", nb::cast(m.source.string())}, {"target", nb::cast(m.target)}, {"producer", nb::cast(m.producer)}, {"isa", nb::cast(m.isa)}, {"text", nb::cast(m.text)}, {"from_cache", nb::cast(m.from_cache)}, {"kernels", nb::cast(kernels)}, {"port", nb::cast(m.port)}, {"warnings", nb::cast(warnings)}});
}

// jobs: list of (source path, target[, compile object as JSON text]) tuples.
nb::list describe_modules(const nb::list& jobs, int workers) {
  std::vector<api::CompileJob> cj;
  for (nb::handle h : jobs) {
    nb::tuple t = nb::cast<nb::tuple>(h);
    api::CompileJob j{nb::cast<std::string>(t[0]), nb::cast<std::string>(t[1]), {}};
    if (nb::len(t) > 2) {
      try {
        j.compile = api::parse_compile_settings_text(nb::cast<std::string>(t[2]), ".", "compile settings");
      } catch (const Error& e) {  // a bad setting fails the whole call, as a bad argument does
        nb::list out;
        out.append(error_dict(e.kind(), e.what()));
        return out;
      }
    }
    cj.push_back(std::move(j));
  }
  std::vector<api::CompileResult> res;
  {
    nb::gil_scoped_release release;
    res = api::describe_modules(cj, workers);
  }
  nb::list out;
  for (const auto& r : res) {
    if (!r.ok) {
      out.append(error_dict(r.error_kind, r.error));
      continue;
    }
    nb::dict d;
    d["ok"] = true;
    d["module"] = module_dict(r.module);
    out.append(d);
  }
  return out;
}

// jobs: list of dicts {spec_json, base_dir, origin | spec_path, host: {arg_index: bytes}, arch, device_file,
// full, keep_outputs, sampled_outputs, max_instructions, wall_time_limit_s, tier, check_all, cache}.
nb::list run_jobs(const nb::list& jobs, int workers) {
  std::vector<api::Job> js;
  std::vector<std::pair<bool, std::pair<ErrorKind, std::string>>> early(nb::len(jobs), {false, {ErrorKind::Internal, ""}});
  std::vector<std::size_t> index;  // jobs[i] -> js index
  std::size_t i = 0;
  for (nb::handle h : jobs) {
    nb::dict d = nb::cast<nb::dict>(h);
    try {
      api::Job j;
      if (d.contains("spec_path"))  // a launch-spec file: exactly the CLI's parsing and messages
        j.spec = api::parse_launch_spec(nb::cast<std::string>(d["spec_path"]));
      else
        j.spec = api::parse_launch_spec_text(nb::cast<std::string>(d["spec_json"]), get<std::string>(d, "base_dir", "."),
                                             get<std::string>(d, "origin", "launch spec"));
      if (d.contains("host")) {
        nb::dict host = nb::cast<nb::dict>(d["host"]);
        for (auto [k, v] : host) {
          std::size_t a = nb::cast<std::size_t>(k);
          if (a >= j.spec.args.size() || !j.spec.args[a].is_buffer)
            throw Error(ErrorKind::Internal, "host data for argument " + std::to_string(a) + ", which is not a buffer");
          nb::bytes b = nb::cast<nb::bytes>(v);
          const auto* p = static_cast<const std::uint8_t*>(b.data());
          auto bytes = std::make_shared<std::vector<std::uint8_t>>(p, p + b.size());
          j.spec.args[a].buffer.init.kind = api::Init::Kind::Host;
          j.spec.args[a].buffer.init.text = "host";
          j.spec.args[a].buffer.init.host = std::move(bytes);
        }
      }
      j.arch = get<std::string>(d, "arch", "h200");
      j.device_file = get<std::string>(d, "device_file", "");
      j.options.full = get<bool>(d, "full", false);
      j.options.keep_outputs = get<bool>(d, "keep_outputs", false);
      j.options.sampled_outputs = get<bool>(d, "sampled_outputs", false);
      j.options.check_all = get<bool>(d, "check_all", false);
      j.options.max_instructions = get<std::uint64_t>(d, "max_instructions", 0);
      j.options.wall_time_limit_s = get<double>(d, "wall_time_limit_s", 0.0);
      j.options.tier = api::parse_tier(get<std::string>(d, "tier", "detailed"), "tier");
      j.options.cache = api::parse_cache(get<std::string>(d, "cache", "cold"), "cache");
      index.push_back(js.size());
      js.push_back(std::move(j));
    } catch (const Error& e) {
      early[i] = {true, {e.kind(), e.what()}};
      index.push_back(static_cast<std::size_t>(-1));
    }
    ++i;
  }
  std::vector<api::JobResult> res;
  {
    nb::gil_scoped_release release;
    res = api::run_jobs(js, workers);
  }
  nb::list out;
  for (std::size_t n = 0; n < index.size(); ++n) {
    if (early[n].first) {
      out.append(error_dict(early[n].second.first, early[n].second.second));
      continue;
    }
    const api::JobResult& r = res[index[n]];
    if (!r.ok) {
      nb::dict d = error_dict(r.error_kind, r.error);
      d["wall_s"] = r.wall_s;
      out.append(d);
      continue;
    }
    nb::dict outputs;
    for (const auto& o : r.result.outputs)
      outputs[nb::int_(o.arg_index)] = nb::bytes(reinterpret_cast<const char*>(o.bytes.data()), o.bytes.size());
    out.append(kw({{"ok", nb::cast(true)}, {"kernel", nb::cast(r.result.kernel)}, {"arch", nb::cast(r.result.arch)}, {"time_us", nb::cast(r.result.time_us)}, {"cycles", nb::cast(r.result.cycles)}, {"report_json", nb::cast(r.result.report_json)}, {"report_text", nb::cast(r.result.report_text)}, {"outputs", nb::cast(outputs)}, {"wall_s", nb::cast(r.wall_s)}}));
  }
  return out;
}

nb::object source_from_text(nb::bytes text, const std::string& ext) {
  try {
    return nb::str(api::source_from_text(std::string_view(static_cast<const char*>(text.data()), text.size()), ext).c_str());
  } catch (const Error& e) {
    return error_dict(e.kind(), e.what());
  }
}

nb::dict device_info(const std::string& arch, const std::string& file) {
  try {
    api::DeviceSpec d = api::load_device(arch, file);
    nb::dict out;
    out["ok"] = true;
    out["name"] = d.name;
    out["vendor"] = std::string(to_string(d.vendor));
    out["isa_target"] = d.isa_target;
    out["description"] = d.description;
    out["units"] = d.sm.count;
    out["warp_size"] = d.sm.warp_size;
    out["clock_mhz"] = d.clocks.core_mhz;
    out["max_threads_per_block"] = d.limits.max_threads_per_block;
    out["max_shared_per_block_bytes"] = d.limits.max_shared_per_block_bytes;
    return out;
  } catch (const Error& e) {
    return error_dict(e.kind(), e.what());
  }
}

nb::list builtin_devices() {
  nb::list l;
  for (const auto& n : api::builtin_device_names()) l.append(nb::str(n.c_str()));
  return l;
}

}  // namespace
}  // namespace kernsim::python

NB_MODULE(_core, m) {
  using namespace kernsim::python;
  m.doc() = "kernsim's C++ core; use the `kernsim` package, not this module.";
  m.def("version", [] { return kernsim::api::version(); });
  m.def("source_dir", [] { return std::string(KERNSIM_SOURCE_DIR); });
  m.def("describe_modules", &describe_modules, "jobs"_a, "workers"_a);
  m.def("run_jobs", &run_jobs, "jobs"_a, "workers"_a);
  m.def("source_from_text", &source_from_text, "text"_a, "ext"_a);
  m.def("device_info", &device_info, "arch"_a, "file"_a);
  m.def("builtin_devices", &builtin_devices);
}
