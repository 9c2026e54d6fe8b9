/* minitest.h -- a tiny, registry-free test harness for the C core tests.
 *
 * A test is a `void test_name(void)` function listed in main.c's table.
 * The CHECK macros print file:line on failure and mark the running test as
 * failed; they never abort, so one test reports every failed check.
 */
#ifndef STOCHSVM_MINITEST_H
#define STOCHSVM_MINITEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Set by the CHECK macros, reset by main.c before each test. */
extern int mt_current_failed;

void mt_report(const char *file, int line, const char *what);
void mt_report_close(const char *file, int line, const char *a_expr, const char *b_expr,
                     double a, double b, double tol);
void mt_report_int(const char *file, int line, const char *a_expr, const char *b_expr,
                   long long a, long long b);

/** Check that @p cond is true. */
#define CHECK(cond)                                       \
  do {                                                    \
    if (!(cond)) mt_report(__FILE__, __LINE__, #cond);    \
  } while (0)

/** Check |a - b| <= tol (absolute). NaN on either side fails; two equal
 *  infinities pass. */
#define CHECK_CLOSE(a, b, tol)                                                    \
  do {                                                                            \
    double mt_a_ = (double)(a), mt_b_ = (double)(b), mt_t_ = (double)(tol);       \
    if (!(mt_a_ == mt_b_ || fabs(mt_a_ - mt_b_) <= mt_t_))                        \
      mt_report_close(__FILE__, __LINE__, #a, #b, mt_a_, mt_b_, mt_t_);           \
  } while (0)

/** Check |a - b| <= tol * max(|a|, |b|) (relative). */
#define CHECK_REL(a, b, tol)                                                      \
  do {                                                                            \
    double mt_a_ = (double)(a), mt_b_ = (double)(b);                              \
    double mt_s_ = fabs(mt_a_) > fabs(mt_b_) ? fabs(mt_a_) : fabs(mt_b_);         \
    double mt_t_ = (double)(tol) * mt_s_;                                         \
    if (!(mt_a_ == mt_b_ || fabs(mt_a_ - mt_b_) <= mt_t_))                        \
      mt_report_close(__FILE__, __LINE__, #a, #b, mt_a_, mt_b_, mt_t_);           \
  } while (0)

/** Check two integers (or enums, or status codes) are equal. */
#define CHECK_EQ_INT(a, b)                                                        \
  do {                                                                            \
    long long mt_a_ = (long long)(a), mt_b_ = (long long)(b);                     \
    if (mt_a_ != mt_b_) mt_report_int(__FILE__, __LINE__, #a, #b, mt_a_, mt_b_);  \
  } while (0)

/** Stop the running test early if @p cond is false (e.g. a NULL object). */
#define REQUIRE(cond)                                     \
  do {                                                    \
    if (!(cond)) {                                        \
      mt_report(__FILE__, __LINE__, #cond);               \
      return;                                             \
    }                                                     \
  } while (0)

#endif /* STOCHSVM_MINITEST_H */
