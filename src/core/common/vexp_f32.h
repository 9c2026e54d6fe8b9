/* vexp_f32.h -- expf(x) as straight-line single-precision arithmetic, so a
 * loop over it vectorises with twice the lanes of ss_vexp (vexp.h): 8 on
 * AVX2, 16 on AVX-512. The float32 kernel rows (kernel.c,
 * SS_KERNEL_ROWS_FLOAT32) use it. IEEE-754 binary32 in round-to-nearest.
 *
 * Method (the double version's, with float constants):
 *  1. Clamp x to [-104, 89]: expf(-104) < 2^-150 rounds to 0 like every
 *     smaller value; expf(89) > FLT_MAX gives +inf. NaN propagates.
 *  2. k = round(x / ln2) by adding 1.5 * 2^23 (|k| <= 151 < 2^22).
 *  3. r = (x - k L1) - k L2 with L1 = ln2 to 13 significant bits, so k L1
 *     (at most 21 bits) and x - k L1 (Sterbenz) are exact; L2 is
 *     ln2 - L1 rounded to float, off by 1.7e-12, so |dr| <= 2^-24 |r| +
 *     3e-10 (|k| <= 151).
 *  4. exp(r), |r| <= 0.3466, by its Taylor polynomial of degree 7 as
 *     1 + (r + r^2 g(r)), g by Estrin's scheme: truncation below
 *     e^0.35 0.3466^8 / 8! < 7.3e-9 relative; g's rounding (a few u,
 *     u = 2^-24 = 6.0e-8) reaches the result scaled by r^2 g / p <= 0.1,
 *     r + r^2 g's by 0.6: below 2.2 u = 1.3e-7 before scaling.
 *  5. 2^k as 2^k1 2^k2, k1 = round(k / 2), each factor normal (exponents
 *     in [-76, 64]); the first product is exact, the second rounds once.
 * So the relative error is below 1.5e-7 (2.5 u) wherever expf(x) >= FLT_MIN
 * (x >= -87.33); below it the absolute error is below 2^-149 plus the
 * subnormal rounding. tests/c/test_kernel_f32.c checks 2.5 u against libm's
 * double exp over a dense grid.
 */
#ifndef STOCHSVM_VEXP_F32_H
#define STOCHSVM_VEXP_F32_H

#include <stdint.h>
#include <string.h>

/* 2^j for an integer-valued j held in the low bits of t = j + 1.5 * 2^23. */
static inline float ss_vexpf_pow2_(float t)
{
  uint32_t bits;
  memcpy(&bits, &t, sizeof bits);
  bits = (bits << 23) + ((uint32_t)127 << 23);
  float p;
  memcpy(&p, &bits, sizeof p);
  return p;
}

/** expf(x) to < 1.5e-7 relative error for normal results (see above). */
static inline float ss_vexpf(float x)
{
  const float shifter = 0x1.8p23f;          /* 1.5 * 2^23 */
  const float log2e = 0x1.715476p0f;        /* 1 / ln2 */
  const float ln2_hi = 0x1.62ep-1f;         /* ln2 to 13 significant bits */
  const float ln2_lo = 0x1.0bfbe8p-15f;     /* ln2 - ln2_hi, rounded */
  x = x < -104.0f ? -104.0f : x;
  x = x > 89.0f ? 89.0f : x;
  const float t = x * log2e + shifter;
  const float k = t - shifter;              /* round(x / ln2), exact */
  const float r = (x - k * ln2_hi) - k * ln2_lo;
  /* g = 1/2! + r/3! + ... + r^5/7!, pairs then pairs of pairs */
  const float r2 = r * r, r4 = r2 * r2;
  const float a0 = 1.0f / 2 + r * (1.0f / 6), a1 = 1.0f / 24 + r * (1.0f / 120);
  const float a2 = 1.0f / 720 + r * (1.0f / 5040);
  const float g = (a0 + r2 * a1) + r4 * a2;
  const float p = 1.0f + (r + r2 * g);
  const float k1 = (k * 0.5f + shifter) - shifter; /* round(k / 2), exact */
  return p * ss_vexpf_pow2_(k1 + shifter) * ss_vexpf_pow2_((k - k1) + shifter);
}

#endif /* STOCHSVM_VEXP_F32_H */
