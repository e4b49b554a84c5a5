// GoogleTest printers for the litmus AST, so that failed comparisons show readable text.
#pragma once

#include <ostream>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {

inline void PrintTo(const Expr& e, std::ostream* os) { *os << print_expr(e); }
inline void PrintTo(const Prop& p, std::ostream* os) { *os << print_prop(p); }
inline void PrintTo(const Instruction& i, std::ostream* os) { *os << print_instruction(i); }
inline void PrintTo(const ObservedRef& r, std::ostream* os) { *os << r.to_string(); }
inline void PrintTo(const Test& t, std::ostream* os) { *os << "\n" << print_litmus(t); }
inline void PrintTo(const MetadataEntry& m, std::ostream* os) { *os << m.key << "=" << m.value; }
inline void PrintTo(OpKind k, std::ostream* os) { *os << to_string(k); }
inline void PrintTo(Scope s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(MemoryOrder o, std::ostream* os) { *os << to_string(o); }
inline void PrintTo(AccessSize s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(Segment s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(Quantifier q, std::ostream* os) { *os << to_string(q); }

}  // namespace hsalit::litmus
