// The `kernsim` command line: a thin driver over kernsim::api.
//
//   kernsim run SPEC.json (--arch NAME | --device FILE) [--json] [--full] [--dump-buffers DIR] [--trace FILE]
//   kernsim devices [--schema]
//   kernsim device NAME|--device FILE        (every value with its provenance)
//   kernsim calibrate MEASUREMENT.json --base NAME|FILE [-o OUT.yaml] [--params a.b,c.d] [--specs DIR]
//   kernsim --version
//
// Exit codes: 0 success, 2 usage, 3 bad input (spec, device file, i/o), 4 compile/parse error,
// 5 unsupported or not implemented, 6 kernel fault, 70 internal error.
#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/calibrate.h"
#include "api/compile.h"
#include "api/devices.h"
#include "api/errors.h"
#include "api/files.h"
#include "api/fit_fast.h"
#include "api/launch_spec.h"
#include "api/run.h"
#include "api/validate.h"

namespace {

namespace api = kernsim::api;
using api::Error;
using api::ErrorKind;

const char* kUsage =
    "usage:\n"
    "  kernsim run SPEC.json [--arch NAME | --device FILE] [--json] [--full] [--check-all] [--dump-buffers DIR]\n"
    "                        [--max-instructions N] [--time-limit SECONDS] [--trace FILE] [--plot FILE.svg] [--tier detailed|fast]\n"
    "                        [--cache cold|cold-dirty|warm]\n"
    "                                  --cache warm: the L2 (AMD: the L2s and MALL) starts as a previous\n"
    "                                  run of the launch left it (back-to-back trials without a flush;\n"
    "                                  detailed tier);\n"
    "                                  cold (the default) flushes it before the launch by reading;\n"
    "                                  cold-dirty flushes it by writing (KernelBench): full of dirty lines\n"
    "                                  the launch writes back (NVIDIA, detailed tier; cold on AMD)\n"
    "                                  --tier fast: an analytical time from a functional sample of a few\n"
    "                                  CTAs, in milliseconds (NVIDIA parts; no outputs; docs/validation.md)\n"
    "                                  --check-all runs the blocks sampling does not time (untimed), so a\n"
    "                                  fault or endless loop in any block is found\n"
    "                                  --time-limit stops the simulation after SECONDS of wall time\n"
    "                                  (default 120, 0 for none; docs/limits.md)\n"
    "                                  --json adds `by_pc` (issues and stall cycles per instruction);\n"
    "                                  --trace writes a Chrome/Perfetto trace of the timed window\n"
    "                                  --plot roofline.svg | timeline.svg (or KIND=PATH, repeatable): the launch on the\n"
    "                                  part's roofline, CTAs over time (docs/report.md)\n"
    "                                  (open it in ui.perfetto.dev)\n"
    "  compile options (run, compile, list; added to the spec's `compile`):\n"
    "    -I DIR  -D NAME[=VALUE]  --std c++20  --flag X\n"
    "  kernsim validate DIR [--arch NAME | --device FILE] [--measured CSV] [--json] [--threads N]\n"
    "                        [--only SUBSTRING] [--tier detailed|fast] [--time-limit SECONDS]\n"
    "                                  predicted vs measured times for every launch spec under DIR\n"
    "  kernsim calibrate MEASUREMENT.json --base NAME|FILE [-o OUT.yaml] [--params KEY,KEY...]\n"
    "                        [--specs DIR] [--range F] [--max-iterations N] [--threads N] [--no-launches]\n"
    "                        [--name NAME]\n"
    "                                  fit a device file's parameters to a microbenchmark measurement\n"
    "  kernsim fit-fast (--specs DIR --measured CSV)... [--arch NAME | --device FILE] [-o OUT.yaml]\n"
    "                        [--threads N]\n"
    "                                  fit the fast tier's coefficients (fast.*) to measured launches\n"
    "  kernsim list FILE [--arch NAME]  the kernels a source file defines, with parameters and resources\n"
    "  kernsim spec FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arch NAME] [-o OUT.json]\n"
    "                                  a starter launch spec for a kernel of FILE, on stdout or in OUT (its buffer\n"
    "                                  counts and values are placeholders; docs/launch_spec.md)\n"
    "  kernsim compile FILE [--arch NAME] [-o OUT]\n"
    "                                  the ISA kernsim simulates for FILE (PTX for NVIDIA parts)\n"
    "  kernsim devices [--schema]      list the built-in devices (or the device-file schema)\n"
    "  kernsim device (NAME | --device FILE) [--json]\n"
    "                                  print a device with the provenance of every value\n"
    "  kernsim --version\n";

struct Args {
  std::vector<std::string> positional;
  std::optional<std::string> arch, device_file, dump_dir, measured, only, output, trace, tier, cache;
  std::optional<std::string> base, params, specs, name;  // calibrate
  std::optional<std::string> kernel, grid, block;        // spec
  std::vector<std::pair<std::string, std::string>> fit_sets;  // fit-fast: --specs DIR --measured CSV pairs
  std::vector<std::string> plots;  // --plot roofline.svg / timeline.svg / KIND=PATH
  std::optional<double> range;
  std::optional<int> max_iterations;
  int threads = 0;
  bool json = false, full = false, check_all = false, schema = false, no_launches = false;
  std::uint64_t max_instructions = 0;
  api::CompileSettings compile;  // -I -D --std --flag, added to the spec's
  std::optional<double> time_limit;  // seconds; unset: api::kDefaultWallTimeLimitS
};

// -I DIR, -D NAME[=VALUE], --std STD, --flag X (also -IDIR, -DNAME=V): true if argv[i] was one.
bool parse_compile_arg(int argc, char** argv, int& i, api::CompileSettings& c) {
  const std::string s = argv[i];
  auto value = [&](const std::string& flag, std::size_t glued) -> std::string {
    if (s.size() > glued) return s.substr(glued);
    if (i + 1 >= argc) throw Error(ErrorKind::Usage, flag + " needs a value");
    return argv[++i];
  };
  if (s.rfind("-I", 0) == 0) {
    const std::string d = value("-I", 2);
    std::error_code ec;
    if (!std::filesystem::is_directory(d, ec)) throw Error(ErrorKind::Usage, "-I " + d + ": not a directory");
    c.include_dirs.push_back(std::filesystem::absolute(d).lexically_normal());
  } else if (s.rfind("-D", 0) == 0) {
    const std::string d = value("-D", 2);
    const auto eq = d.find('=');
    const std::string name = d.substr(0, eq);
    api::check_define_name(name, "-D");
    c.defines.push_back({name, eq == std::string::npos ? std::nullopt : std::optional<std::string>(d.substr(eq + 1))});
  } else if (s == "--std" || s.rfind("--std=", 0) == 0) {
    c.std = value("--std", s == "--std" ? s.size() : 6);
    api::check_std(c.std, "--std");
  } else if (s == "--flag" || s.rfind("--flag=", 0) == 0) {
    const std::string f = value("--flag", s == "--flag" ? s.size() : 7);
    api::check_flag(f, "--flag");
    c.flags.push_back(f);
  } else {
    return false;
  }
  return true;
}

Args parse_args(int argc, char** argv, int first) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) throw Error(ErrorKind::Usage, std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (parse_compile_arg(argc, argv, i, a.compile)) continue;
    if (s == "--arch") a.arch = value("--arch");
    else if (s == "--device") a.device_file = value("--device");
    else if (s == "--dump-buffers") a.dump_dir = value("--dump-buffers");
    else if (s == "--trace") a.trace = value("--trace");
    else if (s == "--plot") a.plots.push_back(value("--plot"));
    else if (s == "--tier") a.tier = value("--tier");
    else if (s == "--cache") a.cache = value("--cache");
    else if (s == "--measured") {
      a.measured = value("--measured");
      if (a.specs) a.fit_sets.push_back({*a.specs, *a.measured});
    }
    else if (s == "-o" || s == "--output") a.output = value("-o");
    else if (s == "--only") a.only = value("--only");
    else if (s == "--base") a.base = value("--base");
    else if (s == "--params") a.params = value("--params");
    else if (s == "--specs") a.specs = value("--specs");
    else if (s == "--name") a.name = value("--name");
    else if (s == "--kernel") a.kernel = value("--kernel");
    else if (s == "--grid") a.grid = value("--grid");
    else if (s == "--block") a.block = value("--block");
    else if (s == "--no-launches") a.no_launches = true;
    else if (s == "--range") {
      std::string v = value("--range");
      try { a.range = std::stod(v); } catch (...) { throw Error(ErrorKind::Usage, "--range needs a number, got " + v); }
    } else if (s == "--max-iterations") {
      std::string v = value("--max-iterations");
      try { a.max_iterations = std::stoi(v); } catch (...) { throw Error(ErrorKind::Usage, "--max-iterations needs a number, got " + v); }
    }
    else if (s == "--threads") {
      std::string v = value("--threads");
      try { a.threads = std::stoi(v); } catch (...) { throw Error(ErrorKind::Usage, "--threads needs a number, got " + v); }
    }
    else if (s == "--json") a.json = true;
    else if (s == "--full") a.full = true;
    else if (s == "--check-all") a.check_all = true;
    else if (s == "--schema") a.schema = true;
    else if (s == "--time-limit") {
      std::string v = value("--time-limit");
      double t = -1;
      try { t = std::stod(v); } catch (...) {}
      if (!(t >= 0)) throw Error(ErrorKind::Usage, "--time-limit needs a number of seconds (0 for none), got " + v);
      a.time_limit = t;
    }
    else if (s == "--max-instructions") {
      std::string v = value("--max-instructions");
      try { a.max_instructions = std::stoull(v); } catch (...) { throw Error(ErrorKind::Usage, "--max-instructions needs a positive integer, got " + v); }
    } else if (s.size() > 1 && s[0] == '-') throw Error(ErrorKind::Usage, "unknown option " + s);
    else a.positional.push_back(s);
  }
  return a;
}

// A kernel source where a launch spec belongs: say what run wants and how to write it.
void refuse_source(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* src : {".cu", ".hip", ".cpp", ".ptx", ".ll", ".bc", ".s", ".hsaco", ".co", ".py", ".cuh", ".h"})
    if (ext == src)
      throw Error(ErrorKind::Usage, "run takes a launch spec (JSON: the source, kernel, grid, block and arguments; docs/launch_spec.md), not a "
                                    "kernel source: `" + path + "`. Write a starter spec with\n  kernsim spec " + path +
                                    " --kernel NAME --grid X --block X > launch.json\n(`kernsim list " + path +
                                    "` shows its kernels), set its buffer counts and values, and run `kernsim run launch.json`");
}

// "4096", "64,2", "64x2x1" -> {x, y, z}
std::array<std::int64_t, 3> dims_arg(const std::optional<std::string>& v, const char* flag) {
  if (!v) throw Error(ErrorKind::Usage, std::string("spec needs ") + flag + " X[,Y[,Z]]");
  std::array<std::int64_t, 3> d{1, 1, 1};
  std::size_t n = 0, pos = 0;
  const std::string& s = *v;
  while (pos <= s.size()) {
    const std::size_t end = s.find_first_of(",x", pos);
    const std::string part = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (n == 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 10 || std::stoll(part) <= 0)
      throw Error(ErrorKind::Usage, std::string(flag) + " needs 1 to 3 positive integers (X[,Y[,Z]]), got `" + s + "`");
    d[n++] = std::stoll(part);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return d;
}

int cmd_spec(const Args& a) {
  if (a.positional.size() != 1) throw Error(ErrorKind::Usage, "spec needs exactly one source FILE");
  if (!a.kernel) throw Error(ErrorKind::Usage, "spec needs --kernel NAME (`kernsim list " + a.positional[0] + "` shows the kernels)");
  const auto grid = dims_arg(a.grid, "--grid"), block = dims_arg(a.block, "--block");
  auto dev = api::resolve_device(a.arch, a.device_file);
  if (!a.output) {
    std::cout << api::starter_spec(a.positional[0], dev, *a.kernel, grid, block, a.compile);
    return 0;
  }
  // -o: the spec's `source` relative to where the spec is written
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(*a.output).parent_path();
  const std::string rel = fs::absolute(a.positional[0]).lexically_normal().lexically_relative(dir.lexically_normal()).string();
  api::write_file_atomic(*a.output, api::starter_spec(a.positional[0], dev, *a.kernel, grid, block, a.compile, rel));
  std::fprintf(stderr, "kernsim: wrote %s\n", a.output->c_str());
  return 0;
}

int cmd_run(const Args& a) {
  if (a.positional.size() != 1) throw Error(ErrorKind::Usage, "run needs exactly one SPEC.json");
  refuse_source(a.positional[0]);
  auto dev = api::resolve_device(a.arch, a.device_file);
  auto spec = api::parse_launch_spec(a.positional[0]);
  spec.compile.add(a.compile);
  api::RunOptions opts;
  opts.full = a.full;
  opts.check_all = a.check_all;
  if (a.dump_dir) opts.dump_dir = *a.dump_dir;
  if (a.trace) opts.trace_path = *a.trace;
  for (const std::string& p : a.plots) {
    // KIND=PATH, or a path whose file name starts with the kind (roofline.svg, timeline_k.svg)
    const std::size_t eq = p.find('=');
    const std::string path = eq == std::string::npos ? p : p.substr(eq + 1);
    const std::string kind = eq == std::string::npos ? std::filesystem::path(p).filename().string() : p.substr(0, eq);
    if (kind.rfind("roofline", 0) == 0) opts.roofline_path = path;
    else if (kind.rfind("timeline", 0) == 0) opts.timeline_path = path;
    else
      throw Error(ErrorKind::Usage, "--plot " + p + ": which plot? name the file roofline*.svg or timeline*.svg, or write roofline=PATH / timeline=PATH");
  }
  opts.max_instructions = a.max_instructions;
  if (a.time_limit) opts.wall_time_limit_s = *a.time_limit;
  if (a.tier) opts.tier = api::parse_tier(*a.tier, "--tier");
  if (!a.plots.empty() && opts.tier == api::Tier::Fast) throw Error(ErrorKind::Usage, "--plot needs the detailed tier (the fast tier times no CTAs)");
  if (a.cache) opts.cache = api::parse_cache(*a.cache, "--cache");
  auto r = api::run_launch(spec, dev, opts);
  if (a.json) std::cout << r.report_json << "\n";
  else std::cout << r.report_text;
  return 0;
}

int cmd_validate(const Args& a) {
  if (a.positional.size() != 1) throw Error(ErrorKind::Usage, "validate needs exactly one directory of launch specs");
  auto dev = api::resolve_device(a.arch, a.device_file);
  std::string csv = a.measured ? *a.measured
                               : (api::data_dir() / "calibration" / "data" / dev.name / "validation_measured.csv").string();
  int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto s = api::validate(a.positional[0], csv, dev, threads, a.only.value_or(""), a.tier ? api::parse_tier(*a.tier, "--tier") : api::Tier::Detailed,
                         a.time_limit.value_or(-1));
  if (a.json) std::cout << api::to_json(s, dev.name) << "\n";
  else std::cout << api::to_text(s);
  return 0;
}

int cmd_fit_fast(const Args& a) {
  if (a.fit_sets.empty()) throw Error(ErrorKind::Usage, "fit-fast needs at least one --specs DIR --measured CSV pair");
  auto dev = api::resolve_device(a.arch, a.device_file);
  std::vector<api::FastFitSet> sets;
  for (const auto& [d, c] : a.fit_sets) sets.push_back({d, c});
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto r = api::fit_fast(sets, dev, threads);
  std::cout << api::to_text(r);
  const std::string yaml = api::fitted_fast_yaml(r, sets);
  if (a.output) {
    api::write_file_atomic(*a.output, yaml);
    std::printf("wrote %s\n", a.output->c_str());
  } else {
    std::cout << yaml;
  }
  return 0;
}

int cmd_calibrate(const Args& a) {
  if (a.positional.size() != 1) throw Error(ErrorKind::Usage, "calibrate needs exactly one MEASUREMENT.json");
  if (a.base && (a.arch || a.device_file)) throw Error(ErrorKind::Usage, "give --base, or --arch/--device, not both");
  api::DeviceSpec base;
  if (a.base) {
    const std::string& b = *a.base;
    bool is_file = b.find('/') != std::string::npos || b.ends_with(".yaml") || b.ends_with(".yml");
    base = is_file ? api::load_device_file(b) : api::load_builtin_device(b);
  } else if (a.arch || a.device_file) {
    base = api::resolve_device(a.arch, a.device_file);
  } else {
    throw Error(ErrorKind::Usage, "calibrate needs --base NAME|FILE (the device file to start from)");
  }
  api::CalibrateOptions o;
  if (a.params) {
    std::string cur;
    for (char c : *a.params + ",") {
      if (c == ',') {
        if (!cur.empty()) o.params.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur += c;
      }
    }
    if (o.params.empty()) throw Error(ErrorKind::Usage, "--params needs at least one device key");
  }
  if (a.specs) o.specs_dir = *a.specs;
  if (a.range) o.range = *a.range;
  if (a.max_iterations) o.max_iterations = *a.max_iterations;
  if (a.name) o.name = *a.name;
  else if (a.output) o.name = std::filesystem::path(*a.output).stem().string();
  o.launches = !a.no_launches;
  o.progress = [](const std::string& line) { std::fprintf(stderr, "kernsim calibrate: %s\n", line.c_str()); };
  o.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto m = api::read_measurement(a.positional[0]);
  auto r = api::calibrate(m, base, o);
  std::cout << api::to_text(r);
  if (a.output) {
    api::write_file_atomic(*a.output, api::fitted_device_yaml(r));
    api::load_device_file(*a.output);  // what we wrote must load
    std::printf("wrote %s\n", a.output->c_str());
  } else {
    std::printf("(no -o: nothing written)\n");
  }
  return 0;
}

std::filesystem::path source_arg(const Args& a, const char* what) {
  if (a.positional.size() != 1) throw Error(ErrorKind::Usage, std::string(what) + " needs exactly one source FILE");
  return a.positional[0];
}

int cmd_compile(const Args& a) {
  const auto source = source_arg(a, "compile");
  auto dev = api::resolve_device(a.arch, a.device_file);
  // -o writes what kernsim simulates (PTX, the AMD code object); stdout gets it as text
  auto c = api::compile_source(source, dev, a.output ? api::CompileOutput::Object : api::CompileOutput::Text,
                              a.compile);
  if (a.output) {
    api::write_file_atomic(*a.output, c.bytes);
    std::fprintf(stderr, "kernsim: wrote %s (%s, %s)\n", a.output->c_str(), c.target.c_str(), c.producer.c_str());
  } else {
    std::cout << c.bytes;
  }
  return 0;
}

int cmd_list(const Args& a) {
  const auto source = source_arg(a, "list");
  auto dev = api::resolve_device(a.arch, a.device_file);
  std::fputs(api::kernel_listing(source, dev, a.compile).c_str(), stdout);
  return 0;
}

int cmd_devices(const Args& a) {
  if (a.schema) {
    std::printf("%-40s %-7s %-12s %-7s %-4s %s\n", "key", "type", "unit", "vendor", "req", "description");
    for (const auto& r : api::device_schema())
      std::printf("%-40s %-7s %-12s %-7s %-4s %s\n", r.key.c_str(), r.type.c_str(), r.unit.c_str(), r.vendors.c_str(),
                  r.required ? "yes" : "no", r.description.c_str());
    return 0;
  }
  std::printf("%-8s %-7s %-8s %6s %9s  %s\n", "name", "vendor", "isa", "units", "clock_MHz", "description");
  for (const auto& n : api::builtin_device_names()) {
    auto d = api::load_builtin_device(n);
    std::printf("%-8s %-7s %-8s %6lld %9.0f  %s\n", n.c_str(), to_string(d.vendor), d.isa_target.c_str(),
                static_cast<long long>(d.sm.count), d.clocks.core_mhz, d.description.c_str());
  }
  return 0;
}

int cmd_device(const Args& a) {
  std::optional<std::string> arch = a.arch;
  if (!arch && !a.device_file && !a.positional.empty()) arch = a.positional[0];
  if (!arch && !a.device_file) throw Error(ErrorKind::Usage, "device needs a NAME or --device FILE");
  auto d = api::resolve_device(arch, a.device_file);
  if (a.json) {  // every value with its provenance, for scripts (scripts/estimated_params.py)
    nlohmann::json j = {{"name", d.name}, {"vendor", to_string(d.vendor)}, {"description", d.description}, {"sources", d.sources}};
    for (const auto& [key, p] : d.provenance) {
      nlohmann::json v = {{"value", nlohmann::json::parse(api::value_as_yaml(d, key), nullptr, false)},
                          {"source", p.source}, {"confidence", to_string(p.confidence)}, {"note", p.note}};
      if (v["value"].is_discarded()) v["value"] = api::value_as_yaml(d, key);
      if (p.residual) v["residual"] = *p.residual;
      j["values"][key] = v;
    }
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  std::printf("%s (%s, %s): %s\n", d.name.c_str(), to_string(d.vendor), d.isa_target.c_str(), d.description.c_str());
  for (const auto& [key, p] : d.provenance) {
    std::string src = p.source;
    if (auto it = d.sources.find(src); it != d.sources.end()) src += " = " + it->second;
    // the value beside its provenance (issue 18, item 4), as the file would write it
    std::printf("  %-40s %-14s %-10s %s%s%s\n", key.c_str(), api::value_as_yaml(d, key).c_str(), to_string(p.confidence), src.c_str(),
                p.note.empty() ? "" : "  -- ", p.note.c_str());
  }
  auto h = d.confidence_histogram();
  std::printf("confidence: documented %d, measured %d, published-measurement %d, estimated %d, fitted %d\n",
              h[api::Confidence::Documented], h[api::Confidence::Measured],
              h[api::Confidence::PublishedMeasurement], h[api::Confidence::Estimated], h[api::Confidence::Fitted]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::fputs(kUsage, stderr);
      return 2;
    }
    std::string cmd = argv[1];
    if (cmd == "--version" || cmd == "version") {
      std::printf("kernsim %s\n", api::version().c_str());
      return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {  // `kernsim run --help`
        std::fputs(kUsage, stdout);
        return 0;
      }
    Args a = parse_args(argc, argv, 2);
    if (cmd == "run") return cmd_run(a);
    if (cmd == "devices") return cmd_devices(a);
    if (cmd == "validate") return cmd_validate(a);
    if (cmd == "compile") return cmd_compile(a);
    if (cmd == "list") return cmd_list(a);
    if (cmd == "spec") return cmd_spec(a);
    if (cmd == "device") return cmd_device(a);
    if (cmd == "calibrate") return cmd_calibrate(a);
    if (cmd == "fit-fast") return cmd_fit_fast(a);
    throw Error(ErrorKind::Usage, "unknown command `" + cmd + "`\n" + kUsage);
  } catch (const Error& e) {
    std::fprintf(stderr, "kernsim: %s: %s\n", std::string(to_string(e.kind())).c_str(), e.what());
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernsim: internal error: %s\n", e.what());
    return 70;
  }
}
