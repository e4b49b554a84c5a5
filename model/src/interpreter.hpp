// Concrete execution of one thread with chosen load values (the enumeration engine's
// front end): every path through the thread's code, with the values each load may return
// drawn from a per-location value domain.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hsalit/model/execution.hpp"
#include "hsalit/model/program.hpp"

namespace hsalit::model::detail {

// What one executed event did.
struct EventRecord {
  int event = 0;
  Cell cell;
  Value read = 0;
  Value written = 0;
  bool writes = false;
  std::vector<int> deps;  // read events this one depends on (address, data, control)
};

struct ThreadRun {
  std::vector<EventRecord> records;        // in program order
  std::map<std::string, Value> registers;  // final values
  bool invalid_address = false;            // touched an address that is no location
};

using ValueDomains = std::vector<std::set<Value>>;  // per location

// Every run of `thread` when each load may return any value of its location's domain.
// Stops early (returning false) when more than `limit` runs exist.
bool enumerate_runs(const Program& p, int thread, const ValueDomains& domains, std::size_t limit,
                    std::vector<ThreadRun>& out);

Value apply_binary(litmus::BinaryOp op, Value a, Value b);

}  // namespace hsalit::model::detail
