// Recursive-descent parser that compiles an expression to a postfix program,
// and the stack machine that runs it. See host/design/expression.hpp for the grammar.
#include "host/design/expression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace hs {

ExpressionError::ExpressionError(const std::string& problem, std::size_t column)
    : std::runtime_error(problem + " at column " + std::to_string(column)), problem_(problem), column_(column) {}

namespace {

constexpr double pi_value = 3.14159265358979323846;

struct FunctionInfo {
  const char* name;
  int arity;
  Expression::OpCode op;
};

// pow is the same operation as '^'.
constexpr FunctionInfo functions[] = {
    {"sqrt", 1, Expression::OpCode::sqrt}, {"exp", 1, Expression::OpCode::exp},
    {"log", 1, Expression::OpCode::log},   {"log10", 1, Expression::OpCode::log10},
    {"sin", 1, Expression::OpCode::sin},   {"cos", 1, Expression::OpCode::cos},
    {"tan", 1, Expression::OpCode::tan},   {"abs", 1, Expression::OpCode::abs},
    {"min", 2, Expression::OpCode::min},   {"max", 2, Expression::OpCode::max},
    {"pow", 2, Expression::OpCode::power},
};

const FunctionInfo* find_function(const std::string& name) {
  for (const FunctionInfo& f : functions)
    if (name == f.name) return &f;
  return nullptr;
}

std::string function_list() {
  std::string list;
  for (const FunctionInfo& f : functions) {
    if (!list.empty()) list += ", ";
    list += f.name;
  }
  return list;
}

// ASCII only: std::isalpha depends on the locale and is undefined for the
// negative chars of UTF-8 bytes.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool starts_name(char c) { return is_letter(c) || c == '_'; }
bool continues_name(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '.'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Stack slots an instruction adds (+1) or removes.
int stack_effect(Expression::OpCode op) {
  using Op = Expression::OpCode;
  switch (op) {
    case Op::push_constant:
    case Op::push_variable:
      return +1;
    case Op::add:
    case Op::subtract:
    case Op::multiply:
    case Op::divide:
    case Op::power:
    case Op::min:
    case Op::max:
      return -1;
    default:  // unary operators and one-argument functions
      return 0;
  }
}

}  // namespace

namespace detail {

class ExpressionCompiler {
 public:
  ExpressionCompiler(const std::string& text, const std::function<bool(const std::string&)>& is_name)
      : text_(text), is_name_(is_name) {
    result_.text_ = text;
  }

  Expression compile() {
    advance();
    if (token_.kind == Kind::end) fail("empty expression", 0);
    parse_expression();
    if (token_.kind == Kind::right_paren) fail("unmatched ')'", token_.start);
    if (token_.kind != Kind::end) fail("unexpected " + describe(token_) + " after a complete expression", token_.start);
    if (max_depth_ > static_cast<int>(Expression::max_stack))
      fail("expression too large (needs " + std::to_string(max_depth_) + " evaluation stack slots, at most " +
               std::to_string(Expression::max_stack) + ")",
           0);
    return std::move(result_);
  }

 private:
  enum class Kind { number, identifier, plus, minus, star, slash, caret, left_paren, right_paren, comma, end };
  struct Token {
    Kind kind = Kind::end;
    std::size_t start = 0;  // byte offset into the text
    std::string text;       // identifier or number spelling
    double number = 0.0;
  };

  [[noreturn]] void fail(const std::string& problem, std::size_t offset) const {
    throw ExpressionError(problem, offset + 1);
  }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Kind::number: return "number '" + t.text + "'";
      case Kind::identifier: return "name '" + t.text + "'";
      case Kind::plus: return "'+'";
      case Kind::minus: return "'-'";
      case Kind::star: return "'*'";
      case Kind::slash: return "'/'";
      case Kind::caret: return "'^'";
      case Kind::left_paren: return "'('";
      case Kind::right_paren: return "')'";
      case Kind::comma: return "','";
      case Kind::end: return "end of expression";
    }
    return "token";
  }

  // ---- lexer: one token of lookahead, read on demand so that errors are
  // reported in text order ----

  void advance() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    token_ = Token{};
    token_.start = pos_;
    if (pos_ == text_.size()) return;
    const char c = text_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) return lex_number();
    if (starts_name(c)) {
      while (pos_ < text_.size() && continues_name(text_[pos_])) ++pos_;
      token_.kind = Kind::identifier;
      token_.text = text_.substr(token_.start, pos_ - token_.start);
      return;
    }
    switch (c) {
      case '+': token_.kind = Kind::plus; break;
      case '-': token_.kind = Kind::minus; break;
      case '*': token_.kind = Kind::star; break;
      case '/': token_.kind = Kind::slash; break;
      case '^': token_.kind = Kind::caret; break;
      case '(': token_.kind = Kind::left_paren; break;
      case ')': token_.kind = Kind::right_paren; break;
      case ',': token_.kind = Kind::comma; break;
      default: fail(std::string("unexpected character '") + c + "'", pos_);
    }
    ++pos_;
  }

  // Whether the next non-space character after the current token is c.
  bool next_char_is(char c) const {
    std::size_t next = pos_;
    while (next < text_.size() && is_space(text_[next])) ++next;
    return next < text_.size() && text_[next] == c;
  }

  void lex_number() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    bool exponent_ok = true;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      exponent_ok = pos_ < text_.size() && is_digit(text_[pos_]);
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    // "2x", "1.2.3", "1e5e": a number glued to more name characters is one
    // malformed word, not a number followed by a name.
    const bool glued = pos_ < text_.size() && continues_name(text_[pos_]);
    if (!exponent_ok || glued) {
      while (pos_ < text_.size() && continues_name(text_[pos_])) ++pos_;
      const std::string word = text_.substr(start, pos_ - start);
      fail("invalid number '" + word + "'" + (exponent_ok ? "" : " (exponent has no digits)"), start);
    }
    token_.kind = Kind::number;
    token_.text = text_.substr(start, pos_ - start);
    // from_chars, unlike strtod, ignores the locale's decimal separator.
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    const auto [end, error] = std::from_chars(first, last, token_.number);
    if (error == std::errc::result_out_of_range) fail("number '" + token_.text + "' is out of double range", start);
    if (error != std::errc() || end != last) fail("invalid number '" + token_.text + "'", start);
  }

  // ---- parser: one function per grammar rule, emitting postfix code ----

  void emit(Expression::OpCode op, double constant = 0.0, std::size_t variable = 0) {
    result_.program_.push_back({op, variable, constant});
    depth_ += stack_effect(op);
    max_depth_ = std::max(max_depth_, depth_);
  }

  void expect(Kind kind, const char* what) {
    if (token_.kind != kind) fail(std::string("expected ") + what + " but found " + describe(token_), token_.start);
    advance();
  }

  void parse_expression() {
    parse_term();
    while (token_.kind == Kind::plus || token_.kind == Kind::minus) {
      const auto op = token_.kind == Kind::plus ? Expression::OpCode::add : Expression::OpCode::subtract;
      advance();
      parse_term();
      emit(op);
    }
  }

  void parse_term() {
    parse_unary();
    while (token_.kind == Kind::star || token_.kind == Kind::slash) {
      const auto op = token_.kind == Kind::star ? Expression::OpCode::multiply : Expression::OpCode::divide;
      advance();
      parse_unary();
      emit(op);
    }
  }

  // Every recursive path (parentheses, arguments, signs, exponents) passes
  // through here, so bounding the depth here bounds the recursion.
  void parse_unary() {
    if (++nesting_ > Expression::max_nesting)
      fail("expression nested too deeply (more than " + std::to_string(Expression::max_nesting) + " levels)",
           token_.start);
    if (token_.kind == Kind::plus) {
      advance();
      parse_unary();
    } else if (token_.kind == Kind::minus) {
      advance();
      parse_unary();
      emit(Expression::OpCode::negate);
    } else {
      parse_power();
    }
    --nesting_;
  }

  // The exponent is a `unary`, so 2^3^2 = 2^(3^2) and 2^-1 work, while the
  // base is a `primary`, so a leading sign applies to the whole power.
  void parse_power() {
    parse_primary();
    if (token_.kind == Kind::caret) {
      advance();
      parse_unary();
      emit(Expression::OpCode::power);
    }
  }

  void parse_primary() {
    switch (token_.kind) {
      case Kind::number:
        emit(Expression::OpCode::push_constant, token_.number);
        advance();
        return;
      case Kind::identifier: {
        // Peek at the raw text rather than lexing the next token, so that an
        // unknown name is reported before any error in the text after it.
        const Token identifier = token_;
        if (next_char_is('(')) {
          advance();
          return parse_call(identifier);
        }
        parse_name(identifier);
        advance();
        return;
      }
      case Kind::left_paren:
        advance();
        parse_expression();
        expect(Kind::right_paren, "')'");
        return;
      case Kind::end:
        fail("unexpected end of expression", token_.start);
      default:
        fail("expected a number, name, function or '(' but found " + describe(token_), token_.start);
    }
  }

  // token_ is the '(' after the function name.
  void parse_call(const Token& identifier) {
    const FunctionInfo* function = find_function(identifier.text);
    if (!function)
      fail("unknown function '" + identifier.text + "' (functions: " + function_list() + ")", identifier.start);
    advance();
    int arguments = 0;
    if (token_.kind != Kind::right_paren) {
      parse_expression();
      ++arguments;
      while (token_.kind == Kind::comma) {
        advance();
        parse_expression();
        ++arguments;
      }
    }
    expect(Kind::right_paren, arguments == 0 ? "an argument or ')'" : "',' or ')'");
    if (arguments != function->arity)
      fail("function '" + identifier.text + "' takes " + std::to_string(function->arity) + " argument" +
               (function->arity == 1 ? "" : "s") + " but was given " + std::to_string(arguments),
           identifier.start);
    emit(function->op);
  }

  void parse_name(const Token& identifier) {
    const std::string& name = identifier.text;
    if (name == "pi") return emit(Expression::OpCode::push_constant, pi_value);
    if (is_name_(name)) {
      auto& names = result_.names_;
      const auto found = std::find(names.begin(), names.end(), name);
      const std::size_t index = static_cast<std::size_t>(found - names.begin());
      if (found == names.end()) names.push_back(name);
      return emit(Expression::OpCode::push_variable, 0.0, index);
    }
    if (find_function(name)) fail("function '" + name + "' needs its arguments in parentheses", identifier.start);
    fail("unknown name '" + name + "'", identifier.start);
  }

  const std::string& text_;
  const std::function<bool(const std::string&)>& is_name_;
  Expression result_;
  std::size_t pos_ = 0;
  Token token_;
  int nesting_ = 0;
  int depth_ = 0;  // evaluation stack height after the code emitted so far
  int max_depth_ = 0;
};

}  // namespace detail

Expression Expression::parse(const std::string& text, const std::function<bool(const std::string&)>& is_name) {
  return detail::ExpressionCompiler(text, is_name).compile();
}

namespace {

// std::fmin/fmax return the other argument for a NaN; a NaN input must
// instead reach the caller's range check.
double nan_propagating_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  return b < a ? b : a;
}
double nan_propagating_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return a + b;
  return b > a ? b : a;
}

}  // namespace

double Expression::evaluate(const double* values) const {
  double stack[max_stack];  // parse() rejected programs that need more
  std::size_t top = 0;      // number of values on the stack
  for (const Instruction& instruction : program_) {
    switch (instruction.op) {
      case OpCode::push_constant: stack[top++] = instruction.constant; break;
      case OpCode::push_variable: stack[top++] = values[instruction.variable]; break;
      case OpCode::negate: stack[top - 1] = -stack[top - 1]; break;
      case OpCode::add: --top; stack[top - 1] += stack[top]; break;
      case OpCode::subtract: --top; stack[top - 1] -= stack[top]; break;
      case OpCode::multiply: --top; stack[top - 1] *= stack[top]; break;
      case OpCode::divide: --top; stack[top - 1] /= stack[top]; break;
      case OpCode::power: --top; stack[top - 1] = std::pow(stack[top - 1], stack[top]); break;
      case OpCode::min: --top; stack[top - 1] = nan_propagating_min(stack[top - 1], stack[top]); break;
      case OpCode::max: --top; stack[top - 1] = nan_propagating_max(stack[top - 1], stack[top]); break;
      case OpCode::sqrt: stack[top - 1] = std::sqrt(stack[top - 1]); break;
      case OpCode::exp: stack[top - 1] = std::exp(stack[top - 1]); break;
      case OpCode::log: stack[top - 1] = std::log(stack[top - 1]); break;
      case OpCode::log10: stack[top - 1] = std::log10(stack[top - 1]); break;
      case OpCode::sin: stack[top - 1] = std::sin(stack[top - 1]); break;
      case OpCode::cos: stack[top - 1] = std::cos(stack[top - 1]); break;
      case OpCode::tan: stack[top - 1] = std::tan(stack[top - 1]); break;
      case OpCode::abs: stack[top - 1] = std::fabs(stack[top - 1]); break;
    }
  }
  return stack[0];  // a parsed program always leaves exactly one value
}

double Expression::evaluate(const std::function<double(const std::string&)>& value) const {
  // Study-file expressions read a handful of names; only unusually long ones
  // pay for a heap buffer.
  constexpr std::size_t local_capacity = 32;
  double local[local_capacity] = {};
  std::vector<double> heap;
  double* values = local;
  if (names_.size() > local_capacity) {
    heap.resize(names_.size());
    values = heap.data();
  }
  for (std::size_t k = 0; k < names_.size(); ++k) values[k] = value(names_[k]);
  return evaluate(values);
}

}  // namespace hs
