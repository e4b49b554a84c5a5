// Keys built in binary rather than printed: each field appended as its bytes, and each field
// whose size varies prefixed with its length, so that two keys are equal only for equal fields.
// The simulation memo and a bound's code classes compare compiled code by such keys
// (codegen::append_key); printing was most of their cost.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace hsalit::support {

template <typename T>
void append_raw(std::string& key, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

inline void append_text(std::string& key, std::string_view text) {
  append_raw(key, text.size());
  key += text;
}

template <typename T>
void append_optional(std::string& key, const std::optional<T>& value) {
  append_raw(key, value.has_value());
  if (value) append_raw(key, *value);
}

}  // namespace hsalit::support
