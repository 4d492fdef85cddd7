// The expected error band of a prediction, read from the part's residual file (error_band.h).
#include "api/error_band.h"

#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "base/files.h"

namespace kernsim::api {
namespace {

namespace fs = std::filesystem;

double number(const nlohmann::json& j, const char* key, const fs::path& file, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number())
    throw Error(ErrorKind::DeviceFile, file.string() + ": " + where + "." + key + " must be a number");
  return j[key].get<double>();
}

}  // namespace

void add_error_band(nlohmann::json& report, const std::string& part, const std::string& tier) {
  const fs::path file = data_dir() / "calibration" / "error_bands" / (part + ".json");
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    report["error_band"] = nullptr;
    report["error_band_source"] = {
        {"why", "no validation residuals for part `" + part + "` (calibration/error_bands/" + part + ".json)"}};
    return;
  }
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(read_file(file, "error band file"));
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorKind::DeviceFile, file.string() + ": not JSON: " + e.what());
  }
  if (!data.contains("tiers") || !data["tiers"].is_object() || !data["tiers"].contains(tier)) {
    report["error_band"] = nullptr;
    report["error_band_source"] = {{"why", "no validation residuals for the " + tier + " tier on `" + part + "` (" +
                                               file.filename().string() + ")"}};
    return;
  }
  const nlohmann::json& t = data["tiers"][tier];
  if (!t.contains("classes") || !t["classes"].is_object() || !t["classes"].contains("all"))
    throw Error(ErrorKind::DeviceFile, file.string() + ": tiers." + tier + ".classes.all is missing");
  const std::string cls = report.value("bottleneck", std::string("all"));
  const bool known = t["classes"].contains(cls);
  const std::string used = known ? cls : "all";
  const nlohmann::json& c = t["classes"][used];
  const std::string where = "tiers." + tier + ".classes." + used;
  const double lo = number(c, "lo", file, where), hi = number(c, "hi", file, where);
  if (!(lo > 0 && lo <= hi)) throw Error(ErrorKind::DeviceFile, file.string() + ": " + where + " needs 0 < lo <= hi");
  const double time_us = report.at("time_us").get<double>();
  report["error_band"] = {time_us * lo, time_us * hi};
  const bool pooled = c.value("pooled", false) || !known;
  nlohmann::json src = {{"class", cls},
                        {"learned_from", pooled ? "all launches of the tier" : "the launches of its class"},
                        {"launches", (pooled ? t["classes"]["all"] : c).value("n", 0)},
                        {"class_launches", known ? c.value("n", 0) : 0},
                        {"pooled", pooled},
                        {"ratio", {lo, hi}},
                        {"file", "calibration/error_bands/" + part + ".json"}};
  if (t.contains("quantiles")) src["quantiles"] = t["quantiles"];
  if (t.contains("cross_validation") && t["cross_validation"].contains("coverage") &&
      t["cross_validation"]["coverage"].contains(used))
    src["coverage_leave_one_out"] = t["cross_validation"]["coverage"][used].value("fraction", 0.0);
  report["error_band_source"] = src;
}

std::string error_band_text(const nlohmann::json& report) {
  if (!report.contains("error_band") || !report["error_band"].is_array()) return "";
  const nlohmann::json& s = report["error_band_source"];
  char buf[256];
  std::snprintf(
      buf, sizeof buf, "band     %.3g - %.3g us (measured / predicted over %d validation launches%s)\n",
      report["error_band"][0].get<double>(), report["error_band"][1].get<double>(), s.value("launches", 0),
      s.value("pooled", false) ? ", all classes" : (" bound by " + s.value("class", std::string("?"))).c_str());
  return buf;
}

}  // namespace kernsim::api
