/* sdca.c -- stochastic dual coordinate ascent (Hsieh et al. 2008; Shalev-Shwartz
 * and Zhang 2013; VLFeat's SDCA; the math: docs/sdca.rst).
 *
 * The primal is SGD's, with augmented rows x~_i = (x_i, B) and w~ = (w, w_b):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>)
 *
 * and its dual, one variable alpha_i per example,
 *
 *     D(alpha) = -lambda/2 ||w~(alpha)||^2 - 1/n sum_i c_i loss*(-alpha_i / c_i, y_i),
 *     w~(alpha) = 1/(lambda n) sum_i alpha_i x~_i.
 *
 * Iteration t visits example i of the epoch's permutation (epochs.c) and
 * maximises D along alpha_i: with s = <w~, x~_i> and
 * A = c_i ||x~_i||^2 / (lambda n), the weighted step is c_i times the
 * unweighted one, delta = c_i U(alpha_i / c_i, s, A, y_i) (loss.c), then
 *
 *     alpha_i <- alpha_i + delta,   w <- w + delta/(lambda n) x_i,   b <- b + delta B^2/(lambda n)
 *
 * (b = B w_b). With B = 0 the bias b is a fixed offset: it enters s, and the
 * dual gains the term -1/n sum_i alpha_i b. Training stops when the duality
 * gap P - D, a bound on the primal suboptimality, falls below epsilon.
 * The dual variables stay in the object: a second train continues.
 *
 * Shrinking (hinge and squared hinge; Hsieh et al. 2008, section 3.2). In
 * beta_i = y_i alpha_i, with box [0, U_i] (U_i = c_i for the hinge, +inf for
 * the squared hinge), the gradient of -n D along beta_i is
 *
 *     G_i = y_i s_i - 1 + beta_i / (2 c_i)   (the last term: squared hinge only)
 *
 * and the projected gradient PG_i is min(G_i, 0) at beta_i = 0, max(G_i, 0)
 * at beta_i = U_i, G_i inside. At the optimum every PG_i is 0. An example at
 * beta_i = 0 with G_i > M, or at U_i with G_i < m, where [m, M] bounds the
 * PG_i of the previous epoch's active examples, is unlikely to move: it is
 * marked shrunk and skipped. When the PG_i of an epoch's active examples
 * span less than a tolerance, all examples become active again and the
 * bounds are forgotten; if none was shrunk, the tolerance is divided by 10
 * instead. An epoch visits the active examples only, in an order it draws
 * for them (ss_sdca_active): it costs O(active), not O(n). The gap is
 * computed over all examples; the steps also estimate it, which lets the
 * run check it as soon as it may be small enough (ss_sdca_diagnostic_wanted,
 * svm_internal.h).
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>
#include <string.h>

void ss_sdca_rebuild_model(SsSvm *self)
{
  const int64_t n = self->source.num_data;
  const double B = self->bias_multiplier, scale = 1.0 / (self->lambda * (double)n);
  ss_sdca_undo_ray(self);
  ss_sdca_undo_best(self);
  self->ray.shifted = false;
  memset(self->u, 0, (size_t)self->dimension * sizeof(double));
  self->factor = 1.0;
  double b = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (self->alpha[i] == 0) continue;
    ss_source_accumulate(&self->source, i, self->u, self->alpha[i] * scale);
    b += self->alpha[i] * scale * B * B;
  }
  if (B > 0) self->bias = b;
  self->model_stale = false;
  ss_sdca_reset_shrinking(self);
  ss_svm_realise_model(self);
}

/** The first tolerance on the spread of the projected gradients (LIBLINEAR's
 *  default stopping tolerance for its dual solvers), and the last. */
#define SS_SDCA_SHRINK_TOLERANCE 0.1
#define SS_SDCA_SHRINK_TOLERANCE_MIN 1e-12

void ss_sdca_reset_shrinking(SsSvm *self)
{
  SsSdcaShrinking *sh = &self->shrinking;
  if (sh->shrunk && sh->num_shrunk > 0)
    memset(sh->shrunk, 0, (size_t)self->source.num_data);
  sh->num_shrunk = 0;
  sh->num_candidates = -1; /* every example, in data order */
  sh->candidates_epoch_start = -1;
  sh->pg_max = INFINITY;
  sh->pg_min = -INFINITY;
  sh->epoch_pg_max = -INFINITY;
  sh->epoch_pg_min = INFINITY;
  sh->tolerance = SS_SDCA_SHRINK_TOLERANCE;
  sh->epoch_gap = 0;
  sh->gap_estimate = NAN;
  sh->gate_factor = 1;
  sh->asked_iteration = -1;
  sh->asked = false;
}

void ss_sdca_end_epoch(SsSvm *self)
{
  SsSdcaShrinking *sh = &self->shrinking;
  sh->gap_estimate = sh->epoch_gap / (double)self->source.num_data;
  sh->epoch_gap = 0;
  const double spread = sh->epoch_pg_max - sh->epoch_pg_min;
  if (spread <= sh->tolerance) {
    if (sh->num_shrunk > 0) {
      memset(sh->shrunk, 0, (size_t)self->source.num_data);
      sh->num_shrunk = 0;
      sh->num_candidates = -1;
    } else if (sh->tolerance > SS_SDCA_SHRINK_TOLERANCE_MIN) {
      sh->tolerance /= 10;
    }
    sh->pg_max = INFINITY;
    sh->pg_min = -INFINITY;
  } else {
    sh->pg_max = sh->epoch_pg_max > 0 ? sh->epoch_pg_max : INFINITY;
    sh->pg_min = sh->epoch_pg_min < 0 ? sh->epoch_pg_min : -INFINITY;
  }
  sh->epoch_pg_max = -INFINITY;
  sh->epoch_pg_min = INFINITY;
  if (sh->num_candidates > 0 && sh->num_shrunk > 0) {
    /* The next epoch's list: this one's, less the examples it shrank. */
    int64_t *list = sh->candidates, m = 0;
    for (int64_t j = 0; j < sh->num_candidates; ++j) {
      list[m] = list[j];
      m += !sh->shrunk[list[m]];
    }
    sh->num_candidates = m;
  }
}

/* The coordinate step: the new alpha_i. The hinge loss's closed form is
 * inlined (the common case) and lands exactly on the bounds 0 and y_i c_i,
 * which shrinking tests; so is the logistic loss's step (loss.h: most of
 * its work overlaps the score's dot product only when it is inlined); the
 * other losses go through loss.c. */
static inline double ss_sdca_step(SsLoss loss, const SsLossFunctions *custom, double alpha,
                                  double c, double s, double A, double y)
{
  if (loss == SS_LOSS_HINGE) {
    double beta = y * alpha / c + (1 - y * s) / A;
    beta = beta < 0 ? 0 : (beta > 1 ? 1 : beta);
    return y * c * beta;
  }
  if (loss == SS_LOSS_LOGISTIC) return alpha + c * ss_logistic_dual_update(alpha / c, s, A, y);
  return alpha + c * ss_loss_dual_update(loss, custom, alpha / c, s, A, y);
}

/* floor(a b / c) for a, b >= 0 and c >= 1, a b / c < 2^63, without overflow. */
static int64_t mul_div(int64_t a, int64_t b, int64_t c)
{
  if (b == c) return a;
  if (a <= (int64_t)UINT32_MAX && b <= (int64_t)UINT32_MAX)
    return (int64_t)((uint64_t)a * (uint64_t)b / (uint64_t)c);
#ifdef __SIZEOF_INT128__
  __extension__ typedef unsigned __int128 u128;
  return (int64_t)((u128)a * (u128)b / (u128)c);
#else
  return (int64_t)((long double)a * (long double)b / (long double)c);
#endif
}

/* The active list. An epoch visits the examples that were active when it
 * began, sh->candidates[0, m), and an example shrunk during the epoch is
 * skipped at its visit. With the default visit order (a uniform
 * permutation per epoch) the list is the last epoch's, less the examples
 * shrunk since (ss_sdca_end_epoch), shuffled from (seed, epoch): O(m) per
 * epoch. Drawing a permutation of all n and filtering it cost O(n) even
 * when few examples were active, and late in a hinge run (1 % of a9a
 * active) that took more time than the steps. After a reset or an
 * unshrinking (every example active again) the list is the identity, so its shuffle is the
 * epoch's permutation (epochs.c) and the first epoch visits what SDCA
 * without shrinking visits; later epochs shuffle the list as the last one
 * left it. With another visit order the list is the epoch's order,
 * filtered.
 *
 * The epoch's positions k in [0, n), which the run driver cuts into pieces,
 * map to the visits floor(k m / n): a run cut anywhere makes the same
 * visits as one that is not. */
const int64_t *ss_sdca_active(SsSvm *self, const SsEpochRun *run, int64_t k_begin,
                              int64_t k_end, int64_t *first, int64_t *last)
{
  SsSdcaShrinking *sh = &self->shrinking;
  const int64_t n = self->source.num_data;
  int64_t *list = sh->candidates;
  if (sh->candidates_epoch_start != run->epoch_start) {
    if (ss_sdca_draws_order(self)) {
      if (sh->num_candidates < 0) {
        for (int64_t i = 0; i < n; ++i) list[i] = i;
        sh->num_candidates = n;
      }
      ss_rng_shuffle(list, sh->num_candidates, self->seed, (uint64_t)(run->epoch_start / n));
    } else {
      const uint8_t *shrunk = sh->shrunk;
      int64_t m = 0;
      for (int64_t k = 0; k < n; ++k) {
        list[m] = run->perm[k];
        m += !shrunk[list[m]];
      }
      sh->num_candidates = m;
    }
    sh->candidates_epoch_start = run->epoch_start;
  }
  *first = mul_div(k_begin, sh->num_candidates, n);
  *last = mul_div(k_end, sh->num_candidates, n);
  return list;
}

/* The epoch position of visit j (at or before it): where a run stopped by
 * a failed step reports its iteration. */
int64_t ss_sdca_visit_position(const SsSvm *self, int64_t j)
{
  const int64_t m = self->shrinking.num_candidates;
  return m > 0 ? mul_div(j, self->source.num_data, m) : j;
}

#define SS_STEPS_TEMPLATE "sdca_steps_t.h"
#define SS_STEPS_PREFIX sdca_steps
#include "steps_kinds.h"

SsStatus ss_sdca_train(SsSvm *self)
{
  ss_sdca_undo_ray(self);
  const SsStatus begun = ss_sdca_best_begin(self);
  if (begun != SS_OK) return begun;
  if (self->model_stale) ss_sdca_rebuild_model(self);
  self->newton.iterations = 0;
  ss_sdca_stall_begin(self);
  ss_sdca_trend_begin(self);
  const SsStatus status = ss_run_epochs(self, sdca_steps_select(&self->source));
  if (status != SS_OK || !ss_sdca_newton_wanted(self)) return status;
  /* The fallback needs the closing diagnostic's status: made now, not
   * left pending (it costs one pass; the Newton run many). */
  const SsStatus settled = ss_svm_settle_final(self);
  if (settled != SS_OK || self->statistics.status != SS_SVM_STATUS_MAX_ITERATIONS) return settled;
  return ss_sdca_newton_fallback(self);
}
