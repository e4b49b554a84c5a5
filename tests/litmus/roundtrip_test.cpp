// Every bundled test parses, prints back to an equal test, survives the JSON form, and has an
// expected verdict; plus the error messages of the JSON reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "hsalit/litmus/json.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "print_to.hpp"

namespace hsalit::litmus {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path kLibrary = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

std::vector<fs::path> library_files() { return collect_litmus_files({kLibrary}); }

TEST(Library, IsNotEmptyAndHasEveryFolder) {
  // Nothing is skipped: an empty or missing library fails here.
  std::vector<fs::path> files = library_files();
  ASSERT_FALSE(files.empty()) << "no *.litmus under " << kLibrary;
  std::map<std::string, int> per_folder;
  for (const fs::path& f : files) ++per_folder[f.parent_path().filename().string()];
  for (const char* folder : {"canonical", "spec", "classic", "mechanisms"})
    EXPECT_GT(per_folder[folder], 0) << "no tests in litmus/library/" << folder;
}

TEST(Library, EveryTestParsesAndRoundTrips) {
  std::vector<fs::path> files = library_files();
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    ParseResult r = parse_litmus_file(file);
    ASSERT_TRUE(r.ok()) << r.diagnostics.render(file.string());
    EXPECT_EQ(r.diagnostics.error_count(), 0u);
    const litmus::Test& t = *r.test;

    // The test name is the file's stem.
    EXPECT_EQ(t.name, file.stem().string());

    // Text: parse(print(t)) == t, and printing is stable.
    const std::string printed = print_litmus(t);
    ParseResult again = parse_litmus(printed);
    ASSERT_TRUE(again.ok()) << again.diagnostics.render("printed") << printed;
    EXPECT_EQ(*again.test, t);
    EXPECT_EQ(print_litmus(*again.test), printed);

    // JSON: in memory and through its text.
    const json doc = to_json(t);
    EXPECT_EQ(doc["schema"], kAstSchema);
    ParseResult from_doc = test_from_json(doc);
    ASSERT_TRUE(from_doc.ok()) << from_doc.diagnostics.render("json") << doc.dump(2);
    EXPECT_EQ(*from_doc.test, t);
    ParseResult from_text = test_from_json(json::parse(doc.dump()));
    ASSERT_TRUE(from_text.ok()) << from_text.diagnostics.render("json");
    EXPECT_EQ(*from_text.test, t);
    EXPECT_EQ(to_json(*from_text.test), doc);
  }
}

TEST(Library, ExpectedVerdictsCoverExactlyTheFiles) {
  std::map<fs::path, std::set<std::string>> files_per_folder;
  for (const fs::path& f : library_files()) files_per_folder[f.parent_path()].insert(f.filename().string());
  ASSERT_FALSE(files_per_folder.empty());
  for (const auto& [folder, names] : files_per_folder) {
    SCOPED_TRACE(folder.string());
    ASSERT_TRUE(fs::exists(folder / "expected.json")) << "missing expected.json";
    std::map<std::string, ExpectedVerdict> expected;
    ASSERT_NO_THROW(expected = read_expected_verdicts(folder));
    for (const std::string& name : names) EXPECT_TRUE(expected.count(name)) << name << " has no entry in expected.json";
    for (const auto& [name, verdict] : expected) {
      EXPECT_TRUE(names.count(name)) << "expected.json names " << name << ", which does not exist";
      EXPECT_TRUE(verdict.by_model.count("hsa")) << name;
    }
  }
}

// ---- regressions found by the fuzzer (fuzz/parse_fuzzer.cpp) and by review --------------

// Each input is either rejected with the given first error, or accepted and then prints
// back, and goes through JSON, unchanged.
void expect_round_trip_or_error(const std::string& text, const std::string& error) {
  ParseResult r = parse_litmus(text);
  if (!error.empty()) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.diagnostics.render("f.litmus").substr(0, error.size()), error) << r.diagnostics.render("f.litmus");
    return;
  }
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("f.litmus");
  const std::string printed = print_litmus(*r.test);
  ParseResult again = parse_litmus(printed);
  ASSERT_TRUE(again.ok()) << again.diagnostics.render("printed") << printed;
  EXPECT_EQ(*again.test, *r.test);
  const json doc = to_json(*r.test);
  std::string dumped;
  ASSERT_NO_THROW(dumped = doc.dump());
  ParseResult back = test_from_json(json::parse(dumped));
  ASSERT_TRUE(back.ok()) << back.diagnostics.render("json") << dumped;
  EXPECT_EQ(*back.test, *r.test);
}

const char kBody[] = "{ x = 0; }\n P0 ;\n r[] r0 x ;\nscopes: (wg 0)\n";

TEST(Regressions, InvalidUtf8IsRejectedBeforeItReachesJson) {
  // Fuzzer crash: a name ending in a lone 0xC4 made to_json(t).dump() throw.
  expect_round_trip_or_error(std::string("LISA SB\xc4\n") + kBody + "exists (0:r0=0)\n",
                             "f.litmus:1:8: error: invalid UTF-8 (byte 0xc4)");
  // Valid UTF-8 in names, descriptions and metadata is kept.
  expect_round_trip_or_error(
      std::string("LISA caf\xc3\xa9\n\"\xe2\x86\x92\"\nCom=\xf0\x9f\x98\x80\n") + kBody + "exists (0:r0=0)\n", "");
}

TEST(Regressions, MetadataKeysAreNames) {
  // Fuzzer crash: the text accepted the key "Com{<rne" that the JSON reader refused.
  expect_round_trip_or_error(std::string("LISA T\nCom{<rne=r\n") + kBody + "exists (0:r0=0)\n",
                             "f.litmus:2:1: error: malformed metadata line: 'Com{<rne' is not a key");
  expect_round_trip_or_error(std::string("LISA T\n  Cycle = Rfe  Fre \r\nCom=\n") + kBody + "exists (0:r0=0)\n", "");
}

TEST(Regressions, LongConditionChainsStayWithinTheNestingLimit) {
  // A flat chain of 64 conjuncts printed as ((a /\ b) /\ c) ... nested 64 deep and no longer
  // parsed; a longer chain built a tree deeper than the JSON reader accepts.
  std::string chain = "0:r0=0";
  for (int i = 1; i < 64; ++i) chain += " /\\ 0:r0=" + std::to_string(i);
  expect_round_trip_or_error(std::string("LISA T\n") + kBody + "exists " + chain + "\n", "");
  expect_round_trip_or_error(std::string("LISA T\n") + kBody + "exists (" + chain + " \\/ x=1)\n",
                             "f.litmus:6:700: error: condition nested deeper than 64 levels");
  // Negations printed as ~(~(...)) doubled the nesting of ~~~...
  std::string nots(63, '~');
  expect_round_trip_or_error(std::string("LISA T\n") + kBody + "exists " + nots + "true\n", "");
  // The outer parentheses the printer adds do not push a test over the limit.
  std::string parens = std::string(63, '(') + "true" + std::string(63, ')');
  expect_round_trip_or_error(std::string("LISA T\n") + kBody + "exists " + parens + "\n", "");
}

TEST(Regressions, RegionAfterACommaMayBeNamedLikeATrailer) {
  expect_round_trip_or_error(std::string("LISA T\n") + kBody + "regions: x:global, filter:group\nexists (0:r0=0)\n",
                             "");
}

TEST(Regressions, CommentsAfterTheNameAndTheDescription) {
  expect_round_trip_or_error(std::string("LISA T (* c *)\n\"d\" (* e *)\n") + kBody + "exists (0:r0=0)\n", "");
}

// ---- the JSON reader's errors -----------------------------------------------------------

json minimal() {
  return json::parse(R"({
    "schema": "hsalit-litmus/1", "arch": "LISA", "name": "T",
    "init": [{"name": "x", "value": 0}],
    "threads": [{"id": 0, "code": [
      {"op": "load", "annotations": {"atomic": false, "order": "rlx", "scope": "wi",
                                     "size": "single"},
       "reg": "r0", "address": {"base": {"location": "x"}}}]}],
    "scopes": [{"level": "wg", "children": [0]}],
    "condition": {"quantifier": "exists", "prop": {"eq": ["0:r0", 0]}}
  })");
}

std::string json_error(const json& doc) {
  ParseResult r = test_from_json(doc);
  EXPECT_FALSE(r.ok()) << doc.dump();
  return r.diagnostics.render("t.json");
}

TEST(JsonReader, MinimalDocumentReads) {
  ParseResult r = test_from_json(minimal());
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t.json");
  EXPECT_EQ(r.test->threads[0].code[0].kind, OpKind::Load);
  EXPECT_EQ(to_json(*r.test), minimal());
}

TEST(JsonReader, DefaultsForOptionalMembers) {
  json doc = minimal();
  doc.erase("schema");
  doc.erase("arch");
  doc.erase("scopes");
  doc["threads"][0]["code"][0].erase("annotations");
  ParseResult r = test_from_json(doc);
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t.json");
  EXPECT_EQ(r.test->arch, "LISA");
  EXPECT_TRUE(r.test->scopes.is_default());
  EXPECT_EQ(r.test->threads[0].code[0].annots, Annotations{});
}

TEST(JsonReader, WrongTypesNameTheirPointer) {
  struct Case {
    const char* pointer;  // a JSON pointer into minimal()
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"", json::array(), "t.json: error: /: expected an object"},
      {"/schema", "hsalit-litmus/2", "t.json: error: /schema: unsupported schema (expected \"hsalit-litmus/1\")"},
      {"/arch", "C", "t.json: error: /arch: only LISA tests are supported"},
      {"/arch", 1, "t.json: error: /arch: expected a string"},
      {"/name", 5, "t.json: error: /name: expected a string"},
      {"/name", "a b",
       "t.json: error: /name: a test name is non-empty, has no blanks and does not start with "
       "'(*'"},
      {"/name", "",
       "t.json: error: /name: a test name is non-empty, has no blanks and does not "
       "start with '(*'"},
      {"/name", "(*x",
       "t.json: error: /name: a test name is non-empty, has no blanks and does "
       "not start with '(*'"},
      {"/description", "say \"hi\"", "t.json: error: /description: a description is one line without double quotes"},
      {"/metadata", json::object(), "t.json: error: /metadata: expected an array"},
      {"/metadata", json::parse(R"([{"key": "a b", "value": "1"}])"),
       "t.json: error: /metadata/0/key: a metadata key is a name (letters, digits, '_', '.', '-')"},
      {"/metadata", json::parse(R"([{"key": "Cycle", "value": " x"}])"),
       "t.json: error: /metadata/0/value: a metadata value is one line without leading or "
       "trailing blanks"},
      {"/metadata", json::parse(R"([{"key": "Cycle"}])"), "t.json: error: /metadata/0/value: missing"},
      {"/init", "x", "t.json: error: /init: expected an array"},
      {"/init/0", 3, "t.json: error: /init/0: expected an object"},
      {"/init/0/thread", "0", "t.json: error: /init/0/thread: expected an integer"},
      {"/init/0/thread", -1, "t.json: error: /init/0/thread: expected a thread number (0 to 1000000)"},
      {"/init/0/thread", 4294967296LL, "t.json: error: /init/0/thread: expected a thread number (0 to 1000000)"},
      {"/init/0/value", 1.5, "t.json: error: /init/0/value: expected an integer or an object"},
      {"/init/0/value", 9223372036854775808ULL,
       "t.json: error: /init/0/value: integer out of range (values are 64-bit signed "
       "integers)"},
      {"/init/0/value", json::object(),
       "t.json: error: /init/0/value: expected {\"reg\"}, {\"location\"} or {\"op\", \"args\"}"},
      {"/threads", json::object(), "t.json: error: /threads: expected an array"},
      {"/threads/0/id", "0", "t.json: error: /threads/0/id: expected an integer"},
      {"/threads/0/code/0/op", "lod", "t.json: error: /threads/0/code/0/op: unknown operation \"lod\""},
      {"/threads/0/code/0/op", 1, "t.json: error: /threads/0/code/0/op: expected a string"},
      {"/threads/0/code/0/annotations/order", "acq",
       "t.json: error: /threads/0/code/0/annotations/order: expected rlx, scacq, screl or scar"},
      {"/threads/0/code/0/annotations/scope", "cluster",
       "t.json: error: /threads/0/code/0/annotations/scope: expected wi, wave, wg, agent or "
       "system"},
      {"/threads/0/code/0/annotations/size", "quad",
       "t.json: error: /threads/0/code/0/annotations/size: expected single or double"},
      {"/threads/0/code/0/annotations/atomic", "yes",
       "t.json: error: /threads/0/code/0/annotations/atomic: expected a boolean"},
      {"/threads/0/code/0/annotations", json::array(),
       "t.json: error: /threads/0/code/0/annotations: expected an object"},
      {"/threads/0/code/0/tags", json::array({1}), "t.json: error: /threads/0/code/0/tags/0: expected a string"},
      {"/threads/0/code/0/reg", 0, "t.json: error: /threads/0/code/0/reg: expected a string"},
      {"/threads/0/code/0/address", "x", "t.json: error: /threads/0/code/0/address: expected an object"},
      {"/threads/0/code/0/address/base", json::parse(R"({"op": "mul", "args": [1, 2]})"),
       "t.json: error: /threads/0/code/0/address/base/op: unknown operator \"mul\""},
      {"/threads/0/code/0/address/base", json::parse(R"({"op": "add", "args": [1]})"),
       "t.json: error: /threads/0/code/0/address/base/args: expected an array of two operands"},
      {"/threads/0/code/0/address/base", json::parse(R"({"op": "add", "args": [1, true]})"),
       "t.json: error: /threads/0/code/0/address/base/args/1: expected an integer or an "
       "object"},
      {"/threads/0/code/0/address/base", json::parse(R"({"reg": 7})"),
       "t.json: error: /threads/0/code/0/address/base/reg: expected a string"},
      {"/scopes", json::object(), "t.json: error: /scopes: expected an array of scope groups"},
      {"/scopes/0/level", "cu", "t.json: error: /scopes/0/level: expected system, agent, wg, wave or wi"},
      {"/scopes/0/children", json::array({json::object()}), "t.json: error: /scopes/0/children/0/level: missing"},
      {"/scopes/0/children", json::array({-2}),
       "t.json: error: /scopes/0/children/0: expected a thread number (0 to 1000000)"},
      {"/regions", json::parse(R"([{"location": "x", "segment": "local"}])"),
       "t.json: error: /regions/0/segment: expected \"global\" or \"group\""},
      {"/regions", json::parse(R"([{"segment": "group"}])"), "t.json: error: /regions/0/location: missing"},
      {"/locations", json::array({1}), "t.json: error: /locations/0: expected \"N:reg\" or a location name"},
      {"/locations", json::array({"x:r0"}), "t.json: error: /locations/0: bad thread number in \"x:r0\""},
      {"/locations", json::array({"0:"}), "t.json: error: /locations/0: empty name"},
      {"/filter", "x=1", "t.json: error: /filter: expected true, false or one of eq, same, not, and, or, implies"},
      {"/condition", json::array(), "t.json: error: /condition: expected an object"},
      {"/condition/quantifier", "some",
       "t.json: error: /condition/quantifier: expected \"exists\", \"~exists\" or \"forall\""},
      {"/condition/prop", json::parse(R"({"eq": ["0:r0"]})"),
       "t.json: error: /condition/prop/eq: expected [\"ref\", value]"},
      {"/condition/prop", json::parse(R"({"and": [true]})"),
       "t.json: error: /condition/prop/and: expected an array of two conditions"},
      {"/condition/prop", json::parse(R"({"or": [true, {"not": {"xor": []}}]})"),
       "t.json: error: /condition/prop/or/1/not: expected true, false or one of eq, same, not, "
       "and, or, implies"},
      {"/condition/prop", json::parse(R"({"eq": ["0:r0", 1], "not": true})"),
       "t.json: error: /condition/prop: expected true, false or one of eq, same, not, and, or, implies"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.pointer) + " = " + c.value.dump());
    json doc = minimal();
    doc[json::json_pointer(c.pointer)] = c.value;
    EXPECT_EQ(json_error(doc), std::string(c.message) + "\n");
  }
}

TEST(JsonReader, MissingMembers) {
  struct Case {
    const char* parent;
    const char* key;
    const char* message;
  };
  const Case cases[] = {
      {"", "name", "t.json: error: /name: missing"},
      {"", "condition", "t.json: error: /condition: missing"},
      {"/condition", "prop", "t.json: error: /condition/prop: missing"},
      {"/condition", "quantifier", "t.json: error: /condition/quantifier: missing"},
      {"/threads/0", "id", "t.json: error: /threads/0/id: missing"},
      {"/threads/0/code/0", "op", "t.json: error: /threads/0/code/0/op: missing"},
      {"/threads/0/code/0", "reg", "t.json: error: /threads/0/code/0/reg: missing"},
      {"/threads/0/code/0", "address", "t.json: error: /threads/0/code/0/address: missing"},
      {"/threads/0/code/0/address", "base", "t.json: error: /threads/0/code/0/address/base: missing"},
      {"/init/0", "name", "t.json: error: /init/0/name: missing"},
      {"/init/0", "value", "t.json: error: /init/0/value: missing"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.parent) + "/" + c.key);
    json doc = minimal();
    doc[json::json_pointer(c.parent)].erase(c.key);
    EXPECT_EQ(json_error(doc), std::string(c.message) + "\n");
  }
  json store = minimal();
  store["threads"][0]["code"][0] = json::parse(R"({"op": "store", "address": {"base": {"location": "x"}}})");
  EXPECT_EQ(json_error(store), "t.json: error: /threads/0/code/0/value: missing\n");
  json branch = minimal();
  branch["threads"][0]["code"].push_back(json::parse(R"({"op": "branch"})"));
  EXPECT_EQ(json_error(branch), "t.json: error: /threads/0/code/1/label: missing\n");
}

TEST(JsonReader, NestingIsBounded) {
  json deep = json::parse(R"({"eq": ["0:r0", 0]})");
  for (int i = 0; i < 70; ++i) deep = json{{"not", deep}};
  json doc = minimal();
  doc["condition"]["prop"] = deep;
  std::string err = json_error(doc);
  EXPECT_NE(err.find(": nested too deeply"), std::string::npos) << err;

  // Exactly at the limit reads, and prints back to text that reads.
  json limit = json::parse(R"({"eq": ["0:r0", 0]})");
  for (int i = 1; i < ParseLimits{}.max_nesting; ++i) limit = json{{"not", limit}};
  doc["condition"]["prop"] = limit;
  ParseResult r = test_from_json(doc);
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t.json");
  ParseResult text = parse_litmus(print_litmus(*r.test));
  ASSERT_TRUE(text.ok()) << text.diagnostics.render("printed");
  EXPECT_EQ(*text.test, *r.test);

  json expr = 1;
  for (int i = 0; i < 70; ++i) expr = json{{"op", "add"}, {"args", {expr, 1}}};
  doc = minimal();
  doc["init"][0]["value"] = expr;
  err = json_error(doc);
  EXPECT_NE(err.find(": nested too deeply"), std::string::npos) << err;
}

TEST(JsonReader, SemanticErrorsOfTheTextFormApply) {
  json doc = minimal();
  doc["threads"][0]["code"][0]["annotations"]["scope"] = "agent";
  EXPECT_EQ(json_error(doc),
            "t.json: error: an ordinary access has work-item scope, not 'agent': write 'atomic' "
            "for an atomic operation (HSA SysArch 3.3.6)\n");
  doc = minimal();
  doc["condition"]["prop"] = json::parse(R"({"eq": ["0:r7", 0]})");
  EXPECT_EQ(json_error(doc),
            "t.json: error: condition reads 0:r7 but thread P0 neither initialises nor writes "
            "r7\n");
  doc = minimal();
  doc["threads"][0]["id"] = 1;
  EXPECT_NE(json_error(doc).find("thread 0 is numbered 1"), std::string::npos);
  // Names that the text form could not spell are rejected, so every accepted document
  // prints as text.
  doc = minimal();
  doc["threads"][0]["code"][0]["address"]["base"]["location"] = "x y";
  EXPECT_EQ(json_error(doc), "t.json: error: 'x y' is not a location name\n");
  doc = minimal();
  doc["threads"][0]["code"].push_back(json::parse(R"({"op": "label", "label": "exists"})"));
  EXPECT_NE(json_error(doc).find("'exists' cannot be a label"), std::string::npos);
}

TEST(JsonReader, ThreadAndBranchExamplesRoundTrip) {
  ParseResult r = parse_litmus(
      "LISA J\n\"d\"\nCycle=A B\n{ x = 0; 0:r3 = y; }\n P0 | P1 ;\n"
      " rmw[cas,atomic,scar,agent,double] r0 0 (add r3 1) x+1 | b[eq,t] r1, 2, L ;\n"
      " b[] r0 L | mov r1 (neq r1 r1) ;\n f[screl,wave] | L: barrier ;\n L: | ;\n"
      "scopes: (agent (wg 0 1))\nregions: y:group\nlocations [y; 0:r3]\n"
      "filter ~(x=1 \\/ false)\nforall (0:r0=0 /\\ y=x)\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t");
  json doc = to_json(*r.test);
  ParseResult back = test_from_json(json::parse(doc.dump()));
  ASSERT_TRUE(back.ok()) << back.diagnostics.render("t.json");
  EXPECT_EQ(*back.test, *r.test);
}

}  // namespace
}  // namespace hsalit::litmus
