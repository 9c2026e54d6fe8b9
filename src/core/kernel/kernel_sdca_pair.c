/* kernel_sdca_pair.c -- exact kernel SDCA with an unregularized bias: the
 * pairwise mode of kernel SDCA, which solves LIBSVM's own dual (docs/kernel.rst,
 * "Exact kernel SDCA with a bias").
 *
 * With C = 1/(lambda n), per-example boxes C_i = c_i C (weights c_i >= 0,
 * default 1) and Q_ij = y_i y_j K(x_i, x_j):
 *
 *     min_a  F(a) = 1/2 a^T Q a - e^T a,   0 <= a_i <= C_i,   y^T a = 0,
 *
 * whose optimum is -1/lambda times the object's dual D(alpha) (alpha = a).
 * The gradient g = Q a - e is kept for the active examples, as
 * v_t = -y_t g_t (labels +-1: the sign flip is exact, so v carries g's bits). With
 * the index sets
 *
 *     I_up  = {t : y_t = +1, a_t < C_t} u {t : y_t = -1, a_t > 0}
 *     I_low = {t : y_t = +1, a_t > 0}   u {t : y_t = -1, a_t < C_t},
 *
 * a is optimal iff m(a) = max_{I_up} v <= M(a) = min_{I_low} v, and then
 * every b in [m, M] is a KKT bias (b = v_t for every free t). A step moves a
 * pair (i, j), i in I_up and j in I_low with v_i > v_j, along
 * d = y_i e_i - y_j e_j, which keeps y^T a = 0:
 *
 *     F(a + s d) = F(a) - s (v_i - v_j) + s^2/2 eta_ij,
 *     eta_ij = K_ii + K_jj - 2 K_ij,
 *
 * minimised at s = (v_i - v_j) / eta_ij (eta_ij <= 0: s as large as the
 * boxes allow, F being linear or concave along d), clipped to
 * [0, min(room_i, room_j)], room_i = C_i - a_i (y_i = +1) or a_i
 * (y_i = -1), room_j = a_j (y_j = +1) or C_j - a_j. Then
 * g_k += y_k (y_i K_ik da_i + y_j K_jk da_j) for every active k: two kernel
 * rows per step, through the LRU row cache (kernel_cache.c); in v,
 * v_k -= ci K_ik + cj K_jk with ci = y_i da_i, cj = y_j da_j.
 *
 * Working set, second order (Fan, Chen, Lin 2005, section 3): i is the
 * maximiser of v over I_up (the first-order choice), and j the t in I_low
 * with v_t < v_i whose step alone would lower F most, i.e. the minimiser of
 * -(v_i - v_t)^2 / eta_it (eta_it <= 0 counts as a tiny positive number):
 * one extra pass over row i, which the step needs anyway. The pass that
 * updates v also finds the next step's i (the same first maximum, in the
 * same order), and each example's membership of I_up and I_low is kept
 * as two bits (side), changed only where a step moves a.
 *
 * Shrinking: an example at a bound that can only move one way leaves the
 * active set when the other side of the KKT conditions holds for it with room
 * to spare -- in I_up only (so a candidate for i alone) with v_t < M, or in
 * I_low only with v_t > m (an example with C_t = 0 is in neither and
 * leaves at once). Checked every min(n, 1000) steps. The first time
 * m - M <= 10 tol the gradient is reconstructed and everybody returns; and
 * before the solver declares optimality on a shrunk set it reconstructs the
 * gradient of the inactive examples and checks m - M <= tol on all n. The
 * reconstruction splits the sum over the support vectors (Q a)_k into the
 * examples at their upper bound, gbar_k = sum_{a_j = C_j} C_j Q_kj, kept for
 * all n (a full kernel row each time an example reaches or leaves its upper
 * bound), and the free ones, which are never shrunk:
 *
 *     g_k = gbar_k + sum_{0 < a_j < C_j} a_j Q_kj - 1,
 *
 * so it costs (free support vectors) x (inactive examples) kernel values
 * rather than (support vectors) x (inactive examples).
 *
 * Stopping: the solver's own test is the maximal violating pair,
 * m - M <= tol, with tol = the object's epsilon. Once it holds, the
 * remaining iterations of the run are empty; the run driver then judges the
 * relative duality gap P - D <= epsilon D at its diagnostic (P with the KKT
 * bias b = mean of v over the free examples, else (m + M) / 2). If the gap
 * test fails, tol is divided by 10 and the steps resume; a further train
 * call keeps the tightened tol while epsilon stays (so that a run made of
 * short calls reaches the gap as one call does). One iteration is one
 * pair step.
 *
 * The bias-free mode (ss_kernel_sdca_bias_free_pairs: the kernel SDCA finish
 * of the bias-free solvers, kernel_finish.c) solves the same F without
 * y^T a = 0, whose KKT conditions are the ones above with the bias fixed at
 * 0, m <= 0 <= M. A step (bias_free_step) takes the example t whose own
 * exact step lowers F most, then the partner j whose joint step with t
 * would lower F most (choose_partner), and moves both to the exact minimum
 * of F over their box (two_step), with the same cache, gbar and shrinking
 * (with 0 for m and M); when max(m, -M) <= tol on all n, the relative gap,
 * which v gives exactly without a bias, decides at once, and tol tightens
 * until it holds. The model's bias is 0.
 * Why two coordinates (working sets for this problem without the offset are
 * studied by Steinwart, Hush and Scovel, "Training SVMs without offset",
 * JMLR 2011; the reasoning here is ours): a wide Gaussian kernel is nearly
 * constant (a9a at gamma 2^-7: K around 0.8), so Q has one large
 * eigenvalue, about 0.8 n, along beta = y a in the direction of the ones.
 * A single step moves the sum of beta and shifts every v by about
 * 0.8 times its change; the next steps undo part of it, and the solve
 * crawls. The bias form's pair steps keep that sum and never meet the
 * stiff direction. A joint step of two examples can move along
 * u_t = -u_j as the pair steps do, and the partner's score favours it
 * where the sum needs to stay: with K_tj = 0.8, opposite v's score 9 times
 * equal ones. Measured on 8,000 rows of a9a at C = 32: 3 epochs of steps,
 * 0.57 s, where single steps took 141 epochs, 3.34 s; on all of a9a,
 * 5.7 s and 0.66 n^2 kernel evaluations at C = 32, where single steps took
 * 90 s and 4.6 n^2 (3.6 s once the choices of t and j ran in vectors and
 * t's on the update pass; the bias form takes 2.3 s). Each step reads two
 * kernel rows (one when no partner qualifies: t's step alone).
 *
 * Warm start (ss_kernel_sdca_pair_start_from: the kernel SDCA finish of a
 * further train call, kernel_finish.c). The solver may start from the
 * state (a, v, gbar) a solve of the same problem ended with, instead of
 * a = 0: v and gbar are then exact without a kernel evaluation, and an
 * optimal a needs one row (the first step's i) to be found optimal again.
 * After a change of lambda alone, C becomes r C (r = C / C_old) and so
 * does every box; the start is r a, still feasible (y^T r a = r y^T a = 0,
 * 0 <= r a_i <= r C_old,i = C_i), whose state follows without a kernel
 * row: Q (r a) - e = r (Q a - e) + (r - 1) e, so
 *
 *     v' = r v + (1 - r) y,   gbar' = r gbar,
 *
 * the examples at their upper bound staying there (set to C_i exactly,
 * and every other r a_i kept below it, so that gbar keeps its meaning).
 */
#include "../common/atomics.h"
#include "../common/vexp.h"
#include "kernel_cache.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The floor of eta in the working-set score (duplicate points). */
#define PAIR_TAU 1e-12
/* Steps between shrinking checks: min(n, PAIR_SHRINK_PERIOD). */
#define PAIR_SHRINK_PERIOD 1000

/* The bits of PairState.side. */
enum { PAIR_UP = 1, PAIR_LOW = 2 };

/* The pair passes on the object's threads (pair_pass): chunks of
 * PAIR_CHUNK visits, a multiple of PAIR_VEC, each chunk's best written
 * once into an entry of a cache line's size. */
enum { PAIR_CHUNK = 2048 };
typedef struct PairBest {
  double key;  /**< the chunk's best score (choose_j) or v (update_v) */
  double M;    /**< choose_j: min v over the chunk's I_low */
  int64_t pos; /**< its example (-1: none) */
  char pad[64 - 2 * sizeof(double) - sizeof(int64_t)];
} PairBest;

typedef struct PairState {
  SsKernelCache cache;
  double *v;               /**< [n] -y_t g_t, g the gradient of F; exact on the active set
                                (while it is shrunk: in vp, see pack) */
  double *vp;              /**< [n] a shrunk active list's v, packed in its order (pack) */
  unsigned char *sp;       /**< [n] its side, packed */
  double *kdp;             /**< [n] its K_tt, packed */
  unsigned char *side;     /**< [n] PAIR_UP: t in I_up; PAIR_LOW: t in I_low */
  double *gbar;            /**< [n] sum over a_j = C_j of C_j Q_kj, exact for all n */
  double *box;             /**< [n] C_i = c_i C */
  int64_t *active;         /**< [n] the active examples first (increasing), then the others */
  int64_t num_active;
  unsigned char *inactive; /**< [n] 1: shrunk */
  int64_t *sv;             /**< [n] scratch: the examples with a > 0 */
  double *sv_coef;         /**< [n] scratch: their a_j y_j; refresh_inactive's sums */
  int64_t until_shrink;    /**< steps left before the next shrinking check */
  bool unshrunk_once;      /**< the reconstruction at m - M <= 10 tol was done */
  bool optimal;            /**< m - M <= tol on all n */
  bool measured;           /**< a diagnostic has seen the optimal state */
  bool inactive_fresh;     /**< the inactive examples' gradient is exact (no step since) */
  bool have_choice;        /**< choice is i for the active set as it stands */
  int64_t choice;          /**< the maximiser of v over I_up (-1: none) */
  int64_t choice_visit;    /**< its visit in the passes (PairView) */
  double choice_v;         /**< its v (-inf: none) */
  bool have_t;             /**< bias-free: t_best is the choice for the active set as it stands */
  PairBest t_best;         /**< bias-free: the best own step (choose_t: pos its visit, -1 none;
                                key its gain; M the largest violation) */
  double tol;              /**< the violation the steps stop at (the opening comment) */
  double tol_epsilon;      /**< the object's epsilon that tol was tightened from */
  bool bias_free;          /**< b fixed at 0 (the bias-free mode: bias_free_step) */
  int64_t chunk;           /**< visits a chunk of the passes (PAIR_CHUNK; tests: pair_chunk) */
  PairBest *chunk_best;    /**< [ceil(n / chunk)] the chunks' bests (pair_pass) */
} PairState;

static bool in_up(double y, double a, double C) { return y > 0 ? a < C : a > 0; }
static bool in_low(double y, double a, double C) { return y > 0 ? a > 0 : a < C; }
static unsigned char side_of(double y, double a, double C)
{
  return (unsigned char)((in_up(y, a, C) ? PAIR_UP : 0) | (in_low(y, a, C) ? PAIR_LOW : 0));
}

/* Packing: while the active list is shrunk, the passes read its examples'
 * v, side and K_tt packed in the list's order (vp, sp, kdp: PairView), so
 * they stream them rather than gather them; vp is then their v, and st->v's
 * entries for them are stale until unpack. pack follows every change of
 * the list (a shrinking check); unpack comes before anything reads v by
 * example (a shrinking check, the gradient's reconstruction, a diagnostic,
 * the state kept for a warm start): O(active) each, against O(active) per
 * step for the passes. */
static void pack(const SsKernelSvm *self, PairState *st)
{
  for (int64_t k = 0; k < st->num_active; ++k) {
    const int64_t t = st->active[k];
    st->vp[k] = st->v[t];
    st->sp[k] = st->side[t];
    st->kdp[k] = self->diagonal[t];
  }
}

static void unpack(const SsKernelSvm *self, PairState *st)
{
  if (st->num_active == self->num_data) return;
  for (int64_t k = 0; k < st->num_active; ++k) st->v[st->active[k]] = st->vp[k];
}

static void free_state(SsKernelSvm *self)
{
  PairState *st = self->state;
  if (st) {
    ss_kernel_cache_free(&st->cache);
    free(st->v);
    free(st->vp);
    free(st->sp);
    free(st->kdp);
    free(st->side);
    free(st->gbar);
    free(st->box);
    free(st->active);
    free(st->inactive);
    free(st->sv);
    free(st->sv_coef);
    free(st->chunk_best);
    free(st);
  }
  self->state = NULL;
}

static int64_t shrink_period(const SsKernelSvm *self)
{
  return self->num_data < PAIR_SHRINK_PERIOD ? self->num_data : PAIR_SHRINK_PERIOD;
}

/* The cache takes its rows from the object's shared store, if any, while
 * the store's rows are this object's (the precision may have changed). */
static void use_shared_rows(const SsKernelSvm *self, PairState *st)
{
  SsKernelRowStore *store = self->row_store;
  ss_kernel_cache_use_store(&st->cache,
                            store && ss_kernel_row_store_fits(store, self) ? store : NULL);
}

/* The state (a, v, gbar) of @p from, scaled to this box (the head of the
 * file, "Warm start"): at r = 1 the same bits. */
static void warm_start(SsKernelSvm *self, PairState *st, const SsKernelDualState *from)
{
  const double r = ss_kernel_svm_box(self) / from->box;
  for (int64_t k = 0; k < self->num_data; ++k) {
    const double a = from->alpha[k], C = st->box[k], y = self->labels[k];
    double a_new = a;
    if (r != 1 && a == from->box * ss_kernel_svm_weight(self, k)) {
      a_new = C; /* at its upper bound (counted in gbar), as a was */
    } else if (r != 1) {
      a_new = r * a;
      if (a_new >= C) a_new = nextafter(C, 0.0); /* below the box, as a was */
    }
    self->dual[k] = a_new;
    st->v[k] = r != 1 ? r * from->v[k] + (1 - r) * y : from->v[k];
    st->gbar[k] = r != 1 ? r * from->gbar[k] : from->gbar[k];
    st->side[k] = side_of(y, a_new, C);
  }
}

static SsStatus start(SsKernelSvm *self)
{
  const int64_t n = self->num_data;
  PairState *st = self->state;
  if (st) {
    /* A further train call. While the object's epsilon is the one tol was
     * tightened from, tol stays; if the last call ended where steps
     * tightens it (optimal at tol, the driver's gap test at its last
     * diagnostic failed: the status is not "converged"), the flags stay
     * too and the first steps call tightens it. Otherwise optimality is
     * re-established at tol (a new epsilon: at epsilon). Reset to epsilon
     * every call, each one stopped where the last one had, optimal at
     * epsilon with the gap test failed: a run made of calls too short to
     * pass a tightening never reached the gap (test_kernel_exact.py, short
     * calls). */
    const bool same_epsilon = self->epsilon == st->tol_epsilon;
    const bool gap_failed = same_epsilon && st->optimal && st->measured &&
                            self->statistics.status != SS_SVM_STATUS_CONVERGED;
    st->optimal = st->measured = gap_failed;
    if (!same_epsilon) st->tol = st->tol_epsilon = self->epsilon;
    ss_kernel_cache_start_train(&st->cache);
    return SS_OK;
  }
  st = calloc(1, sizeof(PairState));
  if (!st) return SS_ERR_ALLOC;
  self->state = st;
  st->v = malloc((size_t)n * sizeof(double));
  st->vp = malloc((size_t)n * sizeof(double));
  st->sp = malloc((size_t)n);
  st->kdp = malloc((size_t)n * sizeof(double));
  st->side = malloc((size_t)n);
  st->gbar = calloc((size_t)n, sizeof(double));
  st->box = malloc((size_t)n * sizeof(double));
  st->active = malloc((size_t)n * sizeof(int64_t));
  st->inactive = calloc((size_t)n, 1);
  st->sv = malloc((size_t)n * sizeof(int64_t));
  st->sv_coef = malloc((size_t)n * sizeof(double));
  st->chunk = self->pair_chunk > 0 ? self->pair_chunk : PAIR_CHUNK; /* fixed with its room */
  st->chunk_best = malloc((size_t)((n + st->chunk - 1) / st->chunk) * sizeof(PairBest));
  if (!self->dual) self->dual = malloc((size_t)n * sizeof(double));
  const bool allocated = st->v && st->vp && st->sp && st->kdp && st->side && st->gbar && st->box &&
                         st->active && st->inactive && st->sv && st->sv_coef && st->chunk_best &&
                         self->dual;
  SsStatus status = allocated
                        ? ss_kernel_cache_init(&st->cache, n, ss_kernel_svm_get_cache_size(self),
                                               self->row_flags & SS_ROWS_FLOAT32)
                        : SS_ERR_ALLOC;
  if (status != SS_OK) {
    free_state(self);
    return status;
  }
  use_shared_rows(self, st);
  for (int64_t k = 0; k < n; ++k) {
    self->dual[k] = 0;
    st->v[k] = self->labels[k]; /* g = -e */
    st->box[k] = ss_kernel_svm_box(self) * ss_kernel_svm_weight(self, k);
    st->side[k] = side_of(self->labels[k], 0.0, st->box[k]);
    st->active[k] = k;
  }
  st->num_active = n;
  status = ss_kernel_cache_set_active(&st->cache, st->active, n);
  if (status != SS_OK) {
    free_state(self);
    return status;
  }
  st->until_shrink = shrink_period(self);
  st->tol = st->tol_epsilon = self->epsilon;
  st->bias_free = self->sdca_bias_free;
  if (self->start_state) warm_start(self, st, self->start_state);
  self->start_state = NULL;
  self->iteration = 0;
  return SS_OK;
}

SsStatus ss_kernel_sdca_pair_start_from(SsKernelSvm *self, const SsKernelDualState *from)
{
  if (self->ops != &ss_kernel_sdca_pair_ops || self->state || !from || !from->alpha ||
      from->bias_free != self->sdca_bias_free || !(from->box > 0))
    return SS_ERR_BAD_STATE;
  self->start_state = from;
  return SS_OK;
}

bool ss_kernel_sdca_pair_keep(SsKernelSvm *self, SsKernelDualState *kept)
{
  PairState *st = self->ops == &ss_kernel_sdca_pair_ops ? self->state : NULL;
  if (!st || !self->dual || !(st->num_active == self->num_data || st->inactive_fresh)) return false;
  unpack(self, st);
  double *alpha = kept->alpha, *v = kept->v, *gbar = kept->gbar;
  kept->alpha = self->dual;
  kept->v = st->v;
  kept->gbar = st->gbar;
  kept->box = ss_kernel_svm_box(self);
  kept->bias_free = st->bias_free;
  self->dual = alpha;
  st->v = v;
  st->gbar = gbar;
  return true;
}

/* m = max_{I_up} v and M = min_{I_low} v over the active set (-inf, +inf
 * when empty; v unpacked). */
static void violation_bounds(const SsKernelSvm *self, const PairState *st, double *m, double *M)
{
  double hi = -INFINITY, lo = INFINITY;
  for (int64_t k = 0; k < st->num_active; ++k) {
    const int64_t t = st->active[k];
    const double v = st->v[t];
    if ((st->side[t] & PAIR_UP) && v > hi) hi = v;
    if ((st->side[t] & PAIR_LOW) && v < lo) lo = v;
  }
  *m = hi;
  *M = lo;
}

/* sum[r] += c K[rows[r]] for r < m. */
SS_VECTOR_CLONES static void add_gathered(double *restrict sum, double c, const double *restrict K,
                                          const int64_t *restrict rows, int64_t m)
{
  for (int64_t r = 0; r < m; ++r) sum[r] += c * K[rows[r]];
}

/* add_gathered over chunks of the rows (the passes' chunk, st->chunk
 * entries), on the object's threads: each entry's sum is its own (the same
 * additions in the same order). */
typedef struct GatherJob {
  double *sum;
  double c;
  const double *K;
  const int64_t *rows;
  int64_t m, chunk;
} GatherJob;

static void gather_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot;
  const GatherJob *g = context;
  const int64_t lo = begin * g->chunk, hi = end * g->chunk < g->m ? end * g->chunk : g->m;
  add_gathered(g->sum + lo, g->c, g->K, g->rows + lo, hi - lo);
}

static void add_gathered_threads(const SsKernelSvm *self, const PairState *st, double *sum, double c,
                                 const double *K, const int64_t *rows, int64_t m)
{
  GatherJob g = {sum, c, K, rows, m, st->chunk};
  ss_parallel_for(ss_threads_pool(self->threads, m), (m + g.chunk - 1) / g.chunk, gather_chunks, &g);
}

/* The gradient of the inactive examples afresh (they stay inactive):
 * g_k = gbar_k - 1 + y_k sum_{j free} a_j y_j K_jk, the free examples being
 * active, through their rows made complete (ss_kernel_cache_row_cover). */
static SsStatus refresh_inactive(SsKernelSvm *self, PairState *st)
{
  const int64_t n = self->num_data, na = st->num_active;
  if (na == n || st->inactive_fresh) return SS_OK;
  const int64_t *rest = st->active + na, nr = n - na;
  double *sum = st->sv_coef; /* [nr] the sums, in rest's order (consecutive: the adds vectorise) */
  for (int64_t r = 0; r < nr; ++r) sum[r] = 0;
  for (int64_t q = 0; q < na; ++q) {
    const int64_t j = st->active[q];
    const double a = self->dual[j];
    if (!(a > 0 && a < st->box[j])) continue;
    SsStatus status = SS_OK;
    const double *Kj = ss_kernel_cache_row_cover(&st->cache, self, j, st->active, na, rest, nr,
                                                 &status);
    if (!Kj) return status;
    add_gathered_threads(self, st, sum, a * self->labels[j], Kj, rest, nr);
  }
  for (int64_t r = 0; r < nr; ++r) {
    const int64_t k = rest[r];
    const double y = self->labels[k];
    st->v[k] = -y * (st->gbar[k] - 1.0 + y * sum[r]);
  }
  st->inactive_fresh = true;
  return SS_OK;
}

/* gbar[k] += c y[k] K[k] for k < n (in vectors: the same operations). */
SS_VECTOR_CLONES static void add_labelled(double *restrict gbar, double c, const double *restrict y,
                                          const double *restrict K, int64_t n)
{
  for (int64_t k = 0; k < n; ++k) gbar[k] += c * y[k] * K[k];
}

/* gbar after example t's a moved from @p before to @p after, given t's
 * complete row: C_t Q_kt joins (reaching the upper bound) or leaves it. */
static void follow_upper_bound(const SsKernelSvm *self, PairState *st, int64_t t, double before,
                               double after, const double *Kt)
{
  const double C = st->box[t];
  if ((before == C) == (after == C)) return;
  const double c = (after == C ? C : -C) * self->labels[t];
  add_labelled(st->gbar, c, self->labels, Kt, self->num_data);
}

/* gbar after the step moved a_i from ai to ai_new and a_j from aj to
 * aj_new (j -1: one example moved), through their complete rows (the
 * rows by position over the active list are then spread, kernel_cache.c). */
static SsStatus follow_rows(SsKernelSvm *self, PairState *st, int64_t i, double ai, double ai_new,
                            int64_t j, double aj, double aj_new)
{
  const int64_t na = st->num_active, *rest = st->active + na, nr = self->num_data - na;
  const int64_t t[2] = {i, j};
  const double before[2] = {ai, aj}, after[2] = {ai_new, aj_new};
  for (int e = 0; e < 2 && t[e] >= 0; ++e) {
    const double C = st->box[t[e]];
    if ((before[e] == C) == (after[e] == C)) continue;
    SsStatus status = SS_OK;
    const double *K = ss_kernel_cache_row_cover(&st->cache, self, t[e], st->active, na, rest, nr,
                                                &status);
    if (!K) return status;
    follow_upper_bound(self, st, t[e], before[e], after[e], K);
  }
  return SS_OK;
}

/* Bring every example back (their gradient refreshed); the cached rows that
 * are not complete become stale. */
static SsStatus unshrink(SsKernelSvm *self, PairState *st)
{
  const int64_t n = self->num_data;
  if (st->num_active == n) return SS_OK;
  unpack(self, st);
  SsStatus status = refresh_inactive(self, st);
  if (status != SS_OK) return status;
  for (int64_t k = 0; k < n; ++k) {
    st->active[k] = k;
    st->inactive[k] = 0;
  }
  st->num_active = n;
  st->have_choice = st->have_t = false;
  ss_kernel_cache_grow_active(&st->cache);
  return ss_kernel_cache_set_active(&st->cache, st->active, n);
}

/* The shrinking check (see the head of the file). */
static SsStatus shrink(SsKernelSvm *self, PairState *st)
{
  unpack(self, st);
  double m, M;
  violation_bounds(self, st, &m, &M);
  /* (bias-free: the KKT bias is 0, the violation max(m, -M)) */
  if (!st->unshrunk_once && (st->bias_free ? fmax(m, -M) : m - M) <= 10 * st->tol) {
    SsStatus status = unshrink(self, st);
    if (status != SS_OK) return status;
    st->unshrunk_once = true;
    violation_bounds(self, st, &m, &M);
  }
  if (st->bias_free) m = M = 0;
  int64_t kept = 0, left = 0;
  for (int64_t k = 0; k < st->num_active; ++k) {
    const int64_t t = st->active[k];
    const double v = st->v[t];
    const bool up = st->side[t] & PAIR_UP, low = st->side[t] & PAIR_LOW;
    const bool leaves = (up && !low && v < M) || (low && !up && v > m) || (!up && !low);
    if (leaves) {
      st->inactive[t] = 1;
      st->sv[left++] = t;
    } else {
      st->active[kept++] = t;
    }
  }
  /* The leavers join the inactive examples after the active ones. */
  memcpy(st->active + kept, st->sv, (size_t)left * sizeof(int64_t));
  st->num_active = kept;
  st->have_choice = st->have_t = false;
  if (left == 0) return SS_OK; /* the list as it was (packed if shrunk) */
  pack(self, st);
  return ss_kernel_cache_set_active(&st->cache, st->active, kept);
}

/* The arrays the passes read, one entry per visit: by example over all n,
 * or packed by position over a shrunk active list (PairState.vp, sp,
 * kdp: the passes then stream them instead of gathering them, the example
 * of visit k being act[k]). */
typedef struct PairView {
  double *v;
  const unsigned char *side;
  const double *K_diag;
  const int64_t *act; /**< the example of each visit; NULL: visit k is example k */
} PairView;

static PairView pair_view(const SsKernelSvm *self, PairState *st)
{
  if (st->num_active == self->num_data)
    return (PairView){.v = st->v, .side = st->side, .K_diag = self->diagonal, .act = NULL};
  return (PairView){.v = st->vp, .side = st->sp, .K_diag = st->kdp, .act = st->active};
}

bool ss_kernel_sdca_pair_view(const SsKernelSvm *self, const int64_t **active, int64_t *num_active,
                              const double **v, const unsigned char **side, const double **K_diag)
{
  PairState *st = self->ops == &ss_kernel_sdca_pair_ops ? self->state : NULL;
  if (!st) return false;
  const PairView w = pair_view(self, st);
  *active = w.act;
  *num_active = st->num_active;
  *v = w.v;
  *side = w.side;
  *K_diag = w.K_diag;
  return true;
}

/* The first-order choice of i: the first maximiser of v over I_up in the
 * active order (-1 and -inf when I_up is empty). */
static void choose_i(const SsKernelSvm *self, PairState *st)
{
  const PairView w = pair_view(self, st);
  int64_t i = -1;
  double vi = -INFINITY;
  for (int64_t k = 0; k < st->num_active; ++k) {
    if (w.v[k] > vi && (w.side[k] & PAIR_UP)) {
      vi = w.v[k];
      i = k;
    }
  }
  st->choice_visit = i;
  st->choice = i >= 0 && w.act ? w.act[i] : i;
  st->choice_v = vi;
  st->have_choice = true;
}

/* j: the second-order choice over I_low with v_t < v_i among the visits
 * [lo, hi) of @p w (-1: none; a visit, not an example), its score in
 * *best_out, and M = min_{I_low} v on the way in *M_out; K_ii is i's
 * diagonal entry. */
static int64_t choose_j(const PairView *w, double K_ii, const double *Ki, double vi, int64_t lo,
                        int64_t hi, double *M_out, double *best_out)
{
  const double *v = w->v, *K_diag = w->K_diag;
  const unsigned char *side = w->side;
  int64_t j = -1;
  double best = INFINITY, M = INFINITY;
  /* A candidate whose b^2 < (-best) (1 - 1e-12) eta (an upper bound below
   * every rounding, in normal numbers) cannot score below best: its division
   * is skipped. Most candidates are, so the choice, always the one the full
   * scan makes, costs a multiplication for them instead of a division. */
  double bound = -INFINITY; /* (-best) (1 - 1e-12): -inf while best is +inf */
  for (int64_t k = lo; k < hi; ++k) {
    if (!(side[k] & PAIR_LOW)) continue;
    if (v[k] < M) M = v[k];
    const double b = vi - v[k];
    if (b > 0) {
      double eta = K_ii + K_diag[k] - 2 * Ki[k];
      if (eta <= 0) eta = PAIR_TAU;
      const double b2 = b * b, cut = bound * eta;
      if (b2 < cut && cut >= DBL_MIN) continue;
      const double score = -b2 / eta;
      if (score < best) {
        best = score;
        bound = -best * (1 - 1e-12);
        j = k;
      }
    }
  }
  *M_out = M;
  *best_out = best;
  return j;
}

/* v_k -= y_k (g_k's change) = ci K_ik + cj K_jk over the visits [lo, hi)
 * of @p w, and the next step's i on the way (the first maximiser of v over
 * I_up, as choose_i) into *out (pos: its visit, -1 and key -inf: none). */
static void update_v(const PairView *w, const double *Ki, const double *Kj, double ci, double cj,
                     int64_t lo, int64_t hi, PairBest *out)
{
  double *v = w->v;
  const unsigned char *side = w->side;
  int64_t next = -1;
  double v_next = -INFINITY;
  for (int64_t k = lo; k < hi; ++k) {
    v[k] -= ci * Ki[k] + cj * Kj[k];
    if (v[k] > v_next && (side[k] & PAIR_UP)) {
      v_next = v[k];
      next = k;
    }
  }
  out->pos = next;
  out->key = v_next;
}

/* The bias-free mode's partner of i (two coordinates a step: the opening
 * comment). In the coordinates
 * u = the change of beta = y a (v = -y g, so F changes by
 * -v_i u_i - v_t u_t + 1/2 u^T H u, H = [[K_ii, K_it], [K_it, K_tt]]), a
 * joint step of i and t, unclipped, is u = H^-1 (v_i, v_t) and lowers F by
 * half of
 *
 *     (v_i (K_tt v_i - K_it v_t) + v_t (K_ii v_t - K_it v_i)) / det H.
 *
 * The partner is the t in the visits [lo, hi) of @p w, not i's, whose such
 * step lowers F most among those that move both examples in directions
 * their boxes allow (up: the side PAIR_UP, beta may grow; down: PAIR_LOW);
 * only pairs whose H is positive definite are candidates: det H >
 * PAIR_TAU K_ii K_tt makes H definite (not duplicate points), and a
 * positive gain positive definite (a kernel that is not positive
 * semi-definite, the sigmoid, may give H two negative eigenvalues, whose
 * H^-1 g is a maximum of F: its gain is negative). Returns its visit (-1:
 * none) and minus that doubled gain in *key_out (pair_pass keeps the
 * smallest key, ties to the earlier visit). */
static int64_t choose_partner(const PairView *w, double K_ii, const double *Ki, double vi,
                              int64_t i_visit, unsigned char side_i, int64_t lo, int64_t hi,
                              double *key_out)
{
  const double *v = w->v, *K_diag = w->K_diag;
  const unsigned char *side = w->side;
  int64_t j = -1;
  double best = 0;
  for (int64_t k = lo; k < hi; ++k) {
    if (k == i_visit || !side[k]) continue;
    const double K_tt = K_diag[k], K_it = Ki[k], vt = v[k];
    const double det = K_ii * K_tt - K_it * K_it;
    if (!(det > PAIR_TAU * K_ii * K_tt)) continue;
    const double ui = K_tt * vi - K_it * vt, ut = K_ii * vt - K_it * vi; /* det u */
    if (!(ui > 0 ? (side_i & PAIR_UP) : ui < 0 && (side_i & PAIR_LOW))) continue;
    if (!(ut > 0 ? (side[k] & PAIR_UP) : ut < 0 && (side[k] & PAIR_LOW))) continue;
    const double gain = (vi * ui + vt * ut) / det;
    if (gain > best) {
      best = gain;
      j = k;
    }
  }
  *key_out = -best;
  return j;
}

/* The bias-free mode's own step of an example with v @p vk, side @p side,
 * label @p y, dual @p a and box @p C: whether it has one (up: in I_up with
 * v > 0, beta may grow; else down: in I_low with v < 0), its violation
 * *g = |v| and the room of its box in that direction *room. */
static bool own_step(double vk, unsigned char side, double y, double a, double C, double *g,
                     double *room)
{
  if ((side & PAIR_UP) && vk > 0) {
    *g = vk;
    *room = y > 0 ? C - a : a;
    return true;
  }
  if ((side & PAIR_LOW) && vk < 0) {
    *g = -vk;
    *room = y > 0 ? a : C - a;
    return true;
  }
  return false;
}

/* Its length s = g / K_tt clipped to the room (the room when K_tt <= 0);
 * F falls by s g - s^2 K_tt / 2. */
static double own_length(double g, double room, double K_tt)
{
  const double s = K_tt > 0 ? g / K_tt : room;
  return s > room ? room : s;
}

/* The bias-free mode's t over the visits [lo, hi) of @p w (y, a and box by
 * example): the first visit whose own step lowers F most, if by more than
 * 0 (-1: none); that gain in *best_out and the largest violation g of an
 * example with a step in *worst_out (0: none). */
static int64_t choose_t(const PairView *w, const double *y, const double *a, const double *box,
                        int64_t lo, int64_t hi, double *best_out, double *worst_out)
{
  int64_t t = -1;
  double best = 0, worst = 0;
  for (int64_t k = lo; k < hi; ++k) {
    const int64_t q = w->act ? w->act[k] : k;
    double g, room;
    if (!own_step(w->v[k], w->side[k], y[q], a[q], box[q], &g, &room)) continue;
    if (g > worst) worst = g;
    const double K_tt = w->K_diag[k], s = own_length(g, room, K_tt);
    const double gain = s * g - 0.5 * s * s * K_tt;
    if (gain > best) {
      best = gain;
      t = k;
    }
  }
  *best_out = best;
  *worst_out = worst;
  return t;
}

#if defined(__GNUC__)
/* The two passes in vectors of PAIR_VEC lanes (GCC's and Clang's vector
 * extensions: AVX registers in the SS_VECTOR_CLONES copies, two SSE2 halves
 * elsewhere): visit k goes to lane k % PAIR_VEC; each lane keeps its best
 * value and the first visit reaching it (strict comparisons, as the scans
 * above), and the lanes are combined by value, ties to the earlier visit:
 * the choice of the scalar scan. Every value is computed by the same
 * operations in the same order as there, so the results are the same bits.
 * Over a shrunk list the entries are packed (PairView), so every load is
 * of consecutive entries. */
#define PAIR_VEC 4 /* the helpers below spell out 4 lanes */
typedef double PairVd __attribute__((vector_size(PAIR_VEC * sizeof(double))));
typedef int64_t PairVi __attribute__((vector_size(PAIR_VEC * sizeof(int64_t))));

/* Macros rather than functions: no vector crosses a call (GCC warns that
 * 32-byte vector arguments change the calling convention with AVX). */
#define VEC_LOAD(x, p) memcpy(&(x), (p), sizeof(x))
#define VEC_SPLAT(a) ((PairVd){(a), (a), (a), (a)})
/* -1 in the lanes of visits k..k+3 whose side has the bit, else 0. */
#define VEC_SIDE(s, bit) ((PairVi){(s)[0] & (bit), (s)[1] & (bit), (s)[2] & (bit), (s)[3] & (bit)} != 0)
#define VEC_PICK(m, a, b) ((PairVd)(((PairVi)(a) & (m)) | ((PairVi)(b) & ~(m))))
#define VEC_PICK_INT(m, a, b) (((a) & (m)) | ((b) & ~(m)))
#define VEC_ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)

/* The lane with the best key (the smallest, or the largest with @p largest),
 * ties to the earlier visit; -1 when no lane has a visit.
 * Inline on purpose: called out of line from the AVX clones, GCC 12 left the
 * upper halves of the vector registers dirty (no vzeroupper before the
 * call) and the SSE code after the pass (the kernel rows) ran 2.5x slower. */
static inline int64_t lanes_best(const double key[PAIR_VEC], const int64_t pos[PAIR_VEC], bool largest)
{
  int best = -1;
  for (int l = 0; l < PAIR_VEC; ++l) {
    if (pos[l] < 0) continue;
    if (best < 0 || (largest ? key[l] > key[best] : key[l] < key[best]) ||
        (key[l] == key[best] && pos[l] < pos[best]))
      best = l;
  }
  return best;
}

/* choose_j over the visits [lo, hi) (lo a multiple of PAIR_VEC). The
 * division skip uses the best over all lanes so far (earlier visits: a
 * skipped candidate could at most tie with it). */
SS_VECTOR_CLONES static int64_t choose_j_lanes(const PairView *w, double K_ii, const double *Ki,
                                               double vi, int64_t lo, int64_t hi, double *M_out,
                                               double *best_out)
{
  const double *v = w->v, *K_diag = w->K_diag;
  const unsigned char *side = w->side;
  const PairVd vvi = VEC_SPLAT(vi), kii = VEC_SPLAT(K_ii), two = VEC_SPLAT(2.0),
               zero = VEC_SPLAT(0.0), tau = VEC_SPLAT(PAIR_TAU), tiny = VEC_SPLAT(DBL_MIN);
  PairVd best = VEC_SPLAT(INFINITY), low_min = VEC_SPLAT(INFINITY), bound = VEC_SPLAT(-INFINITY);
  PairVi pos = {-1, -1, -1, -1};
  const int64_t whole = hi - (hi - lo) % PAIR_VEC;
  for (int64_t k = lo; k < whole; k += PAIR_VEC) {
    const PairVi at = {k, k + 1, k + 2, k + 3};
    const PairVi low = VEC_SIDE(side + k, PAIR_LOW);
    PairVd vt, kd, ki;
    VEC_LOAD(vt, v + k);
    const PairVd b = vvi - vt;
    low_min = VEC_PICK(low & (vt < low_min), vt, low_min);
    const PairVi candidate = low & (b > zero);
    if (!VEC_ANY(candidate)) continue;
    VEC_LOAD(kd, K_diag + k);
    VEC_LOAD(ki, Ki + k);
    PairVd eta = kii + kd - two * ki;
    eta = VEC_PICK(eta <= zero, tau, eta);
    const PairVd b2 = b * b, cut = bound * eta;
    const PairVi need = candidate & ~((b2 < cut) & (cut >= tiny));
    if (!VEC_ANY(need)) continue;
    const PairVd score = -b2 / eta;
    const PairVi better = need & (score < best);
    if (!VEC_ANY(better)) continue;
    best = VEC_PICK(better, score, best);
    pos = VEC_PICK_INT(better, at, pos);
    double overall = best[0];
    for (int l = 1; l < PAIR_VEC; ++l) overall = best[l] < overall ? best[l] : overall;
    const double cut_scale = -overall * (1 - 1e-12);
    bound = VEC_SPLAT(cut_scale);
  }
  for (int64_t k = whole; k < hi; ++k) {
    const int l = (int)(k - whole);
    if (!(side[k] & PAIR_LOW)) continue;
    if (v[k] < low_min[l]) low_min[l] = v[k];
    const double b = vi - v[k];
    if (b > 0) {
      double eta = K_ii + K_diag[k] - 2 * Ki[k];
      if (eta <= 0) eta = PAIR_TAU;
      const double score = -(b * b) / eta;
      if (score < best[l]) {
        best[l] = score;
        pos[l] = k;
      }
    }
  }
  double M = INFINITY;
  for (int l = 0; l < PAIR_VEC; ++l) M = low_min[l] < M ? low_min[l] : M;
  *M_out = M;
  double key[PAIR_VEC];
  int64_t at_best[PAIR_VEC];
  memcpy(key, &best, sizeof key);
  memcpy(at_best, &pos, sizeof at_best);
  const int lane = lanes_best(key, at_best, false);
  *best_out = lane < 0 ? INFINITY : key[lane];
  return lane < 0 ? -1 : at_best[lane];
}

/* update_v over the visits [lo, hi) (lo a multiple of PAIR_VEC), lanes as
 * in choose_j_lanes. */
SS_VECTOR_CLONES static void update_v_lanes(const PairView *w, const double *Ki, const double *Kj,
                                            double ci, double cj, int64_t lo, int64_t hi,
                                            PairBest *out)
{
  double *v = w->v;
  const unsigned char *side = w->side;
  const PairVd vci = VEC_SPLAT(ci), vcj = VEC_SPLAT(cj);
  PairVd top = VEC_SPLAT(-INFINITY);
  PairVi pos = {-1, -1, -1, -1};
  const int64_t whole = hi - (hi - lo) % PAIR_VEC;
  for (int64_t k = lo; k < whole; k += PAIR_VEC) {
    const PairVi at = {k, k + 1, k + 2, k + 3};
    PairVd vk, ki, kj;
    VEC_LOAD(vk, v + k);
    VEC_LOAD(ki, Ki + k);
    VEC_LOAD(kj, Kj + k);
    const PairVd x = vk - (vci * ki + vcj * kj);
    memcpy(v + k, &x, sizeof x);
    const PairVi better = VEC_SIDE(side + k, PAIR_UP) & (x > top);
    top = VEC_PICK(better, x, top);
    pos = VEC_PICK_INT(better, at, pos);
  }
  for (int64_t k = whole; k < hi; ++k) {
    const int l = (int)(k - whole);
    v[k] -= ci * Ki[k] + cj * Kj[k];
    if (v[k] > top[l] && (side[k] & PAIR_UP)) {
      top[l] = v[k];
      pos[l] = k;
    }
  }
  double key[PAIR_VEC];
  int64_t at_best[PAIR_VEC];
  memcpy(key, &top, sizeof key);
  memcpy(at_best, &pos, sizeof at_best);
  const int lane = lanes_best(key, at_best, true);
  out->pos = lane < 0 ? -1 : at_best[lane];
  out->key = lane < 0 ? -INFINITY : v[out->pos];
}

#define VEC_SPLAT_INT(a) ((PairVi){(a), (a), (a), (a)})

/* choose_t over the visits [lo, hi) (lo a multiple of PAIR_VEC), lanes as in
 * choose_j_lanes; y, a and box gathered through the active list when it is
 * shrunk. */
SS_VECTOR_CLONES static int64_t choose_t_lanes(const PairView *w, const double *y, const double *a,
                                               const double *box, int64_t lo, int64_t hi,
                                               double *best_out, double *worst_out)
{
  const double *v = w->v, *K_diag = w->K_diag;
  const unsigned char *side = w->side;
  const int64_t *act = w->act;
  const PairVd zero = VEC_SPLAT(0.0), half = VEC_SPLAT(0.5);
  PairVd best = zero, worst = zero;
  PairVi pos = VEC_SPLAT_INT(-1);
  const int64_t whole = hi - (hi - lo) % PAIR_VEC;
  for (int64_t k = lo; k < whole; k += PAIR_VEC) {
    PairVd vk;
    VEC_LOAD(vk, v + k);
    const PairVi up = VEC_SIDE(side + k, PAIR_UP) & (vk > zero);
    const PairVi step = up | (VEC_SIDE(side + k, PAIR_LOW) & (vk < zero));
    if (!VEC_ANY(step)) continue;
    PairVd yq, aq, Cq, kd;
    if (act) {
      const int64_t *q = act + k;
      yq = (PairVd){y[q[0]], y[q[1]], y[q[2]], y[q[3]]};
      aq = (PairVd){a[q[0]], a[q[1]], a[q[2]], a[q[3]]};
      Cq = (PairVd){box[q[0]], box[q[1]], box[q[2]], box[q[3]]};
    } else {
      VEC_LOAD(yq, y + k);
      VEC_LOAD(aq, a + k);
      VEC_LOAD(Cq, box + k);
    }
    VEC_LOAD(kd, K_diag + k);
    const PairVd g = VEC_PICK(up, vk, -vk);
    /* own_step's room: C - a up with y > 0 and down with y < 0, else a */
    const PairVd room = VEC_PICK(~(up ^ (yq > zero)), Cq - aq, aq);
    worst = VEC_PICK(step & (g > worst), g, worst);
    PairVd s = VEC_PICK(kd > zero, g / kd, room);
    s = VEC_PICK(s > room, room, s);
    const PairVd gain = s * g - half * s * s * kd;
    const PairVi better = step & (gain > best);
    if (!VEC_ANY(better)) continue;
    best = VEC_PICK(better, gain, best);
    pos = VEC_PICK_INT(better, ((PairVi){k, k + 1, k + 2, k + 3}), pos);
  }
  for (int64_t k = whole; k < hi; ++k) { /* the tail, visit by visit through the scalar scan */
    const int l = (int)(k - whole);
    double gain, g;
    const int64_t found = choose_t(w, y, a, box, k, k + 1, &gain, &g);
    if (g > worst[l]) worst[l] = g;
    if (found >= 0 && gain > best[l]) {
      best[l] = gain;
      pos[l] = found;
    }
  }
  double key[PAIR_VEC];
  int64_t at_best[PAIR_VEC];
  memcpy(key, &best, sizeof key);
  memcpy(at_best, &pos, sizeof at_best);
  double most = 0;
  for (int l = 0; l < PAIR_VEC; ++l) most = worst[l] > most ? worst[l] : most;
  *worst_out = most;
  const int lane = lanes_best(key, at_best, true);
  *best_out = lane < 0 ? 0.0 : key[lane];
  return lane < 0 ? -1 : at_best[lane];
}

/* choose_partner over the visits [lo, hi) (lo a multiple of PAIR_VEC),
 * lanes as in choose_j_lanes, with its division skip: a candidate whose
 * numerator is below (best so far) (1 - 1e-12) det cannot score above the
 * best (a skipped one could at most tie with an earlier visit). */
SS_VECTOR_CLONES static int64_t choose_partner_lanes(const PairView *w, double K_ii, const double *Ki,
                                                     double vi, int64_t i_visit, unsigned char side_i,
                                                     int64_t lo, int64_t hi, double *key_out)
{
  const double *v = w->v, *K_diag = w->K_diag;
  const unsigned char *side = w->side;
  const PairVd vvi = VEC_SPLAT(vi), kii = VEC_SPLAT(K_ii), zero = VEC_SPLAT(0.0),
               tau_ii = VEC_SPLAT(PAIR_TAU * K_ii), tiny = VEC_SPLAT(DBL_MIN);
  const PairVi i_up = VEC_SPLAT_INT(side_i & PAIR_UP ? -1 : 0),
               i_low = VEC_SPLAT_INT(side_i & PAIR_LOW ? -1 : 0), i_at = VEC_SPLAT_INT(i_visit);
  PairVd best = zero, bound = zero;
  PairVi pos = VEC_SPLAT_INT(-1);
  const int64_t whole = hi - (hi - lo) % PAIR_VEC;
  for (int64_t k = lo; k < whole; k += PAIR_VEC) {
    const PairVi at = {k, k + 1, k + 2, k + 3};
    const PairVi t_up = VEC_SIDE(side + k, PAIR_UP), t_low = VEC_SIDE(side + k, PAIR_LOW);
    PairVi candidate = (t_up | t_low) & (at != i_at);
    if (!VEC_ANY(candidate)) continue;
    PairVd kd, ki, vt;
    VEC_LOAD(kd, K_diag + k);
    VEC_LOAD(ki, Ki + k);
    VEC_LOAD(vt, v + k);
    const PairVd det = kii * kd - ki * ki;
    const PairVd ui = kd * vvi - ki * vt, ut = kii * vt - ki * vvi;
    candidate &= (det > tau_ii * kd) & (((ui > zero) & i_up) | ((ui < zero) & i_low)) &
                 (((ut > zero) & t_up) | ((ut < zero) & t_low));
    if (!VEC_ANY(candidate)) continue;
    const PairVd num = vvi * ui + vt * ut, cut = bound * det;
    const PairVi need = candidate & ~((num < cut) & (cut >= tiny));
    if (!VEC_ANY(need)) continue;
    const PairVd gain = num / det;
    const PairVi better = need & (gain > best);
    if (!VEC_ANY(better)) continue;
    best = VEC_PICK(better, gain, best);
    pos = VEC_PICK_INT(better, at, pos);
    double overall = best[0];
    for (int l = 1; l < PAIR_VEC; ++l) overall = best[l] > overall ? best[l] : overall;
    bound = VEC_SPLAT(overall * (1 - 1e-12));
  }
  double key[PAIR_VEC];
  int64_t at_best[PAIR_VEC];
  memcpy(key, &best, sizeof key);
  memcpy(at_best, &pos, sizeof at_best);
  for (int64_t k = whole; k < hi; ++k) {
    double tail_key;
    const int64_t found = choose_partner(w, K_ii, Ki, vi, i_visit, side_i, k, k + 1, &tail_key);
    const int l = (int)(k - whole);
    if (found >= 0 && -tail_key > key[l]) {
      key[l] = -tail_key;
      at_best[l] = found;
    }
  }
  const int lane = lanes_best(key, at_best, true);
  *key_out = lane < 0 ? -0.0 : -key[lane];
  return lane < 0 ? -1 : at_best[lane];
}
#else
static int64_t choose_j_lanes(const PairView *w, double K_ii, const double *Ki, double vi,
                              int64_t lo, int64_t hi, double *M_out, double *best_out)
{
  return choose_j(w, K_ii, Ki, vi, lo, hi, M_out, best_out);
}
static void update_v_lanes(const PairView *w, const double *Ki, const double *Kj, double ci,
                           double cj, int64_t lo, int64_t hi, PairBest *out)
{
  update_v(w, Ki, Kj, ci, cj, lo, hi, out);
}
static int64_t choose_t_lanes(const PairView *w, const double *y, const double *a, const double *box,
                              int64_t lo, int64_t hi, double *best_out, double *worst_out)
{
  return choose_t(w, y, a, box, lo, hi, best_out, worst_out);
}
static int64_t choose_partner_lanes(const PairView *w, double K_ii, const double *Ki, double vi,
                                    int64_t i_visit, unsigned char side_i, int64_t lo, int64_t hi,
                                    double *key_out)
{
  return choose_partner(w, K_ii, Ki, vi, i_visit, side_i, lo, hi, key_out);
}
#endif

/* The pass of a step over the active set, as one scan or in chunks of
 * PAIR_CHUNK visits on the object's threads. A chunk's best is the first
 * visit reaching the chunk's best value (strict comparisons), and the
 * chunks are joined in order with ties to the earlier one: the first visit
 * reaching the best over the whole set, which is what one scan returns (the
 * division skip never changes a scan's choice). M is a minimum and v is
 * updated entry by entry by the same operations. So a step's choice, M and
 * v are the same bits for any number of threads and chunks. Under two
 * chunks (4,096 active examples) a pass runs on the caller: a worker joins
 * a job 1-4 us after it opens. On ijcnn1 (C = 32, gamma = 2, the exact
 * solve from zero, two threads): 20,000 rows took 1.02 s with every pass on
 * the caller and 0.90 s in chunks of 8192 (8 rounds, medians); all 49,990
 * rows 5.69-5.91 s in chunks of 8192 and 5.20-5.32 s in chunks of 2048
 * (medians of two sets of 3 rounds: after shrinking the active set is often
 * under 16,384). One thread runs 0.1 % more instructions with either
 * (callgrind: each chunk's division skip starts afresh). */
/* What a pass computes over each chunk (pass_chunks), and how pair_pass
 * joins the chunks' bests. */
typedef enum PairPassKind {
  PASS_CHOOSE_J, /* choose_j: the smallest score, and M */
  PASS_UPDATE,   /* update_v: the largest v over I_up, the next i */
  PASS_PARTNER,  /* choose_partner: the smallest key (minus the gain) */
  PASS_CHOOSE_T, /* choose_t: the largest gain, and the largest violation in M */
  PASS_UPDATE_T  /* update_v, then choose_t over the chunk (the bias-free mode) */
} PairPassKind;

typedef struct PairPass {
  PairState *st;
  PairView w;
  PairPassKind kind;
  const double *Ki, *Kj; /* by visit */
  const double *y, *a;   /* choose_t: by example */
  int64_t na;
  double K_ii, vi, ci, cj;
  int64_t i_visit;       /* choose_partner: i's visit */
  unsigned char side_i;  /* choose_partner: i's side */
  bool scalar;           /* the scalar scans (tests: scalar_pair_passes); else in vectors */
} PairPass;

static void pass_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot;
  const PairPass *p = context;
  const PairView *w = &p->w;
  const double *box = p->st->box;
  for (int64_t c = begin; c < end; ++c) {
    const int64_t chunk = p->st->chunk;
    const int64_t lo = c * chunk, hi = lo + chunk < p->na ? lo + chunk : p->na;
    PairBest *out = &p->st->chunk_best[c];
    switch (p->kind) {
    case PASS_CHOOSE_J:
      out->pos = p->scalar ? choose_j(w, p->K_ii, p->Ki, p->vi, lo, hi, &out->M, &out->key)
                           : choose_j_lanes(w, p->K_ii, p->Ki, p->vi, lo, hi, &out->M, &out->key);
      break;
    case PASS_PARTNER:
      out->pos = p->scalar ? choose_partner(w, p->K_ii, p->Ki, p->vi, p->i_visit, p->side_i, lo, hi, &out->key)
                           : choose_partner_lanes(w, p->K_ii, p->Ki, p->vi, p->i_visit, p->side_i, lo, hi,
                                                  &out->key);
      break;
    case PASS_UPDATE:
    case PASS_UPDATE_T:
      if (p->scalar) update_v(w, p->Ki, p->Kj, p->ci, p->cj, lo, hi, out);
      else update_v_lanes(w, p->Ki, p->Kj, p->ci, p->cj, lo, hi, out);
      break;
    case PASS_CHOOSE_T:
      break;
    }
    /* choose_t, after update_v over the same chunk in PASS_UPDATE_T */
    if (p->kind == PASS_CHOOSE_T || p->kind == PASS_UPDATE_T)
      out->pos = p->scalar ? choose_t(w, p->y, p->a, box, lo, hi, &out->key, &out->M)
                           : choose_t_lanes(w, p->y, p->a, box, lo, hi, &out->key, &out->M);
  }
}

/* Runs @p p's pass over its na visits and joins the chunks: returns the
 * best (the smallest key for choose_j and choose_partner, with M the
 * smallest of choose_j's; the largest for update_v and choose_t, with M the
 * largest of choose_t's), ties to the earlier chunk; pos is its visit. */
static PairBest pair_pass(const SsKernelSvm *self, PairPass *p)
{
  const int64_t chunks = (p->na + p->st->chunk - 1) / p->st->chunk;
  ss_parallel_for(ss_threads_pool(self->threads, p->na), chunks, pass_chunks, p);
  const bool smallest = p->kind == PASS_CHOOSE_J || p->kind == PASS_PARTNER;
  const bool own = p->kind == PASS_CHOOSE_T || p->kind == PASS_UPDATE_T;
  PairBest best = {.key = smallest ? INFINITY : -INFINITY, .M = own ? 0.0 : INFINITY, .pos = -1};
  for (int64_t c = 0; c < chunks; ++c) {
    const PairBest *b = &p->st->chunk_best[c];
    if (p->kind == PASS_CHOOSE_J && b->M < best.M) best.M = b->M;
    if (own && b->M > best.M) best.M = b->M;
    if (b->pos >= 0 && (best.pos < 0 || (smallest ? b->key < best.key : b->key > best.key))) {
      best.key = b->key;
      best.pos = b->pos;
    }
  }
  return best;
}

/* Example t's side (at visit k of @p w) is now @p side. */
static void set_side(PairState *st, PairView w, int64_t t, int64_t k, unsigned char side)
{
  st->side[t] = side;
  if (w.act) st->sp[k] = side;
}

/* The next step's i: the best of an update pass (its visit). */
static void set_choice(PairState *st, PairView w, PairBest next)
{
  st->choice_visit = next.pos;
  st->choice = next.pos >= 0 && w.act ? w.act[next.pos] : next.pos;
  st->choice_v = next.key;
}

/* One pair step, or none when m - M <= tol on the active set (*done).
 * SS_ERR_ALLOC when the cache cannot hold a row. */
static SsStatus pair_step(SsKernelSvm *self, PairState *st, bool *done)
{
  const double *y = self->labels, *K_diag = self->diagonal;
  double *a = self->dual;
  const int64_t *act = st->active, na = st->num_active;
  if (!st->have_choice) choose_i(self, st);
  const int64_t i = st->choice, i_visit = st->choice_visit;
  const double vi = st->choice_v;
  *done = true;
  if (i < 0) return SS_OK;
  SsStatus status = SS_OK;
  const double *Ki = ss_kernel_cache_row(&st->cache, self, i, act, na, &status);
  if (!Ki) return status;
  /* j: the second-order choice over I_low with v_t < v_i; M on the way. */
  const PairView w = pair_view(self, st);
  const bool scalar = self->scalar_pair_passes;
  PairPass pass = {.st = st, .w = w, .kind = PASS_CHOOSE_J, .Ki = Ki, .na = na, .K_ii = K_diag[i],
                   .vi = vi, .scalar = scalar};
  const PairBest chosen = pair_pass(self, &pass);
  const int64_t j_visit = chosen.pos, j = j_visit >= 0 && w.act ? w.act[j_visit] : j_visit;
  const double M = chosen.M;
  if (vi - M <= st->tol || j < 0) return SS_OK;
  *done = false;
  const double *Kj = ss_kernel_cache_row(&st->cache, self, j, act, na, &status);
  if (!Kj) return status;
  const double Ci = st->box[i], Cj = st->box[j];
  const double room_i = y[i] > 0 ? Ci - a[i] : a[i];
  const double room_j = y[j] > 0 ? a[j] : Cj - a[j];
  const double room = room_i < room_j ? room_i : room_j;
  const double eta = K_diag[i] + K_diag[j] - 2 * Ki[j_visit];
  double s = eta > 0 ? (vi - w.v[j_visit]) / eta : room;
  if (s > room) s = room;
  if (isnan(s)) return SS_ERR_NUMERIC;
  const double ai = a[i], aj = a[j];
  /* Land exactly on the bound a clipped step reaches (and never past one). */
  const double ai_new = s == room_i ? (y[i] > 0 ? Ci : 0.0) : fmin(fmax(ai + y[i] * s, 0), Ci);
  const double aj_new = s == room_j ? (y[j] > 0 ? 0.0 : Cj) : fmin(fmax(aj - y[j] * s, 0), Cj);
  if (!(s > 0) || (ai_new == ai && aj_new == aj)) {
    *done = true; /* optimal to rounding: the step moves nothing */
    return SS_OK;
  }
  a[i] = ai_new;
  a[j] = aj_new;
  set_side(st, w, i, i_visit, side_of(y[i], ai_new, Ci));
  set_side(st, w, j, j_visit, side_of(y[j], aj_new, Cj));
  st->inactive_fresh = false;
  /* v_t -= y_t (g_t's change), and the next step's i on the way. */
  const double ci = y[i] * (ai_new - ai), cj = y[j] * (aj_new - aj);
  pass = (PairPass){.st = st, .w = w, .kind = PASS_UPDATE, .Ki = Ki, .Kj = Kj, .na = na, .ci = ci, .cj = cj,
                    .scalar = scalar};
  set_choice(st, w, pair_pass(self, &pass));
  /* gbar, through rows i and j complete where it needs them (both were the
   * last two rows asked for: no allocation, so the step is never left half
   * done). */
  return follow_rows(self, st, i, ai, ai_new, j, aj, aj_new);
}

/* The bias-free mode's duality gap, relative to the dual, from the
 * gradient g_t = -y_t v_t of all n (exact: no example shrunk): with b = 0,
 * 1 - y_t f(x_t) = -g_t, so in the units of F
 *
 *     P - D = sum_t (a_t g_t + C_t max(0, -g_t)),  D = sum_t a_t (1 - g_t) / 2. */
static double relative_gap(const SsKernelSvm *self, const PairState *st)
{
  double gap = 0, dual = 0;
  for (int64_t t = 0; t < self->num_data; ++t) {
    const double g = -self->labels[t] * st->v[t], a = self->dual[t];
    gap += a * g + (g < 0 ? -st->box[t] * g : 0.0);
    dual += 0.5 * a * (1 - g);
  }
  return dual > 0 ? gap / dual : INFINITY;
}

/* q(u) = -g^T u + 1/2 u^T H u, H = [[h[0], h[1]], [h[1], h[2]]]. */
static double two_q(const double g[2], const double h[3], const double u[2])
{
  return -g[0] * u[0] - g[1] * u[1] + 0.5 * (h[0] * u[0] * u[0] + 2 * h[1] * u[0] * u[1] + h[2] * u[1] * u[1]);
}

/* The minimiser of q over the edge u_e = @p at of the box [lo, hi] (the
 * other coordinate, o, by its exact step, clipped) into @p u. */
static void two_edge(const double g[2], const double h[3], const double lo[2], const double hi[2],
                     int e, double at, double u[2])
{
  const int o = 1 - e;
  const double slope = g[o] - h[1] * at, curvature = h[2 * o];
  double x = curvature > 0 ? slope / curvature : slope > 0 ? hi[o] : lo[o];
  x = x < lo[o] ? lo[o] : x > hi[o] ? hi[o] : x;
  u[e] = at;
  u[o] = x;
}

/* The bias-free two-coordinate step of t and j (choose_partner): the
 * exact minimiser of F over the box of (a_t, a_j), the others fixed, into
 * @p a_new. In u = the change of beta = y a, with g = (v_t, v_j) and H of
 * their kernel values, it minimises q(u) = -g^T u + 1/2 u^T H u over
 * lo <= u <= hi (the boxes' room, lo <= 0 <= hi): the unclipped minimiser
 * H^-1 g where it lies in the box, else the best of the four edges' own
 * minimisers (a convex q whose minimiser lies outside a box takes its
 * minimum over the box on the box's boundary). So the step lowers F at
 * least as much as t's own step, which is a point of the box. A coordinate
 * that reaches a bound lands on it exactly. */
static void two_step(const SsKernelSvm *self, const PairState *st, int64_t t, int64_t j,
                     double K_tj, const double g[2], double a_new[2])
{
  const double *y = self->labels, *a = self->dual;
  const int64_t e[2] = {t, j};
  const double h[3] = {self->diagonal[t], K_tj, self->diagonal[j]};
  double lo[2], hi[2];
  for (int k = 0; k < 2; ++k) {
    const double C = st->box[e[k]], ak = a[e[k]];
    lo[k] = y[e[k]] > 0 ? -ak : ak - C;
    hi[k] = y[e[k]] > 0 ? C - ak : ak;
  }
  const double det = h[0] * h[2] - h[1] * h[1];
  double u[2] = {(h[2] * g[0] - h[1] * g[1]) / det, (h[0] * g[1] - h[1] * g[0]) / det};
  if (!(u[0] >= lo[0] && u[0] <= hi[0] && u[1] >= lo[1] && u[1] <= hi[1])) {
    double best = INFINITY;
    for (int edge = 0; edge < 4; ++edge) {
      double c[2];
      two_edge(g, h, lo, hi, edge / 2, edge % 2 ? hi[edge / 2] : lo[edge / 2], c);
      const double q = two_q(g, h, c);
      if (q < best) {
        best = q;
        u[0] = c[0];
        u[1] = c[1];
      }
    }
  }
  for (int k = 0; k < 2; ++k) {
    const double C = st->box[e[k]], ak = a[e[k]], yk = y[e[k]];
    a_new[k] = u[k] == hi[k] ? (yk > 0 ? C : 0.0)
               : u[k] == lo[k] ? (yk > 0 ? 0.0 : C)
                               : fmin(fmax(ak + yk * u[k], 0), C);
  }
}

/* The bias-free mode: F over the box alone (no y'a = 0), whose KKT
 * conditions are those above with the bias fixed at 0: m <= 0 <= M. The
 * step of one example t moves it up (t in I_up with v_t > 0: a_t += y_t s)
 * or down (t in I_low with v_t < 0: a_t -= y_t s), F changing by
 * -s |v_t| + s^2/2 K_tt: s = |v_t| / K_tt clipped to t's room. t is the
 * example whose own step lowers F most (choose_t: made on the last step's
 * update pass, chunk by chunk after its v, or in a pass of its own after
 * shrinking and at the start: st->t_best);
 * then, with t's kernel row, its partner j (choose_partner, a second pass)
 * and the exact step of both (two_step): v_k -= y_t da_t K_tk + y_j da_j K_jk,
 * two kernel rows a step (t's own step, one row, where no partner
 * qualifies or in the tests' single_coordinate_steps). None when
 * max(m, -M) <= tol (*done). */
static SsStatus bias_free_step(SsKernelSvm *self, PairState *st, bool *done)
{
  const double *y = self->labels, *K_diag = self->diagonal;
  double *a = self->dual;
  const int64_t *act = st->active, na = st->num_active;
  const PairView w = pair_view(self, st);
  const bool scalar = self->scalar_pair_passes;
  if (!st->have_t) {
    PairPass pass = {.st = st, .w = w, .kind = PASS_CHOOSE_T, .y = y, .a = a, .na = na, .scalar = scalar};
    st->t_best = pair_pass(self, &pass);
    st->have_t = true;
  }
  const int64_t t_visit = st->t_best.pos, t = t_visit >= 0 && w.act ? w.act[t_visit] : t_visit;
  const double worst = st->t_best.M;
  *done = true;
  if (t < 0) return SS_OK;
  if (worst <= st->tol) {
    /* On all n, the relative gap decides (a tol on the violations alone
     * bounds the gap by 2 tol sum_i C_i, far above epsilon D at a large C):
     * if it does not hold, tol tightens at once. */
    if (na < self->num_data || relative_gap(self, st) <= self->epsilon) return SS_OK;
    while (worst <= st->tol && st->tol > 1e-300) st->tol /= 10;
    if (worst <= st->tol) return SS_OK;
  }
  double g_t = 0, room_t = 0;
  (void)own_step(w.v[t_visit], w.side[t_visit], y[t], a[t], st->box[t], &g_t, &room_t);
  const double step = own_length(g_t, room_t, K_diag[t]);
  if (isnan(step)) return SS_ERR_NUMERIC;
  const double C = st->box[t], at = a[t];
  const double direction = w.v[t_visit] > 0 ? y[t] : -y[t]; /* the sign of a_t's change */
  const double at_new = step == room_t ? (direction > 0 ? C : 0.0) : fmin(fmax(at + direction * step, 0), C);
  if (at_new == at) return SS_OK; /* optimal to rounding */
  *done = false;
  SsStatus status = SS_OK;
  const double *Kt = ss_kernel_cache_row(&st->cache, self, t, act, na, &status);
  if (!Kt) return status;
  /* The partner j, and the step of both (two_step), or t's alone. */
  PairPass pass = {.st = st, .w = w, .kind = PASS_PARTNER, .Ki = Kt, .na = na, .K_ii = K_diag[t],
                   .vi = w.v[t_visit], .i_visit = t_visit, .side_i = w.side[t_visit], .scalar = scalar};
  const int64_t j_visit = self->single_coordinate_steps ? -1 : pair_pass(self, &pass).pos;
  int64_t j = j_visit >= 0 && w.act ? w.act[j_visit] : j_visit;
  const double *Kj = Kt;
  double a_new[2] = {at_new, 0}, aj = 0;
  if (j >= 0) {
    Kj = ss_kernel_cache_row(&st->cache, self, j, act, na, &status); /* Kt stays valid */
    if (!Kj) return status;
    aj = a[j];
    two_step(self, st, t, j, Kt[j_visit], (const double[2]){w.v[t_visit], w.v[j_visit]}, a_new);
    if (a_new[0] == at && a_new[1] == aj) { /* moved nothing, to rounding: t's own step */
      j = -1;
      a_new[0] = at_new;
      Kj = Kt;
    }
  }
  a[t] = a_new[0];
  set_side(st, w, t, t_visit, side_of(y[t], a_new[0], C));
  if (j >= 0) {
    a[j] = a_new[1];
    set_side(st, w, j, j_visit, side_of(y[j], a_new[1], st->box[j]));
  }
  st->inactive_fresh = false;
  const double ct = y[t] * (a_new[0] - at), cj = j >= 0 ? y[j] * (a_new[1] - aj) : 0.0;
  /* v, and the next step's t on the way */
  pass = (PairPass){.st = st, .w = w, .kind = PASS_UPDATE_T, .Ki = Kt, .Kj = Kj, .y = y, .a = a,
                    .na = na, .ci = ct, .cj = cj, .scalar = scalar};
  st->t_best = pair_pass(self, &pass);
  /* rows t and j were the last two asked for */
  return follow_rows(self, st, t, at, a_new[0], j, aj, a_new[1]);
}

static SsStatus steps(SsKernelSvm *self, int64_t t, int64_t t_end)
{
  PairState *st = self->state;
  if (st->optimal && st->measured) {
    /* The driver's gap test failed at tol (in this call, or at the end of
     * the last one: start): tighten it. */
    st->optimal = st->measured = false;
    st->tol /= 10;
  }
  const bool shrinking = ss_kernel_svm_get_shrinking(self);
  SsStatus status = SS_OK;
  for (; t < t_end && !st->optimal; ++t) {
    if (shrinking && --st->until_shrink <= 0) {
      st->until_shrink = shrink_period(self);
      status = shrink(self, st);
      if (status != SS_OK) break;
    }
    bool done;
    SsStatus (*step)(SsKernelSvm *, PairState *, bool *) = st->bias_free ? bias_free_step : pair_step;
    status = step(self, st, &done);
    if (status == SS_OK && done && st->num_active < self->num_data) {
      /* Optimal on the active set: check all n before declaring it. */
      status = unshrink(self, st);
      st->until_shrink = shrink_period(self);
      if (status == SS_OK) status = step(self, st, &done);
    }
    if (status != SS_OK) break;
    if (done) {
      st->optimal = true;
      break;
    }
  }
  self->iteration = status == SS_OK ? t_end : t;
  return status;
}

/* The KKT bias: the mean of v over the free examples, else the middle of
 * [m, M] (one end when the other is infinite: one class only). */
static double kkt_bias(const SsKernelSvm *self, const PairState *st)
{
  if (st->bias_free) return 0;
  double sum = 0;
  int64_t free_count = 0;
  for (int64_t t = 0; t < self->num_data; ++t) {
    const double a = self->dual[t];
    if (a > 0 && a < st->box[t]) {
      sum += st->v[t];
      ++free_count;
    }
  }
  if (free_count > 0) return sum / (double)free_count;
  double m, M;
  violation_bounds(self, st, &m, &M);
  if (isfinite(m) && isfinite(M)) return 0.5 * (m + M);
  return isfinite(m) ? m : (isfinite(M) ? M : 0.0);
}

static SsStatus evaluate(SsKernelSvm *self, double *scores, double *norm2, bool *have_scores)
{
  PairState *st = self->state;
  const int64_t n = self->num_data;
  unpack(self, st);
  SsStatus status = refresh_inactive(self, st);
  if (status != SS_OK) return status;
  if (st->optimal) st->measured = true;
  double sum_a = 0, aQa = 0;
  int64_t m = 0;
  for (int64_t k = 0; k < n; ++k) {
    const double a = self->dual[k], g = -self->labels[k] * st->v[k];
    scores[k] = self->labels[k] * (g + 1.0);
    sum_a += a;
    aQa += a * (g + 1.0);
    if (a > 0) {
      st->sv[m] = k;
      st->sv_coef[m++] = a * self->labels[k];
    }
  }
  status = ss_kernel_model_set_from_rows(&self->model, &self->kernel, &self->data, st->sv,
                                         st->sv_coef, m, kkt_bias(self, st));
  if (status != SS_OK) return status;
  *norm2 = ss_kernel_norm2_floor(aQa);
  *have_scores = true;
  self->statistics.dual_objective = self->lambda * (sum_a - 0.5 * aQa);
  return SS_OK;
}

const SsKernelSolverOps ss_kernel_sdca_pair_ops = {
  .uses_permutation = false,
  .criterion = SS_RUN_RELATIVE_GAP,
  .may_diverge = false,
  .start = start,
  .steps = steps,
  .evaluate = evaluate,
  .free_state = free_state,
};

/* ------------------------------------------------------------------------ */
/*                       The settings of the pairwise mode                   */
/* ------------------------------------------------------------------------ */

SsStatus ss_kernel_svm_set_cache_size(SsKernelSvm *self, double megabytes)
{
  if (!self || !isfinite(megabytes) || !(megabytes > 0)) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_cache_size");
  self->cache_size = megabytes;
  PairState *st = self->ops == &ss_kernel_sdca_pair_ops ? self->state : NULL;
  if (st) {
    /* Rebuild the cache at the new size; the iterates do not depend on it. */
    ss_kernel_cache_free(&st->cache);
    SsStatus status = ss_kernel_cache_init(&st->cache, self->num_data, megabytes,
                                           self->row_flags & SS_ROWS_FLOAT32);
    if (status != SS_OK) {
      free_state(self);
      self->iteration = 0;
      return status;
    }
    use_shared_rows(self, st);
    status = ss_kernel_cache_set_active(&st->cache, st->active, st->num_active);
    if (status != SS_OK) {
      free_state(self);
      self->iteration = 0;
      return status;
    }
  }
  return SS_OK;
}

double ss_kernel_svm_get_cache_size(const SsKernelSvm *self)
{
  if (!self) return NAN;
  return self->cache_size > 0 ? self->cache_size : SS_KERNEL_SVM_DEFAULT_CACHE_SIZE;
}

SsStatus ss_kernel_svm_set_shrinking(SsKernelSvm *self, int enabled)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "set_shrinking");
  self->no_shrinking = enabled == 0;
  return SS_OK;
}

int ss_kernel_svm_get_shrinking(const SsKernelSvm *self) { return self ? !self->no_shrinking : 0; }

SsStatus ss_kernel_sdca_bias_free_pairs(SsKernelSvm *self)
{
  if (self->solver != SS_KSOLVER_SDCA || self->bias_enabled) return SS_ERR_BAD_STATE;
  self->ops->free_state(self);
  self->iteration = 0;
  self->ops = &ss_kernel_sdca_pair_ops;
  self->sdca_bias_free = true;
  return SS_OK;
}

SsStatus ss_kernel_svm_share_kernel_rows(SsKernelSvm *self, SsKernelSvm *source)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_kernel_svm_refuse_while_training(self, "share_kernel_rows");
  SsKernelRowStore *store = NULL;
  if (source) {
    if (!self->has_data || !source->has_data)
      return ss_kernel_svm_fail(self, SS_ERR_BAD_STATE,
                                "share_kernel_rows: both objects need data (set_data)");
    if (!ss_kernel_rows_match(source, self))
      return ss_kernel_svm_fail(self, SS_ERR_BAD_ARG,
                                "share_kernel_rows: the objects' kernel rows differ: they need the same "
                                "X values array (and CSR structure), kernel and kernel precision");
    if (!SS_HAVE_ATOMICS) return ss_kernel_svm_succeed(self); /* no store (atomics.h) */
    store = source->row_store;
    if (!store || !ss_kernel_row_store_fits(store, source)) {
      store = ss_kernel_row_store_new(source);
      if (!store) return ss_kernel_svm_fail(self, SS_ERR_ALLOC, "share_kernel_rows: out of memory");
      ss_kernel_row_store_release(source->row_store);
      source->row_store = store;
    }
    ss_kernel_row_store_retain(store);
  }
  ss_kernel_row_store_release(self->row_store);
  self->row_store = store;
  SsKernelSvm *const objects[2] = {self, source};
  for (int k = 0; k < 2; ++k) {
    PairState *st = objects[k] && objects[k]->ops == &ss_kernel_sdca_pair_ops ? objects[k]->state : NULL;
    if (st) use_shared_rows(objects[k], st);
  }
  return ss_kernel_svm_succeed(self);
}
