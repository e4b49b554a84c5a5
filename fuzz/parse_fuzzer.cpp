// libFuzzer entry point for the litmus reader. Any input must be parsed without a crash, a
// hang or a leak; an accepted test must print back to text that parses to an equal test,
// and must survive the JSON form (to_json, dump, parse, test_from_json) unchanged. Any
// disagreement aborts, so the fuzzer reports printer/parser/JSON mismatches as crashes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hsalit/litmus/json.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"

namespace {

[[noreturn]] void mismatch(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parse_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsalit::litmus;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ParseResult first = parse_litmus(text);
  if (!first.ok()) {
    if (!first.diagnostics.has_errors()) mismatch("rejected without an error", "");
    return 0;
  }
  const Test& test = *first.test;

  // Text round trip.
  const std::string printed = print_litmus(test);
  const ParseResult again = parse_litmus(printed);
  if (!again.ok()) mismatch("the printed test does not parse", printed + "\n" + again.diagnostics.render("printed"));
  if (!(*again.test == test)) mismatch("parse(print(t)) != t", printed);
  if (print_litmus(*again.test) != printed) mismatch("print is not stable", printed);

  // JSON round trip, in memory and through text.
  const nlohmann::json doc = to_json(test);
  const ParseResult from_doc = test_from_json(doc);
  if (!from_doc.ok()) mismatch("test_from_json(to_json(t)) fails", from_doc.diagnostics.render("json"));
  if (!(*from_doc.test == test)) mismatch("test_from_json(to_json(t)) != t", printed);
  std::string dumped;
  try {
    dumped = doc.dump();
  } catch (const nlohmann::json::exception& e) {
    mismatch("to_json(t).dump() throws", e.what());
  }
  const ParseResult from_text = test_from_json(nlohmann::json::parse(dumped));
  if (!from_text.ok() || !(*from_text.test == test)) mismatch("the dumped JSON does not read back equal", dumped);
  return 0;
}
