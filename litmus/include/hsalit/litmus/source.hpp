// Source positions and diagnostics shared by every stage that reads user input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hsalit::litmus {

// A 1-based line and column in a source file; {0, 0} means "no position".
struct SourcePos {
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  bool valid() const { return line != 0; }
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourcePos pos;
  std::string message;
};

// Diagnostics collected while reading one file. Errors make the file unusable;
// warnings are printed and the file is still used.
class DiagnosticList {
 public:
  void error(SourcePos pos, std::string message);
  void warning(SourcePos pos, std::string message);
  void note(SourcePos pos, std::string message);

  bool has_errors() const { return error_count_ != 0; }
  std::size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return items_; }

  // Renders every diagnostic as `file:line:col: severity: message`, one per line.
  std::string render(std::string_view file) const;

 private:
  std::vector<Diagnostic> items_;
  std::size_t error_count_ = 0;
};

// One diagnostic formatted as compilers do: `file:line:col: error: message`.
std::string format_diagnostic(std::string_view file, const Diagnostic& d);

}  // namespace hsalit::litmus
