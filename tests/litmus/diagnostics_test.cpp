// Every diagnostic the litmus reader can produce, each with its exact position. Texts are
// built line by line so that the expected line numbers can be read off the case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "hsalit/litmus/check.hpp"
#include "hsalit/litmus/parser.hpp"

namespace hsalit::litmus {
namespace {

std::string lines(std::initializer_list<const char*> ls) {
  std::string out;
  for (const char* l : ls) out += std::string(l) + "\n";
  return out;
}

// A two-thread test whose fourth line is `row` and whose trailers follow on line 5.
std::string two(const char* row, const char* trailers = "scopes: (wg 0 1)\nexists (0:r0=0)") {
  return lines({"LISA T", "{ x = 0; }", " P0 | P1 ;", row, trailers});
}

struct Case {
  const char* name;
  std::string text;
  std::string expected;  // one whole line of the rendered diagnostics
  ParseLimits limits = {};
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

ParseLimits small_limits() {
  ParseLimits l;
  l.max_file_bytes = 400;
  l.max_threads = 2;
  l.max_instructions_per_thread = 2;
  l.max_nesting = 2;
  return l;
}

// Syntax errors: the parser stops at the first one, so each case has exactly one error.
const Case kSyntaxCases[] = {
    // ---- lexer ----
    {"UnterminatedComment",
     lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x ; (* open (* nested *)", "exists (0:r0=0)"}),
     "f.litmus:4:13: error: unterminated comment '(*'"},
    {"UnterminatedString", lines({"LISA T", "\"open description", "{ x = 0; }"}),
     "f.litmus:2:1: error: unterminated string (a description is one line in double quotes)"},
    {"MalformedNumber", two(" w[] x 12ab | r[] r0 x ;"), "f.litmus:4:8: error: malformed number"},
    {"MalformedHexNumber", two(" w[] x 0x | r[] r0 x ;"), "f.litmus:4:8: error: malformed number"},
    {"NumberOutOfRange", two(" w[] x 9223372036854775808 | r[] r0 x ;"),
     "f.litmus:4:8: error: number out of range (values are 64-bit signed integers)"},
    {"NegativeNumberOutOfRange", two(" w[] x -9223372036854775809 | r[] r0 x ;"),
     "f.litmus:4:8: error: number out of range (values are 64-bit signed integers)"},
    {"HexNumberOutOfRange", two(" w[] x 0x10000000000000000 | r[] r0 x ;"),
     "f.litmus:4:8: error: number out of range (values are 64-bit signed integers)"},
    {"UnexpectedCharacter", two(" w[] x 1 $ | r[] r0 x ;"), "f.litmus:4:10: error: unexpected character '$'"},
    {"UnexpectedControlByte", two(" w[] x 1 \x01 | r[] r0 x ;"),
     "f.litmus:4:10: error: unexpected character (byte 0x01)"},
    {"UnexpectedNonAscii", two(" w[] x\xc3\xa9 1 | r[] r0 x ;"),
     "f.litmus:4:7: error: unexpected character (a non-ASCII byte 0xc3)"},
    {"InvalidUtf8InDescription", lines({"LISA T", "\"caf\xe9\"", "{ x = 0; }"}),
     "f.litmus:2:5: error: invalid UTF-8 (byte 0xe9): litmus files are UTF-8 text"},
    {"InvalidUtf8InMetadata", lines({"LISA T", "Com=caf\xe9 (* not a comment *)", "{ x = 0; }"}),
     "f.litmus:2:8: error: invalid UTF-8 (byte 0xe9): litmus files are UTF-8 text"},
    {"InvalidUtf8BetweenTokens", two(" w[] x 1 \xe9 | r[] r0 x ;"),
     "f.litmus:4:10: error: invalid UTF-8 (byte 0xe9): litmus files are UTF-8 text"},
    {"InvalidUtf8AfterAComment", lines({"LISA T", "(* caf\xe9 *) \xe9", "{ x = 0; }"}),
     "f.litmus:2:12: error: invalid UTF-8 (byte 0xe9): litmus files are UTF-8 text"},
    {"TruncatedUtf8AtTheEnd", lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x ;", "exists (0:r0=0) \xc3"}),
     "f.litmus:5:17: error: invalid UTF-8 (byte 0xc3): litmus files are UTF-8 text"},
    {"Utf8Surrogate", lines({"LISA T", "\"\xed\xa0\x80\"", "{ x = 0; }"}),
     "f.litmus:2:2: error: invalid UTF-8 (byte 0xed): litmus files are UTF-8 text"},

    // ---- header, description, metadata ----
    {"EmptyFile", "", "f.litmus:1:1: error: empty file: expected 'LISA NAME'"},
    {"OnlyAComment", lines({"(* nothing *)", ""}), "f.litmus:3:1: error: empty file: expected 'LISA NAME'"},
    {"CppArchitecture", lines({"CPP MP", "{ x = 0; }"}),
     "f.litmus:1:1: error: 'CPP' tests are not supported: hsalit reads LISA and C tests"},
    {"AArch64Architecture", lines({"  AArch64 MP", "{ x = 0; }"}),
     "f.litmus:1:3: error: 'AArch64' tests are not supported: hsalit reads LISA and C tests"},
    {"NotLisa", lines({"LIZA MP", "{ x = 0; }"}),
     "f.litmus:1:1: error: expected 'LISA' at the start of the file, found 'LIZA'"},
    {"MissingName", lines({"LISA  ", "{ x = 0; }"}), "f.litmus:1:7: error: expected a test name after 'LISA'"},
    {"NameWithBlanks", lines({"LISA two words", "{ x = 0; }"}),
     "f.litmus:1:10: error: unexpected text after the test name (a test name has no blanks)"},
    {"TextAfterDescription", lines({"LISA T", "\"about\" more", "{ x = 0; }"}),
     "f.litmus:2:9: error: unexpected text after the description"},
    {"EndOfFileBeforeInit", lines({"LISA T", "Cycle=Rfe Fre"}),
     "f.litmus:3:1: error: expected '{' to start the initial state"},
    {"NotMetadata", lines({"LISA T", "  not metadata", "{ x = 0; }"}),
     "f.litmus:2:3: error: expected '{' to start the initial state (or a Key=value metadata "
     "line)"},
    {"BadMetadataKey", lines({"LISA T", "bad key=1", "{ x = 0; }"}),
     "f.litmus:2:1: error: malformed metadata line: 'bad key' is not a key (a key is a name such "
     "as Cycle, before '=')"},
    {"EmptyMetadataKey", lines({"LISA T", "=1", "{ x = 0; }"}),
     "f.litmus:2:1: error: malformed metadata line: '' is not a key (a key is a name such as "
     "Cycle, before '=')"},

    // ---- initial state ----
    {"MissingInit", lines({"LISA T", "\"d\"", " P0 ;"}),
     "f.litmus:3:2: error: expected '{' to start the initial state (or a Key=value metadata "
     "line)"},
    {"TypeDeclaration", lines({"LISA T", "{ int x = 0; }"}),
     "f.litmus:2:3: error: type declarations ('int ...') are not supported in the initial state: "
     "write 'x = 0' or '0:r1 = 0'"},
    {"InitThreadOutOfRange", lines({"LISA T", "{ 64:r0 = 1; }"}),
     "f.litmus:2:3: error: thread number 64 is out of range (at most 64 threads)"},
    {"InitRegisterExpected", lines({"LISA T", "{ 0:x = 1; }"}),
     "f.litmus:2:5: error: expected a register after 'N:', found 'x'"},
    {"InitColonExpected", lines({"LISA T", "{ 0 r0 = 1; }"}),
     "f.litmus:2:5: error: expected ':' after a thread number, found 'r0'"},
    {"InitMissingSeparator", lines({"LISA T", "{ x = 0 y = 1; }"}),
     "f.litmus:2:9: error: expected ';' or '}', found 'y'"},
    {"InitMissingValue", lines({"LISA T", "{ x = ; }"}),
     "f.litmus:2:7: error: expected a number or a location name, found ';'"},
    {"InitMissingEquals", lines({"LISA T", "{ 0:r0 1; }"}), "f.litmus:2:8: error: expected '=', found '1'"},
    {"InitUnclosed", lines({"LISA T", "{ x = 0;"}),
     "f.litmus:3:1: error: expected '}' to close the initial state, found end of file"},
    {"InitBadEntry", lines({"LISA T", "{ | }"}),
     "f.litmus:2:3: error: expected a location or 'N:register' in the initial state, found '|'"},

    // ---- program ----
    {"ThreadNameExpected", lines({"LISA T", "{ x = 0; }", " 1 | P1 ;"}),
     "f.litmus:3:2: error: expected a thread name 'P0', found '1'"},
    {"ThreadsOutOfOrder", lines({"LISA T", "{ x = 0; }", " P0 | P2 ;"}),
     "f.litmus:3:7: error: expected thread name 'P1', found 'P2' (threads are numbered P0, P1, "
     "... in column order)"},
    {"ThreadSeparatorExpected", lines({"LISA T", "{ x = 0; }", " P0 P1 ;"}),
     "f.litmus:3:5: error: expected '|' or ';' after the thread names, found 'P1'"},
    {"TooManyThreads", lines({"LISA T", "{ x = 0; }", " P0 | P1 | P2 ;"}),
     "f.litmus:3:12: error: too many threads (the limit is 2)", small_limits()},
    {"TooManyColumns", lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x | r[] r1 x ;"}),
     "f.litmus:4:13: error: this row has more columns than the 1 thread"},
    {"TooManyInstructions", lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x ;", " r[] r1 x ;", " L: r[] r2 x ;"}),
     "f.litmus:6:2: error: thread P0 has more than 2 instructions", small_limits()},
    {"UnknownInstruction", two(" ld r0 x | r[] r0 x ;"), "f.litmus:4:2: error: unknown instruction 'ld'"},
    {"UnknownInstructionAfterLabel", two(" L: ld r0 x | r[] r0 x ;"), "f.litmus:4:5: error: unknown instruction 'ld'"},
    {"MisspeltTrailer", two(" r[] r0 x | r[] r0 x ;", "exist (0:r0=0)"),
     "f.litmus:5:1: error: unknown instruction 'exist' (or a misspelt scopes:, regions:, "
     "locations, filter, exists, ~exists or forall)"},
    {"InstructionExpected", two(" 1 | r[] r0 x ;"), "f.litmus:4:2: error: expected an instruction, found '1'"},
    {"RowSeparatorExpected", two(" r[] r0 x r[] r1 x | ;"),
     "f.litmus:4:11: error: expected '|' or ';' after an instruction, found 'r'"},
    {"MissingRowEnd", lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x"}),
     "f.litmus:5:1: error: expected '|' or ';' after an instruction, found end of file"},

    // ---- annotations ----
    {"TwoOrders", two(" r[atomic,scacq,screl,wg] r0 x | ;"),
     "f.litmus:4:17: error: two memory order annotations ('scacq' and 'screl')"},
    {"TwoScopes", two(" r[atomic,wg,agent] r0 x | ;"),
     "f.litmus:4:14: error: two scope annotations ('wg' and 'agent')"},
    {"TwoScopeAliases", two(" r[atomic,workgroup,wg] r0 x | ;"),
     "f.litmus:4:21: error: two scope annotations ('workgroup' and 'wg')"},
    {"TwoAtomicities", two(" r[atomic,ordinary] r0 x | ;"),
     "f.litmus:4:11: error: two atomicity annotations ('atomic' and 'ordinary')"},
    {"TwoSizes", two(" r[single,double] r0 x | ;"),
     "f.litmus:4:11: error: two size annotations ('single' and 'double')"},
    {"FenceSize", two(" f[scacq,wg,double] | ;"), "f.litmus:4:13: error: a fence has no access size"},
    {"CasOnLoad", two(" r[cas] r0 x | ;"), "f.litmus:4:4: error: 'cas' applies to rmw only"},
    {"UnknownAnnotation", two(" r[acquire] r0 x | ;"),
     "f.litmus:4:4: error: unknown annotation 'acquire' (expected atomic, ordinary, rlx, scacq, "
     "screl, scar, sc, wi, wave, wg, agent, system, single, double)"},
    {"UnknownRmwAnnotation", two(" rmw[atomic,seqcst,wg] r0 1 x | ;"),
     "f.litmus:4:13: error: unknown annotation 'seqcst' (expected atomic, ordinary, rlx, scacq, "
     "screl, scar, sc, wi, wave, wg, agent, system, single, double, cas)"},
    {"AnnotationSeparator", two(" r[atomic wg] r0 x | ;"),
     "f.litmus:4:11: error: expected ',' or ']' in the annotation list, found 'wg'"},
    {"AnnotationAfterComma", two(" r[atomic,] r0 x | ;"),
     "f.litmus:4:11: error: expected an annotation after ',', found ']'"},
    {"AnnotationExpected", two(" r[1] r0 x | ;"), "f.litmus:4:4: error: expected an annotation or ']', found '1'"},

    // ---- instruction operands ----
    {"Call", two(" call[mp](x) | ;"),
     "f.litmus:4:2: error: herd macro calls ('call[...]') are not supported: inline the macro"},
    {"FenceLabelSets", two(" f[scacq,wg] {x} {y} | ;"),
     "f.litmus:4:14: error: fence label sets ('f[...] {...} {...}') are not supported"},
    {"BarrierAnnotations", two(" barrier[wg] | ;"),
     "f.litmus:4:10: error: unknown annotation 'wg' on a barrier (expected global or group)"},
    {"BarrierSegmentTwice", two(" barrier[global,group] | ;"),
     "f.litmus:4:17: error: two segment annotations on one barrier (write neither for both)"},
    {"LoadRegisterExpected", two(" r[] x r0 | ;"), "f.litmus:4:6: error: expected a destination register, found 'x'"},
    {"LoadAddressExpected", two(" r[] r0 1 | ;"),
     "f.litmus:4:9: error: expected an address (a location or a register), found '1'"},
    {"OffsetExpected", two(" r[] r0 x+y | ;"),
     "f.litmus:4:11: error: expected a constant or a register offset, found 'y'"},
    {"OldAddressUnclosed", two(" r[] r0 [x | ;"), "f.litmus:4:12: error: expected ']', found '|'"},
    {"StoreValueExpected", two(" w[] x y | ;"),
     "f.litmus:4:8: error: expected a constant or a register to store, found 'y'"},
    {"OperationExpected", two(" mov r1 ; | ;"), "f.litmus:4:9: error: expected a value or '(OP a b)', found ';'"},
    {"OperatorExpected", two(" mov r1 (1 r0 2) | ;"),
     "f.litmus:4:10: error: expected an operator (add, sub, xor, and, or, eq, neq), found '1'"},
    {"UnknownOperator", two(" mov r1 (mul r0 2) | ;"),
     "f.litmus:4:10: error: unknown operator 'mul' (expected add, sub, xor, and, or, eq, neq)"},
    {"OperationUnclosed", two(" mov r1 (add r0 1 | ;"),
     "f.litmus:4:19: error: expected ')' to close the operation, found '|'"},
    {"OperationTooDeep", two(" mov r1 (add (add (add 1 1) 1) 1) | ;"),
     "f.litmus:4:19: error: nesting deeper than 2 levels", small_limits()},
    {"TwoComparisons", two(" b[eq,ne] r0, 1, L | ;"), "f.litmus:4:7: error: two comparison annotations on one branch"},
    {"ComparisonWithoutRegister", two(" b[eq] L | ;"),
     "f.litmus:4:8: error: a comparison branch 'b[eq]' needs a register and a value"},
    {"BranchTargetExpected", two(" b[] 1 | ;"), "f.litmus:4:6: error: expected a register or a label, found '1'"},
    {"BranchLabelExpected", two(" b[] r0 | ;"), "f.litmus:4:9: error: expected a label, found '|'"},
    {"ComparisonValueExpected", two(" b[eq] r0, x, L | ;"),
     "f.litmus:4:12: error: expected a value to compare with, found 'x'"},

    // ---- trailers ----
    {"DuplicateTrailer", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nscopes: (wg 0 1)\nexists (0:r0=0)"),
     "f.litmus:6:1: error: 'scopes' appears twice"},
    {"DuplicateFilter", two(" r[] r0 x | ;", "filter (0:r0=0)\nfilter (0:r0=0)\nexists (0:r0=0)"),
     "f.litmus:6:1: error: 'filter' appears twice"},
    {"TrailingText", two(" r[] r0 x | ;", "exists (0:r0=0) junk"),
     "f.litmus:5:17: error: unexpected text after the final condition (it must come last)"},
    {"NotWithoutExists", two(" r[] r0 x | ;", "not (0:r0=0)"),
     "f.litmus:5:5: error: expected 'exists' after 'not', found '('"},
    {"UnknownTrailer", two(" r[] r0 x | ;", "scopes: (wg 0 1) finally (0:r0=0)"),
     "f.litmus:5:18: error: expected scopes:, regions:, locations, filter or the final "
     "condition, found 'finally'"},
    {"ScopesColon", two(" r[] r0 x | ;", "scopes (wg 0 1)\nexists (0:r0=0)"),
     "f.litmus:5:8: error: expected ':' after 'scopes', found '('"},
    {"ScopesParen", two(" r[] r0 x | ;", "scopes: wg 0 1\nexists (0:r0=0)"),
     "f.litmus:5:9: error: expected '(' to start a scope group, found 'wg'"},
    {"UnknownScopeLevel", two(" r[] r0 x | ;", "scopes: (agent (group 0 1))\nexists (0:r0=0)"),
     "f.litmus:5:17: error: unknown scope level 'group' (expected system, agent, wg, wave or wi)"},
    {"ScopeLevelExpected", two(" r[] r0 x | ;", "scopes: (0 1)\nexists (0:r0=0)"),
     "f.litmus:5:10: error: expected a scope level (system, agent, wg, wave, wi), found '0'"},
    {"ScopeChildExpected", two(" r[] r0 x | ;", "scopes: (wg 0 x)\nexists (0:r0=0)"),
     "f.litmus:5:15: error: expected a thread (0 or P0), a nested group or ')', found 'x'"},
    {"ScopeThreadOutOfRange", two(" r[] r0 x | ;", "scopes: (wg 0 P99999999999)\nexists (0:r0=0)"),
     "f.litmus:5:15: error: thread number 99999999999 is out of range (at most 64 threads)"},
    {"ScopesTooDeep", two(" r[] r0 x | ;", "scopes: (system (agent (wg 0 1)))\nexists (0:r0=0)"),
     "f.litmus:5:24: error: nesting deeper than 2 levels", small_limits()},
    {"RegionsColon", two(" r[] r0 x | ;", "regions x:global\nexists (0:r0=0)"),
     "f.litmus:5:9: error: expected ':' after 'regions', found 'x'"},
    {"RegionLocationExpected", two(" r[] r0 x | ;", "regions: 1:global\nexists (0:r0=0)"),
     "f.litmus:5:10: error: expected a location name, found '1'"},
    {"RegionColonExpected", two(" r[] r0 x | ;", "regions: x global\nexists (0:r0=0)"),
     "f.litmus:5:12: error: expected ':' after the location, found 'global'"},
    {"RegionSegmentExpected", two(" r[] r0 x | ;", "regions: x:1\nexists (0:r0=0)"),
     "f.litmus:5:12: error: expected a segment (global or group), found '1'"},
    {"UnknownSegment", two(" r[] r0 x | ;", "regions: x:shared\nexists (0:r0=0)"),
     "f.litmus:5:12: error: unknown segment 'shared' (expected global or group)"},
    {"LocationsBracket", two(" r[] r0 x | ;", "locations x\nexists (0:r0=0)"),
     "f.litmus:5:11: error: expected '[' after 'locations', found 'x'"},
    {"LocationsSeparator", two(" r[] r0 x | ;", "locations [x y]\nexists (0:r0=0)"),
     "f.litmus:5:14: error: expected ';' or ']', found 'y'"},
    {"NotExistsExpected", two(" r[] r0 x | ;", "~forall (0:r0=0)"),
     "f.litmus:5:2: error: expected 'exists' after '~', found 'forall'"},
    {"ConditionEqualsExpected", two(" r[] r0 x | ;", "exists (0:r0)"),
     "f.litmus:5:13: error: expected '=' in the condition, found ')'"},
    {"ConditionValueExpected", two(" r[] r0 x | ;", "exists (0:r0=)"),
     "f.litmus:5:14: error: expected a value, found ')'"},
    {"ConditionUnclosed", two(" r[] r0 x | ;", "exists (0:r0=0"),
     "f.litmus:6:1: error: expected ')' to close the condition, found end of file"},
    {"ConditionRegisterExpected", two(" r[] r0 x | ;", "exists (0:x=0)"),
     "f.litmus:5:11: error: expected a register after 'N:', found 'x'"},
    {"ConditionRefExpected", two(" r[] r0 x | ;", "exists (| )"),
     "f.litmus:5:9: error: expected 'N:register' or a location, found '|'"},
    {"ConditionOldLocationUnclosed", two(" r[] r0 x | ;", "exists ([x=0)"),
     "f.litmus:5:11: error: expected ']', found '='"},
    {"ConditionThreadOutOfRange", two(" r[] r0 x | ;", "exists (99:r0=0)"),
     "f.litmus:5:9: error: thread number 99 is out of range (at most 64 threads)"},
    {"ConditionParenthesesTooDeep", two(" r[] r0 x | ;", "exists (((0:r0=0)))"),
     "f.litmus:5:10: error: nesting deeper than 2 levels", small_limits()},
    {"ConditionNegationsTooDeep", two(" r[] r0 x | ;", "exists ~~~0:r0=0"),
     "f.litmus:5:10: error: nesting deeper than 2 levels", small_limits()},
    {"ConditionTreeTooDeep", two(" r[] r0 x | ;", "exists 0:r0=0 /\\ 0:r0=1 \\/ 0:r0=2"),
     "f.litmus:5:25: error: condition nested deeper than 2 levels (each /\\, \\/, => and ~ adds "
     "a level)",
     small_limits()},
    {"ConditionNegationTreeTooDeep", two(" r[] r0 x | ;", "exists ~(0:r0=0 /\\ 0:r0=1)"),
     "f.litmus:5:8: error: condition nested deeper than 2 levels (each /\\, \\/, => and ~ adds "
     "a level)",
     small_limits()},
};

// Semantic errors and warnings: reported together, so each case asserts one line among them.
const Case kCheckCases[] = {
    {"UnknownRegister", two(" w[] x r5 | r[] r0 x ;"),
     "f.litmus:4:8: error: unknown register 'r5': thread P0 neither initialises nor writes it"},
    {"UnknownAddressRegister", two(" r[] r0 r3 | ;"),
     "f.litmus:4:9: error: unknown register 'r3': thread P0 neither initialises nor writes it"},
    {"UnknownOffsetRegister", two(" r[] r0 x+r2 | ;"),
     "f.litmus:4:11: error: unknown register 'r2': thread P0 neither initialises nor writes it"},
    {"UnknownRegisterInOperation", two(" mov r0 (add r7 1) | ;"),
     "f.litmus:4:14: error: unknown register 'r7': thread P0 neither initialises nor writes it"},
    {"UnknownBranchRegister", two(" b[] r4 L | ;\n L: r[] r0 x | ;"),
     "f.litmus:4:6: error: unknown register 'r4': thread P0 neither initialises nor writes it"},
    {"RegisterOfAnotherThread", two(" r[] r0 x | w[] x r0 ;"),
     "f.litmus:4:19: error: unknown register 'r0': thread P1 neither initialises nor writes it"},
    {"UnknownLabel", two(" r[] r0 x | b[] Nowhere ;"), "f.litmus:4:13: error: unknown label 'Nowhere' in thread P1"},
    {"BackwardBranch", two(" L: r[] r0 x | ;\n b[] L | ;"),
     "f.litmus:5:2: error: backward branch to 'L': only forward branches are supported (a loop "
     "makes executions unbounded)"},
    {"DuplicateLabel", two(" L: r[] r0 x | ;\n L: | ;"),
     "f.litmus:5:2: error: label 'L' is defined twice in thread P0"},
    {"KeywordLabel", two(" r[] r0 x | exists: ;"),
     "f.litmus:4:13: error: 'exists' cannot be a label (a label is a name that is not a "
     "register, an instruction or a keyword)"},
    {"NotLabel", two(" r[] r0 x | not: ;"),
     "f.litmus:4:13: error: 'not' cannot be a label (a label is a name that is not a "
     "register, an instruction or a keyword)"},
    {"FinalLabel", two(" r[] r0 x | final: ;"),
     "f.litmus:4:13: error: 'final' cannot be a label (a label is a name that is not a "
     "register, an instruction or a keyword)"},
    {"ScopeTreePlacesThreadTwice", two(" r[] r0 x | ;", "scopes: (agent (wg 0 1) (wg 1))\nexists (0:r0=0)"),
     "f.litmus:5:25: error: scope tree places thread 1 twice"},
    {"ScopeTreeMissesThread", two(" r[] r0 x | ;", "scopes: (agent (wg 0))\nexists (0:r0=0)"),
     "f.litmus:5:9: error: scope tree does not place thread 1"},
    {"ScopeTreeWidens", two(" r[] r0 x | ;", "scopes: (wg (agent 0 1))\nexists (0:r0=0)"),
     "f.litmus:5:13: error: scope group 'agent' cannot be inside 'wg': levels must narrow "
     "inwards (system > agent > wg > wave > wi)"},
    {"ScopeTreeRepeatsLevel", two(" r[] r0 x | ;", "scopes: (wg (wg 0 1))\nexists (0:r0=0)"),
     "f.litmus:5:13: error: scope group 'wg' cannot be inside 'wg': levels must narrow inwards "
     "(system > agent > wg > wave > wi)"},
    {"ScopeTreeEmptyGroup", two(" r[] r0 x | ;", "scopes: (agent (wg 0 1) (wave))\nexists (0:r0=0)"),
     "f.litmus:5:25: error: empty scope group 'wave'"},
    {"ScopeTreeWorkItemOfTwo", two(" r[] r0 x | ;", "scopes: (wg (wi 0 1))\nexists (0:r0=0)"),
     "f.litmus:5:13: error: a work-item group '(wi ...)' holds exactly one thread"},
    {"OrdinaryWithScope", two(" r[wg] r0 x | ;"),
     "f.litmus:4:2: error: an ordinary access has work-item scope, not 'wg': write 'atomic' for "
     "an atomic operation (HSA SysArch 3.3.6)"},
    {"OrdinaryWithOrder", two(" r[scacq] r0 x | ;"),
     "f.litmus:4:2: error: an ordinary access cannot be 'scacq': write 'atomic' for an atomic "
     "operation (HSA SysArch 3.3.1)"},
    {"ExplicitOrdinaryWithOrder", two(" r[ordinary,screl] r0 x | ;"),
     "f.litmus:4:2: error: an ordinary access cannot be 'screl': write 'atomic' for an atomic "
     "operation (HSA SysArch 3.3.1)"},
    {"StoreAcquire", two(" w[atomic,scacq,wg] x 1 | r[] r0 x ;"),
     "f.litmus:4:2: error: a store cannot be 'scacq' (stores are rlx, screl or scar)"},
    {"LoadRelease", two(" r[atomic,screl,wg] r0 x | ;"),
     "f.litmus:4:2: error: a load cannot be 'screl' (loads are rlx, scacq or scar)"},
    {"FenceWithoutOrder", two(" r[] r0 x | f[wg] ;"),
     "f.litmus:4:13: error: a fence needs an order: scacq, screl or scar (HSA has no relaxed "
     "fence)"},
    {"FenceWithoutScope", two(" r[] r0 x | f[scacq] ;"),
     "f.litmus:4:13: error: a fence needs a scope: wave, wg, agent or system"},
    {"AtomicFence", two(" r[] r0 x | f[atomic,scar,wg] ;"),
     "f.litmus:4:13: error: a fence is not 'atomic': write f[ORDER,SCOPE]"},
    {"AtomicWithoutScope", two(" r[atomic,scacq] r0 x | ;"),
     "f.litmus:4:2: error: an atomic operation needs a scope: wave, wg, agent or system"},
    {"RmwNotAtomic", two(" rmw[] r0 1 x | ;"),
     "f.litmus:4:2: error: a read-modify-write is atomic: write rmw[atomic,ORDER,SCOPE]"},
    {"RmwWithOrderNotAtomic", two(" rmw[scar,agent] r0 1 x | ;"),
     "f.litmus:4:2: error: a read-modify-write is atomic: write rmw[atomic,ORDER,SCOPE]"},
    {"GroupSegmentWithAgentScope",
     two(" w[atomic,screl,agent] z 1 | r[] r0 x ;", "scopes: (wg 0 1)\nregions: z:group\nexists (1:r0=0)"),
     "f.litmus:4:2: warning: 'z' is in the group segment: scope 'agent' acts as wg (HSA SysArch "
     "3.3.6)"},
    {"NoScopesLine", two(" r[] r0 x | ;", "exists (0:r0=0)"),
     "f.litmus:5:1: warning: no 'scopes:' line: each thread is placed in its own work-group of "
     "one agent"},
    {"ConditionOnMissingThread", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nexists (2:r0=1)"),
     "f.litmus:6:9: error: condition names thread 2 but the test has 2 threads"},
    {"ConditionRegisterNeverWritten", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nexists (1:r0=1)"),
     "f.litmus:6:9: error: condition reads 1:r0 but thread P1 neither initialises nor writes r0"},
    {"FilterRegisterNeverWritten", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nfilter 0:r1=0\nexists (0:r0=1)"),
     "f.litmus:6:8: error: filter reads 0:r1 but thread P0 neither initialises nor writes r1"},
    {"LocationsOnMissingThread", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nlocations [x; 5:r0;]\nexists (0:r0=1)"),
     "f.litmus:6:15: error: 'locations' names thread 5 but the test has 2 threads"},
    {"InitOnMissingThread",
     lines({"LISA T", "{ x = 0; 3:r0 = 1; }", " P0 | P1 ;", " r[] r0 x | ;", "scopes: (wg 0 1)", "exists (0:r0=0)"}),
     "f.litmus:2:10: error: initial state names thread 3 but the test has 2 threads"},
    {"InitTwice",
     lines(
         {"LISA T", "{ x = 0; y = 0; x = 1; }", " P0 | P1 ;", " r[] r0 x | ;", "scopes: (wg 0 1)", "exists (0:r0=0)"}),
     "f.litmus:2:17: error: 'x' is initialised twice"},
    {"RegionTwice", two(" r[] r0 x | ;", "scopes: (wg 0 1)\nregions: x:global, x:group\nexists (0:r0=0)"),
     "f.litmus:6:20: error: 'x' is given a region twice"},
};

class SyntaxDiagnostics : public testing::TestWithParam<Case> {};
class CheckDiagnostics : public testing::TestWithParam<Case> {};

// The rendered diagnostics contain `expected` as one whole line.
testing::AssertionResult has_line(const std::string& rendered, const std::string& expected) {
  std::size_t at = 0;
  while (at < rendered.size()) {
    std::size_t end = rendered.find('\n', at);
    if (end == std::string::npos) end = rendered.size();
    if (rendered.compare(at, end - at, expected) == 0) return testing::AssertionSuccess();
    at = end + 1;
  }
  return testing::AssertionFailure() << "expected the line\n  " << expected << "\ngot\n" << rendered;
}

TEST_P(SyntaxDiagnostics, ReportsOneErrorAtItsPosition) {
  const Case& c = GetParam();
  ParseResult r = parse_litmus(c.text, c.limits);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.error_count(), 1u) << r.diagnostics.render("f.litmus");
  EXPECT_TRUE(has_line(r.diagnostics.render("f.litmus"), c.expected));
}

TEST_P(CheckDiagnostics, ReportsTheDiagnosticAtItsPosition) {
  const Case& c = GetParam();
  ParseResult r = parse_litmus(c.text, c.limits);
  const bool warning = c.expected.find(": warning: ") != std::string::npos;
  EXPECT_EQ(r.ok(), warning) << r.diagnostics.render("f.litmus");
  EXPECT_TRUE(has_line(r.diagnostics.render("f.litmus"), c.expected));
}

std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Litmus, SyntaxDiagnostics, testing::ValuesIn(kSyntaxCases), case_name);
INSTANTIATE_TEST_SUITE_P(Litmus, CheckDiagnostics, testing::ValuesIn(kCheckCases), case_name);

TEST(Diagnostics, FileLargerThanTheLimitHasNoPosition) {
  std::string text = two(" r[] r0 x | ;");
  text += std::string(500, ' ');
  ParseResult r = parse_litmus(text, small_limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.render("f.litmus"),
            "f.litmus: error: file is " + std::to_string(text.size()) + " bytes, larger than the limit of 400 bytes\n");
}

TEST(Diagnostics, SemanticErrorsAreAllReported) {
  ParseResult r = parse_litmus(two(" r[wg] r0 x | w[] x r9 ;", "scopes: (wg 0 1)\nexists (1:r3=1)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.error_count(), 3u) << r.diagnostics.render("f.litmus");
}

// Regression: a group nested more than five deep was reported as "a group appears twice"
// and its thread as not placed, on top of the real error.
TEST(Diagnostics, DeepNonNarrowingTreeReportsOnlyTheNarrowingErrors) {
  ParseResult r = parse_litmus(lines({"LISA T", "{ x = 0; }", " P0 ;", " r[] r0 x ;",
                                      "scopes: (wg (wg (wg (wg (wg (wg (wg 0)))))))", "exists (0:r0=0)"}));
  ASSERT_FALSE(r.ok());
  const std::string text = r.diagnostics.render("f.litmus");
  EXPECT_EQ(r.diagnostics.error_count(), 6u) << text;
  EXPECT_TRUE(has_line(text,
                       "f.litmus:5:33: error: scope group 'wg' cannot be inside 'wg': "
                       "levels must narrow inwards (system > agent > wg > wave > wi)"));
  EXPECT_EQ(text.find("appears twice"), std::string::npos) << text;
  EXPECT_EQ(text.find("does not place"), std::string::npos) << text;
}

TEST(Diagnostics, ColumnsCountBytesAndTabsAsOne) {
  ParseResult r = parse_litmus(two("\tr[] r0 x |\tr[] r0 y ;\t$"));
  EXPECT_TRUE(has_line(r.diagnostics.render("f.litmus"), "f.litmus:4:24: error: unexpected character '$'"));
}

// Files: the reader's own errors carry no position.
class FileDiagnostics : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hsalit-diag-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(FileDiagnostics, MissingFileDirectoryAndTooLarge) {
  ParseResult missing = parse_litmus_file(dir_ / "none.litmus");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.diagnostics.render("f.litmus").rfind("f.litmus: error: cannot read: ", 0), 0u)
      << missing.diagnostics.render("f.litmus");

  ParseResult folder = parse_litmus_file(dir_);
  EXPECT_EQ(folder.diagnostics.render("f.litmus"), "f.litmus: error: is a directory\n");

  const std::filesystem::path big = dir_ / "big.litmus";
  std::ofstream(big) << two(" r[] r0 x | ;") << std::string(500, ' ');
  ParseResult large = parse_litmus_file(big, small_limits());
  EXPECT_EQ(large.diagnostics.render("f.litmus"), "f.litmus: error: file is " +
                                                      std::to_string(std::filesystem::file_size(big)) +
                                                      " bytes, larger than the limit of 400 bytes\n");

  const std::filesystem::path good = dir_ / "good.litmus";
  std::ofstream(good) << two(" r[] r0 x | ;");
  EXPECT_TRUE(parse_litmus_file(good).ok());
}

// Checks that only a test built in memory (or read from JSON) can fail: the text grammar
// cannot produce these shapes.
Test skeleton() {
  ParseResult r = parse_litmus(two(" r[] r0 x | r[] r0 x ;"));
  EXPECT_TRUE(r.ok()) << r.diagnostics.render("skeleton");
  return *r.test;
}

std::string check_errors(Test t, ParseLimits limits = {}) {
  DiagnosticList d;
  EXPECT_FALSE(check_test(t, d, limits));
  return d.render("t");
}

TEST(CheckOfBuiltTests, ThreadShape) {
  litmus::Test t = skeleton();
  t.threads.clear();
  EXPECT_EQ(check_errors(t), "t: error: the test has no threads\n");

  t = skeleton();
  t.threads[1].id = 5;
  EXPECT_TRUE(has_line(check_errors(t),
                       "t:3:7: error: thread 1 is numbered 5 (threads are numbered 0, 1, ... in "
                       "order)"));

  t = skeleton();
  ParseLimits one;
  one.max_threads = 1;
  EXPECT_TRUE(has_line(check_errors(t, one), "t:3:2: error: too many threads (2; the limit is 1)"));

  t = skeleton();
  ParseLimits short_threads;
  short_threads.max_instructions_per_thread = 0;
  EXPECT_TRUE(has_line(check_errors(t, short_threads), "t:3:2: error: thread P0 has more than 0 instructions"));
}

TEST(CheckOfBuiltTests, Names) {
  litmus::Test t = skeleton();
  t.init.push_back({1, "x", Expr::constant(0), {}});
  EXPECT_TRUE(has_line(check_errors(t), "t: error: 'x' is not a register name (r0, r1, ... or %T1)"));

  t = skeleton();
  t.init.push_back({std::nullopt, "r7", Expr::constant(0), {}});
  EXPECT_TRUE(has_line(check_errors(t), "t: error: 'r7' is not a location name"));

  t = skeleton();
  t.init.push_back({std::nullopt, "y", Expr::binary(BinaryOp::Add, Expr::constant(1), Expr::constant(2)), {}});
  EXPECT_TRUE(has_line(check_errors(t), "t: error: an initial value is a number or a location name"));

  t = skeleton();
  t.threads[0].code[0].reg = "x";
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: 'x' is not a register name (r0, r1, ... or %T1)"));

  t = skeleton();
  t.threads[0].code[0].reg.clear();
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: missing destination register"));

  t = skeleton();
  t.threads[0].code[0].addr.base = Expr::location("bad name");
  EXPECT_TRUE(has_line(check_errors(t), "t: error: 'bad name' is not a location name"));

  t = skeleton();
  t.regions.push_back({"%T1", Segment::Global, {}});
  EXPECT_TRUE(has_line(check_errors(t), "t: error: '%T1' is not a location name"));

  t = skeleton();
  t.condition.prop = Prop::equals(ObservedRef{std::nullopt, "true", {}}, Expr::constant(1));
  EXPECT_TRUE(has_line(check_errors(t), "t: error: 'true' cannot be a location in a condition"));

  t = skeleton();
  t.condition.prop = Prop::equals(ObservedRef{0, "r0", {}}, Expr::reg("r0"));
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a condition compares with a number or a location"));

  t = skeleton();
  t.condition.prop = Prop::equals(ObservedRef{0, "r0", {}}, Expr::location("9"));
  EXPECT_TRUE(has_line(check_errors(t), "t: error: '9' is not a location name"));

  t = skeleton();
  t.condition.prop.kind = Prop::Kind::And;
  t.condition.prop.operands.clear();
  EXPECT_TRUE(has_line(check_errors(t), "t:6:9: error: malformed condition"));
}

TEST(CheckOfBuiltTests, InstructionShapes) {
  litmus::Test t = skeleton();
  Instruction& load = t.threads[0].code[0];
  load.addr.base = Expr::constant(3);
  EXPECT_TRUE(has_line(check_errors(t), "t:4:9: error: an address is a location or a register"));

  t = skeleton();
  t.threads[0].code[0].addr.offset = Expr::location("y");
  EXPECT_TRUE(has_line(check_errors(t), "t:4:9: error: an address offset is a constant or a register"));

  t = skeleton();
  Instruction store;
  store.kind = OpKind::Store;
  store.addr.base = Expr::location("x");
  store.value = Expr::binary(BinaryOp::Add, Expr::constant(1), Expr::constant(2));
  t.threads[0].code.push_back(store);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a store writes a constant or a register"));

  t = skeleton();
  Instruction rmw;
  rmw.kind = OpKind::Rmw;
  rmw.annots.atomic = true;
  rmw.annots.scope = Scope::Agent;
  rmw.annots.cas = true;
  rmw.reg = "r1";
  rmw.addr.base = Expr::location("x");
  rmw.value = Expr::constant(1);
  t.threads[0].code.push_back(rmw);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a compare-and-swap has an expected value and a new value"));

  t = skeleton();
  Expr odd;
  odd.kind = Expr::Kind::Binary;
  odd.operands.push_back(Expr::constant(1));
  Instruction mov;
  mov.kind = OpKind::Mov;
  mov.reg = "r1";
  mov.value = odd;
  t.threads[0].code.push_back(mov);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: an operation has exactly two operands"));

  t = skeleton();
  Instruction branch;
  branch.kind = OpKind::Branch;
  branch.condition = Expr::binary(BinaryOp::Add, Expr::reg("r0"), Expr::constant(1));
  branch.label = "L";
  Instruction label;
  label.kind = OpKind::Label;
  label.label = "L";
  t.threads[0].code.push_back(branch);
  t.threads[0].code.push_back(label);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a branch condition is a register, or (eq|neq REGISTER VALUE)"));

  t = skeleton();
  branch.condition.reset();
  branch.annots.tags = {"eq"};
  t.threads[0].code.push_back(branch);
  t.threads[0].code.push_back(label);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: 'eq' is not a branch annotation"));

  t = skeleton();
  t.threads[0].code[0].annots.tags = {"weird"};
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: unknown annotation 'weird'"));

  t = skeleton();
  t.threads[0].code[0].annots.cas = true;
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: 'cas' applies to rmw only"));

  t = skeleton();
  t.threads[0].code[0].expected = Expr::constant(0);
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: only a compare-and-swap has an expected value"));

  t = skeleton();
  t.threads[0].code[0].condition = Expr::reg("r0");
  EXPECT_TRUE(has_line(check_errors(t), "t:4:2: error: only a branch has a condition"));

  t = skeleton();
  Instruction barrier;
  barrier.kind = OpKind::Barrier;
  barrier.annots.atomic = true;
  t.threads[0].code.push_back(barrier);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a barrier has no atomicity, order, scope or size"));

  t = skeleton();
  Instruction fence;
  fence.kind = OpKind::Fence;
  fence.annots.order = MemoryOrder::Acquire;
  fence.annots.scope = Scope::WorkGroup;
  fence.annots.size = AccessSize::Double;
  t.threads[0].code.push_back(fence);
  EXPECT_TRUE(has_line(check_errors(t), "t: error: a fence has no access size"));
}

TEST(CheckOfBuiltTests, ScopeTreeApi) {
  ScopeTree shared;
  int wg = shared.add_node(ScopeNode{Scope::WorkGroup, {{true, 0}}, {}});
  shared.add_root(shared.add_node(ScopeNode{Scope::Agent, {{false, wg}, {false, wg}}, {}}));
  DiagnosticList d;
  EXPECT_FALSE(shared.resolve(1, d));
  EXPECT_TRUE(has_line(d.render("t"), "t: error: malformed scope tree (a group appears twice)"));

  ScopeTree bad_child;
  bad_child.add_root(bad_child.add_node(ScopeNode{Scope::Agent, {{false, 7}}, {}}));
  DiagnosticList d3;
  EXPECT_FALSE(bad_child.resolve(1, d3));
  EXPECT_TRUE(has_line(d3.render("t"), "t: error: malformed scope tree (bad group index)"));

  ScopeTree unresolved = ScopeTree::default_for(2);
  EXPECT_THROW(unresolved.instance(0, Scope::Agent), std::logic_error);
  DiagnosticList d4;
  ASSERT_TRUE(unresolved.resolve(2, d4));
  EXPECT_THROW(unresolved.instance(2, Scope::Agent), std::logic_error);

  ScopeTree bad_root;
  bad_root.add_root(3);
  DiagnosticList d2;
  EXPECT_FALSE(bad_root.resolve(1, d2));
  EXPECT_EQ(d2.render("t"), "t: error: malformed scope tree (bad root)\n");
}

}  // namespace
}  // namespace hsalit::litmus
