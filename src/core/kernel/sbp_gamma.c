/* sbp_gamma.c -- the SBP's water filling (Cotter et al. 2012, Algorithms 2 and 3).
 *
 * find_gamma: pour a volume V = n nu of water into a basin whose floor has
 * heights c_1..c_n; the surface settles at the level gamma with
 *
 *     W(gamma) = sum_i max(0, gamma - c_i) = V.
 *
 * W is convex, piecewise linear, with slope #{c_i < gamma}. Divide and
 * conquer: keep a "lower set" (count, sum) of heights known to lie below
 * gamma and a candidate range; partition the range three ways around a
 * random pivot p and evaluate W(p) = (count + #less) p - (sum + sum less).
 * If W(p) >= V the level is at most p: keep the heights below p. Otherwise
 * the heights up to p join the lower set and the range becomes those above.
 * When the range is empty, gamma = (V + sum) / count. Expected O(n); both
 * passes per step are branch-free (counting, then compaction of one side).
 * A random pivot keeps 3/4 of the range on average, so the passes visit
 * about 8 n heights in all. Given a guess g of the level (the SBP's last
 * one), the first step brackets instead: W(g), and the tangent's root
 * g' = g + (V - W(g)) / #{c_i below g} (at or above the level, W being
 * convex); the range becomes the heights between g and g' (g below the
 * level) or between 2 g' - g and g' (g above it, the lower end a guess),
 * each end checked by its own W like any pivot, and from a bracket that
 * halved the range a second one from its upper end. On a9a (SBP, 600
 * rows) the bracket held the level 680 times in 683 and kept 26% of the
 * window's heights (1535 of 5956 on average); the windowed filling took 19%
 * fewer instructions (callgrind), the iterates unchanged to the bit.
 *
 * find_gamma_and_bias: with an unregularized bias b the positives' floor is
 * c_i + b and the negatives' c_i - b. In terms of the two levels relative to
 * the floors, u = gamma - b (positives) and v = gamma + b (negatives), we
 * maximise u + v subject to F+(u) + F-(v) = V, F the two W functions. At
 * the optimum the slopes agree: both basins cover the same number k of
 * examples. With a_1 <= a_2 <= ... the positives' heights and d_1 <= ... the
 * negatives', the volume needed to bring both levels to (a_k, d_k) is
 *
 *     V_k = (k - 1)(a_k + d_k) - sum_{j<k} a_j - sum_{j<k} d_j,
 *
 * nondecreasing in k, and between (a_k, d_k) and (a_{k+1}, d_{k+1}) the
 * volume grows with slope k in u + v. So k is the largest k <= min(n+, n-)
 * with V_k <= V. Each class's K = min(n+, n-) lowest heights are cut out
 * (a selection of the longer class) and sorted, the two classes on two
 * threads where the object has them; then one scan up the ranks with
 * running sums finds k (the paper's Algorithm 3 searches the ranks instead,
 * one partition per class and step; a randomized version of that search,
 * selecting both classes at every probed rank, was serial and took 22 % of
 * the bias SBP's time on a9a at its derived nu). Then
 * u + v = a_k + d_k + (V - V_k) / k, split so that u - a_k lies in its
 * feasible interval [max(0, D - (d_{k+1} - d_k)), min(a_{k+1} - a_k, D)],
 * D = (V - V_k) / k, at the midpoint (the paper's choice).
 * O(n) expected for the selections, O(K) for the bucket sort unless the
 * heights cluster (sort_heights).
 *
 * Windowed search (ss_sbp_two_levels_window): when the heights of each class
 * are split by value into a lower set (count, sum only), a window and the
 * rest above it (its minimum only), the same search runs on the windows
 * alone, from rank k0 = max of the lower counts (the class with fewer below
 * its window first moves its lowest k0 - c into its lower set). The answer
 * is exact when it falls inside both windows, which the search verifies
 * (V_{k0} <= V, and V > V at the rank after the windows' end); otherwise it
 * reports failure and the caller fills the whole basin.
 */
#include "kernel_internal.h"
#include "../common/vexp.h" /* SS_X86_CPU_DISPATCH */

#include <stdlib.h>
#include <string.h>
#if defined(SS_X86_CPU_DISPATCH)
#include <immintrin.h>
#endif

/* A small deterministic generator for pivots (xorshift64*). */
static uint64_t next_random(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static int64_t random_below(uint64_t *state, int64_t bound)
{
  return (int64_t)(next_random(state) % (uint64_t)bound);
}

/* The parts of a[0..m) below and at the pivot: *less and *equal count
 * them, the return value is the sum of those below. The sum runs in eight
 * lanes, lane j over the k = j mod 8 of the whole groups of eight; the pairs
 * after them go to lanes 0 (even k) and 1 (odd k), and the lanes are joined
 * as ((l0 + l2) + (l4 + l6)) + ((l1 + l3) + (l5 + l7)), the tail of an odd m
 * added to the even half before the last addition. Each term is b * v with
 * b = (v < pivot) in {0, 1}, so 0 * v (which is NaN for an infinite v) is
 * added, not skipped. Eight lanes, not two: each lane's additions are a
 * chain, and the level search (ss_sbp_water_level_near) makes two to four
 * of these passes over the SBP's window of about 2,500 heights between two
 * kernel rows, serial work that the row's threads wait for (two threads on
 * a9a, 3000 iterations: 4-9 % less wall time than with two lanes). A level
 * may differ from the two-lane sum's in its last bits: the SBP's draws were
 * the same on a9a and ijcnn1, its final duals equal on a9a and within
 * 4e-16 relative on ijcnn1 (the averaged margin's last bit).
 * sizes_scalar is the definition. With GCC and Clang the lanes are four
 * vectors of two doubles (sizes_pairs; GCC does not vectorise the scalar
 * loop), on CPUs with AVX2 two vectors of four (sizes_avx2); b is the
 * comparison's mask and 1.0, so 1.0 or +0.0, and the sums are
 * sizes_scalar's to the bit (test_sbp_rescan.c, through
 * ss_sbp_level_pass). */
static double sizes_scalar(const double *a, int64_t m, double pivot, int64_t *less,
                           int64_t *equal)
{
  int64_t nl = 0, ne = 0;
  double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t whole = m / 8 * 8, pairs = m / 2 * 2;
  for (int64_t k = 0; k < pairs; ++k) {
    const double v = a[k];
    nl += v < pivot;
    ne += v == pivot;
    l[k < whole ? k % 8 : k % 2] += (v < pivot) * v;
  }
  double even = (l[0] + l[2]) + (l[4] + l[6]);
  const double odd = (l[1] + l[3]) + (l[5] + l[7]);
  if (pairs < m) {
    const double v = a[pairs];
    nl += v < pivot;
    ne += v == pivot;
    even += (v < pivot) * v;
  }
  *less = nl;
  *equal = ne;
  return even + odd;
}

#if defined(__GNUC__)

/* One pair a[0], a[1] of sizes into the lanes of *s and the counts. */
static inline __attribute__((always_inline)) void
size_pair(const double *a, SsLanePair p, SsLanePair *s, SsLaneMask *nl, SsLaneMask *ne)
{
  const SsLanePair one = {1.0, 1.0};
  SsLanePair v;
  memcpy(&v, a, sizeof v);
  const SsLaneMask is_less = v < p;
  *nl -= is_less; /* a true comparison is -1 */
  *ne -= v == p;
  *s += (SsLanePair)((SsLaneMask)one & is_less) * v;
}

/* The end of sizes after the whole groups of eight, a[k, m) with the lanes
 * s and the counts nl, ne so far: the pairs to lanes 0 and 1, the lanes
 * joined, an odd m's last height added to the even half. */
static double sizes_tail(const double *a, int64_t k, int64_t m, double pivot, SsLanePair s[4],
                         SsLaneMask nl, SsLaneMask ne, int64_t *less, int64_t *equal)
{
  const SsLanePair p = {pivot, pivot};
  for (; k + 2 <= m; k += 2) size_pair(a + k, p, &s[0], &nl, &ne);
  const SsLanePair halves = (s[0] + s[1]) + (s[2] + s[3]); /* the even lanes', the odd lanes' */
  double even = halves[0];
  if (k < m) {
    const double v = a[k];
    nl[0] += v < pivot;
    ne[0] += v == pivot;
    even += (v < pivot) * v;
  }
  *less = nl[0] + nl[1];
  *equal = ne[0] + ne[1];
  return even + halves[1];
}

static double sizes_pairs(const double *a, int64_t m, double pivot, int64_t *less,
                          int64_t *equal)
{
  const SsLanePair p = {pivot, pivot};
  SsLanePair s[4] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
  SsLaneMask nl = {0, 0}, ne = {0, 0};
  int64_t k = 0;
  for (; k + 8 <= m; k += 8) {
    for (int q = 0; q < 4; ++q) size_pair(a + k + 2 * q, p, &s[q], &nl, &ne);
  }
  return sizes_tail(a, k, m, pivot, s, nl, ne, less, equal);
}

#if defined(SS_X86_CPU_DISPATCH)
/* sizes_pairs for CPUs with AVX2 (AVX-512 ones too): the eight lanes as two
 * vectors of four, lanes 0-3 and 4-7, each lane's additions unchanged, so
 * the same bits. Not a clone of sizes_pairs: GCC 12 spills four-double
 * vectors to the stack where it has only SSE2. A pass over 2,570 heights (a9a's
 * window) took 0.37-0.52 us against sizes_pairs' 0.76-0.94 us on an AMD EPYC
 * (Zen 4). */
__attribute__((target("avx2"))) static double sizes_avx2(const double *a, int64_t m, double pivot,
                                                         int64_t *less, int64_t *equal)
{
  const SsLaneQuad p = {pivot, pivot, pivot, pivot}, one = {1.0, 1.0, 1.0, 1.0};
  SsLaneQuad low = {0.0, 0.0, 0.0, 0.0}, high = {0.0, 0.0, 0.0, 0.0}; /* lanes 0-3, 4-7 */
  SsLaneQuadMask nl = {0, 0, 0, 0}, ne = {0, 0, 0, 0};
  int64_t k = 0;
  for (; k + 8 <= m; k += 8) {
    SsLaneQuad v, w;
    memcpy(&v, a + k, sizeof v);
    memcpy(&w, a + k + 4, sizeof w);
    const SsLaneQuadMask v_less = v < p, w_less = w < p;
    nl -= v_less + w_less; /* a true comparison is -1 */
    ne -= (v == p) + (w == p);
    low += (SsLaneQuad)((SsLaneQuadMask)one & v_less) * v;
    high += (SsLaneQuad)((SsLaneQuadMask)one & w_less) * w;
  }
  /* lane j of sizes_pairs' pair q is lane 2 q + j here */
  SsLanePair pairs[4] = {{low[0], low[1]}, {low[2], low[3]}, {high[0], high[1]},
                         {high[2], high[3]}};
  const SsLaneMask counted_less = {nl[0] + nl[1] + nl[2] + nl[3], 0};
  const SsLaneMask counted_equal = {ne[0] + ne[1] + ne[2] + ne[3], 0};
  return sizes_tail(a, k, m, pivot, pairs, counted_less, counted_equal, less, equal);
}
#endif

#endif

static double sizes(const double *a, int64_t m, double pivot, int64_t *less, int64_t *equal)
{
#if defined(SS_X86_CPU_DISPATCH)
  if (__builtin_cpu_supports("avx2")) return sizes_avx2(a, m, pivot, less, equal);
#endif
#if defined(__GNUC__)
  return sizes_pairs(a, m, pivot, less, equal);
#else
  return sizes_scalar(a, m, pivot, less, equal);
#endif
}

double ss_sbp_water_level_from(double *a, int64_t m, double volume, int64_t count, double sum)
{
  uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)m;
  while (m > 0) {
    /* One branch-free pass sizes the parts below and at the pivot, one
     * branch-free pass keeps the side the level lies in. */
    const double pivot = a[random_below(&rng, m)];
    int64_t less, equal;
    const double sum_less = sizes(a, m, pivot, &less, &equal);
    const double at_pivot = (double)(count + less) * pivot - (sum + sum_less);
    int64_t kept = 0;
    if (at_pivot >= volume) {
      for (int64_t k = 0; k < m; ++k) {
        const double v = a[k];
        a[kept] = v;
        kept += v < pivot;
      }
    } else {
      count += less + equal;
      sum += sum_less + (double)equal * pivot;
      for (int64_t k = 0; k < m; ++k) {
        const double v = a[k];
        a[kept] = v;
        kept += v > pivot;
      }
    }
    m = kept;
  }
  return (volume + sum) / (double)count;
}

/* Keep the heights of a[k, m) strictly between lo and hi, in order, after
 * the kept ones of a[0, k), which are a[0, kept); returns how many are kept
 * in all. */
static int64_t keep_between_from(double *a, int64_t k, int64_t kept, int64_t m, double lo,
                                 double hi)
{
  for (; k < m; ++k) {
    const double v = a[k];
    a[kept] = v;
    kept += (v > lo) & (v < hi);
  }
  return kept;
}

static int64_t keep_between_scalar(double *a, int64_t m, double lo, double hi)
{
  return keep_between_from(a, 0, 0, m, lo, hi);
}

#if defined(SS_X86_CPU_DISPATCH)
/* keep_between_scalar four heights a step, for CPUs with AVX2: the kept
 * ones of a step moved to its front by one permutation (KEEP_FRONT[mask]:
 * the 32-bit halves of the kept doubles, in order) and stored whole at
 * a + kept. Its last entries are overwritten by the next step; it never
 * reaches past a + k + 4, which this step has read. The same heights in the
 * same order as the scalar loop (a comparison with NaN is false in both).
 * The scalar loop was the largest part of the level search between two
 * kernel rows on a9a: over 2,570 heights it took 2.5-2.9 us, this one 0.9
 * us (a copy of the heights included in both; AMD EPYC, Zen 4). */
static const int32_t KEEP_FRONT[16][8] = {
    {0, 0, 0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0, 0, 0},
    {2, 3, 0, 0, 0, 0, 0, 0}, {0, 1, 2, 3, 0, 0, 0, 0},
    {4, 5, 0, 0, 0, 0, 0, 0}, {0, 1, 4, 5, 0, 0, 0, 0},
    {2, 3, 4, 5, 0, 0, 0, 0}, {0, 1, 2, 3, 4, 5, 0, 0},
    {6, 7, 0, 0, 0, 0, 0, 0}, {0, 1, 6, 7, 0, 0, 0, 0},
    {2, 3, 6, 7, 0, 0, 0, 0}, {0, 1, 2, 3, 6, 7, 0, 0},
    {4, 5, 6, 7, 0, 0, 0, 0}, {0, 1, 4, 5, 6, 7, 0, 0},
    {2, 3, 4, 5, 6, 7, 0, 0}, {0, 1, 2, 3, 4, 5, 6, 7}};

/* The lanes of v set in mask (bit j: lane j) moved to its front, in order. */
__attribute__((target("avx2"))) static inline __m256d kept_to_front(__m256d v, int mask)
{
  const __m256i front = _mm256_loadu_si256((const __m256i *)KEEP_FRONT[mask]);
  return _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(v), front));
}

__attribute__((target("avx2"))) static int64_t keep_between_avx2(double *a, int64_t m, double lo,
                                                                 double hi)
{
  const __m256d low = _mm256_set1_pd(lo), high = _mm256_set1_pd(hi);
  int64_t kept = 0, k = 0;
  for (; k + 4 <= m; k += 4) {
    const __m256d v = _mm256_loadu_pd(a + k);
    const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, low, _CMP_GT_OQ),
                                     _mm256_cmp_pd(v, high, _CMP_LT_OQ));
    const int mask = _mm256_movemask_pd(in);
    _mm256_storeu_pd(a + kept, kept_to_front(v, mask));
    kept += __builtin_popcount((unsigned)mask);
  }
  return keep_between_from(a, k, kept, m, lo, hi);
}
#endif

static int64_t keep_between(double *a, int64_t m, double lo, double hi)
{
#if defined(SS_X86_CPU_DISPATCH)
  if (__builtin_cpu_supports("avx2")) return keep_between_avx2(a, m, lo, hi);
#endif
  return keep_between_scalar(a, m, lo, hi);
}

bool ss_sbp_level_pass(int path, bool keep, double *a, int64_t m, double pivot, double hi,
                       int64_t counts[2], double *sum)
{
  if (path == 0) {
    if (keep) counts[0] = keep_between_scalar(a, m, pivot, hi);
    else *sum = sizes_scalar(a, m, pivot, &counts[0], &counts[1]);
    return true;
  }
#if defined(__GNUC__)
  if (path == 1 && !keep) {
    *sum = sizes_pairs(a, m, pivot, &counts[0], &counts[1]);
    return true;
  }
#endif
#if defined(SS_X86_CPU_DISPATCH)
  if (path == 2 && __builtin_cpu_supports("avx2")) {
    if (keep) counts[0] = keep_between_avx2(a, m, pivot, hi);
    else *sum = sizes_avx2(a, m, pivot, &counts[0], &counts[1]);
    return true;
  }
#endif
  return false;
}

double ss_sbp_water_level_near(double *a, int64_t m, double volume, int64_t count, double sum,
                               double guess)
{
  if (m < 64 || !isfinite(guess)) return ss_sbp_water_level_from(a, m, volume, count, sum);
  /* W at the guess, and the Newton step from it: W is convex, so the
   * tangent's root is at or above the level from either side. */
  int64_t less, equal;
  const double sum_less = sizes(a, m, guess, &less, &equal);
  const double at_guess = (double)(count + less) * guess - (sum + sum_less);
  const int64_t slope = at_guess < volume ? count + less + equal : count + less;
  if (slope == 0) return ss_sbp_water_level_from(a, m, volume, count, sum);
  const double newton = guess + (volume - at_guess) / (double)slope;
  if (!isfinite(newton) || !isfinite(2 * newton - guess))
    return ss_sbp_water_level_from(a, m, volume, count, sum);
  double lo, hi; /* the bracket to try: W(lo) < V <= W(hi) */
  int64_t lo_less, lo_equal;
  double lo_sum;
  if (at_guess < volume) { /* the guess is below the level */
    lo = guess, hi = newton;
    lo_less = less, lo_equal = equal, lo_sum = sum_less;
  } else { /* above: the Newton point is tighter; below it by as much again */
    hi = newton, lo = newton - (guess - newton);
    lo_sum = sizes(a, m, lo, &lo_less, &lo_equal);
  }
  int64_t hi_less, hi_equal;
  const double hi_sum = sizes(a, m, hi, &hi_less, &hi_equal);
  const double at_lo = (double)(count + lo_less) * lo - (sum + lo_sum);
  const double at_hi = (double)(count + hi_less) * hi - (sum + hi_sum);
  /* Each outcome is a step of ss_sbp_water_level_from with the pivot hi or
   * lo, or with both at once when they bracket the level as computed. */
  if (at_hi < volume) { /* the level is above hi */
    m = keep_between(a, m, hi, INFINITY);
    count += hi_less + hi_equal;
    sum += hi_sum + (double)hi_equal * hi;
  } else if (at_lo >= volume || !(lo < hi)) { /* at or below lo (or hi) */
    m = keep_between(a, m, -INFINITY, at_lo >= volume ? lo : hi);
  } else { /* lo < level <= hi */
    const int64_t before = m;
    m = keep_between(a, m, lo, hi);
    count += lo_less + lo_equal;
    sum += lo_sum + (double)lo_equal * lo;
    /* hi is above the level: the Newton step from it is nearly exact */
    if (2 * m <= before) return ss_sbp_water_level_near(a, m, volume, count, sum, hi);
  }
  return ss_sbp_water_level_from(a, m, volume, count, sum);
}

double ss_sbp_water_level(double *a, int64_t n, double volume)
{
  return ss_sbp_water_level_from(a, n, volume, 0, 0.0);
}

SsStatus ss_sbp_find_gamma(const double *c, int64_t n, double volume, double *work,
                           double *gamma)
{
  if (!c || !work || !gamma || n < 1 || !isfinite(volume) || !(volume > 0)) return SS_ERR_BAD_ARG;
  for (int64_t i = 0; i < n; ++i) {
    if (!isfinite(c[i])) return SS_ERR_BAD_ARG;
  }
  memcpy(work, c, (size_t)n * sizeof(double));
  *gamma = ss_sbp_water_level(work, n, volume);
  return SS_OK;
}

/* The three-way partition of select_rank: the heights of a[0, n) below the
 * pivot, at it (neither below nor above: NaN too) and above it, each part
 * in its order in a, one part after the other in out; *less and *equal
 * count the first two. One pass counts, one scatters, without branches. */
static void partition3_scalar(const double *a, int64_t n, double pivot, double *out,
                              int64_t *less, int64_t *equal)
{
  int64_t nl = 0, ne = 0;
  for (int64_t k = 0; k < n; ++k) {
    nl += a[k] < pivot;
    ne += !(a[k] < pivot) & !(a[k] > pivot);
  }
  int64_t at_less = 0, at_equal = nl, at_greater = nl + ne;
  for (int64_t k = 0; k < n; ++k) {
    const double v = a[k];
    const int is_less = v < pivot, is_greater = v > pivot;
    const int64_t at = is_less ? at_less : (is_greater ? at_greater : at_equal);
    out[at] = v;
    at_less += is_less;
    at_greater += is_greater;
    at_equal += !is_less & !is_greater;
  }
  *less = nl;
  *equal = ne;
}

#if defined(SS_X86_CPU_DISPATCH)
/* partition3_scalar four heights a step, for CPUs with AVX2: a counting
 * pass, then one pass that moves a step's heights of each part to the
 * step's front (KEEP_FRONT) and stores the four at the part's next place.
 * A store's last entries fall on places of the same part still to be
 * written; near the end of a part, where they would fall on the next
 * part's, the step's heights of the part are stored one by one. The same
 * output as the scalar loops. The scalar scatter was most of the bias
 * SBP's level search on ijcnn1, where the negatives' window is cut from a
 * median of 6,500 heights to the positives' 1,900: its index is a chain of
 * dependent selects through three counters; one pass per part read the
 * heights three times. */
__attribute__((target("avx2"))) static void store_part(double *out, int64_t *at, int64_t end,
                                                       __m256d v, int mask)
{
  const __m256d moved = kept_to_front(v, mask);
  const int taken = __builtin_popcount((unsigned)mask);
  if (*at + 4 <= end) {
    _mm256_storeu_pd(out + *at, moved);
  } else {
    double step[4];
    _mm256_storeu_pd(step, moved);
    for (int j = 0; j < taken; ++j) out[*at + j] = step[j];
  }
  *at += taken;
}

__attribute__((target("avx2"))) static void partition3_avx2(const double *a, int64_t n,
                                                            double pivot, double *out,
                                                            int64_t *less, int64_t *equal)
{
  const __m256d p = _mm256_set1_pd(pivot);
  int64_t count[3] = {0, 0, 0}, k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m256d v = _mm256_loadu_pd(a + k);
    count[0] += __builtin_popcount((unsigned)_mm256_movemask_pd(_mm256_cmp_pd(v, p, _CMP_LT_OQ)));
    count[2] += __builtin_popcount((unsigned)_mm256_movemask_pd(_mm256_cmp_pd(v, p, _CMP_GT_OQ)));
  }
  for (; k < n; ++k) {
    count[0] += a[k] < pivot;
    count[2] += a[k] > pivot;
  }
  count[1] = n - count[0] - count[2];
  int64_t at[3] = {0, count[0], count[0] + count[1]};
  const int64_t end[3] = {count[0], count[0] + count[1], n};
  for (k = 0; k + 4 <= n; k += 4) {
    const __m256d v = _mm256_loadu_pd(a + k);
    const int below = _mm256_movemask_pd(_mm256_cmp_pd(v, p, _CMP_LT_OQ));
    const int above = _mm256_movemask_pd(_mm256_cmp_pd(v, p, _CMP_GT_OQ));
    store_part(out, &at[0], end[0], v, below);
    store_part(out, &at[1], end[1], v, ~(below | above) & 0xF);
    store_part(out, &at[2], end[2], v, above);
  }
  for (; k < n; ++k) {
    const double v = a[k];
    const int part = v < pivot ? 0 : v > pivot ? 2 : 1;
    out[at[part]++] = v;
  }
  *less = count[0];
  *equal = count[1];
}
#endif

static void partition3(const double *a, int64_t n, double pivot, double *out, int64_t *less,
                       int64_t *equal)
{
#if defined(SS_X86_CPU_DISPATCH)
  if (__builtin_cpu_supports("avx2")) {
    partition3_avx2(a, n, pivot, out, less, equal);
    return;
  }
#endif
  partition3_scalar(a, n, pivot, out, less, equal);
}

bool ss_sbp_partition_pass(int path, const double *a, int64_t n, double pivot, double *out,
                           int64_t counts[2])
{
  if (path == 0) {
    partition3_scalar(a, n, pivot, out, &counts[0], &counts[1]);
    return true;
  }
#if defined(SS_X86_CPU_DISPATCH)
  if (path == 2 && __builtin_cpu_supports("avx2")) {
    partition3_avx2(a, n, pivot, out, &counts[0], &counts[1]);
    return true;
  }
#endif
  return false;
}

/* A pivot for rank m of a[lo, hi), hi - lo >= SELECT_SAMPLE: the heights at
 * SELECT_SAMPLE random places, and the one of them that sorting would put
 * at m's quantile moved by SELECT_MARGIN ranks of the sample towards the
 * middle of the range, so that the part that keeps rank m is, with high
 * probability, the one between the nearer end and just past m (a random
 * pivot keeps three quarters of the range on average). */
enum { SELECT_SAMPLE = 64, SELECT_MARGIN = 8 };

/* The value of rank @p at (from 0) among the SELECT_SAMPLE values of s, as
 * a sort would place it: the value with fewer than at + 1 values below it
 * and at least at + 1 at or below it. Counted for each value in turn, in
 * branch-free passes over s, until it is found: a few hundred vector
 * comparisons where sorting the sample took a thousand dependent steps
 * (the SBP with the bias spent a tenth of its time there on a9a at its
 * derived nu). The value is the sort's (the same pivot, so the same
 * partitions and sums), but for the sign of a zero, which no comparison
 * sees. s holds no NaN (the heights are finite). */
SS_VECTOR_CLONES static double sample_of_rank(const double *s, int at)
{
  for (int i = 0; i < SELECT_SAMPLE; ++i) {
    int below = 0, equal = 0;
    for (int j = 0; j < SELECT_SAMPLE; ++j) {
      below += s[j] < s[i];
      equal += s[j] == s[i];
    }
    if (below <= at && at < below + equal) return s[i];
  }
  return s[at]; /* not reached without NaN */
}

double ss_sbp_sample_of_rank(const double *s, int num_samples, int at)
{
  return num_samples == SELECT_SAMPLE && at >= 0 && at < SELECT_SAMPLE ? sample_of_rank(s, at) : NAN;
}

static double sampled_pivot(const double *a, int64_t lo, int64_t hi, int64_t m, uint64_t *rng)
{
  double sample[SELECT_SAMPLE];
  for (int j = 0; j < SELECT_SAMPLE; ++j) sample[j] = a[lo + random_below(rng, hi - lo)];
  const int64_t n = hi - lo;
  int64_t at = (int64_t)((double)(m - lo) / (double)n * SELECT_SAMPLE);
  at += 2 * (m - lo) < n ? SELECT_MARGIN : -SELECT_MARGIN;
  at = at < 0 ? 0 : at >= SELECT_SAMPLE ? SELECT_SAMPLE - 1 : at;
  return sample_of_rank(sample, (int)at);
}

/* Rearrange a[lo, hi) so that a[m] holds the value of rank m: a[lo, m) <= a[m] <= a[m+1, hi).
 * Each step partitions three ways around a pivot (sampled_pivot; a random
 * height of a short range) without branches: one pass counts the parts, one
 * scatters them into @p scratch, one copies back. */
static void select_rank(double *a, int64_t lo, int64_t hi, int64_t m, uint64_t *rng,
                        double *scratch)
{
  if ((m == lo || m == hi - 1) && hi - lo > 1) { /* the lowest or highest: one pass, a swap */
    int64_t best = m;
    if (m == lo) {
      for (int64_t k = lo; k < hi; ++k) best = a[k] < a[best] ? k : best;
    } else {
      for (int64_t k = lo; k < hi; ++k) best = a[k] > a[best] ? k : best;
    }
    const double t = a[m];
    a[m] = a[best];
    a[best] = t;
    return;
  }
  while (hi - lo > 1) {
    const double pivot = hi - lo >= 4 * SELECT_SAMPLE ? sampled_pivot(a, lo, hi, m, rng)
                                                      : a[lo + random_below(rng, hi - lo)];
    int64_t less, equal;
    partition3(a + lo, hi - lo, pivot, scratch, &less, &equal);
    const int64_t lt = lo + less, gt = lt + equal;
    if (m >= lt && m < gt && less == 0 && gt == hi) return; /* all equal to the pivot */
    memcpy(a + lo, scratch, (size_t)(hi - lo) * sizeof(double));
    if (m < lt) hi = lt;
    else if (m >= gt) lo = gt;
    else return;
  }
}

static double range_sum(const double *a, int64_t lo, int64_t hi)
{
  double s = 0;
  for (int64_t k = lo; k < hi; ++k) s += a[k];
  return s;
}

/* Sorting a class's window (sort_heights). A window holds heights of one
 * magnitude (a9a: about 720 of each class once cut to the shorter one's
 * length; ijcnn1: a median of 1,900), so a bucket sort by value does most
 * of the work: bucket_of spreads [lowest, highest] over 2 n buckets (at most
 * SORT_BUCKETS), one pass counts, one places the heights by bucket, and one
 * insertion pass orders them within their buckets. A bucket of more than
 * SORT_BY_INSERTION heights is first sorted the same way over its own span,
 * and below SORT_DEPTH such levels by radix_sort, so the insertion pass
 * stays O(n) whatever the values. On a9a (bias SBP, derived nu, one
 * thread) the sorts and selections took 15 % of the time, the rank search
 * they replace 22 % (perf); the bucket count (2 n or 4 n) and the crowding
 * bar (8 to 32) made no measurable difference. The bucket counts live on
 * the stack: 16 KB a level, about 40 KB in all with radix_sort's. */
enum { SORT_BY_INSERTION = 32, SORT_BUCKETS = 4096 };

/* The order-preserving 64-bit key of a finite height, and back. */
static inline uint64_t height_key(double v)
{
  uint64_t u;
  v += 0.0; /* -0 -> +0: the zeros compare equal, so they get one key */
  memcpy(&u, &v, sizeof u);
  return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static inline double key_height(uint64_t k)
{
  const uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

/* from[0, n) sorted into to[0, n) by insertion (from == to: in place). */
static void insertion_sort(const double *from, double *to, int64_t n)
{
  if (n > 0) to[0] = from[0];
  for (int64_t i = 1; i < n; ++i) {
    const double v = from[i];
    int64_t j = i;
    for (; j > 0 && to[j - 1] > v; --j) to[j] = to[j - 1];
    to[j] = v;
  }
}

/* LSD radix sort of the keys, a byte a pass, skipping the bytes all keys
 * share; @p scratch holds n doubles. */
static void radix_sort(double *a, int64_t n, double *scratch)
{
  uint64_t *keys = (uint64_t *)(void *)a, *other = (uint64_t *)(void *)scratch;
  uint32_t count[8][256];
  memset(count, 0, sizeof count);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = height_key(a[i]);
    keys[i] = k;
    for (int b = 0; b < 8; ++b) count[b][(k >> (8 * b)) & 0xFF]++;
  }
  const uint64_t first = keys[0];
  for (int b = 0; b < 8; ++b) {
    if (count[b][(first >> (8 * b)) & 0xFF] == (uint32_t)n) continue; /* one byte value: no move */
    uint32_t at = 0;
    for (int v = 0; v < 256; ++v) {
      const uint32_t c = count[b][v];
      count[b][v] = at;
      at += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t k = keys[i];
      other[count[b][(k >> (8 * b)) & 0xFF]++] = k;
    }
    uint64_t *t = keys;
    keys = other;
    other = t;
  }
  if (keys != (uint64_t *)(void *)a) memcpy(a, keys, (size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i) {
    uint64_t k;
    memcpy(&k, &a[i], sizeof k);
    a[i] = key_height(k);
  }
}

/* The bucket of height v: (v - lowest) * scale, a nondecreasing function of v
 * (each operation rounds monotonically), so a bucket's heights are at or
 * below every later bucket's. */
static inline int64_t bucket_of(double v, double lowest, double scale, int64_t nb)
{
  const double t = (v - lowest) * scale;
  return t < (double)nb ? (int64_t)t : nb - 1;
}

/* Sort a[0, n) ascending (finite heights); @p scratch holds n doubles. A
 * crowded bucket is sorted the same way (its own span over 2 m buckets)
 * down to SORT_DEPTH levels, then by radix_sort: ties are common (a9a's
 * duplicate rows have equal responses), and so are clusters of near-equal
 * heights. */
enum { SORT_DEPTH = 2 };

static void sort_heights_at(double *a, int64_t n, double *scratch, int depth)
{
  if (n < SORT_BY_INSERTION) {
    insertion_sort(a, a, n);
    return;
  }
  double lowest = a[0], highest = a[0];
  for (int64_t i = 1; i < n; ++i) {
    lowest = a[i] < lowest ? a[i] : lowest;
    highest = a[i] > highest ? a[i] : highest;
  }
  if (!(lowest < highest)) return; /* all equal */
  const int64_t nb = 2 * n < SORT_BUCKETS ? 2 * n : SORT_BUCKETS;
  const double scale = (double)nb / (highest - lowest);
  if (!(scale > 0 && scale < INFINITY) || depth >= SORT_DEPTH) {
    radix_sort(a, n, scratch); /* deep, or a span that over- or underflows */
    return;
  }
  uint32_t start[SORT_BUCKETS + 1];
  memset(start, 0, (size_t)(nb + 1) * sizeof start[0]);
  for (int64_t i = 0; i < n; ++i) start[bucket_of(a[i], lowest, scale, nb) + 1]++;
  bool crowded = false;
  for (int64_t b = 0; b < nb; ++b) {
    crowded = crowded || start[b + 1] > SORT_BY_INSERTION;
    start[b + 1] += start[b];
  }
  for (int64_t i = 0; i < n; ++i) scratch[start[bucket_of(a[i], lowest, scale, nb)]++] = a[i];
  if (crowded) { /* start[b] is now bucket b's end */
    int64_t begin = 0;
    for (int64_t b = 0; b < nb; ++b) {
      if (start[b] - begin > SORT_BY_INSERTION)
        sort_heights_at(scratch + begin, start[b] - begin, a + begin, depth + 1);
      begin = start[b];
    }
  }
  insertion_sort(scratch, a, n); /* a height moves only within its bucket */
}

/* The counts are 32-bit: longer arrays (a window of over 4e9 heights) go
 * to qsort. */
static void sort_heights(double *a, int64_t n, double *scratch)
{
  if (n > (int64_t)UINT32_MAX) qsort(a, (size_t)n, sizeof(double), ss_compare_doubles);
  else sort_heights_at(a, n, scratch, 0);
}

bool ss_sbp_sort_heights(double *a, int64_t n, double *scratch)
{
  if (n < 0 || (n > 0 && (!a || !scratch))) return false;
  if (n > 0) sort_heights(a, n, scratch);
  return true;
}

/* One class in the rank search: the heights h[0, n) of a window, `sum` the
 * sum of those below it, `above` the lowest above it (INFINITY: none);
 * `drop` more of the lowest in h to join those below; scratch for n. */
typedef struct ClassWindow {
  double *h, *scratch;
  int64_t n, drop;
  double sum, above;
  uint64_t rng;
} ClassWindow;

/* Ranks k0 .. k0 + K - 1 of the class sorted at h[0, K): the `drop` lowest
 * added to the sum, the K lowest of the rest sorted, the lowest after them
 * in `above` (two selections, a sort). */
static void sort_class(ClassWindow *w, int64_t K)
{
  if (w->drop > 0) {
    select_rank(w->h, 0, w->n, w->drop, &w->rng, w->scratch);
    w->sum += range_sum(w->h, 0, w->drop);
    w->h += w->drop;
    w->n -= w->drop;
  }
  if (w->n > K) {
    select_rank(w->h, 0, w->n, K, &w->rng, w->scratch);
    w->above = w->h[K];
    w->n = K;
  }
  sort_heights(w->h, K, w->scratch);
}

typedef struct SortClasses {
  ClassWindow *w;
  int64_t K;
} SortClasses;

static void sort_class_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot;
  const SortClasses *job = context;
  for (int64_t c = begin; c < end; ++c) sort_class(&job->w[c], job->K);
}

/* The classes' work runs on two threads where both windows together hold
 * at least this many heights. A worker joins a job 0.7-0.8 us after it
 * opens on average (the bias SBP on a9a, -DSS_POOL_STATS) and the sorts
 * cost about 8 ns a height (perf), so with fewer heights the hand-over
 * would eat most of what it saves. */
enum { SORT_CLASSES_IN_PARALLEL = 512 };

/* The rank search of ss_sbp_two_levels from rank k0 = the lower sets'
 * common count, after w[c].drop more heights of each class joined its lower
 * set: each class's next K heights (K the shorter remainder) sorted, on
 * their own thread (the results do not depend on which), then one scan of
 * the ranks with running sums, up to the last rank k with V_k <= volume.
 * Returns false when the answer is not provably inside the windows
 * (V_{k0} > volume, or V at the rank after the last one given is <= volume). */
static bool two_levels_from(ClassWindow w[2], int64_t k0, double volume, SsThreadPool *pool,
                            SsSbpLevels *out)
{
  if (w[0].n <= w[0].drop || w[1].n <= w[1].drop) return false;
  const int64_t na = w[0].n - w[0].drop, nd = w[1].n - w[1].drop;
  const int64_t K = na < nd ? na : nd;
  SortClasses job = {w, K};
  ss_parallel_for(na + nd >= SORT_CLASSES_IN_PARALLEL ? pool : NULL, 2, sort_class_chunks, &job);
  const double *a = w[0].h, *d = w[1].h;
  if (k0 > 0 && (double)k0 * (a[0] + d[0]) - w[0].sum - w[1].sum > volume) return false;
  int64_t lo = 0; /* the last rank tested (relative to k0) with V <= volume */
  double sum_a = w[0].sum, sum_d = w[1].sum; /* sums of ranks < k0 + lo */
  for (; lo + 1 < K; ++lo) {
    const double s_a = sum_a + a[lo], s_d = sum_d + d[lo];
    if ((double)(k0 + lo + 1) * (a[lo + 1] + d[lo + 1]) - s_a - s_d > volume) break;
    sum_a = s_a;
    sum_d = s_d;
  }
  const double ak = a[lo], dk = d[lo];
  const double next_a = lo + 1 < K ? a[lo + 1] : w[0].above;
  const double next_d = lo + 1 < K ? d[lo + 1] : w[1].above;
  const int64_t k = k0 + lo + 1; /* covered in each class */
  /* lo = K - 1 was never tested against rank k: it may be covered too. */
  if (lo == K - 1 && isfinite(next_a) && isfinite(next_d) &&
      (double)k * (next_a + next_d) - (sum_a + ak) - (sum_d + dk) <= volume)
    return false;
  const double needed = (double)(k - 1) * (ak + dk) - sum_a - sum_d;
  const double D = (volume - needed) / (double)k;
  const double gap_a = next_a - ak, gap_d = next_d - dk;
  double low = D - gap_d > 0 ? D - gap_d : 0.0;
  double high = gap_a < D ? gap_a : D;
  double du = 0.5 * (low + high);
  out->u = ak + du;
  out->v = dk + (D - du);
  out->floor_u = ak;
  out->floor_v = dk;
  out->covered = k;
  return true;
}

bool ss_sbp_two_levels_window(double *a, int64_t na, int64_t ca, double sa, double a_above,
                              double *d, int64_t nd, int64_t cd, double sd, double d_above,
                              double volume, SsThreadPool *pool, double *scratch,
                              SsSbpLevels *out)
{
  const int64_t k0 = ca > cd ? ca : cd;
  const uint64_t seed = 0xD1B54A32D192ED03ULL ^ (uint64_t)(na * 31 + nd);
  ClassWindow w[2] = {{a, scratch, na, k0 - ca, sa, a_above, seed},
                      {d, scratch + na, nd, k0 - cd, sd, d_above, ~seed}};
  return two_levels_from(w, k0, volume, pool, out);
}

void ss_sbp_two_levels(double *a, int64_t n_pos, double *d, int64_t n_neg, double volume,
                       double *scratch, SsSbpLevels *out)
{
  ss_sbp_two_levels_window(a, n_pos, 0, 0.0, INFINITY, d, n_neg, 0, 0.0, INFINITY, volume, NULL,
                           scratch, out);
}

SsStatus ss_sbp_find_gamma_and_bias(const double *y, const double *c, int64_t n, double volume,
                                    double *work, double *gamma, double *bias, int64_t *covered)
{
  if (!y || !c || !work || !gamma || !bias || n < 2 || !isfinite(volume) || !(volume > 0))
    return SS_ERR_BAD_ARG;
  int64_t n_pos = 0, n_neg = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!isfinite(c[i])) return SS_ERR_BAD_ARG;
    if (y[i] == 1.0) ++n_pos;
    else if (y[i] == -1.0) ++n_neg;
    else return SS_ERR_BAD_DATA;
  }
  if (n_pos == 0 || n_neg == 0) return SS_ERR_BAD_DATA;
  int64_t p = 0, q = n_pos;
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] > 0) work[p++] = c[i];
    else work[q++] = c[i];
  }
  SsSbpLevels levels;
  ss_sbp_two_levels(work, n_pos, work + n_pos, n_neg, volume, work + n, &levels);
  *gamma = 0.5 * (levels.u + levels.v);
  *bias = 0.5 * (levels.v - levels.u);
  if (covered) *covered = levels.covered;
  return SS_OK;
}
