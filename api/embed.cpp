// In-memory sources, module descriptions and parallel batches for embedders; see embed.h.
#include "api/embed.h"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <unistd.h>

#include "api/target.h"
#include "base/files.h"
#include "base/hash.h"
#include "device/loader.h"
#include "frontends/source_key.h"

namespace kernsim::api {
namespace fs = std::filesystem;

fs::path source_from_text(std::string_view text, std::string_view extension) {
  if (extension.empty() || extension[0] != '.')
    throw Error(ErrorKind::Usage, "source_from_text: the extension must start with a dot, got `" + std::string(extension) + "`");
  const std::string hash = sha256_hex(text);
  // The directory is named by the text without comments and extra whitespace (for C-like
  // sources), so that a resubmission that edits only those lands beside the original: the
  // compile cache keys on the source's directory (its quoted includes), and on that form of the text.
  const bool c_like = extension == ".cu" || extension == ".hip";
  const std::string dir = c_like ? sha256_hex(frontends::normalize_for_cache_key(text)) : hash;
  const fs::path path = cache_dir() / "sources" / dir.substr(0, 2) / (hash + std::string(extension));
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) == text.size()) return path;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(ErrorKind::Io, "cannot create " + path.parent_path().string() + ": " + ec.message());
  // A name unique to this process and thread: two threads may store the same text at once.
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw Error(ErrorKind::Io, "cannot write " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) throw Error(ErrorKind::Io, "cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  return path;
}

ModuleDesc describe_module(const fs::path& source, const std::string& target, const CompileSettings& settings) {
  const Target& t = target_for(target);
  frontends::DeviceModule m = t.compile(source, target, settings);
  ModuleDesc d;
  d.source = source;
  d.target = m.target;
  d.producer = m.producer;
  d.isa = m.kind == frontends::IsaKind::Ptx ? "ptx" : "amdgcn";
  d.from_cache = m.from_cache;
  d.kernels = t.describe(m);
  d.port = m.port;
  d.warnings = m.warnings;
  d.text = std::move(m.text);
  return d;
}

device::DeviceSpec load_device(const std::string& arch, const std::string& file) {
  std::optional<std::string> a, f;
  if (!file.empty()) f = file;
  else a = arch;
  return device::resolve_device(a, f);
}

namespace {

template <class Fn>
void for_each_parallel(std::size_t n, int workers, Fn&& fn) {
  if (workers <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  tbb::task_arena arena(workers);
  // grain 1: launches differ in cost by orders of magnitude
  arena.execute([&] { tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1), [&](const auto& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i) fn(i);
                      }); });
}

template <class R>
void record_error(R& r, const std::exception& e) {
  if (const auto* ke = dynamic_cast<const Error*>(&e)) {
    r.error_kind = ke->kind();
    r.error = ke->what();
  } else {
    r.error_kind = ErrorKind::Internal;
    r.error = e.what();
  }
}

}  // namespace

std::vector<JobResult> run_jobs(const std::vector<Job>& jobs, int workers) {
  std::vector<JobResult> out(jobs.size());
  // Devices once per batch, serially (the loader reads files); a device that fails to load fails
  // only the jobs that name it.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<device::DeviceSpec>> devices;
  std::map<std::pair<std::string, std::string>, std::pair<ErrorKind, std::string>> device_errors;
  for (const auto& j : jobs) {
    auto key = std::make_pair(j.arch, j.device_file);
    if (devices.count(key) || device_errors.count(key)) continue;
    try {
      devices[key] = std::make_shared<device::DeviceSpec>(load_device(j.arch, j.device_file));
    } catch (const Error& e) {
      device_errors[key] = {e.kind(), e.what()};
    }
  }
  for_each_parallel(jobs.size(), workers, [&](std::size_t i) {
    const Job& j = jobs[i];
    JobResult& r = out[i];
    auto key = std::make_pair(j.arch, j.device_file);
    if (auto it = device_errors.find(key); it != device_errors.end()) {
      r.error_kind = it->second.first;
      r.error = it->second.second;
      return;
    }
    auto t0 = std::chrono::steady_clock::now();
    try {
      r.result = run_launch(j.spec, *devices.at(key), j.options);
      r.ok = true;
    } catch (const std::exception& e) {
      record_error(r, e);
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  return out;
}

std::vector<CompileResult> describe_modules(const std::vector<CompileJob>& jobs, int workers) {
  std::vector<CompileResult> out(jobs.size());
  // Distinct (source, target, settings) compile once: two threads must not compile the same source.
  std::map<std::pair<std::string, std::string>, std::size_t> first;
  std::vector<std::size_t> distinct;
  std::vector<std::size_t> same_as(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    std::string key = jobs[i].target;
    for (const auto& f : clang_flags(jobs[i].compile)) key += '\0' + f;
    auto [it, inserted] = first.emplace(std::make_pair(jobs[i].source.string(), key), i);
    if (inserted) distinct.push_back(i);
    same_as[i] = it->second;
  }
  for_each_parallel(distinct.size(), workers, [&](std::size_t d) {
    std::size_t i = distinct[d];
    CompileResult& r = out[i];
    try {
      r.module = describe_module(jobs[i].source, jobs[i].target, jobs[i].compile);
      r.ok = true;
    } catch (const std::exception& e) {
      record_error(r, e);
    }
  });
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (same_as[i] != i) out[i] = out[same_as[i]];
  return out;
}

}  // namespace kernsim::api
