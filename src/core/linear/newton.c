/* newton.c -- a primal truncated Newton method for the smooth losses
 * (squared hinge, logistic, l2): linear SDCA's fallback where its
 * coordinate steps stall. Logistic and l2 take trust-region steps (Lin,
 * Weng and Keerthi 2008, "Trust region Newton method for large-scale
 * logistic regression"), the squared hinge line-search steps (below); both
 * written from the papers' math.
 *
 * The problem is SDCA's own (sdca.c), with x~_i = (x_i, B), w~ = (w, w_b):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, s_i),
 *     s_i = <w~, x~_i> (+ the fixed offset b when B = 0: then w~ = w),
 *
 *     grad P = lambda w~ + 1/n sum_i c_i loss'(s_i) x~_i,
 *     H v    = lambda v  + 1/n sum_i c_i loss''(s_i) <x~_i, v> x~_i,
 *
 * with loss'' = 2 for l2, sigma (1 - sigma) for the logistic loss
 * (sigma = 1/(1 + exp(y s))), and for the squared hinge, whose derivative
 * has a kink at y s = 1, the generalised Hessian: 2 where y s < 1, else 0.
 * A Hessian-vector product is one pass of scores (<x~_i, v>) and one
 * accumulation over the rows with loss'' != 0: O(nnz), no d x d matrix.
 *
 * Iteration k solves the Newton system H s = -g approximately by conjugate
 * gradient inside the trust region ||s|| <= Delta: CG stops when its
 * residual is below eta ||g||, eta = min(0.1, sqrt(||g|| / ||g_0||)) (a
 * forcing term that tightens the solve near the optimum), after
 * min(2 (d + 1), 1000) steps, or when a step leaves the region (the step
 * is then cut on the boundary), or on a direction of non-positive
 * curvature (impossible here: H >= lambda I). The trial point w~ + s is
 * judged by the ratio of the actual decrease P(w~) - P(w~ + s) to the
 * decrease q(s) = -(g's + s'Hs/2) the quadratic model predicted: accepted if
 * it exceeds eta0 = 1e-4 of it, and Delta shrinks (ratio < 0.25), stays or
 * grows (ratio > 0.75) by the rules of the paper's section 2, which also
 * fit Delta to a one-dimensional quadratic through P along s (the factor
 * "alpha" below). Delta starts at ||g_0||, cut to the first step's length.
 *
 * The squared hinge has no trust region. Its generalised Hessian changes
 * with the margin set {i : y_i s_i < 1} at every step: on near-separable
 * problems (raw digits one-vs-rest at C = 1e3) the model fit each step
 * (ratio ~ 1) but the steps, cut on the boundary after a few CG steps,
 * stayed short, and 1000 iterations certified 2 of the 10 problems. It
 * takes the finite Newton method's step instead (Keerthi and DeCoste 2005,
 * "A modified finite Newton method for fast solution of large scale linear
 * SVMs"): CG on H s = -g with no region, to a residual of at most 0.01 of
 * ||g||, then the exact line search along s (ss_newton_line_search: P along s
 * is a convex piecewise quadratic), which all 10 certify within 81. It
 * stops, besides the rules below, when that search finds no decrease.
 *
 * Badly scaled rows. Where the diagonal of the Hessian's bound, lambda +
 * 1/n sum_i c_i kappa x~_ik^2 (kappa the loss's largest second
 * derivative), spans more than SS_NEWTON_SCALE_SPREAD (the README's six
 * points times 1e50 with lambda = 0.01 and B = 1: 1e100 against the bias's
 * 0.01), the CG of both kinds of step is preconditioned by the Hessian's
 * diagonal D (recomputed at each iteration, ss_newton_diagonal), and the
 * squared hinge's steps switch to it after a step that found no decrease.
 * The trust region is then measured in D's metric, ||s||_D^2 = sum_k D_k
 * s_k^2, in which preconditioned CG's iterates grow monotonically
 * (Steihaug), from Delta = ||D^-1 g_0||_D: in the Euclidean norm a first
 * step in w alone (of norm 6e-17) fixed the radius, and SDCA's logistic
 * fallback from 1e80 on could not move its bias (P = 0.414 for 0.0687). Plain CG there
 * moved w only (its Krylov space is the large rows' direction): the
 * logistic finish crept to P = 0.347 where the optimum is 0.0687, the
 * squared hinge's stopped at once at 0.5 (optimum 0.00495), and at 1e153
 * its products overflowed; preconditioned, every primal solver reaches
 * both optima to rounding at 1e50, 1e152 and 1e153 (tests/c/
 * test_primal_finish.c). Their certificate cannot say so at such scales
 * (the map's v = w~ - g/lambda multiplies the gradient's residual by the
 * rows' scale): the status stays max_iterations. Ordinary features keep
 * the plain CG's steps bit for bit (raw columns of scales 1024 to 1/128
 * span about 1e8) until a squared hinge step finds no decrease, where the
 * method stopped before.
 *
 * The stop is certified, not guessed. For a smooth loss the primal-dual map
 * alpha_i = -c_i loss'(s_i) is dual feasible (primal_certificate.c), and
 * since grad P = lambda (w~ - v(alpha)), v(alpha) = 1/(lambda n)
 * sum_i alpha_i x~_i = w~ - g/lambda costs nothing more than the gradient:
 *
 *     D(alpha(w~)) = -lambda/2 ||w~ - g/lambda||^2
 *                    - 1/n sum_i [c_i loss*(loss'(s_i), y_i) + alpha_i b_fixed],
 *
 * and the run stops when (P - D) / max(P, D) <= epsilon, SDCA's own relative
 * gap, which then bounds the primal suboptimality as SDCA's does. It also
 * stops after SS_NEWTON_MAX_ITERATIONS Newton iterations, when the model
 * predicts no decrease (the gradient rounds to 0) or the region shrinks to
 * a point, or on the caller's interrupt. (A stop on tiny decreases of P, as
 * 1e-12 P, came too early: with lambda = 1/(1e4 n) the gap is about
 * ||g||^2 / (2 lambda), still 1.6 % of P when P no longer moved in its 12th
 * digit, tests/c/test_sdca_newton.c.)
 *
 * The fallback (ss_sdca_newton_fallback, sdca_newton.c; with the hinge
 * and l1 losses it is newton_hinge.c's): after a linear SDCA run that
 * stopped on its cap without meeting its tolerance, or
 * that its stall rule (ss_sdca_stalled, below) ended earlier, the
 * method continues from the model the run returned (the closing ray's,
 * sdca_ray.c, if it took one). The result is written back as SDCA's state:
 * the model w~, its scores and statistics (status converged only when the
 * certificate meets epsilon), and the dual variables alpha(w~) of the map,
 * the model marked stale, so that the next train rebuilds w~(alpha) from
 * them and continues SDCA from the certified dual point (w~(alpha) = w~ at
 * the optimum, within the gap elsewhere).
 *
 * The solve itself (ss_newton_solve: from the model w = factor u, writing
 * back the model, its scores and statistics) also finishes the primal
 * solvers' runs (primal_finish.c); SDCA's dual write-back is apart
 * (ss_sdca_newton_fallback). The set-up (the problem, its buffers and the
 * starting model: ss_newton_begin), the passes, the CG solve and the
 * write-back are shared with the hinge and l1 losses' smoothing method
 * (newton_hinge.c; newton.h).
 */
#include "newton.h"
#include "../common/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/** Newton iterations of one fallback (LIBLINEAR's cap for its Newton
 *  method); each costs one CG solve. */
#define SS_NEWTON_MAX_ITERATIONS 1000
/** CG steps of one Newton iteration (at most, besides 2 (d + 1)). */
#define SS_NEWTON_MAX_CG_STEPS 1000
/** CG stops at residual <= at most this ||g|| (the paper's xi). */
#define SS_NEWTON_CG_TOLERANCE 0.1
/** ... and for the squared hinge's line-search steps, whose direction must
 *  be nearly Newton's: 0.1 left 2 of raw digits' 10 problems (C = 1e3)
 *  uncertified after 1000 iterations, 0.01 certifies all in 12 to 81. */
#define SS_NEWTON_LINE_CG_TOLERANCE 0.01

/** The Hessian diagonal's largest entry over its least beyond which the
 *  CG is preconditioned by it (ss_newton_solve): far above what ordinary
 *  features give (tests/c/test_primal_finish.c's raw columns of scales
 *  1024 to 1/128: about 1e8), so that their steps stay as they were. */
#define SS_NEWTON_SCALE_SPREAD 1e16

/** The stall rule: the run ends when the epochs it would need exceed this
 *  many times its cap. */
#define SS_SDCA_STALL_MARGIN 2.0
/** ... or when the rate per epoch fell to this fraction of the previous
 *  doubling's (a power law gap ~ epochs^-p gives 1/2) and the power law
 *  would not meet epsilon within SS_SDCA_STALL_MARGIN times the cap, ... */
#define SS_SDCA_STALL_SLOWDOWN 0.6
/** ... judged only once the run has read its gap over this many epochs:
 *  the hinge's early gap is noisy, and with a diagnostic every epoch (a
 *  diagnostic function installed) a9a's and w8a's runs, which converge in
 *  200-400 epochs, were handed over at epochs 4-9. */
#define SS_SDCA_STALL_POWER_EPOCHS 16.0

/* The trust region's constants (the paper's section 2). */
static const double eta0 = 1e-4, eta1 = 0.25, eta2 = 0.75;
static const double sigma1 = 0.25, sigma2 = 0.5, sigma3 = 4.0;

/* d^2 loss(y, s) / ds^2 (the generalised one for the squared hinge). */
static double loss_second_derivative(SsLoss loss, double s, double y)
{
  switch (loss) {
    case SS_LOSS_HINGE2: return y * s < 1 ? 2.0 : 0.0;
    case SS_LOSS_LOGISTIC: {
      const double sigma = ss_logistic_weight(y * s);
      return sigma * (1 - sigma);
    }
    default: return 2.0; /* l2 */
  }
}

double ss_newton_dot(const double *a, const double *b, int64_t m)
{
  double sum = 0;
  for (int64_t k = 0; k < m; ++k) sum += a[k] * b[k];
  return sum;
}

SsStatus ss_newton_begin(SsSvm *self, Newton *nt, int64_t num_vectors, int64_t num_rows)
{
  const int64_t n = self->source.num_data, d = self->dimension;
  const double B = self->bias_multiplier;
  *nt = (Newton){.svm = self, .n = n, .d = d, .m = B > 0 ? d + 1 : d, .B = B, .offset = B > 0 ? 0 : self->bias};
  nt->vectors = malloc((size_t)(num_vectors * nt->m) * sizeof(double));
  nt->rows = malloc((size_t)((num_rows + 2) * n) * sizeof(double));
  nt->curved = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (!nt->vectors || !nt->rows || !nt->curved) {
    ss_newton_end(nt);
    return SS_ERR_ALLOC;
  }
  nt->curvature = nt->rows + num_rows * n;
  nt->z = nt->curvature + n;
  /* The model the solver returned (w = factor u; SDCA's ray included). */
  double *w = nt->vectors;
  for (int64_t k = 0; k < d; ++k) w[k] = self->factor * self->u[k];
  if (nt->m > d) w[d] = self->bias / B;
  return SS_OK;
}

void ss_newton_end(Newton *nt)
{
  free(nt->vectors);
  free(nt->rows);
  free(nt->curved);
  nt->vectors = nt->rows = NULL;
  nt->curved = NULL;
}

void ss_newton_list_curved(Newton *nt)
{
  nt->num_curved = 0;
  for (int64_t i = 0; i < nt->n; ++i)
    if (nt->curvature[i] != 0) nt->curved[nt->num_curved++] = i;
}

bool ss_newton_interrupted(const SsSvm *self)
{
  return self->interrupt_fn && self->interrupt_fn(self->interrupt_user) != 0;
}

void ss_newton_scores(const Newton *nt, const double *v, bool with_offset, double *scores)
{
  const double b = (nt->m > nt->d ? nt->B * v[nt->d] : 0.0) + (with_offset ? nt->offset : 0.0);
  ss_source_scores(&nt->svm->source, v, b, scores, nt->svm->threads);
}

void ss_newton_accumulate(const Newton *nt, const double *a, double *out)
{
  for (int64_t i = 0; i < nt->n; ++i) {
    if (a[i] == 0) continue;
    ss_source_accumulate(&nt->svm->source, i, out, a[i]);
    if (nt->m > nt->d) out[nt->d] += a[i] * nt->B;
  }
}

/* P at w~ with scores s (computed here). */
static double newton_objective(const Newton *nt, const double *w, double *s)
{
  const SsSvm *self = nt->svm;
  ss_newton_scores(nt, w, true, s);
  double loss = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (c > 0) loss += c * ss_loss_value(self->loss, &self->custom_loss, s[i], self->labels[i]);
  }
  return 0.5 * self->lambda * ss_newton_dot(w, w, nt->m) + loss / (double)nt->n;
}

/* g = grad P at w~ with scores s; the curvatures c_i loss''(s_i)/n; and
 * the dual objective of alpha(w~), returned (the certificate). */
static double newton_gradient(Newton *nt, const double *w, const double *s, double *g)
{
  const SsSvm *self = nt->svm;
  const double lambda = self->lambda, inv_n = 1.0 / (double)nt->n;
  double *a = nt->z; /* c_i loss'(s_i) / n, then reused as scratch */
  double linear = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i), y = self->labels[i];
    a[i] = 0;
    nt->curvature[i] = 0;
    if (!(c > 0)) continue;
    const double derivative = ss_loss_derivative(self->loss, &self->custom_loss, s[i], y);
    linear -= c * ss_loss_conjugate(self->loss, &self->custom_loss, derivative, y) - c * derivative * nt->offset;
    a[i] = c * derivative * inv_n;
    nt->curvature[i] = c * loss_second_derivative(self->loss, s[i], y) * inv_n;
  }
  ss_newton_list_curved(nt);
  for (int64_t k = 0; k < nt->m; ++k) g[k] = lambda * w[k];
  ss_newton_accumulate(nt, a, g);
  /* ||v(alpha)||^2 with v = w~ - g / lambda */
  double v2 = 0;
  for (int64_t k = 0; k < nt->m; ++k) {
    const double v = w[k] - g[k] / lambda;
    v2 += v * v;
  }
  return linear * inv_n - 0.5 * lambda * v2;
}

bool ss_newton_diagonal(const Newton *nt, double *diagonal)
{
  const SsSvm *self = nt->svm;
  for (int64_t k = 0; k < nt->m; ++k) diagonal[k] = self->lambda;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double curvature = nt->curvature[i];
    if (curvature == 0) continue;
    if (!ss_source_accumulate_squares(&self->source, i, diagonal, curvature)) return false;
    if (nt->m > nt->d) diagonal[nt->d] += curvature * nt->B * nt->B;
  }
  return true;
}

/* out = H v at the point whose curvatures (and their list) the caller
 * stored. Where at most half the rows are curved (the hinge's band, the
 * squared hinge's margin set) only those are read, row by row: on w8a at
 * C = 1e3 the smoothed hinge's last band held 634 of 49,749 rows, and a
 * pass of scores over all rows made the finish's CG products 80 times
 * dearer than they need be. */
static void newton_hessian_product(Newton *nt, const double *v, double *out)
{
  const SsDataSource *source = &nt->svm->source;
  for (int64_t k = 0; k < nt->m; ++k) out[k] = nt->svm->lambda * v[k];
  if (2 * nt->num_curved > nt->n) {
    ss_newton_scores(nt, v, false, nt->z);
    for (int64_t i = 0; i < nt->n; ++i) nt->z[i] *= nt->curvature[i];
    ss_newton_accumulate(nt, nt->z, out);
    return;
  }
  const bool biased = nt->m > nt->d;
  const double b = biased ? nt->B * v[nt->d] : 0.0;
  for (int64_t j = 0; j < nt->num_curved; ++j) {
    const int64_t i = nt->curved[j];
    const double a = nt->curvature[i] * (ss_source_inner_product(source, i, v) + b);
    ss_source_accumulate(source, i, out, a);
    if (biased) out[nt->d] += a * nt->B;
  }
}

int64_t ss_newton_product_rows(const Newton *nt)
{
  return 2 * (2 * nt->num_curved > nt->n ? nt->n : nt->num_curved);
}

/* <a, b>_M = sum_k M_k a_k b_k, the metric of a preconditioned trust
 * region (M NULL: the plain inner product). */
static double metric_dot(const double *a, const double *b, const double *M, int64_t m)
{
  if (!M) return ss_newton_dot(a, b, m);
  double sum = 0;
  for (int64_t k = 0; k < m; ++k) sum += M[k] * a[k] * b[k];
  return sum;
}

int64_t ss_newton_cg(Newton *nt, const double *g, double delta, const double *preconditioner, double forcing,
                     double *s, double *r, double *work)
{
  const int64_t m = nt->m;
  double *p = work, *Hp = work + m, *z = preconditioner ? work + 2 * m : r; /* z = M^-1 r */
  for (int64_t k = 0; k < m; ++k) {
    s[k] = 0;
    r[k] = -g[k];
    if (preconditioner) z[k] = r[k] / preconditioner[k];
    p[k] = z[k];
  }
  const double tolerance = forcing * sqrt(ss_newton_dot(g, g, m));
  int64_t max_steps = 2 * (m + 1);
  if (max_steps > SS_NEWTON_MAX_CG_STEPS) max_steps = SS_NEWTON_MAX_CG_STEPS;
  double rz = ss_newton_dot(r, z, m), rr = ss_newton_dot(r, r, m);
  int64_t step = 0;
  for (; step < max_steps && sqrt(rr) > tolerance; ++step) {
    newton_hessian_product(nt, p, Hp);
    const double pHp = ss_newton_dot(p, Hp, m);
    if (!(pHp > 0)) break;
    const double a = rz / pHp;
    /* The region in the preconditioner's metric, in which preconditioned
     * CG's iterates grow monotonically (Steihaug). */
    const double *M = preconditioner;
    double ss = 0;
    for (int64_t k = 0; k < m; ++k) ss += (M ? M[k] : 1.0) * (s[k] + a * p[k]) * (s[k] + a * p[k]);
    if (ss > delta * delta) {
      /* tau >= 0 with ||s + tau p||_M = delta */
      const double sp = metric_dot(s, p, M, m), pp = metric_dot(p, p, M, m), s2 = metric_dot(s, s, M, m);
      const double room = delta * delta - s2;
      const double root = sqrt(sp * sp + pp * room);
      const double tau = sp >= 0 ? room / (sp + root) : (root - sp) / pp;
      for (int64_t k = 0; k < m; ++k) {
        s[k] += tau * p[k];
        r[k] -= tau * Hp[k];
      }
      return step + 1;
    }
    for (int64_t k = 0; k < m; ++k) {
      s[k] += a * p[k];
      r[k] -= a * Hp[k];
      if (preconditioner) z[k] = r[k] / preconditioner[k];
    }
    const double rz_next = ss_newton_dot(r, z, m);
    const double beta = rz_next / rz;
    for (int64_t k = 0; k < m; ++k) p[k] = z[k] + beta * p[k];
    rz = rz_next;
    rr = preconditioner ? ss_newton_dot(r, r, m) : rz;
  }
  return step;
}

/* The new trust-region radius after a trial step of length @p snorm with
 * actual and predicted decreases; @p fit is the step-length factor of the
 * quadratic fitted along s. */
static double newton_radius(double delta, double snorm, double actual, double predicted, double fit)
{
  if (actual < eta0 * predicted) return fmin(fmax(fit, sigma1) * snorm, sigma2 * delta);
  if (actual < eta1 * predicted) return fmax(sigma1 * delta, fmin(fit * snorm, sigma2 * delta));
  if (actual < eta2 * predicted) return fmax(sigma1 * delta, fmin(fit * snorm, sigma3 * delta));
  return fmax(delta, fmin(fit * snorm, sigma3 * delta));
}

/* The exact line search along v: the t > 0 minimising phi(t) = P(w~ + t v)
 * for a convex P whose loss part is piecewise smooth along the line,
 *
 *     phi'(t)  = lambda <w~ + t v, v> + [the loss's share at t],
 *     phi''(t) = lambda ||v||^2      + [the loss's share at t],
 *
 * by Newton steps on phi' from t = 1 (the Newton step's own length), kept
 * inside a bracket of its root: a step that leaves the bracket bisects it
 * (doubles t while no upper end is known). phi' is increasing, so the
 * bracket only shrinks; on a piecewise quadratic phi the steps end on the
 * root once t's piece is the root's. O(n) per step, at most 100 steps.
 * z = nt->z holds <x~_i, v>; the loss's shares are added by @p share. */
double ss_newton_line_search(Newton *nt, const double *w, const double *v, const double *s,
                             SsNewtonLineShare share, const void *context)
{
  double *z = nt->z;
  ss_newton_scores(nt, v, false, z);
  const double lambda = nt->svm->lambda, wv = ss_newton_dot(w, v, nt->m), vv = ss_newton_dot(v, v, nt->m);
  double lo = 0, hi = INFINITY, t = 1;
  for (int step = 0; step < 100; ++step) {
    double slope = lambda * (wv + t * vv), curvature = lambda * vv;
    share(nt, s, t, context, &slope, &curvature);
    if (slope == 0) break;
    if (slope < 0) lo = t; else hi = t;
    double next = t - slope / curvature;
    if (!(next > lo && next < hi)) next = isfinite(hi) ? 0.5 * (lo + hi) : 2 * t;
    if (next == t || (isfinite(hi) && hi - lo <= 1e-12 * hi)) break;
    t = next;
  }
  return t;
}

/* The squared hinge's share of phi' and phi'' at t: P along v is a convex
 * piecewise quadratic,
 *
 *     phi'(t) = lambda <w~ + t v, v> - 2/n sum_i c_i y_i z_i max(0, 1 - y_i (s_i + t z_i)). */
static void squared_hinge_line_share(const Newton *nt, const double *s, double t, const void *context,
                                     double *slope, double *curvature)
{
  (void)context;
  const SsSvm *self = nt->svm;
  const double *z = nt->z, inv_n = 1.0 / (double)nt->n;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i), y = self->labels[i];
    const double margin = 1 - y * (s[i] + t * z[i]);
    if (!(c > 0) || margin <= 0) continue;
    *slope -= 2 * c * y * z[i] * margin * inv_n;
    *curvature += 2 * c * z[i] * z[i] * inv_n;
  }
}

/* The hinge and l1 losses: newton_hinge.c's smoothing method, not this
 * file's, finishes them. */
static bool piecewise_linear(const SsSvm *self)
{
  return self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1;
}

bool ss_sdca_newton_wanted(const SsSvm *self)
{
  /* The hinge and l1 (newton_hinge.c's smoothing method), as the primal
   * solvers' finish: under "auto", not after a cap the caller set
   * (max_num_iterations = 10 asks for ten steps, not a solve). */
  if (piecewise_linear(self) && !self->newton.forced && self->max_num_iterations > 0) return false;
  return self->alpha && !self->newton.disabled && !self->ray.shifted && self->epsilon > 0 &&
         (ss_svm_primal_certificate_kind(self) == SS_RUN_BOUND_TIGHT || piecewise_linear(self));
}

/* Write the result back as the solver's model (the header comment): w~,
 * its scores and the statistics; SDCA adds its dual variables
 * (ss_sdca_newton_fallback). */
void ss_newton_write_back(Newton *nt, const double *w, const double *s, double primal, double dual,
                          SsSvmStatus status)
{
  SsSvm *self = nt->svm;
  const int64_t n = nt->n, d = nt->d;
  memcpy(self->u, w, (size_t)d * sizeof(double));
  self->factor = 1.0;
  if (nt->m > d) self->bias = nt->B * w[d];
  ss_svm_realise_model(self);
  if (s != self->scores) memcpy(self->scores, s, (size_t)n * sizeof(double));
  self->has_scores = true;

  SsSvmStatistics *st = &self->statistics;
  st->regularizer = 0.5 * self->lambda * ss_newton_dot(w, w, nt->m);
  st->loss = primal - st->regularizer;
  st->objective = primal;
  st->dual_objective = dual;
  st->duality_gap = primal - dual;
  st->status = status;
  st->num_newton_iterations = self->newton.iterations;
  st->elapsed_time = ss_clock_seconds() - self->train_start_time;
}

/* Whether the diagonal of the Hessian's bound, lambda + 1/n sum_i c_i
 * kappa x~_ik^2 (kappa the loss's largest second derivative: a property
 * of the data, not of the point, whose curvatures may all underflow, as
 * at SDCA's model of the README's points times 1e80), spans more than
 * SS_NEWTON_SCALE_SPREAD: the CG of the steps is then preconditioned by
 * the Hessian's diagonal. @p diagonal is scratch. */
static bool badly_scaled(const Newton *nt, double *diagonal)
{
  const SsSvm *self = nt->svm;
  const double kappa = self->loss == SS_LOSS_LOGISTIC ? 0.25 : 2.0;
  for (int64_t k = 0; k < nt->m; ++k) diagonal[k] = self->lambda;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double curvature = ss_newton_weight(self, i) * kappa / (double)nt->n;
    if (!(curvature > 0)) continue;
    if (!ss_source_accumulate_squares(&self->source, i, diagonal, curvature)) return false;
    if (nt->m > nt->d) diagonal[nt->d] += curvature * nt->B * nt->B;
  }
  double least = INFINITY, most = 0;
  for (int64_t k = 0; k < nt->m; ++k) {
    least = fmin(least, diagonal[k]);
    most = fmax(most, diagonal[k]);
  }
  return !(most <= SS_NEWTON_SCALE_SPREAD * least);
}

SsStatus ss_newton_solve(SsSvm *self)
{
  Newton nt;
  if (ss_newton_begin(self, &nt, 8, 2) != SS_OK) return SS_ERR_ALLOC;
  const int64_t n = nt.n, m = nt.m;
  double *w = nt.vectors, *g = w + m, *step = g + m, *r = step + m, *work = r + m; /* work: 3 m */
  double *diagonal = work + 3 * m;
  bool preconditioned = false; /* the squared hinge's CG (below) */
  double *s = nt.rows, *s_trial = s + n;
  double primal = newton_objective(&nt, w, s);
  double dual = newton_gradient(&nt, w, s, g);
  const double g0 = sqrt(ss_newton_dot(g, g, m));
  double delta = g0;
  /* Rows of very different scales, or a bias feature B far from the
   * rows' scale (the README's points times 1e50: a diagonal of 1e100
   * beside 0.01): plain CG moved w only, and the logistic finish crept to
   * P = 0.347 where the optimum is 0.0687. */
  preconditioned = badly_scaled(&nt, diagonal);
  if (preconditioned && ss_newton_diagonal(&nt, diagonal)) {
    /* The region's radius in the diagonal's metric: ||D^-1 g||_D. */
    double gDg = 0;
    for (int64_t k = 0; k < m; ++k) gDg += g[k] * g[k] / diagonal[k];
    delta = sqrt(gDg);
  }
  SsSvmStatus status = SS_SVM_STATUS_MAX_ITERATIONS;
  for (int64_t k = 0;; ++k) {
    if (primal - dual <= self->epsilon * fmax(primal, dual)) {
      status = SS_SVM_STATUS_CONVERGED;
      break;
    }
    if (k == SS_NEWTON_MAX_ITERATIONS || !isfinite(primal)) break;
    if (ss_newton_interrupted(self)) {
      status = SS_SVM_STATUS_INTERRUPTED;
      break;
    }
    const double forcing = sqrt(sqrt(ss_newton_dot(g, g, m)) / g0);
    if (self->loss == SS_LOSS_HINGE2) {
      /* Newton's step with the exact line search (the header comment). */
      const bool diagonal_ready = preconditioned && ss_newton_diagonal(&nt, diagonal);
      ss_newton_cg(&nt, g, INFINITY, diagonal_ready ? diagonal : NULL, fmin(SS_NEWTON_LINE_CG_TOLERANCE, forcing),
                   step, r, work);
      self->newton.iterations++;
      const double t = ss_newton_line_search(&nt, w, step, s, squared_hinge_line_share, NULL);
      for (int64_t j = 0; j < m; ++j) work[j] = w[j] + t * step[j];
      const double trial = newton_objective(&nt, work, s_trial);
      if (!(trial < primal)) {
        /* No decrease: on badly scaled rows (the README's points times
         * 1e50 to 1e152) plain CG's products lose the direction or
         * overflow; the steps go on preconditioned by H's diagonal. */
        if (preconditioned) break;
        preconditioned = true;
        continue;
      }
      memcpy(w, work, (size_t)m * sizeof(double));
      memcpy(s, s_trial, (size_t)n * sizeof(double));
      primal = trial;
      dual = newton_gradient(&nt, w, s, g);
      continue;
    }
    const bool diagonal_ready = preconditioned && ss_newton_diagonal(&nt, diagonal);
    ss_newton_cg(&nt, g, delta, diagonal_ready ? diagonal : NULL, fmin(SS_NEWTON_CG_TOLERANCE, forcing), step, r,
                 work);
    self->newton.iterations++;
    const double gs = ss_newton_dot(g, step, m);
    const double predicted = -0.5 * (gs - ss_newton_dot(step, r, m));
    for (int64_t j = 0; j < m; ++j) work[j] = w[j] + step[j];
    const double trial = newton_objective(&nt, work, s_trial);
    const double actual = isfinite(trial) ? primal - trial : -INFINITY;
    const double snorm = sqrt(metric_dot(step, step, diagonal_ready ? diagonal : NULL, m));
    if (k == 0) delta = fmin(delta, snorm);
    const double rise = trial - primal - gs; /* the quadratic fit along s */
    const double fit = rise <= 0 ? sigma3 : fmax(sigma1, -0.5 * gs / rise);
    delta = newton_radius(delta, snorm, actual, predicted, fit);
    if (actual > eta0 * predicted) {
      memcpy(w, work, (size_t)m * sizeof(double));
      memcpy(s, s_trial, (size_t)n * sizeof(double));
      primal = trial;
      dual = newton_gradient(&nt, w, s, g);
    }
    /* No descent left in floating point (g rounds to 0, or the region to a point). */
    if (!(predicted > 0) || !(delta > 0)) break;
  }
  ss_newton_write_back(&nt, w, s, primal, dual, status);
  ss_newton_end(&nt);
  return status == SS_SVM_STATUS_INTERRUPTED ? SS_ERR_INTERRUPTED : SS_OK;
}

void ss_sdca_stall_begin(SsSvm *self)
{
  SsSdcaNewton *nt = &self->newton;
  nt->run_start = self->iteration;
  nt->run_cap = ss_svm_effective_max_num_iterations(self);
  nt->best_gap = INFINITY;
  nt->checkpoint_epochs = 0;
  nt->checkpoint_gap = INFINITY;
  nt->checkpoint_rate = 0;
  nt->checkpoint_power = 0;
}

bool ss_stall_doubled(SsSdcaNewton *nt, double epochs, double gap, double *before, double *before_epochs)
{
  nt->best_gap = fmin(nt->best_gap, gap);
  if (!(nt->checkpoint_epochs > 0)) {
    nt->checkpoint_epochs = epochs;
    nt->checkpoint_gap = nt->best_gap;
    return false;
  }
  if (epochs < 2 * nt->checkpoint_epochs) return false;
  *before = nt->checkpoint_gap;
  *before_epochs = nt->checkpoint_epochs;
  nt->checkpoint_epochs = epochs;
  nt->checkpoint_gap = nt->best_gap;
  return true;
}

/* The stall rule, at each training diagnostic of a run the fallback would
 * continue. It watches g = (P - D) / D, the quantity the stop compares with
 * epsilon (+inf while D <= 0), at its best so far, over doublings of the
 * run's epochs T. With the rate of the last doubling, per epoch,
 * rho = ln(g(T/2) / g(T)) / (T/2), the run hands over when
 *
 *   - g did not fall over the doubling (rho <= 0), or
 *   - even a geometric fall at rho would need T + ln(g / epsilon) / rho
 *     epochs, more than twice the cap, or
 *   - rho fell to 0.6 times the previous doubling's (a power law
 *     g ~ T^-p halves it at every doubling; a geometric fall keeps it),
 *     T >= 16 epochs, and that power law, p = ln(g(T/2) / g(T)) / ln 2,
 *     would need T (g / epsilon)^(1/p) epochs, more than twice the cap.
 *     (Without the margin and the 16 epochs, the rule handed w8a's hinge
 *     run at tol 1e-4 over at epoch 195 where plain epochs reach the gap
 *     at 970, 0.75 s against the Newton finish's 16 s; and, with a
 *     diagnostic every epoch, a9a's and w8a's at epochs 4-9.)
 *
 * Measured on the raw sets where SDCA stalls (breast_cancer, wine and the
 * unscaled set, hinge2 and logistic, C = 10 to 1e3): g was 1e3 to 1e9 times
 * epsilon = 1e-3 and fell like 1/T (halving per doubling, from 1 to 4096
 * epochs), so the hand-over came after 15 to 20 epochs on breast_cancer
 * instead of the 2,268 of the estimators' work-based cap. On a9a, w8a and
 * ijcnn1 (lambda = 1/n) every run that converges did so without it, bit for
 * bit (docs/stopping.rst). A run whose rate holds, or rises (the tail of a
 * linearly converging run), is never judged stalled unless its own rate
 * says the cap is too short.
 *
 * With the l1 loss the power-law branch also needs a power p that did not
 * grow over the last doubling. Its gap falls faster and faster once the
 * signs of the residuals y_i - s_i settle (a9a, +-1 targets, lambda = 1/n:
 * g = 4.1, 0.91, 0.21, 0.041 at epochs 4, 10, 20, 40, p = 1.6, 2.1, 2.3,
 * converged at epoch 70; w8a: p = 1.2, 1.4, 2.8, converged at 77), where
 * the power law of one doubling, continued, projected 350 and 2,500
 * epochs: the hinge's rule handed both over at epoch 20, Newton's finish
 * slower than the epochs left. Where coordinate steps stall, p holds near
 * 1 (standardized breast_cancer at C = 1, which SDCA alone takes 2,457
 * epochs to certify: p = 1.13, 1.33, 1.28, handed over at epoch 40; a9a
 * at C = 100: 1.10, 1.09, at epoch 20). */
bool ss_sdca_stall_check_due(const SsSvm *self)
{
  const SsSdcaNewton *nt = &self->newton;
  if (!ss_sdca_newton_wanted(self)) return false;
  const double epochs = (double)(self->iteration - nt->run_start) / (double)self->source.num_data;
  return !(nt->checkpoint_epochs > 0) || epochs >= 2 * nt->checkpoint_epochs;
}

bool ss_sdca_stalled(SsSvm *self, const SsRunMeasure *m)
{
  SsSdcaNewton *nt = &self->newton;
  if (!ss_sdca_newton_wanted(self)) return false;
  const double n = (double)self->source.num_data;
  const double epochs = (double)(self->iteration - nt->run_start) / n;
  const double gap = m->dual > 0 ? (m->primal - m->dual) / m->dual : INFINITY;
  double before, before_epochs;
  if (!ss_stall_doubled(nt, epochs, gap, &before, &before_epochs)) return false;
  /* The rate of the last doubling, per epoch, as if the gap fell linearly
   * (geometrically): gap ~ exp(-rate epochs). */
  const double now = nt->best_gap;
  const double rate = log(before / now) / (epochs - before_epochs);
  const double power = log(before / now) / log(epochs / before_epochs);
  const double previous_rate = nt->checkpoint_rate, previous_power = nt->checkpoint_power;
  nt->checkpoint_rate = rate;
  nt->checkpoint_power = power;
  if (!isfinite(now) || !(rate > 0)) return true; /* no progress over a doubling */
  const double cap = (double)nt->run_cap / n, orders = log(now / self->epsilon);
  /* Even at a steady geometric rate the cap would not do. */
  if (epochs + orders / rate > SS_SDCA_STALL_MARGIN * cap) return true;
  /* Slowing down as a power law (the rate per epoch halves when the epochs
   * double), which would not meet epsilon within the cap; with l1, only a
   * power that did not grow (the comment above). */
  if (self->loss == SS_LOSS_L1 && !(power <= previous_power)) return false;
  return previous_rate > 0 && rate <= SS_SDCA_STALL_SLOWDOWN * previous_rate &&
         epochs >= SS_SDCA_STALL_POWER_EPOCHS && epochs * exp(orders / power) > SS_SDCA_STALL_MARGIN * cap;
}

SsStatus ss_svm_set_newton_fallback(SsSvm *self, int mode)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_newton_fallback");
  const unsigned solvers = SS_SOLVER_BIT(SS_SOLVER_SDCA) | SS_SOLVER_BIT(SS_SOLVER_SGD) |
                           SS_SOLVER_BIT(SS_SOLVER_SVMSGD2) | SS_SOLVER_BIT(SS_SOLVER_SGDQN) |
                           SS_SOLVER_BIT(SS_SOLVER_RES) | SS_SOLVER_BIT(SS_SOLVER_LRES);
  if (ss_svm_require_solver(self, "set_newton_fallback", solvers) != SS_OK) return SS_ERR_BAD_STATE;
  self->newton.disabled = mode == SS_SVM_NEWTON_FALLBACK_OFF;
  self->newton.forced = mode != SS_SVM_NEWTON_FALLBACK_OFF && mode != SS_SVM_NEWTON_FALLBACK_AUTO;
  return ss_svm_succeed(self);
}

int ss_svm_get_newton_fallback(const SsSvm *self)
{
  if (!self) return 0;
  if (self->solver == SS_SOLVER_NONE || self->newton.disabled) return SS_SVM_NEWTON_FALLBACK_OFF;
  /* (SDCA's AUTO is ON for its smooth losses: primal_finish.c) */
  if (self->newton.forced || (self->solver == SS_SOLVER_SDCA && !piecewise_linear(self)))
    return SS_SVM_NEWTON_FALLBACK_ON;
  return SS_SVM_NEWTON_FALLBACK_AUTO;
}
