#include "hsalit/codegen/mapping.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "hsalit/codegen/target.hpp"

namespace hsalit::codegen {
namespace {

using nlohmann::json;

json minimal_table() {
  return json::parse(R"({
    "schema": "hsalit-mapping/1", "name": "t", "targets": ["gfx900"], "flavours": ["hsa", "opencl"],
    "rows": [
      {"id": "load.plain", "operation": "load", "spaces": ["global"], "sequence": ["access"],
       "source": {"document": "d", "table": "t", "row": "r", "line": 7}},
      {"id": "load.acquire", "operation": "load", "atomic": true, "orderings": ["acquire"], "scopes": ["agent"],
       "spaces": ["global"],
       "sequence": [{"op": "access", "glc": true}, {"op": "s_waitcnt", "vmcnt": 0, "lgkmcnt": 0,
                     "omit_counters_in": {"opencl": ["lgkmcnt"]}}, "buffer_wbinvl1_vol"],
       "source": {"document": "d", "table": "t", "row": "r"}},
      {"id": "load.seq_cst", "operation": "load", "atomic": true, "orderings": ["seq_cst"], "scopes": ["agent"],
       "spaces": ["global"], "same_as": "load.acquire", "source": {"document": "d", "table": "t", "row": "r"}}
    ]})");
}

std::string error_of(const json& doc) {
  try {
    MappingTable::from_json(doc, "t.json");
  } catch (const MappingError& e) {
    return e.what();
  }
  return "";
}

TEST(MappingTable, ReadsRowsAndFindsThemByOperation) {
  MappingTable t = MappingTable::from_json(minimal_table(), "t.json");
  EXPECT_EQ(t.rows().size(), 3u);
  MemoryOperation op{Operation::Load,   Atomicity::Atomic, AccessKind::Plain,
                     Ordering::Acquire, SyncScope::Agent,  AddressSpace::Global};
  const MappingRow* row = t.find(op, "gfx900");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->id, "load.acquire");
  ASSERT_EQ(row->sequence.size(), 3u);
  EXPECT_TRUE(row->sequence[0].is_access);
  EXPECT_TRUE(row->sequence[0].policy.glc);
  EXPECT_EQ(row->sequence[1].wait.vmcnt, 0);
  EXPECT_EQ(row->sequence[1].omit_counters_in.at("opencl").count("lgkmcnt"), 1u);
  op.ordering = Ordering::SeqCst;
  ASSERT_TRUE(t.find(op, "gfx900"));
  EXPECT_EQ(t.find(op, "gfx900")->sequence.size(), 3u);  // same_as copied the sequence
  op.scope = SyncScope::Workgroup;
  EXPECT_EQ(t.find(op, "gfx900"), nullptr);
  EXPECT_EQ(t.find(op, "gfx803"), nullptr);
}

TEST(MappingTable, HsaNamesAreAccepted) {
  json doc = minimal_table();
  doc["rows"][1]["orderings"] = json::array({"scacq"});
  doc["rows"][1]["scopes"] = json::array({"agent"});
  doc["rows"][0]["spaces"] = json::array({"group", "flat"});
  MappingTable t = MappingTable::from_json(doc, "t.json");
  EXPECT_TRUE(t.rows()[1].orderings.count(Ordering::Acquire));
  EXPECT_TRUE(t.rows()[0].spaces.count(AddressSpace::Local));
  EXPECT_TRUE(t.rows()[0].spaces.count(AddressSpace::Generic));
}

TEST(MappingTable, MalformedTablesNameTheFileAndTheRow) {
  struct Case {
    std::function<void(json&)> spoil;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json& d) { d["schema"] = "x"; }, "t.json: error: /schema: expected \"hsalit-mapping/1\""},
      {[](json& d) { d["colour"] = 1; }, "t.json: error: /: unknown key 'colour'"},
      {[](json& d) { d.erase("targets"); }, "t.json: error: /targets: a table lists the targets it applies to"},
      {[](json& d) { d["rows"][1]["sequence"][1]["vmcount"] = 0; },
       "t.json: error: row 1 (load.acquire), element 1: unknown key 'vmcount' in a sequence element"},
      {[](json& d) { d["rows"][1]["orderings"] = json::array({"sometimes"}); },
       "t.json: error: row 1 (load.acquire): unknown orderings 'sometimes'"},
      {[](json& d) { d["rows"][0].erase("source"); },
       "t.json: error: row 0 (load.plain): a row cites its \"source\" (document, table, row)"},
      {[](json& d) { d["rows"][2]["id"] = "load.plain"; }, "t.json: error: row 2 (load.plain): duplicate id"},
      {[](json& d) { d["rows"][2]["same_as"] = "nowhere"; },
       "t.json: error: row 2 (load.seq_cst): 'same_as' names 'nowhere', which is not a row with a sequence"},
      {[](json& d) { d["rows"][2]["orderings"] = json::array({"acquire"}); },
       "t.json: error: rows 'load.acquire' and 'load.seq_cst': both match load atomic acquire agent global on gfx900"},
      {[](json& d) {
         d["rows"][0]["sequence"] = json::array({"access", "access"});
       },
       "t.json: error: row 0 (load.plain): a memory operation sequence has exactly one \"access\" element"},
      {[](json& d) { d["rows"][1]["sequence"][2] = "v_add_u32"; },
       "t.json: error: row 1 (load.acquire), element 2: 'v_add_u32' is not a wait, cache or barrier instruction"},
      {[](json& d) { d["rows"][1]["sequence"][1]["omit_in"] = json::array({"cuda"}); },
       "t.json: error: row 1 (load.acquire): unknown flavour 'cuda'"},
      {[](json& d) { d["rows"][0]["targets"] = json::array({"gfx1030"}); },
       "t.json: error: row 0 (load.plain): target 'gfx1030' is not one of the table's"},
      {[](json& d) { d["rows"][1]["sequence"][1]["lgkmcnt"] = -1; },
       "t.json: error: row 1 (load.acquire), element 1: 'lgkmcnt' is a count (a whole number, 0 or more)"},
  };
  for (const Case& c : cases) {
    json doc = minimal_table();
    c.spoil(doc);
    EXPECT_EQ(error_of(doc), c.message);
  }
}

// Counts are read without conversion and checked against the target's field (gfx9: vmcnt
// 0 to 63, expcnt 0 to 7, lgkmcnt 0 to 15); an instruction takes only the counts and cache
// bits it has on each target of the row, and only instructions the target has are accepted.
TEST(MappingTable, SequencesAreCheckedAgainstEachTarget) {
  struct Case {
    std::function<void(json&)> spoil;
    std::string message;
  };
  const std::string at = "t.json: error: row 1 (load.acquire), element ";
  const std::vector<Case> cases = {
      {[](json& d) { d["rows"][1]["sequence"][1]["vmcnt"] = 4294967296ull; },
       at + "1: 'vmcnt' 4294967296 is beyond any wait counter's field"},
      {[](json& d) { d["rows"][1]["sequence"][1]["vmcnt"] = 99999999999ll; },
       at + "1: 'vmcnt' 99999999999 is beyond any wait counter's field"},
      {[](json& d) { d["rows"][1]["sequence"][1]["vmcnt"] = 64; },
       at + "1: vmcnt(64) is out of range on gfx900: its field holds 0 to 63"},
      {[](json& d) { d["rows"][1]["sequence"][1]["lgkmcnt"] = 16; },
       at + "1: lgkmcnt(16) is out of range on gfx900: its field holds 0 to 15"},
      {[](json& d) { d["rows"][1]["sequence"][1]["expcnt"] = 8; },
       at + "1: expcnt(8) is out of range on gfx900: its field holds 0 to 7"},
      {[](json& d) {
         d["rows"][1]["sequence"][2] = json{{"op", "buffer_wbinvl1_vol"}, {"vmcnt", 0}};
       },
       at + "2: buffer_wbinvl1_vol takes no count"},
      {[](json& d) {
         d["rows"][1]["sequence"][2] = json{{"op", "global_inv"}, {"scope", "SCOPE_DEV"}};
       },
       at + "2: 'global_inv' does not exist on gfx900"},
      {[](json& d) {
         d["rows"][1]["sequence"][2] = json{{"op", "s_waitcnt_vscnt"}, {"count", 0}};
       },
       at + "2: 's_waitcnt_vscnt' does not exist on gfx900"},
      {[](json& d) {
         d["rows"][1]["sequence"][0] = json{{"op", "access"}, {"sc1", true}};
       },
       at + "0: a memory access takes glc, slc on gfx900, not 'sc1'"},
      {[](json& d) {
         d["rows"][1]["sequence"][0] = json{{"op", "access"}, {"vmcnt", 0}};
       },
       at + "0: the access takes no count"},
      {[](json& d) { d["rows"][1]["sequence"][1]["count"] = 0; },
       at + "1: s_waitcnt takes vmcnt, expcnt and lgkmcnt, not 'count'"},
      {[](json& d) {
         d["rows"][1]["sequence"][2] = json{{"op", "buffer_wbinvl1_vol"}, {"glc", true}};
       },
       at + "2: buffer_wbinvl1_vol takes no cache bits on gfx900 (it has 'glc')"},
      {[](json& d) {
         d["targets"] = json::array({"gfx900", "gfx42"});
       },
       "t.json: error: /targets: unknown target 'gfx42' (known: "},
  };
  for (const Case& c : cases) {
    json doc = minimal_table();
    c.spoil(doc);
    EXPECT_EQ(error_of(doc).substr(0, c.message.size()), c.message);
  }
  // vmcnt has 4 bits before gfx9 (LLVM AMDGPUBaseInfo, getVmcntBitWidthHi): 16 is out of range on gfx803.
  json older = minimal_table();
  older["targets"] = json::array({"gfx803", "gfx900"});
  older["rows"][1]["sequence"][1]["vmcnt"] = 16;
  EXPECT_EQ(error_of(older), at + "1: vmcnt(16) is out of range on gfx803: its field holds 0 to 15");
  older["rows"][1]["targets"] = json::array({"gfx900"});  // the row applies to gfx900 only
  older["rows"][2]["targets"] = json::array({"gfx900"});
  EXPECT_EQ(error_of(older), "");
}

// With the table's text, an error names the line and column of the row's id.
TEST(MappingTable, ErrorsOfARowGiveItsLineWhenTheTextIsKnown) {
  json doc = minimal_table();
  doc["rows"][1]["sequence"][1]["vmcnt"] = 64;
  const std::string text = doc.dump(2);
  std::size_t id = text.find("\"id\": \"load.acquire\"");
  ASSERT_NE(id, std::string::npos);
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(id), '\n');
  const auto column = id - text.rfind('\n', id);
  try {
    MappingTable::from_json(doc, "t.json", text);
    FAIL();
  } catch (const MappingError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("t.json:{}:{}: error: row 1 (load.acquire), element 1: vmcnt(64) is "
                                                 "out of range on gfx900: its field holds 0 to 63",
                                                 line, column));
  }
}

// A number past a double's range is a JSON error of the file like any other, not an escaping
// json::out_of_range (found by fuzz/mapping_fuzzer.cpp).
TEST(MappingTable, AnOverflowingNumberIsAnErrorOfTheFile) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("hsalit-mapping-overflow-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"schema": "hsalit-mapping/1", "name": "t", "targets": ["gfx900"], "rows": [1e400]})";
  try {
    MappingTable::from_file(file);
    ADD_FAILURE() << "accepted 1e400";
  } catch (const MappingError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": error: not valid JSON", 0), 0u) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a MappingError: " << e.what();
  }
  std::filesystem::remove(file);
}

TEST(MappingTable, ShippedTablesLoadAndNameExistingTargets) {
  const TargetCatalog& catalog = TargetCatalog::builtin();
  std::vector<std::string> names = MappingTable::builtin_names();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    MappingTable t = MappingTable::builtin(name);
    EXPECT_FALSE(t.rows().empty()) << name;
    for (const std::string& target : t.targets()) EXPECT_TRUE(catalog.find(target)) << name << ": " << target;
    for (const MappingRow& r : t.rows()) {
      EXPECT_FALSE(r.source.document.empty()) << r.id;
      EXPECT_FALSE(r.source.table.empty()) << r.id;
    }
  }
  // Every target's default table ships, except where no table exists yet is an error.
  for (const std::string& target : catalog.names()) {
    const Target& t = catalog.get(target);
    EXPECT_NO_THROW(MappingTable::builtin(t.mapping)) << target << " -> " << t.mapping;
  }
}

TEST(MappingTable, UnknownBuiltinListsTheShippedOnes) {
  try {
    MappingTable::builtin("gfx42");
    FAIL();
  } catch (const MappingError& e) {
    EXPECT_NE(std::string(e.what()).find("no built-in mapping table 'gfx42' (built-in: "), std::string::npos);
  }
}

}  // namespace
}  // namespace hsalit::codegen
