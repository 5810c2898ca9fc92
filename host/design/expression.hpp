// Arithmetic expressions over parameter names, so that study files can define
// derived parameters without code changes:
//
//   [derived]
//   "friction.static_force" = "4 * friction.coulomb_force"
//   "circuit.rod_diameter"  = "0.5 * circuit.piston_diameter"
//
// Grammar (whitespace between tokens is ignored):
//
//   expression := term (('+' | '-') term)*
//   term       := unary (('*' | '/') unary)*
//   unary      := ('+' | '-') unary | power
//   power      := primary ('^' unary)?          right-associative: 2^3^2 = 2^9;
//                                               binds tighter than a leading
//                                               sign: -2^2 = -4, 2^-1 = 0.5
//   primary    := number | name | 'pi' | function '(' arguments ')'
//               | '(' expression ')'
//   number     := digits ['.' [digits]] [exponent] | '.' digits [exponent]
//   exponent   := ('e' | 'E') ['+' | '-'] digits
//   name       := (letter | '_') (letter | digit | '_' | '.')*
//
// Functions (by arity): sqrt exp log (natural) log10 sin cos tan abs (1);
// min max pow (2). An identifier directly followed by '(' is a function call,
// anything else is a name: `pi` is always the constant, every other name must
// be accepted by the `is_name` predicate given to parse(). Evaluation follows
// IEEE arithmetic (1/0 = inf, log(-1) = NaN; min/max propagate NaN) and never
// throws: the caller range-checks the result.
//
// parse() compiles the text once to a flat postfix program; evaluate() runs it
// with a fixed-size local stack, so evaluation neither recurses nor allocates
// (see evaluate(const double*)) and is safe to call from many threads at once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs {

// A syntax or name error. what() is "<problem> at column <column>"; column is
// 1-based (byte offset + 1) into the expression text, text.size() + 1 for a
// problem at the end.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(const std::string& problem, std::size_t column);
  std::size_t column() const { return column_; }
  // The message without the column, for callers that format their own.
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
  std::size_t column_;
};

namespace detail {
class ExpressionCompiler;
}

class Expression {
 public:
  // Parse and compile `text`; names are checked with `is_name` (true if the
  // identifier is a known variable). Throws ExpressionError.
  static Expression parse(const std::string& text, const std::function<bool(const std::string&)>& is_name);

  // Names the expression reads, each once, in order of first use.
  const std::vector<std::string>& names() const { return names_; }
  const std::string& text() const { return text_; }

  // values[k] is the value of names()[k]. No allocation, no recursion.
  double evaluate(const double* values_in_names_order) const;
  // Looks every name up once (in names() order), then as above.
  double evaluate(const std::function<double(const std::string&)>& value) const;

  // Deepest nesting of parentheses, function arguments, signs and exponents
  // parse() accepts; deeper text is rejected instead of exhausting the stack.
  static constexpr int max_nesting = 100;
  // Evaluation stack size (doubles); a program needing more is rejected.
  static constexpr std::size_t max_stack = 256;

  enum class OpCode : std::uint8_t {
    push_constant,  // push constant
    push_variable,  // push values[variable]
    negate,
    add,
    subtract,
    multiply,
    divide,
    power,
    sqrt,
    exp,
    log,
    log10,
    sin,
    cos,
    tan,
    abs,
    min,
    max,
  };
  struct Instruction {
    OpCode op;
    std::size_t variable;  // push_variable only
    double constant;       // push_constant only
  };
  // The compiled postfix program (for tests and diagnostics).
  const std::vector<Instruction>& program() const { return program_; }

 private:
  friend class detail::ExpressionCompiler;
  Expression() = default;

  std::string text_;
  std::vector<std::string> names_;
  std::vector<Instruction> program_;
};

}  // namespace hs
