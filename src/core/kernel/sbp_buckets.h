/* sbp_buckets.h -- the SBP's window of responses cut into buckets (sbp.c,
 * no bias), so that its level is found on the threads but for one bucket.
 *
 * The water filling (sbp_gamma.c) seeks the level gamma with
 *
 *     W(gamma) = sum_i max(0, gamma - c_i) = V,
 *
 * and the row pass of sbp.c hands it a window [low, high) of the responses
 * around the last level: the count and sum of those below it, its heights,
 * and the lowest one above it. Cut the window at the boundaries
 *
 *     low = t_0 <= t_1 <= ... <= t_{H-1} <= t_H = high,   H = SS_SBP_BUCKETS
 *
 * (t_h = low + h (high - low) / H), and put a height x in the bucket
 * h = #{j in 1..H-1 : t_j <= x}: the heights below t_h are exactly those of
 * buckets < h, so W(t_h) is a count and a sum over those buckets. Each row
 * block sorts its own window heights by bucket and keeps their running
 * counts and sums (ss_sbp_buckets_sort), on the thread that ran the block.
 * The calling thread then bisects the boundaries, W(t_h) being the blocks'
 * running sums at h added in block order, for the last bucket q with
 * W(t_q) < V: the level lies in [t_q, t_{q+1}] (W is nondecreasing), as
 * after one step of the filling with the pivots t_q and t_{q+1}, and the
 * filling goes on with bucket q's heights alone (a sixteenth of the window,
 * on average, for roughly even heights).
 *
 * Rounding. The boundaries are nondecreasing whatever the rounding (a sum
 * and a product, both monotone in h), so the buckets are intervals and the
 * count below t_h is exact. A height's bucket is first guessed as
 * floor((x - low) H / (high - low)) and then moved by one where a boundary
 * says otherwise; that suffices when the width w = (high - low) / H is at
 * least 64 ulps of max(|low|, |high|) = M: the boundaries are then within
 * about 5 eps M <= w / 12 of low + h w, the guess within a few eps M / w
 * buckets of (x - low) / w, so it is at most one bucket off. A narrower
 * window (or an empty, reversed or infinite one) gets one bucket,
 * t_1 = ... = t_{H-1} = +inf, and its filling is the whole window's.
 */
#ifndef STOCHSVM_SBP_BUCKETS_H
#define STOCHSVM_SBP_BUCKETS_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* 16 took the fewest instructions on the threads' longest path, SBP on a9a:
 * 8 leave a larger bucket to the calling thread's filling, 32 cost the
 * blocks more in running sums. */
enum { SS_SBP_BUCKETS = 16 };

typedef struct SsSbpBuckets {
  double t[SS_SBP_BUCKETS + 1]; /**< t[0] = low, t[1..H-1] the boundaries, t[H] = high */
  double scale;                 /**< H / (high - low) (0: one bucket): x's guess is (x - low) scale */
} SsSbpBuckets;

/** Cut the window [low, high): equal widths when they are at least 64 ulps
 *  of the ends, else one bucket. */
static inline void ss_sbp_buckets_cut(SsSbpBuckets *bk, double low, double high)
{
  const double width = (high - low) / SS_SBP_BUCKETS;
  const bool even = width > 0 && isfinite(width) &&
                    width >= 64 * DBL_EPSILON * fmax(fabs(low), fabs(high));
  bk->t[0] = low;
  for (int h = 1; h < SS_SBP_BUCKETS; ++h) bk->t[h] = even ? low + h * width : INFINITY;
  bk->t[SS_SBP_BUCKETS] = high;
  bk->scale = even ? 1.0 / width : 0.0;
}

/** The bucket of a height of the window, low <= x < high: #{j in 1..H-1 :
 *  t_j <= x}, from its guess (at most one bucket off; t[0] = low and
 *  t[H] = high stop the moves at the ends). */
static inline int ss_sbp_bucket_of(const SsSbpBuckets *bk, double x)
{
  const double guess = (x - bk->t[0]) * bk->scale;
  int h = guess >= 1 ? (guess < SS_SBP_BUCKETS ? (int)guess : SS_SBP_BUCKETS - 1) : 0;
  h -= x < bk->t[h];
  h += x >= bk->t[h + 1];
  return h;
}

/** A block's m <= 256 window heights (found, in index order, each in
 *  [low, high)) into window, sorted by bucket (stable), and their running
 *  counts and sums: count[h] of them lie in buckets < h (h = 0..H), sum[h]
 *  is their sum (each bucket summed in index order, then the buckets in
 *  order: nothing depends on which thread runs the block). */
static inline void ss_sbp_buckets_sort(const SsSbpBuckets *bk, const double *found, int64_t m,
                                       double *window, int64_t *count, double *sum)
{
  unsigned char which[256];
  int64_t size[SS_SBP_BUCKETS] = {0};
  double part[SS_SBP_BUCKETS] = {0};
  for (int64_t k = 0; k < m; ++k) {
    const int h = ss_sbp_bucket_of(bk, found[k]);
    which[k] = (unsigned char)h;
    size[h]++;
    part[h] += found[k];
  }
  count[0] = 0;
  sum[0] = 0.0;
  for (int h = 0; h < SS_SBP_BUCKETS; ++h) {
    count[h + 1] = count[h] + size[h];
    sum[h + 1] = sum[h] + part[h];
  }
  int64_t next[SS_SBP_BUCKETS];
  memcpy(next, count, sizeof next);
  for (int64_t k = 0; k < m; ++k) window[next[which[k]]++] = found[k];
}

#endif /* STOCHSVM_SBP_BUCKETS_H */
