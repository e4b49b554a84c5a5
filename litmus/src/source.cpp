#include "hsalit/litmus/source.hpp"

#include <fmt/format.h>

namespace hsalit::litmus {

void DiagnosticList::error(SourcePos pos, std::string message) {
  items_.push_back({Severity::Error, pos, std::move(message)});
  ++error_count_;
}

void DiagnosticList::warning(SourcePos pos, std::string message) {
  items_.push_back({Severity::Warning, pos, std::move(message)});
}

void DiagnosticList::note(SourcePos pos, std::string message) {
  items_.push_back({Severity::Note, pos, std::move(message)});
}

std::string format_diagnostic(std::string_view file, const Diagnostic& d) {
  std::string_view kind = d.severity == Severity::Error     ? "error"
                          : d.severity == Severity::Warning ? "warning"
                                                            : "note";
  if (d.pos.valid()) return fmt::format("{}:{}:{}: {}: {}", file, d.pos.line, d.pos.column, kind, d.message);
  return fmt::format("{}: {}: {}", file, kind, d.message);
}

std::string DiagnosticList::render(std::string_view file) const {
  std::string out;
  for (const Diagnostic& d : items_) {
    out += format_diagnostic(file, d);
    out += '\n';
  }
  return out;
}

}  // namespace hsalit::litmus
