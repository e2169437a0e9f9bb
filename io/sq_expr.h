/**
 * @file sq_expr.h  Small, safe arithmetic expressions for spatially (and temporally) varying config values.
 *
 * Used to give fault and plasticity parameters values such as the SCEC TPV nucleation patches or
 * depth-dependent stresses.  An expression is compiled once into a compact postfix program (one
 * allocation, constants folded) and evaluated many times; evaluation is reentrant and allocation-free,
 * so one compiled expression can be shared by all worker threads.
 *
 * Grammar (lowest precedence first; all binary operators left-associative except '^'):
 *
 *     expr    := or
 *     or      := and   ( '||' and )*
 *     and     := eq    ( '&&' eq )*
 *     eq      := rel   ( ('==' | '!=') rel )*
 *     rel     := add   ( ('<' | '<=' | '>' | '>=') add )*
 *     add     := mul   ( ('+' | '-') mul )*
 *     mul     := unary ( ('*' | '/') unary )*
 *     unary   := ('-' | '+' | '!') unary | power
 *     power   := primary [ '^' unary ]                 right-associative: 2^3^2 = 2^9 = 512
 *     primary := NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * '^' binds tighter than a unary minus on its left, as in mathematics (and Fortran, Python):
 * -2^2 = -(2^2) = -4, while the exponent may carry its own sign: 2^-1 = 0.5.
 * NUMBER is a C decimal literal (1, 2.5, .5, 5., 1e-6, 25E6); hexadecimal, inf and nan are not accepted.
 *
 * Names: the variables x, y, z, t are always known; the caller may add up to #SQ_EXPR_MAX_VARS more.
 * Functions: exp log sqrt abs sin cos tan asin acos atan tanh sinh cosh floor ceil (one argument),
 * atan2 min max pow (two), and if(cond, a, b) (three).
 *
 * Semantics: IEEE double arithmetic; division by zero, log(0), sqrt(-1) ... give inf or NaN, which the
 * caller checks.  Comparisons and logical operators give 1 or 0; a value is true when it is non-zero,
 * NaN counting as true as in C (so NaN < 1 is 0 and !NaN is 0).  if() evaluates only the chosen branch,
 * so a NaN in the other branch never leaks; a NaN condition makes if() NaN rather than picking a branch.
 * min and max propagate NaN (unlike fmin/fmax) so that a bad value is never hidden.
 * A power with the constant exponent 2 is computed as x*x (the correctly rounded square).
 */
#ifndef SQ_EXPR_H
#define SQ_EXPR_H

#include "sq_common.h"

/** Opaque compiled expression. */
typedef struct sq_expr sq_expr;

/** Indices of the built-in variables in the @p vars array of sq_expr_eval(). */
enum {
  SQ_EXPR_X = 0,
  SQ_EXPR_Y = 1,
  SQ_EXPR_Z = 2,
  SQ_EXPR_T = 3,
  SQ_EXPR_NBUILTIN = 4 /**< caller-defined variable i lives at vars[SQ_EXPR_NBUILTIN + i] */
};

#define SQ_EXPR_MAX_VARS    8         /**< most caller-defined variables */
#define SQ_EXPR_MAX_NESTING 64        /**< most nested parentheses, calls and unary operators */
#define SQ_EXPR_MAX_LENGTH  (1 << 20) /**< longest accepted expression text in bytes */

/**
 * @brief Compile an expression.
 * @param text     the expression (NUL-terminated)
 * @param varnames @p nvars extra variable names (identifiers, distinct, not x/y/z/t nor a function
 *                 name); may be NULL when @p nvars is 0
 * @param nvars    number of extra variables, 0 to #SQ_EXPR_MAX_VARS
 * @param out      receives the compiled expression (NULL on failure)
 * @param err      buffer for a one-line message on failure, e.g.
 *                 "column 14: unknown function 'exq' (did you mean 'exp'?)"; may be NULL
 * @param errlen   size of @p err
 * @return SQ_SUCCESS; SQ_ERR_INPUT for a syntax error or an unknown name (message in @p err only,
 *         nothing printed, so that the caller can prefix the file, line and key); SQ_ERR_INTERNAL for
 *         bad arguments and SQ_ERR_MEMORY, both also reported through sq_error().
 */
int sq_expr_compile(const char *text, const char *const *varnames, int nvars, sq_expr **out, char *err, size_t errlen);

/**
 * @brief Evaluate a compiled expression.  Thread-safe, no allocation.
 * @param e    compiled expression
 * @param vars x, y, z, t, then the caller-defined variables in the order given to sq_expr_compile()
 *             (SQ_EXPR_NBUILTIN + nvars values); may be NULL when the expression uses no variable
 * @return the value (possibly inf or NaN; NaN when @p vars is NULL but a variable is needed)
 */
double sq_expr_eval(const sq_expr *e, const double *vars);

/** @brief Free a compiled expression (NULL is fine). */
void sq_expr_destroy(sq_expr *e);

/** @brief 1 if the expression mentions no variable (its value can be computed once), else 0. */
int sq_expr_is_constant(const sq_expr *e);

/**
 * @brief 1 if the expression mentions variable @p var (an index into the @p vars array of
 *        sq_expr_eval(), e.g. SQ_EXPR_T to detect time dependence), else 0.
 */
int sq_expr_uses(const sq_expr *e, int var);

#endif
