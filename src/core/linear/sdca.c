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
 * marked shrunk and skipped (its visit costs one byte read). When the PG_i of
 * an epoch's active examples span less than a tolerance, all examples become
 * active again and the bounds are forgotten; if none was shrunk, the
 * tolerance is divided by 10 instead. The gap is computed over all examples.
 */
#include "svm_internal.h"
#include "../common/loss.h"

#include <stdlib.h>
#include <string.h>

void ss_sdca_rebuild_model(SsSvm *self)
{
  const int64_t n = self->source.num_data;
  const double B = self->bias_multiplier, scale = 1.0 / (self->lambda * (double)n);
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
  self->sdca_shifted = false;
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
  sh->num_candidates = 0;
  sh->candidates_epoch_start = -1;
  sh->pg_max = INFINITY;
  sh->pg_min = -INFINITY;
  sh->epoch_pg_max = -INFINITY;
  sh->epoch_pg_min = INFINITY;
  sh->tolerance = SS_SDCA_SHRINK_TOLERANCE;
}

void ss_sdca_end_epoch(SsSvm *self)
{
  SsSdcaShrinking *sh = &self->shrinking;
  const double spread = sh->epoch_pg_max - sh->epoch_pg_min;
  if (spread <= sh->tolerance) {
    if (sh->num_shrunk > 0) {
      memset(sh->shrunk, 0, (size_t)self->source.num_data);
      sh->num_shrunk = 0;
      sh->candidates_epoch_start = -1;
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
}

/* The coordinate step: the new alpha_i. The hinge loss's closed form is
 * inlined (the common case) and lands exactly on the bounds 0 and y_i c_i,
 * which shrinking tests; the other losses go through loss.c. */
static inline double ss_sdca_step(SsLoss loss, const SsLossFunctions *custom, double alpha,
                                  double c, double s, double A, double y)
{
  if (loss == SS_LOSS_HINGE) {
    double beta = y * alpha / c + (1 - y * s) / A;
    beta = beta < 0 ? 0 : (beta > 1 ? 1 : beta);
    return y * c * beta;
  }
  return alpha + c * ss_loss_dual_update(loss, custom, alpha / c, s, A, y);
}

/* The first index j with list[j] >= k (m if none); list ascending. */
static int64_t lower_bound(const int64_t *list, int64_t m, int64_t k)
{
  int64_t lo = 0, hi = m;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (list[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* An epoch visits only the positions whose example was active when it
 * began (examples shrunk during the epoch are skipped at their visit): one
 * branch-free pass lists them, so a shrunk example costs a byte read per
 * epoch instead of a loop iteration with its prefetches. */
const int64_t *ss_sdca_candidates(SsSvm *self, const SsEpochRun *run, int64_t k_begin,
                                  int64_t k_end, int64_t *first, int64_t *last)
{
  SsSdcaShrinking *sh = &self->shrinking;
  if (sh->candidates_epoch_start != run->epoch_start) {
    const int64_t n = self->source.num_data;
    const uint8_t *shrunk = sh->shrunk;
    int64_t m = 0;
    for (int64_t k = 0; k < n; ++k) {
      sh->candidates[m] = k;
      m += !shrunk[run->perm[k]];
    }
    sh->num_candidates = m;
    sh->candidates_epoch_start = run->epoch_start;
  }
  *first = lower_bound(sh->candidates, sh->num_candidates, k_begin);
  *last = lower_bound(sh->candidates, sh->num_candidates, k_end);
  return sh->candidates;
}

/* The ray step (sdca_ray.c) at the end of an epoch of its schedule; a
 * step moves examples off their bounds, so shrinking starts again. */
void ss_sdca_ray_hook(SsSvm *self)
{
  if (ss_sdca_ray_epoch(self->iteration / self->source.num_data) && ss_sdca_ray_step(self, true))
    ss_sdca_reset_shrinking(self);
}

#define SS_STEPS_TEMPLATE "sdca_steps_t.h"
#define SS_STEPS_PREFIX sdca_steps
#include "steps_kinds.h"

SsStatus ss_sdca_train(SsSvm *self)
{
  if (self->model_stale) ss_sdca_rebuild_model(self);
  return ss_run_epochs(self, sdca_steps_select(&self->source));
}
