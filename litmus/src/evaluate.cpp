#include "hsalit/litmus/evaluate.hpp"

namespace hsalit::litmus {

bool evaluate(const Prop& prop, const std::function<std::int64_t(const ObservedRef&)>& value,
              const std::function<std::int64_t(const std::string&)>& address) {
  switch (prop.kind) {
    case Prop::Kind::True: return true;
    case Prop::Kind::False: return false;
    case Prop::Kind::Equals:
      return value(prop.lhs) == (prop.rhs.is_location() ? address(prop.rhs.name) : prop.rhs.value);
    case Prop::Kind::SameValue: return value(prop.lhs) == value(prop.rhs_ref);
    case Prop::Kind::Not: return !evaluate(prop.operands[0], value, address);
    case Prop::Kind::And:
      return evaluate(prop.operands[0], value, address) && evaluate(prop.operands[1], value, address);
    case Prop::Kind::Or:
      return evaluate(prop.operands[0], value, address) || evaluate(prop.operands[1], value, address);
    case Prop::Kind::Implies:
      return !evaluate(prop.operands[0], value, address) || evaluate(prop.operands[1], value, address);
  }
  return false;
}

}  // namespace hsalit::litmus
