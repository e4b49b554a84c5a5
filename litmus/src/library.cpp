#include "hsalit/litmus/library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hsalit::litmus {

namespace fs = std::filesystem;

std::vector<fs::path> collect_litmus_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    std::vector<fs::path> found;
    for (auto it = fs::recursive_directory_iterator(input, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      // A dangling link named *.litmus is kept, so that reading it reports it (a test left
      // out silently would pass unnoticed).
      // (Its own error code: a query about one entry must not end the walk.)
      std::error_code entry_ec;
      const bool dangling = it->is_symlink(entry_ec) && !fs::exists(it->path(), entry_ec);
      if ((it->is_regular_file(entry_ec) || dangling) && it->path().extension() == ".litmus")
        found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::map<std::string, ExpectedVerdict> read_expected_verdicts(const fs::path& folder) {
  std::map<std::string, ExpectedVerdict> out;
  fs::path file = folder / "expected.json";
  std::ifstream in(file);
  if (!in) return out;
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: error: {}", file.string(), e.what()));
  }
  auto bad = [&](const std::string& where, const std::string& what) {
    return std::runtime_error(fmt::format("{}: error: {}: {}", file.string(), where, what));
  };
  if (!doc.is_object() || doc.value("schema", "") != "hsalit-expected/1")
    throw bad("/schema", "expected \"hsalit-expected/1\"");
  if (!doc.contains("tests") || !doc["tests"].is_object()) throw bad("/tests", "expected an object");
  for (const auto& [name, entry] : doc["tests"].items()) {
    std::string where = "/tests/" + name;
    if (!entry.is_object()) throw bad(where, "expected an object");
    ExpectedVerdict v;
    for (const auto& [key, value] : entry.items()) {
      if (!value.is_string()) throw bad(where + "/" + key, "expected a string");
      std::string text = value.get<std::string>();
      if (key == "source") {
        v.source = text;
      } else if (key == "why") {
        v.why = text;
      } else {
        if (text != "allowed" && text != "forbidden" && text != "racy")
          throw bad(where + "/" + key, "expected allowed, forbidden or racy");
        v.by_model[key] = text;
      }
    }
    if (!v.by_model.count("hsa")) throw bad(where, "missing the \"hsa\" verdict");
    out.emplace(name, std::move(v));
  }
  return out;
}

const std::string* ExpectedVerdict::verdict_under(std::string_view model) const {
  auto it = by_model.find(std::string(model));
  if (it == by_model.end() && model.starts_with("hrf-")) it = by_model.find("hsa");
  return it == by_model.end() ? nullptr : &it->second;
}

}  // namespace hsalit::litmus
