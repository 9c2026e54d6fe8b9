/* sbp.c -- the Stochastic Batch Perceptron (Cotter, Shalev-Shwartz, Srebro,
 * ICML 2012; the paper's Algorithm 1; the math: docs/kernel.rst).
 *
 * Slack-constrained problem over w = sum_i alpha_i y_i phi(x_i):
 *
 *     max_{||w|| <= 1}  f(w) = max_{xi >= 0, 1'xi <= n nu} min_{p in simplex}
 *                               sum_i p_i (y_i <w, phi(x_i)> + xi_i)
 *
 * With the responses c_i = y_i <w, phi(x_i)> kept up to date, a
 * supergradient is y_i phi(x_i) for i drawn uniformly from the covered
 * examples {c_i < gamma}, gamma the water level of c (sbp_gamma.c):
 *
 *     eta_0 = 1 / sqrt(max_i K(x_i, x_i));  alpha = 0, c = 0, r = 0
 *     for t = 1..T:
 *         eta_t = eta_0 / sqrt(t)
 *         gamma = find_gamma(c, n nu);  i ~ uniform{ j : c_j < gamma }
 *         alpha_i += eta_t
 *         r^2 += 2 eta_t c_i + eta_t^2 K(x_i, x_i)          (||w||^2)
 *         c_j += eta_t y_i y_j K(x_i, x_j)  for all j        (n kernel evaluations)
 *         if r > 1: alpha /= r, c /= r, r = 1                (projection on the ball)
 *     alpha_bar, c_bar = averages of alpha^(t), c^(t); gamma = find_gamma(c_bar, n nu)
 *     predictor: sum_i (alpha_bar_i / gamma) y_i K(x_i, .)
 *
 * With an unregularized bias (the paper's section 3.6 and Algorithm 3) the
 * positives' responses are shifted by +b and the negatives' by -b; the
 * water filling returns (gamma, b) with the same number k of covered
 * examples in each class, and i is drawn with probability 1/2 from each
 * class, uniformly among its covered examples (the minimax p puts equal mass
 * on both classes, so the supergradient is also one in b). The predictor's
 * bias is b / gamma.
 *
 * Ties: when floating point leaves no response strictly below the level,
 * the examples at the level are used, and failing those the lowest one.
 * If the averaged margin gamma is not positive (nu too small for the data
 * so far), the averaged iterate is returned without division by gamma.
 *
 * Per-example weights are refused (ss_kernel_svm_set_weights returns
 * SS_ERR_BAD_STATE for SBP) rather than ignored. With weights v_i the slack
 * budget would read sum_i v_i xi_i <= n nu: the level would solve the
 * weighted filling sum_i v_i max(0, gamma - c_i) = n nu and the minimax p
 * would put mass p_i ~ v_i on the covered examples (the KKT condition of
 * xi_i > 0), i.e. a weighted sbp_gamma.c and weighted sampling; that variant
 * is not implemented or tested here. Equal weights v are the unweighted
 * problem (v copies of every row keep the slack per example), which the
 * Python estimator maps to no weights.
 */
#include "kernel_internal.h"
#include "../common/vexp.h" /* SS_VECTOR_CLONES */

#include <stdlib.h>
#include <string.h>

/* The support. alpha_j stays 0 until example j is first drawn, and only
 * the drawn examples' alpha_j and alpha_sum_j change after that, so the
 * two are kept for those alone, by row blocks: block b's k-th drawn
 * example j (B = SS_KERNEL_ROW_BLOCK, k < support_count[b], support_slot[j]
 * = k; -1: never drawn) has its alpha_j at alpha[b B + k] and its sum at
 * alpha_sum[b B + k]. The row pass updates a block's drawn entries only,
 * with the dense update's operations on the same values (the others would
 * add 0 to 0), so the iterates are the same to the bit, and the pass
 * streams c and c_sum but not alpha and alpha_sum (a9a, 3000 rows: 2,900
 * of 32,561 examples drawn). */
_Static_assert(SS_KERNEL_ROW_BLOCK <= INT16_MAX, "support_slot holds a position in a block");

typedef struct SbpState {
  double *alpha;     /**< [n] alpha^(t) of the drawn examples, by blocks (above) */
  double *c;         /**< [n] responses c^(t) */
  double *alpha_sum; /**< [n] sum over t of alpha^(t) of the drawn examples, by blocks */
  int16_t *support_slot;  /**< [n] example j's k in its block (-1: never drawn) */
  int64_t *support_count; /**< [blocks] drawn examples per block */
  double *c_sum;     /**< [n] sum over t of c^(t) */
  double *work;      /**< [2 n] scratch of the water filling */
  bool scanned;      /**< the previous row's pass (update_block) left the window scan
                          of c: no bias around last_u +- band (level_windowed), bias
                          around the floors +- half_width (levels_windowed) */
  int64_t window_length;  /**< no bias: responses in the window (the blocks' slices of s->window) */
  int64_t num_below;      /**< no bias: responses below the window, */
  double sum_below;       /**< their sum, */
  double min_above;       /**< and the lowest response above it (INFINITY: none) */
  /* Per row block b and class cl (entry 2 b + cl, block_entry(); no bias: cl = 0,
   * bias: 0 the positives, 1 the negatives): */
  int64_t *block_below;   /**< [2 blocks] the scan's count below the window, */
  int64_t *block_length;  /**< its window entries (the block's slice of s->window: the
                               positives from its start, the negatives back from its end), */
  int64_t *block_covered; /**< those below the level (level_windowed, levels_windowed), */
  double *block_sum;      /**< the sum below the window */
  double *block_min;      /**< and the lowest response above it */
  double last_u;     /**< no bias: the level of the previous iteration (NaN: none) */
  double band;       /**< no bias: the window's half width around last_u */
  int64_t *by_class; /**< [n] bias: the positives' indices, then the negatives' */
  double *window;    /**< [n] the heights in the windows, by blocks (bias: the positives') */
  double *window_neg; /**< [n] bias: the negatives' heights in their windows, by blocks */
  int64_t floor_index[2]; /**< bias: the examples at the floors a_k, d_k (-1: none); the
                               windows are centred on their responses */
  double half_width; /**< bias: the windows' half width around the floors */
  int64_t n_pos;     /**< positives in the data */
  double r2;         /**< ||w^(t)||^2 */
  double eta0;
  double nu;         /**< the slack per example in force (set, or derived: sbp_nu.c) */
  double nu_lambda;  /**< derived nu: the lambda it was derived for (0: nu was set) */
  double nu_scaled;  /**< derived nu: the nu of the last diagnosed model at its best scale */
  double exact_cost; /**< derived nu: the warm-up's prediction of an exact solve's kernel
                          evaluations (0: none; sbp_race.c) */
  int64_t average_from; /**< the iteration the averages alpha_sum, c_sum start at */
  bool bias;         /**< the bias setting the sums were made with */
  SsRowCopy rows;    /**< X laid out for the kernel rows' dots, made again at every train */
} SbpState;

/* The entry of row block b and class cl in the s->block_* arrays. */
static inline int64_t block_entry(int64_t b, int cl)
{
  return 2 * b + cl;
}

static void sbp_free_state(SsKernelSvm *self)
{
  SbpState *s = self->state;
  if (!s) return;
  free(s->alpha);
  free(s->c);
  free(s->alpha_sum);
  free(s->support_slot);
  free(s->support_count);
  free(s->c_sum);
  free(s->work);
  free(s->block_below);
  free(s->block_length);
  free(s->block_covered);
  free(s->block_sum);
  free(s->block_min);
  free(s->by_class);
  free(s->window);
  free(s->window_neg);
  ss_row_copy_free(&s->rows);
  free(s);
  self->state = NULL;
}

double ss_sbp_nu_in_force(const SsKernelSvm *self)
{
  if (self->nu > 0) return self->nu;
  const SbpState *s = self->solver == SS_KSOLVER_SBP ? self->state : NULL;
  return s && s->nu_lambda > 0 ? s->nu : 0;
}

double ss_sbp_exact_cost(const SsKernelSvm *self)
{
  const SbpState *s = self->solver == SS_KSOLVER_SBP && !(self->nu > 0) ? self->state : NULL;
  return s && s->nu_lambda > 0 ? s->exact_cost : 0;
}

/* The nu of this run: the one set, or the one derived from lambda by the
 * warm-up of sbp_nu.c, once per state and lambda (its kernel evaluations are
 * counted as the solver's). */
static SsStatus choose_nu(SsKernelSvm *self, SbpState *s)
{
  if (self->nu > 0) {
    s->nu = self->nu;
    s->nu_lambda = 0;
    s->exact_cost = 0;
    return SS_OK;
  }
  if (s->nu_lambda == self->lambda) return SS_OK;
  int64_t evaluations = 0;
  SsStatus status = self->nu_warmup(self, 0, &s->nu, &evaluations, &s->exact_cost);
  self->num_kernel_evaluations += evaluations;
  if (status == SS_OK) s->nu_lambda = self->lambda;
  return status;
}

/* The refined nu when the last diagnosed model's is off the derived nu in
 * force by more than SS_SBP_NU_REFINE_FACTOR, else 0. */
static double refined_nu(const SsKernelSvm *self)
{
  const SbpState *s = self->solver == SS_KSOLVER_SBP ? self->state : NULL;
  if (!s || !(s->nu_lambda > 0) || !(s->nu_scaled > 0)) return 0;
  const double next = fmax(s->nu_scaled, SS_SBP_NU_FLOOR);
  return next <= s->nu * SS_SBP_NU_REFINE_FACTOR && next >= s->nu / SS_SBP_NU_REFINE_FACTOR ? 0 : next;
}

bool ss_sbp_nu_is_off(const SsKernelSvm *self)
{
  return refined_nu(self) > 0;
}

bool ss_sbp_refine_nu(SsKernelSvm *self)
{
  const double next = refined_nu(self);
  if (!(next > 0)) return false;
  SbpState *s = self->state;
  s->nu = next;
  s->nu_scaled = 0;
  const size_t n = (size_t)self->num_data;
  memset(s->alpha_sum, 0, n * sizeof(double));
  memset(s->c_sum, 0, n * sizeof(double));
  s->average_from = self->iteration;
  s->last_u = NAN; /* the prefilter's level belongs to the former nu */
  s->floor_index[0] = s->floor_index[1] = -1;
  return true;
}

/* The row copy of this train call (kernel_internal.h, SsRowCopy): X as it
 * is now, so a copy never outlives a change of the borrowed arrays. Out of
 * memory for it, the rows go without (the same values, the CSR dots). */
static void copy_rows(const SsKernelSvm *self, SbpState *s)
{
  if (!ss_kernel_svm_copies_rows(self)) {
    ss_row_copy_free(&s->rows);
    return;
  }
  (void)ss_row_copy_update(&s->rows, &self->data, self->row_flags);
}

static SsStatus sbp_start(SsKernelSvm *self)
{
  SbpState *s = self->state;
  /* a new bias setting, or a new lambda under a derived nu, is a new problem */
  if (s && (s->bias != self->bias_enabled ||
            (self->nu == 0 && s->nu_lambda > 0 && s->nu_lambda != self->lambda))) {
    sbp_free_state(self);
    s = NULL;
  }
  if (self->bias_enabled) {
    bool pos = false, neg = false;
    for (int64_t i = 0; i < self->num_data; ++i) {
      if (self->labels[i] > 0) pos = true;
      else neg = true;
    }
    if (!pos || !neg) return SS_ERR_BAD_DATA;
  }
  if (s) {
    s->eta0 = ss_kernel_svm_effective_eta0(self);
    copy_rows(self, s);
    return choose_nu(self, s); /* a window scan left by the last call stays valid */
  }
  const size_t n = (size_t)self->num_data;
  s = calloc(1, sizeof(SbpState));
  if (!s) return SS_ERR_ALLOC;
  s->alpha = calloc(n, sizeof(double));
  s->c = calloc(n, sizeof(double));
  s->alpha_sum = calloc(n, sizeof(double));
  s->support_slot = malloc((n ? n : 1) * sizeof(int16_t));
  s->support_count = calloc((size_t)ss_kernel_row_num_blocks((int64_t)n) + 1, sizeof(int64_t));
  s->c_sum = calloc(n, sizeof(double));
  s->work = malloc(2 * n * sizeof(double));
  const size_t blocks = 2 * ((size_t)ss_kernel_row_num_blocks((int64_t)n) + 1);
  s->block_below = malloc(blocks * sizeof(int64_t));
  s->block_length = malloc(blocks * sizeof(int64_t));
  s->block_covered = malloc(blocks * sizeof(int64_t));
  s->block_sum = malloc(blocks * sizeof(double));
  s->block_min = malloc(blocks * sizeof(double));
  s->by_class = malloc(n * sizeof(int64_t));
  /* whole slices, zeroed: copy_windows and count_windows read a short
   * slice's SBP_SHORT entries */
  const size_t slices = (size_t)ss_kernel_row_num_blocks((int64_t)n) * SS_KERNEL_ROW_BLOCK;
  s->window = calloc(slices ? slices : 1, sizeof(double));
  s->window_neg = self->bias_enabled ? calloc(slices ? slices : 1, sizeof(double)) : NULL;
  if (!self->dual) self->dual = calloc(n, sizeof(double));
  self->state = s;
  if (!s->alpha || !s->c || !s->alpha_sum || !s->support_slot ||
      !s->support_count || !s->c_sum || !s->work || !s->by_class ||
      !s->window || (self->bias_enabled && !s->window_neg) || !s->block_below || !s->block_length || !s->block_covered || !s->block_sum ||
      !s->block_min || !self->dual) {
    sbp_free_state(self);
    return SS_ERR_ALLOC;
  }
  memset(self->dual, 0, n * sizeof(double));
  for (size_t j = 0; j < n; ++j) s->support_slot[j] = -1;
  s->bias = self->bias_enabled;
  s->eta0 = ss_kernel_svm_effective_eta0(self);
  s->last_u = NAN;
  s->band = s->eta0;
  s->half_width = s->eta0;
  s->floor_index[0] = s->floor_index[1] = -1;
  for (int64_t i = 0; i < self->num_data; ++i) s->n_pos += self->labels[i] > 0;
  int64_t p = 0, q = s->n_pos;
  for (int64_t i = 0; i < self->num_data; ++i) s->by_class[self->labels[i] > 0 ? p++ : q++] = i;
  self->iteration = 0;
  copy_rows(self, s);
  return choose_nu(self, s);
}

/* Draw i uniformly among the examples of class cls (0: all) covered at
 * `level`, c_i < level. Ties: the examples at the level, else the lowest
 * one. */
static int64_t sample_covered(const double *c, const double *y, int64_t n, double cls,
                              double level, SsRng *rng)
{
  int64_t strict = 0, loose = 0, lowest = -1;
  double lowest_value = 0; /* c[lowest], kept in a register: no load in the chain */
  for (int64_t j = 0; j < n; ++j) {
    if (cls != 0 && y[j] != cls) continue;
    strict += c[j] < level;
    loose += c[j] <= level;
    if (lowest < 0 || c[j] < lowest_value) {
      lowest = j;
      lowest_value = c[j];
    }
  }
  if (strict == 0 && loose == 0) return lowest;
  bool use_strict = strict > 0;
  int64_t r = (int64_t)ss_rng_below(rng, (uint64_t)(use_strict ? strict : loose));
  for (int64_t j = 0; j < n; ++j) {
    if (cls != 0 && y[j] != cls) continue;
    if (use_strict ? c[j] < level : c[j] <= level) {
      if (r == 0) return j;
      --r;
    }
  }
  return lowest;
}

/* The levels of responses c: gamma (no bias: u = v = gamma, k unused) or u, v
 * for positives and negatives, by a filling of the whole basin. */
static void levels(SsKernelSvm *self, SbpState *s, const double *c, SsSbpLevels *out)
{
  const int64_t n = self->num_data;
  const double volume = (double)n * s->nu;
  if (!s->bias) {
    memcpy(s->work, c, (size_t)n * sizeof(double));
    out->u = out->v = ss_sbp_water_level(s->work, n, volume);
    out->floor_u = out->floor_v = NAN;
    out->covered = 0;
    return;
  }
  for (int64_t k = 0; k < n; ++k) s->work[k] = c[s->by_class[k]];
  /* The whole classes as windows: always exact. */
  ss_sbp_two_levels_window(s->work, s->n_pos, 0, 0.0, INFINITY, s->work + s->n_pos,
                           n - s->n_pos, 0, 0.0, INFINITY, volume,
                           ss_threads_pool(self->threads, n), s->work + n, out);
}

/* The blocks' window slices (class cl's entries in s->block_*), copied one
 * after the other to dest (room for @p room heights), and counted below a
 * level into block_covered. A slice holds about 20 heights on a9a: loops
 * of that length, one per block with its own trip count, cost more in
 * branches and calls than in work (count: 1.9 us a row for 2,500 heights,
 * serial work that a row's threads wait for). So a slice of at most
 * SBP_SHORT heights is copied and counted as SBP_SHORT, a fixed trip count
 * with no branch on its length (the entries past it are masked out of the
 * count, and the copy's are overwritten by the next slice); the slices
 * are allocated whole and zeroed (sbp_start), so those entries exist and
 * are initialised. */
enum { SBP_SHORT = 32 };

SS_VECTOR_CLONES static void copy_windows(const double *window, const int64_t *block_length,
                                          int cl, int64_t num_blocks, double *dest, int64_t room)
{
  for (int64_t b = 0, w = 0; b < num_blocks; ++b) {
    const int64_t length = block_length[block_entry(b, cl)];
    const double *slice = window + b * SS_KERNEL_ROW_BLOCK;
    if (length <= SBP_SHORT && w + SBP_SHORT <= room) {
      memcpy(dest + w, slice, SBP_SHORT * sizeof(double));
    } else {
      memcpy(dest + w, slice, (size_t)length * sizeof(double));
    }
    w += length;
  }
}

SS_VECTOR_CLONES static int64_t count_windows(const double *window, const int64_t *block_length,
                                              int cl, int64_t num_blocks, double level,
                                              int64_t *block_covered)
{
  int64_t total = 0;
  for (int64_t b = 0; b < num_blocks; ++b) {
    const int64_t length = block_length[block_entry(b, cl)];
    const double *slice = window + b * SS_KERNEL_ROW_BLOCK;
    int64_t covered = 0;
    if (length <= SBP_SHORT) {
      for (int64_t k = 0; k < SBP_SHORT; ++k) covered += (k < length) & (slice[k] < level);
    } else {
      for (int64_t k = 0; k < length; ++k) covered += slice[k] < level;
    }
    block_covered[block_entry(b, cl)] = covered;
    total += covered;
  }
  return total;
}

/* No bias: the level gamma of c from the window scan the previous row's
 * pass made (update_block, gather_scan): the responses below the window
 * (count and sum), those in it (the blocks' slices of s->window, packed
 * into s->work in block order) and the lowest above it. The
 * filling of the window on top of the lower set (ss_sbp_water_level_near,
 * from the last level) is the level of all of c when it lies at or above the window's lower end
 * (every response below is covered) and at or below the lowest response
 * above (none above is). Then *strict is the number of responses below
 * gamma. Returns false when there is no scan or the level is outside. */
static bool level_windowed(SsKernelSvm *self, SbpState *s, double *gamma, int64_t *strict)
{
  const bool scanned = s->scanned;
  s->scanned = false;
  const int64_t m = s->window_length, below = s->num_below;
  if (!scanned || (m == 0 && below == 0) || self->sbp_full_levels) return false;
  const int64_t num_blocks = ss_kernel_row_num_blocks(self->num_data);
  copy_windows(s->window, s->block_length, 0, num_blocks, s->work, 2 * self->num_data);
  const double level = ss_sbp_water_level_near(s->work, m, (double)self->num_data * s->nu, below,
                                               s->sum_below, s->last_u);
  const double low_end = s->last_u - s->band;
  if (!((below == 0 || level >= low_end) && level <= s->min_above)) return false;
  *gamma = level;
  *strict = below + count_windows(s->window, s->block_length, 0, num_blocks, level,
                                  s->block_covered);
  if (m > 512) s->band *= 0.9;
  return true;
}

/* One branch-free pass over the heights x_k = c[k], k < m, of class cls
 * (y NULL: all; else those with y_k = cls): the count and sum of those
 * below lo, those in [lo, hi) copied to window (in order), and the lowest
 * at or above hi (INFINITY: none). The sum and the minimum run in two
 * lanes (even and odd k), so that two chains of dependent additions and
 * comparisons overlap; the lanes are fixed, so the sum does not depend on
 * anything but c. Every x_k is written to the window's next entry, which
 * advances only past those of the class in the window. */
typedef struct WindowScan {
  int64_t below, length;
  double sum, lowest_above;
} WindowScan;

static inline WindowScan scan_window(const double *c, const double *y, double cls, int64_t m,
                                     double lo, double hi, double *window)
{
  WindowScan r = {0, 0, 0.0, INFINITY};
  double sum1 = 0, lowest1 = INFINITY;
  int64_t k = 0;
  for (; k + 2 <= m; k += 2) {
    const double x0 = c[k], x1 = c[k + 1];
    const bool in0 = !y || y[k] == cls, in1 = !y || y[k + 1] == cls;
    r.below += (in0 & (x0 < lo)) + (in1 & (x1 < lo));
    r.sum += (in0 & (x0 < lo)) ? x0 : 0.0;
    sum1 += (in1 & (x1 < lo)) ? x1 : 0.0;
    window[r.length] = x0;
    r.length += in0 & (x0 >= lo) & (x0 < hi);
    window[r.length] = x1;
    r.length += in1 & (x1 >= lo) & (x1 < hi);
    const double a0 = (in0 & (x0 >= hi)) ? x0 : INFINITY, a1 = (in1 & (x1 >= hi)) ? x1 : INFINITY;
    r.lowest_above = a0 < r.lowest_above ? a0 : r.lowest_above;
    lowest1 = a1 < lowest1 ? a1 : lowest1;
  }
  for (; k < m; ++k) {
    const double x = c[k];
    const bool in = !y || y[k] == cls;
    r.below += in & (x < lo);
    r.sum += (in & (x < lo)) ? x : 0.0;
    window[r.length] = x;
    r.length += in & (x >= lo) & (x < hi);
    const double a = (in & (x >= hi)) ? x : INFINITY;
    r.lowest_above = a < r.lowest_above ? a : r.lowest_above;
  }
  r.sum += sum1;
  r.lowest_above = lowest1 < r.lowest_above ? lowest1 : r.lowest_above;
  return r;
}

/* scan_window in GCC and Clang vector extensions (scan_lanes): the two
 * lanes of its sums and minima are one vector of two doubles, lane 0 the
 * even k and lane 1 the odd k as in scan_window, so they are its values to
 * the bit (test_sbp_rescan.c); the selections are masks (x & (x < lo) is x
 * or +0.0, as x < lo ? x : 0.0). The window entries are still copied one
 * by one, in order. Inlined into its two callers, so that the no-bias scan
 * (y NULL) carries no class test. Other compilers use scan_window. */
#if defined(__GNUC__)

/* Four heights of scan_lanes, x (read from src, the first @p lanes real;
 * the lanes marked in take part): the comparisons on all four at once (one
 * AVX vector in the AVX2 clones), the sums and minima pair by pair (the
 * first two heights, then the last two), as the two lanes take them. */
static inline __attribute__((always_inline)) void
scan_quad(const double *src, int lanes, SsLaneQuadMask in, double lo, double hi, SsLanePair *sum,
          SsLanePair *lowest, SsLaneQuadMask *below, double *window, int64_t *length)
{
  const SsLaneQuad low = {lo, lo, lo, lo}, high = {hi, hi, hi, hi};
  const SsLaneQuad none = {INFINITY, INFINITY, INFINITY, INFINITY};
  SsLaneQuad x;
  memcpy(&x, src, sizeof x);
  const SsLaneQuadMask is_below = (x < low) & in, is_above = (x >= high) & in;
  const SsLaneQuadMask inside = (x >= low) & (x < high) & in;
  *below -= is_below; /* a true comparison is -1 */
  const SsLaneQuad part = (SsLaneQuad)((SsLaneQuadMask)x & is_below);
  const SsLaneQuad a = (SsLaneQuad)(((SsLaneQuadMask)x & is_above) |
                                    ((SsLaneQuadMask)none & ~is_above));
  SsLanePair half[2], above[2];
  memcpy(half, &part, sizeof half);
  memcpy(above, &a, sizeof above);
  for (int h = 0; h < 2; ++h) {
    *sum += half[h];
    const SsLaneMask is_lower = above[h] < *lowest;
    *lowest = (SsLanePair)(((SsLaneMask)above[h] & is_lower) | ((SsLaneMask)*lowest & ~is_lower));
  }
  for (int e = 0; e < lanes; ++e) { /* within the window's room: no write past the real ones */
    window[*length] = src[e]; /* not x[e]: that would keep x in memory */
    *length -= inside[e];
  }
}

/* scan_window four heights a step (scan_quad); the last one to three
 * heights as a step of four whose missing lanes take no part, so that each
 * lane's terms are scan_window's in its order (lane 0 the even k, lane 1
 * the odd k; the sums start at +0 and never turn -0, so the missing
 * lanes' +0 changes neither). */
static inline __attribute__((always_inline)) WindowScan
scan_lanes(const double *c, const double *y, double cls, int64_t m, double lo, double hi,
           double *window)
{
  const SsLaneQuad wanted = {cls, cls, cls, cls};
  SsLanePair sum = {0.0, 0.0}, lowest = {INFINITY, INFINITY};
  SsLaneQuadMask below = {0, 0, 0, 0};
  int64_t length = 0, k = 0;
  for (; k + 4 <= m; k += 4) {
    SsLaneQuadMask in = {-1, -1, -1, -1};
    if (y) {
      SsLaneQuad yy;
      memcpy(&yy, y + k, sizeof yy);
      in = yy == wanted;
    }
    scan_quad(c + k, 4, in, lo, hi, &sum, &lowest, &below, window, &length);
  }
  if (k < m) {
    double tail[4] = {0.0, 0.0, 0.0, 0.0}, tail_y[4] = {cls, cls, cls, cls};
    memcpy(tail, c + k, (size_t)(m - k) * sizeof(double));
    if (y) memcpy(tail_y, y + k, (size_t)(m - k) * sizeof(double));
    const SsLaneQuadMask lane = {0, 1, 2, 3}, rest = {m - k, m - k, m - k, m - k};
    SsLaneQuad yy;
    memcpy(&yy, tail_y, sizeof yy);
    scan_quad(tail, (int)(m - k), (lane < rest) & (yy == wanted), lo, hi, &sum, &lowest, &below,
              window, &length);
  }
  const double lowest_above = lowest[1] < lowest[0] ? lowest[1] : lowest[0];
  return (WindowScan){.below = (below[0] + below[1]) + (below[2] + below[3]),
                      .length = length,
                      .sum = sum[0] + sum[1],
                      .lowest_above = lowest_above};
}

static inline __attribute__((always_inline)) WindowScan
scan_block(const double *c, int64_t m, double lo, double hi, double *window)
{
  return scan_lanes(c, NULL, 0.0, m, lo, hi, window);
}

static inline __attribute__((always_inline)) WindowScan
scan_block_class(const double *c, const double *y, double cls, int64_t m, double lo, double hi,
                 double *window)
{
  return scan_lanes(c, y, cls, m, lo, hi, window);
}
#else
static WindowScan scan_block(const double *c, int64_t m, double lo, double hi, double *window)
{
  return scan_window(c, NULL, 0.0, m, lo, hi, window);
}

static WindowScan scan_block_class(const double *c, const double *y, double cls, int64_t m,
                                   double lo, double hi, double *window)
{
  return scan_window(c, y, cls, m, lo, hi, window);
}
#endif

SS_VECTOR_CLONES static void window_scan(const double *c, const double *y, double cls, int64_t m,
                                         double lo, double hi, bool reference, double *window,
                                         int64_t counts[2], double values[2])
{
  const WindowScan r = reference ? scan_window(c, y, cls, m, lo, hi, window)
                       : y       ? scan_block_class(c, y, cls, m, lo, hi, window)
                                 : scan_block(c, m, lo, hi, window);
  counts[0] = r.below, counts[1] = r.length;
  values[0] = r.sum, values[1] = r.lowest_above;
}

void ss_sbp_window_scan(const double *c, const double *y, double cls, int64_t m, double lo, double hi,
                        bool reference, double *window, int64_t counts[2], double values[2])
{
  window_scan(c, y, cls, m, lo, hi, reference, window, counts, values);
}

/* Bias: the two classes' window scan of block [lo, hi) of c into the
 * block's own entries (the bias's counterpart of scan_into_block, in the
 * same row pass): class cl's responses in [low[cl], high[cl]) to the
 * block's slice of s->window (cl = 0, the positives) or s->window_neg,
 * the count and sum of those below and the lowest above to
 * s->block_*[block_entry(block, cl)]. One pass per class over the block, on values
 * still in L1. */
SS_VECTOR_CLONES static void scan_classes_into_block(SbpState *s, const double *y, int64_t block, int64_t lo,
                                    int64_t hi, const double low[2], const double high[2])
{
  for (int cl = 0; cl < 2; ++cl) {
    const WindowScan scan = scan_block_class(s->c + lo, y + lo, cl ? -1.0 : 1.0, hi - lo, low[cl],
                                             high[cl], (cl ? s->window_neg : s->window) + lo);
    s->block_below[block_entry(block, cl)] = scan.below;
    s->block_length[block_entry(block, cl)] = scan.length;
    s->block_sum[block_entry(block, cl)] = scan.sum;
    s->block_min[block_entry(block, cl)] = scan.lowest_above;
  }
}

/* Bias: the levels from the windows of the last scan (scan_classes_into_block,
 * in the row pass or in levels_rescanned) around the floors a_k and d_k, by
 * ss_sbp_two_levels_window: the blocks' counts and sums joined in block
 * order (so nothing depends on the threads), their window entries packed
 * into s->work (the positives', then the negatives'). On success,
 * strict[0] and strict[1] are the numbers of positives below u and of
 * negatives below v (the lower sets and the window entries below the
 * level: everything above a window lies at or above the next floor, hence
 * at or above the level), and s->block_covered holds each block's share.
 * Returns false when there is no scan or the windows do not provably hold
 * the answer. */
static bool levels_windowed(SsKernelSvm *self, SbpState *s, SsSbpLevels *out, int64_t strict[2])
{
  const bool scanned = s->scanned;
  s->scanned = false;
  if (!scanned || self->sbp_full_levels) return false;
  const int64_t n = self->num_data, num_blocks = ss_kernel_row_num_blocks(n);
  int64_t below[2] = {0, 0}, length[2] = {0, 0};
  double sum[2] = {0.0, 0.0}, above[2] = {INFINITY, INFINITY};
  for (int64_t b = 0; b < num_blocks; ++b) {
    for (int cl = 0; cl < 2; ++cl) {
      below[cl] += s->block_below[block_entry(b, cl)];
      length[cl] += s->block_length[block_entry(b, cl)];
      sum[cl] += s->block_sum[block_entry(b, cl)];
      above[cl] = s->block_min[block_entry(b, cl)] < above[cl] ? s->block_min[block_entry(b, cl)] : above[cl];
    }
  }
  double *a = s->work, *d = s->work + length[0];
  copy_windows(s->window, s->block_length, 0, num_blocks, a, 2 * n); /* past its end: d's room */
  copy_windows(s->window_neg, s->block_length, 1, num_blocks, d, 2 * n - length[0]);
  if (!ss_sbp_two_levels_window(a, length[0], below[0], sum[0], above[0], d, length[1], below[1],
                                sum[1], above[1], (double)n * s->nu,
                                ss_threads_pool(self->threads, n), s->work + n, out))
    return false;
  const double level[2] = {out->u, out->v};
  for (int cl = 0; cl < 2; ++cl) {
    strict[cl] = below[cl] + count_windows(cl ? s->window_neg : s->window, s->block_length, cl,
                                           num_blocks, level[cl], s->block_covered);
  }
  if (length[0] + length[1] > 512) s->half_width *= 0.9;
  return true;
}

/* One row's pass (sbp_steps): per entry j of the row K(x_i, .),
 *
 *     c_j <- (c_j + eta y_i y_j K_ij) / r,  alpha_j <- alpha_j / r
 *     alpha_sum_j += alpha_j,  c_sum_j += c_j
 *
 * (r = 1 without projection: the division is skipped) and the next
 * iteration's window scan of the new c: no bias (level_windowed), a
 * block's responses in [low[0], high[0]) go to its own slice of s->window,
 * the count and sum of those below and the lowest above to the block's
 * entries; bias (levels_windowed), the same per class around its floor
 * (scan_classes_into_block). Every write is to the block's own entries, so
 * blocks run on any thread. */
typedef struct SbpPass {
  SbpState *s;
  const double *y;
  double step, inv_r, low[2], high[2];
  bool project, scan;
} SbpPass;

/* The response update of one block with the projection on the ball (a
 * division by r, as a product with inv_r), and without it; then the same
 * for the block's drawn examples' alpha (SbpState). Elementwise, so every
 * vector width gives the scalar loop's values; the arrays are distinct
 * (restrict), and the AVX copies (SS_VECTOR_CLONES) take 4 or 8 entries a
 * step. */
SS_VECTOR_CLONES static void update_projected(int64_t len, double step, double inv_r,
                                              const double *restrict y, const double *restrict k,
                                              double *restrict c, double *restrict c_sum)
{
  for (int64_t j = 0; j < len; ++j) {
    c[j] = (c[j] + step * y[j] * k[j]) * inv_r;
    c_sum[j] += c[j];
  }
}

SS_VECTOR_CLONES static void update_unprojected(int64_t len, double step,
                                                const double *restrict y, const double *restrict k,
                                                double *restrict c, double *restrict c_sum)
{
  for (int64_t j = 0; j < len; ++j) {
    c[j] += step * y[j] * k[j];
    c_sum[j] += c[j];
  }
}

static void update_support(int64_t m, bool project, double inv_r, double *restrict alpha,
                           double *restrict alpha_sum)
{
  if (project) {
    for (int64_t k = 0; k < m; ++k) {
      alpha[k] *= inv_r;
      alpha_sum[k] += alpha[k];
    }
  } else {
    for (int64_t k = 0; k < m; ++k) alpha_sum[k] += alpha[k];
  }
}

/* The window scan of block @p block = [lo, hi) of c into its own entries:
 * the responses in [low, high) to its slice of s->window, the count and sum
 * of those below and the lowest above to s->block_*[block]. */
SS_VECTOR_CLONES static void scan_into_block(SbpState *s, int64_t block, int64_t lo, int64_t hi, double low,
                            double high)
{
  const WindowScan scan = scan_block(s->c + lo, hi - lo, low, high, s->window + lo);
  s->block_below[block_entry(block, 0)] = scan.below;
  s->block_length[block_entry(block, 0)] = scan.length;
  s->block_sum[block_entry(block, 0)] = scan.sum;
  s->block_min[block_entry(block, 0)] = scan.lowest_above;
}

static void update_block(void *context, int64_t block, int64_t lo, int64_t hi, const double *k)
{
  const SbpPass *p = context;
  SbpState *s = p->s;
  const int64_t len = hi - lo;
  double *c = s->c + lo;
  if (p->project) {
    update_projected(len, p->step, p->inv_r, p->y + lo, k, c, s->c_sum + lo);
  } else {
    update_unprojected(len, p->step, p->y + lo, k, c, s->c_sum + lo);
  }
  update_support(s->support_count[block], p->project, p->inv_r, s->alpha + lo,
                 s->alpha_sum + lo);
  if (!p->scan) return;
  if (s->bias) scan_classes_into_block(s, p->y, block, lo, hi, p->low, p->high);
  else scan_into_block(s, block, lo, hi, p->low[0], p->high[0]);
}

/* The blocks' scans joined in block order (so the sums do not depend on
 * the threads); the window entries stay in the blocks' slices. */
static void gather_scan(SbpState *s, int64_t n)
{
  const int64_t num_blocks = ss_kernel_row_num_blocks(n);
  int64_t m = 0, below = 0;
  double sum = 0, lowest = INFINITY;
  for (int64_t b = 0; b < num_blocks; ++b) {
    m += s->block_length[block_entry(b, 0)];
    below += s->block_below[block_entry(b, 0)];
    sum += s->block_sum[block_entry(b, 0)];
    lowest = s->block_min[block_entry(b, 0)] < lowest ? s->block_min[block_entry(b, 0)] : lowest;
  }
  s->window_length = m;
  s->num_below = below;
  s->sum_below = sum;
  s->min_above = lowest;
  s->scanned = true;
}

/* A window scan of c as it stands, blocks [begin, end) of it (rescan),
 * the row pass's (update_block) without the update. */
typedef struct SbpRescan {
  SbpState *s;
  const double *y;
  int64_t n;
  double low[2], high[2];
} SbpRescan;

static void rescan_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* every block writes its own entries */
  const SbpRescan *r = context;
  for (int64_t b = begin; b < end; ++b) {
    const int64_t lo = b * SS_KERNEL_ROW_BLOCK;
    const int64_t hi = lo + SS_KERNEL_ROW_BLOCK < r->n ? lo + SS_KERNEL_ROW_BLOCK : r->n;
    if (r->s->bias) scan_classes_into_block(r->s, r->y, b, lo, hi, r->low, r->high);
    else scan_into_block(r->s, b, lo, hi, r->low[0], r->high[0]);
  }
}

static void rescan(SsKernelSvm *self, SbpRescan *job)
{
  const int64_t n = self->num_data;
  job->s = self->state;
  job->y = self->labels;
  job->n = n;
  ss_parallel_for(ss_threads_pool(self->threads, n), ss_kernel_row_num_blocks(n), rescan_chunks,
                  job);
}

/* No bias, when the level fell outside the window (level_windowed false
 * after a scan): the window twice as wide around the last level, c scanned
 * again (blocks on the object's threads, as in the row pass, and joined in
 * block order) and the level sought in it, at most SS_SBP_RESCANS times.
 * A scan is a pass over n, split among the threads; the filling of the
 * whole basin (levels) that it spares is several serial ones (on a9a, 1 in
 * 8 iterations fell outside and took 10% of the SBP's instructions).
 * Returns whether a level was found; the band stays widened either way.
 * Which path finds the level changes its rounding only (the lower set is
 * summed by blocks), not the responses below it: test_sbp_rescan.c. */
enum { SS_SBP_RESCANS = 3 };

static bool level_rescanned(SsKernelSvm *self, SbpState *s, double *gamma, int64_t *strict)
{
  const int64_t n = self->num_data;
  for (int k = 0; k < SS_SBP_RESCANS; ++k) {
    const double wider = 2 * s->band;
    s->band = wider > 0 && isfinite(wider) ? wider : s->eta0;
    SbpRescan job = {.low = {s->last_u - s->band}, .high = {s->last_u + s->band}};
    rescan(self, &job);
    gather_scan(s, n);
    if (level_windowed(self, s, gamma, strict)) return true;
  }
  return false;
}

/* Bias: the levels from a scan of c as it stands around the floors (when
 * the row pass left none, or the levels fell outside its windows: then
 * twice as wide, from eta0 if they shrank to 0 or overflowed), the blocks
 * on the object's threads as in the row pass; at most SS_SBP_RESCANS
 * times, twice as wide each time, as without the bias. A scan is a pass
 * over n split among the threads; the filling of the whole basin that it
 * spares is serial (on ijcnn1, 3000 rows: 173 fillings after one scan, 9
 * after three, the same duals; bench/results/kernel_speed.md, stop 42). */
static bool levels_rescanned(SsKernelSvm *self, SbpState *s, bool widen, SsSbpLevels *out,
                             int64_t strict[2])
{
  if (s->floor_index[0] < 0 || s->floor_index[1] < 0 || self->sbp_full_levels) return false;
  for (int k = 0; k < SS_SBP_RESCANS; ++k) {
    if (widen || k > 0) {
      const double wider = 2 * s->half_width;
      s->half_width = wider > 0 && isfinite(wider) ? wider : s->eta0;
    }
    const double centre[2] = {s->c[s->floor_index[0]], s->c[s->floor_index[1]]};
    SbpRescan job = {.low = {centre[0] - s->half_width, centre[1] - s->half_width},
                     .high = {centre[0] + s->half_width, centre[1] + s->half_width}};
    rescan(self, &job);
    s->scanned = true;
    if (levels_windowed(self, s, out, strict)) return true;
  }
  return false;
}

/* After level_windowed (class cl = 0, cls = 0) or levels_windowed (cl = 0
 * for the positives, cls = 1; cl = 1 for the negatives, cls = -1): the r-th
 * (from 0, in index order) example of class cls (0: all) with c_j < level,
 * as sample_covered picks it, from the window scan instead of a pass over
 * c. A block's count is its responses below the window plus its window
 * entries below the level (block_covered; those above the window are at
 * or above the level), so only the block that holds the r-th is read. */
static int64_t nth_covered_by_blocks(const SbpState *s, const double *y, int64_t n, int cl,
                                     double cls, double level, int64_t r)
{
  const int64_t num_blocks = ss_kernel_row_num_blocks(n);
  for (int64_t b = 0; b < num_blocks; ++b) {
    const int64_t count = s->block_below[block_entry(b, cl)] + s->block_covered[block_entry(b, cl)];
    if (count <= r) {
      r -= count;
      continue;
    }
    const int64_t lo = b * SS_KERNEL_ROW_BLOCK;
    const int64_t hi = lo + SS_KERNEL_ROW_BLOCK < n ? lo + SS_KERNEL_ROW_BLOCK : n;
    /* eight responses a step, counted without a branch, to the step that
     * holds the r-th; then one by one */
    int64_t j = lo;
    for (; j + 8 <= hi; j += 8) {
      int64_t step = 0;
      for (int k = 0; k < 8; ++k) step += (cls == 0 || y[j + k] == cls) & (s->c[j + k] < level);
      if (step > r) break;
      r -= step;
    }
    for (; j < hi; ++j) {
      if ((cls == 0 || y[j] == cls) && s->c[j] < level) {
        if (r == 0) return j;
        --r;
      }
    }
    break;
  }
  return -1; /* not reached: the counts are those of c */
}

/* Bias: remember the examples at the floors a_k and d_k of the levels
 * (the first of each class in index order). After levels_windowed each
 * floor is one of its class's window entries: only the block whose window
 * holds it is searched; after the filling of the whole basin, c is. */
static int64_t floor_example(const SbpState *s, const double *y, int64_t n, int cl, double floor,
                             bool windowed)
{
  const double cls = cl ? -1.0 : 1.0;
  const int64_t num_blocks = ss_kernel_row_num_blocks(n);
  for (int64_t b = 0; b < num_blocks; ++b) {
    const int64_t lo = b * SS_KERNEL_ROW_BLOCK;
    const int64_t hi = lo + SS_KERNEL_ROW_BLOCK < n ? lo + SS_KERNEL_ROW_BLOCK : n;
    if (windowed) {
      const int64_t m = s->block_length[block_entry(b, cl)];
      const double *window = (cl ? s->window_neg : s->window) + lo;
      bool holds = false;
      for (int64_t k = 0; k < m; ++k) holds |= window[k] == floor;
      if (!holds) continue;
    }
    for (int64_t j = lo; j < hi; ++j) {
      if ((y[j] > 0) == (cls > 0) && s->c[j] == floor) return j;
    }
  }
  return -1;
}

static void remember_floors(SbpState *s, const double *y, int64_t n, const SsSbpLevels *lv,
                            bool windowed)
{
  s->floor_index[0] = floor_example(s, y, n, 0, lv->floor_u, windowed);
  s->floor_index[1] = floor_example(s, y, n, 1, lv->floor_v, windowed);
}

/* Bias: the row pass's windows, around the floor examples' responses after
 * this step, c_f' = (c_f + step y_f K(x_i, x_f)) / r as update_block makes
 * them (two kernel values here; should their last bit differ from the
 * row's, only the windows move, which levels_windowed checks). */
static void floor_windows(SsKernelSvm *self, SbpState *s, int64_t i, SbpPass *pass)
{
  double k[2];
  ss_kernel_row_from_scattered(&self->kernel, &self->data, self->norms2, s->floor_index, 2,
                               self->zd, self->norms2[i], k);
  for (int cl = 0; cl < 2; ++cl) {
    const int64_t f = s->floor_index[cl];
    double centre = s->c[f] + pass->step * pass->y[f] * k[cl];
    if (pass->project) centre *= pass->inv_r;
    pass->low[cl] = centre - s->half_width;
    pass->high[cl] = centre + s->half_width;
  }
}

/* The entry of example j in alpha and alpha_sum (SbpState), made when j is
 * first drawn. */
static int64_t support_entry(SbpState *s, int64_t j)
{
  const int64_t b = j / SS_KERNEL_ROW_BLOCK, first = b * SS_KERNEL_ROW_BLOCK;
  if (s->support_slot[j] < 0) {
    const int64_t k = s->support_count[b]++;
    s->support_slot[j] = (int16_t)k;
  }
  return first + s->support_slot[j];
}

/* alpha_sum of example j (0: never drawn). */
static double alpha_sum_of(const SbpState *s, int64_t j)
{
  const int64_t k = s->support_slot[j];
  return k < 0 ? 0.0 : s->alpha_sum[j - j % SS_KERNEL_ROW_BLOCK + k];
}

static SsStatus sbp_steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  SbpState *s = self->state;
  const int64_t n = self->num_data;
  const double *y = self->labels;
  double *alpha = s->alpha, *c = s->c;
  for (; t < t_end; ++t) {
    const double eta = s->eta0 / sqrt((double)(t + 1));
    SsSbpLevels lv;
    int64_t strict[2] = {0, 0};
    bool windowed = false;
    if (s->bias) {
      /* the windows of the row pass; outside them (or without a scan),
       * scan again around the floors; failing that, fill the basin */
      const bool scanned = s->scanned;
      windowed = levels_windowed(self, s, &lv, strict);
      self->sbp_pass_levels += windowed;
      if (!windowed) windowed = levels_rescanned(self, s, scanned, &lv, strict);
      if (!windowed) levels(self, s, c, &lv);
      self->sbp_filled_levels += !windowed;
      remember_floors(s, y, n, &lv, windowed);
    } else {
      const bool scanned = s->scanned && !isnan(s->last_u); /* a window to widen, around a level */
      windowed = level_windowed(self, s, &lv.u, &strict[0]);
      self->sbp_pass_levels += windowed;
      /* outside the window: widen it (from eta0 if it shrank to 0 or
       * overflowed) and scan again; failing that, fill the whole basin */
      if (!windowed && scanned && !self->sbp_full_levels)
        windowed = level_rescanned(self, s, &lv.u, &strict[0]);
      if (!windowed) levels(self, s, c, &lv);
      self->sbp_filled_levels += !windowed;
      lv.v = lv.u;
      s->last_u = lv.u;
    }
    SsRng rng;
    ss_rng_seed(&rng, self->seed, (uint64_t)t);
    const double cls = !s->bias ? 0.0 : ((ss_rng_next(&rng) >> 63) ? 1.0 : -1.0);
    const double level = cls < 0 ? lv.v : lv.u;
    const int64_t covered = windowed ? strict[cls < 0] : 0;
    int64_t i;
    if (covered == 0) {
      i = sample_covered(c, y, n, cls, level, &rng);
    } else {
      const int64_t r = (int64_t)ss_rng_below(&rng, (uint64_t)covered);
      i = nth_covered_by_blocks(s, y, n, cls < 0, cls, level, r);
    }
    /* No candidate (n = 0 cannot reach here; kept for safety): indexing
     * alpha[-1] would read out of bounds. */
    if (i < 0) {
      self->iteration = t;
      return SS_ERR_NUMERIC;
    }

    alpha[support_entry(s, i)] += eta;
    s->r2 += 2.0 * eta * c[i] + eta * eta * self->diagonal[i];
    /* The row K(x_i, .), the response update, the projection, the sums and
     * the next level's window scan in one pass over fixed blocks (update_block). */
    const bool project = s->r2 > 1.0;
    const double inv_r = project ? 1.0 / sqrt(s->r2) : 1.0;
    if (project) {
      s->r2 = 1.0;
      s->last_u *= inv_r;
    }
    SbpPass pass = {.s = s, .y = y, .step = eta * y[i], .inv_r = inv_r, .project = project};
    ss_data_scatter_row(&self->data, i, self->zd);
    if (!s->bias) {
      pass.scan = true;
      pass.low[0] = s->last_u - s->band;
      pass.high[0] = s->last_u + s->band;
    } else {
      pass.scan = s->floor_index[0] >= 0 && s->floor_index[1] >= 0 && !self->sbp_full_levels;
      if (pass.scan) floor_windows(self, s, i, &pass);
    }
    ss_kernel_training_row_blocks(&self->kernel, &self->data, self->row_flags, &s->rows,
                                  self->norms2, i, self->zd, self->norms2[i], self->threads,
                                  update_block, &pass);
    ss_data_clear_row(&self->data, i, self->zd);
    if (pass.scan && !s->bias) gather_scan(s, n);
    s->scanned = pass.scan;
    self->num_kernel_evaluations += n;
    if (!isfinite(s->r2)) {
      self->iteration = t + 1;
      return SS_ERR_NUMERIC;
    }
  }
  self->iteration = t_end;
  return SS_OK;
}

static SsStatus sbp_evaluate(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores)
{
  SbpState *s = self->state;
  const int64_t n = self->num_data;
  const double *y = self->labels;
  if (!s || self->iteration <= s->average_from) return SS_OK; /* nothing averaged yet: the model stands */
  const double T = (double)(self->iteration - s->average_from);
  /* c_bar into scores (scratch), then the levels of the averaged iterate. */
  for (int64_t j = 0; j < n; ++j) scores[j] = s->c_sum[j] / T;
  SsSbpLevels lv;
  levels(self, s, scores, &lv);
  const double gamma = 0.5 * (lv.u + lv.v), b = 0.5 * (lv.v - lv.u);
  const double scale = gamma > 0 ? 1.0 / gamma : 1.0;

  int64_t m = 0;
  double w2 = 0;
  for (int64_t j = 0; j < n; ++j) {
    double a = alpha_sum_of(s, j) / T;
    self->dual[j] = a * scale;
    w2 += a * scores[j];
    if (a != 0) ++m;
  }
  int64_t *rows = malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
  double *coef = malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
  if (!rows || !coef) {
    free(rows);
    free(coef);
    return SS_ERR_ALLOC;
  }
  m = 0;
  for (int64_t j = 0; j < n; ++j) {
    /* the predicate that counted m above: alpha_sum[j] / T can underflow to
     * 0 where alpha_sum[j] is not (fuzz_kernel_train: a write past rows) */
    if (alpha_sum_of(s, j) / T != 0) {
      rows[m] = j;
      coef[m] = self->dual[j] * y[j];
      ++m;
    }
  }
  SsStatus status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &self->data, rows,
                                                  coef, m, s->bias ? b * scale : 0.0);
  free(rows);
  free(coef);
  if (status != SS_OK) return status;
  /* f(x_j) without bias = y_j c_bar_j / gamma; ||w||^2 = sum alpha_bar c_bar / gamma^2. */
  for (int64_t j = 0; j < n; ++j) scores[j] = y[j] * scores[j] * scale;
  *norm2 = w2 * scale * scale;
  if (s->nu_lambda > 0) {
    /* the margins y_j (f(x_j) + bias), for the refinement of a derived nu */
    const double bias = s->bias ? b * scale : 0.0;
    for (int64_t j = 0; j < n; ++j) s->work[j] = y[j] * (scores[j] + bias);
    s->nu_scaled = ss_sbp_scaled_nu(s->work, n, self->lambda, *norm2);
  }
  *have_scores = true;
  self->statistics.margin = gamma;
  self->statistics.objective = gamma;
  return SS_OK;
}

const SsKernelSolverOps ss_sbp_ops = {
  .uses_permutation = false,
  .criterion = SS_RUN_OBJECTIVE_WINDOW,
  .may_diverge = false,
  .certified = true,
  /* A diagnostic costs O(n log n) (the averages are at hand; the scaled nu
   * sorts), a step n kernel evaluations: diagnosing on the geometric
   * schedule in units of n / 32 steps costs a few steps each, and lets a
   * run stop within a fraction of an epoch on large n (a9a: an epoch is
   * 1e9 kernel evaluations). */
  .schedule_divisor = 32,
  .start = sbp_start,
  .steps = sbp_steps,
  .evaluate = sbp_evaluate,
  .free_state = sbp_free_state,
};
