#include "hsalit/litmus/value_width.hpp"

#include <gtest/gtest.h>

#include <string>

#include "litmus_support.hpp"

namespace hsalit::litmus {
namespace {

using test_support::parse;

std::string constants_errors(const std::string& text) {
  DiagnosticList diags;
  check_backend_constants(parse(text), diags);
  return diags.render("t.litmus");
}

std::string beyond(const std::string& text) { return value_width_reason(parse(text), "t.litmus").value_or(""); }

// Every constant a backend would hold is checked at its position: initial values, stores,
// moves, rmws, branch conditions and the final condition; the 32-bit bounds themselves fit.
TEST(ValueWidth, ConstantsBeyondThirtyTwoBitsAreErrorsAtTheirPosition) {
  EXPECT_EQ(constants_errors("LISA T\n{ x = 0; }\n P0 ;\n w[] x 4294967297 ;\n r[] r0 x ;\nexists (0:r0=1)\n"),
            "t.litmus:4:8: error: the constant 4294967297 does not fit in the signed 32-bit values the backends hold "
            "(-2147483648 to 2147483647); the model alone checks it (`hsalit check`)\n");
  const std::string many = constants_errors(
      "LISA T\n{ x = -2147483649; 0:r1 = 2147483648; }\n P0 ;\n mov r2 (add r1 0x100000000) ;\n"
      " rmw[atomic,rlx,agent] r0 (add r0 -4294967296) x ;\nexists (0:r0=9223372036854775807)\n");
  for (const char* v : {"-2147483649", "2147483648", "4294967296", "-4294967296", "9223372036854775807"})
    EXPECT_NE(many.find(std::string("the constant ") + v + " "), std::string::npos) << v << "\n" << many;
  EXPECT_EQ(constants_errors("LISA T\n{ x = -2147483648; }\n P0 ;\n w[] x 2147483647 ;\n r[] r0 x ;\n"
                             "exists (0:r0=-2147483648)\n"),
            "");
}

// The arithmetic that may leave the range is found, following what loads may read; values
// that stay within it are not flagged, however many rounds of writes feed them.
TEST(ValueWidth, ArithmeticThatMayLeaveTheRangeIsFound) {
  EXPECT_EQ(beyond("LISA T\n{ x = 2147483647; }\n P0 ;\n r[] r0 x ;\n mov r1 (add r0 1) ;\nexists (0:r1=0)\n"),
            "t.litmus:5:9: `(add r0 1)` may compute 2147483648, outside the signed 32-bit values the backends hold "
            "(-2147483648 to 2147483647): they would wrap what the model does not");
  // Through another thread's store and an rmw.
  EXPECT_NE(beyond("LISA T\n{ x = 0; y = 0; }\n P0 | P1 ;\n w[] x 2147483647 | r[] r0 x ;\n | w[] y r0 ;\n"
                   " | rmw[atomic,rlx,agent] r1 (add r1 1) y ;\nexists (1:r0=0)\n")
                .find("t.litmus:6:29: `(add r1 1)` may compute 2147483648"),
            std::string::npos);
  EXPECT_NE(beyond("LISA T\n{ x = -2147483648; }\n P0 ;\n rmw[atomic,rlx,agent] r0 (sub r0 1) x ;\nexists (0:r0=0)\n"),
            "");
  // Within the range: increments by two threads, bitwise operations, comparisons, negatives.
  EXPECT_EQ(beyond("LISA T\n{ x = 0; }\n P0 | P1 ;\n rmw[atomic,rlx,agent] r0 (add r0 1) x | "
                   "rmw[atomic,rlx,agent] r0 (add r0 1) x ;\nexists (0:r0=1)\n"),
            "");
  EXPECT_EQ(beyond("LISA T\n{ x = -1; }\n P0 ;\n r[] r0 x ;\n mov r1 (xor r0 2147483647) ;\n mov r2 (and r1 r0) ;\n"
                   " mov r3 (add (eq r2 r0) 2147483646) ;\n mov r4 (sub r0 2147483647) ;\nexists (0:r1=0)\n"),
            "");
  // A branch skips the overflowing move on one path only: it may still run.
  EXPECT_NE(beyond("LISA T\n{ x = 0; }\n P0 ;\n r[] r0 x ;\n b[] r0 L ;\n mov r1 (add r0 2147483647) ;\n"
                   " mov r2 (add r1 1) ;\n L: ;\nexists (0:r0=0)\n"),
            "");
}

}  // namespace
}  // namespace hsalit::litmus
