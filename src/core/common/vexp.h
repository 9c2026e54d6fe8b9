/* vexp.h -- exp(x) as straight-line arithmetic, so a loop over it vectorises.
 *
 * libm's exp is an opaque call: a loop of Gaussian kernel values calls it
 * once per element. ss_vexp has no call, no table and no branch, only
 * multiply, add, min/max and 64-bit integer shifts, so the compiler turns
 * the loop into SIMD code. It assumes IEEE-754 binary64 in round-to-nearest
 * (C11 Annex F), which every supported platform has.
 *
 * Method. Write x = k ln2 + r with k = round(x / ln2), so |r| <= ln2/2 + tiny
 * and exp(x) = 2^k exp(r).
 *  1. Clamp x to [-746, 710]: exp(-746) < 2^-1075, which rounds to 0 like
 *     every smaller value (and -inf); exp(710) > DBL_MAX, which gives +inf
 *     like every larger value. NaN passes the clamps (comparisons are false)
 *     and propagates. The clamps become min/max instructions only when the
 *     compiler may assume comparisons do not trap (GCC: -fno-trapping-math,
 *     which meson.build passes; it changes no value): otherwise GCC makes
 *     them branches and the loop stays scalar, still correct.
 *  2. k: adding 1.5 * 2^52 to x / ln2 rounds it to an integer held in the low
 *     bits of the sum (|k| <= 1077 < 2^51), with no float-to-int conversion.
 *  3. r = (x - k L1) - k L2 (Cody and Waite) with L1 = ln2 rounded to 32
 *     significant bits, so k L1 (at most 43 bits) and x - k L1 (Sterbenz) are
 * *    exact; L2 = ln2 - L1 to double precision leaves |k| 2^-53 |L2| < 2^-74
 *     absolute, and the last subtraction rounds once: |dr| <= 2^-54 |r| + 2^-74.
 *  4. exp(r) by its Taylor polynomial of degree 13, as 1 + (r + r^2 g(r)).
 *     For |r| <= 0.3466 the truncation is at most e^0.35 0.3466^14 / 14!
 *     < 5e-18 relative. The tail g (1/2 + r/6 + ..., in [0.44, 0.57]) is
 *     summed by Estrin's scheme; each of its terms carries a relative
 *     rounding error of at most a few u (u = 2^-53, the unit roundoff), so g
 *     is within 4u relative. r^2 g <= 0.07 and r + r^2 g <= 0.42 in size, so
 *     their errors reach the result (>= 0.7) scaled down: 0.1 (5u) + 0.6 u,
 *     plus u for the final 1 + (...) and |dr| < 3e-17: below 3u = 3.4e-16
 *     relative before scaling.
 *  5. 2^k as two exact powers of two, 2^k1 2^k2 with k1 = round(k / 2) and
 *     k2 = k - k1, each built from its exponent bits; both lie in
 *     [-539, 512], so each factor is a normal number. exp(r) 2^k1 is exact
 *     (a normal result), and the second product rounds once: exact too when
 *     the result is normal, correctly rounded when it is subnormal or
 *     overflows.
 * So the relative error is below 2.6e-16 < 1e-15 wherever exp(x) >= DBL_MIN
 * (x >= -708.39), and where the result is subnormal the absolute error is
 * below one subnormal step (2^-1074) beyond libm's own rounding.
 * tests/c/test_threads.c compares it with libm over a dense grid.
 */
#ifndef STOCHSVM_VEXP_H
#define STOCHSVM_VEXP_H

#include <stdint.h>
#include <string.h>

/* 2^j for an integer-valued j held in the low bits of t = j + 1.5 * 2^52. */
static inline double ss_vexp_pow2_(double t)
{
  uint64_t bits;
  memcpy(&bits, &t, sizeof bits);
  bits = (bits << 52) + ((uint64_t)1023 << 52);
  double p;
  memcpy(&p, &bits, sizeof p);
  return p;
}

/* Steps 2-4 for a clamped x: exp(r), and in *t the sum k + 1.5 * 2^52
 * that holds k = round(x / ln2) in its low bits (exp(x) = exp(r) 2^k). */
static inline double ss_vexp_reduced_(double x, double *t)
{
  const double shifter = 0x1.8p52;            /* 1.5 * 2^52 */
  const double log2e = 0x1.71547652b82fep0;   /* 1 / ln2 */
  const double ln2_hi = 0x1.62e42feep-1;      /* ln2 to 32 significant bits */
  const double ln2_lo = 0x1.a39ef35793c76p-33;/* ln2 - ln2_hi */
  *t = x * log2e + shifter;
  const double k = *t - shifter;              /* round(x / ln2), exact */
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  /* exp(r) = 1 + (r + r^2 g(r)), g the Taylor tail 1/2! + r/3! + ... + r^11/13!
   * evaluated by Estrin's scheme: pairs, then pairs of pairs, so the
   * chain of dependent operations is 6 deep instead of Horner's 12. */
  const double r2 = r * r, r4 = r2 * r2;
  const double a0 = 1.0 / 2 + r * (1.0 / 6), a1 = 1.0 / 24 + r * (1.0 / 120);
  const double a2 = 1.0 / 720 + r * (1.0 / 5040), a3 = 1.0 / 40320 + r * (1.0 / 362880);
  const double a4 = 1.0 / 3628800 + r * (1.0 / 39916800);
  const double a5 = 1.0 / 479001600 + r * (1.0 / 6227020800.0);
  const double b0 = a0 + r2 * a1, b1 = a2 + r2 * a3, b2 = a4 + r2 * a5;
  const double g = b0 + r4 * (b1 + r4 * b2);
  return 1.0 + (r + r2 * g);
}

/** exp(x) to < 1e-15 relative error for normal results (see above). */
static inline double ss_vexp(double x)
{
  const double shifter = 0x1.8p52;            /* 1.5 * 2^52 */
  x = x < -746.0 ? -746.0 : x;
  x = x > 710.0 ? 710.0 : x;
  double t;
  const double p = ss_vexp_reduced_(x, &t);
  const double k = t - shifter;
  const double k1 = (k * 0.5 + shifter) - shifter; /* round(k / 2), exact */
  return p * ss_vexp_pow2_(k1 + shifter) * ss_vexp_pow2_((k - k1) + shifter);
}

/* The Gaussian kernel's exp. Its argument is -gamma max(0, d2) <= 0 (or
 * -inf), where ss_vexp's upper clamp never acts and its lower one matters
 * only below ln(DBL_MIN) = -708.3964: the kernel's values are 0 there to
 * within 2^-1022. ss_vexp_kernel(x) is ss_vexp(x) bit for bit for x in
 * [SS_VEXP_KERNEL_CUT, 0] and +0 below the cut (ss_vexp gives 0 or a
 * subnormal number there, so the difference is below DBL_MIN), for fewer
 * operations:
 *  - no clamps: x < SS_VEXP_KERNEL_CUT selects +0 after the arithmetic (a
 *    compare and a mask: no branch), which also covers -inf, whose
 *    intermediate values are NaN; NaN passes the select and propagates;
 *  - one power of two: for x >= -708.5, x / ln2 >= -1022.2 and k >= -1022,
 *    so 2^k is a normal number built from its exponent bits, and p 2^k
 *    rounds once, as ss_vexp's (p 2^k1) 2^k2 does (its first product is
 *    exact): the same value, exact when normal, rounded alike when
 *    subnormal (x in [-708.5, -708.3964)).
 * The reduction and the polynomial are ss_vexp's, so the error bound above
 * holds unchanged on [ln(DBL_MIN), 0]. For positive x it stays exact up to
 * x < 709.08 (k <= 1023); beyond that it is not meant to be called.
 * tests/c/test_threads.c compares it with ss_vexp bitwise and with libm. */
#define SS_VEXP_KERNEL_CUT (-708.5)

/** exp(x) for x <= 0: ss_vexp(x) bit for bit from SS_VEXP_KERNEL_CUT to 0,
 *  +0 below it (see above). */
static inline double ss_vexp_kernel(double x)
{
  double t;
  const double value = ss_vexp_reduced_(x, &t) * ss_vexp_pow2_(t);
  return x < SS_VEXP_KERNEL_CUT ? 0.0 : value;
}

/** Put before a static function (never an extern one: GCC exports a clones'
 *  ifunc from every shared object, whatever its visibility; an extern
 *  function calls the static one) whose loop over ss_vexp should also be
 *  compiled for AVX2 and AVX-512 (4 and 8 doubles a vector instead of SSE2's
 *  2), the copy chosen once at load time by the CPU (GCC's target_clones,
 *  an ifunc: x86-64 ELF with GCC >= 8). AVX-512F has FMA instructions, but
 *  the core is built with -ffp-contract=off (meson.build; ISO C11 implies
 *  it), so every lane computes the scalar code's operations, rounded
 *  alike: the same values on any CPU.
 *  Elsewhere it is empty and the loop keeps the baseline's vectors; also
 *  under GCC's ThreadSanitizer, whose instrumented program crashed at
 *  start-up with the clones' load-time resolvers (GCC 12). */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8 && defined(__x86_64__) && \
    defined(__ELF__) && !defined(SS_NO_VECTOR_CLONES) && !defined(__SANITIZE_THREAD__)
#define SS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
/** Defined where SS_VECTOR_CLONES makes clones: code may also pick a
 *  function compiled for AVX2 itself (target("avx2")), testing the CPU
 *  with __builtin_cpu_supports. */
#define SS_X86_CPU_DISPATCH 1
#else
#define SS_VECTOR_CLONES
#endif

#endif /* STOCHSVM_VEXP_H */
