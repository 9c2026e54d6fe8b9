/* newton_hinge.c -- a certified Newton finish for the hinge and l1 losses
 * by smoothing with continuation: linear SDCA's fallback where its
 * coordinate steps stall on either (raw features, large C; newton.c's
 * stall rule), and the SGD family's finish for both (primal_finish.c), as
 * newton.c is for the smooth losses.
 *
 * The problem is SDCA's (sdca.c), x~_i = (x_i, B), w~ = (w, w_b), scores
 * s_i = <w~, x~_i> (+ the fixed offset b when B = 0):
 *
 *     P(w~)    = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, s_i),
 *     D(alpha) = -lambda/2 ||v(alpha)||^2 + 1/n sum_i alpha_i (y_i - b),
 *     v(alpha) = 1/(lambda n) sum_i alpha_i x~_i,
 *
 * with the hinge, loss = max(0, 1 - y s) (dual box y_i alpha_i in [0, c_i]),
 * or l1, loss = |y - s| (box alpha_i in [-c_i, c_i]); in both D's linear
 * term is -c_i loss*(a_i) = alpha_i y_i for a slope a_i = -alpha_i / c_i of
 * the loss.
 *
 * Neither loss has a second derivative, so Newton's method runs on the
 * loss smoothed over width mu (Shalev-Shwartz and Zhang 2013, section 5,
 * "smooth hinge"), a Huber function of the distance q past the kink
 * (q = 1 - y s for the hinge, |s - y| for l1):
 *
 *     h_mu = 0                   q <= 0 (the hinge only)
 *            q^2 / (2 mu)        0 <= q < mu   (the band)
 *            q - mu/2            q >= mu,
 *
 * convex, with h_mu <= loss <= h_mu + mu/2, slope h_mu' in [-1, 1] (a
 * slope of the loss clipped by the band), generalised second derivative
 * 1/mu on the band, else 0. Its primal P_mu (P with h_mu) is minimised by
 * the finite Newton method newton.c takes for the squared hinge: CG on
 * H s = -g (H = lambda I + 1/(n mu) sum_{band} c_i x~_i x~_i', ss_newton_cg)
 * to a residual of min(0.1, sqrt(||g|| / ||g_0||)) ||g|| (g_0 the
 * gradient at the width's first step: loose while far, tight near the
 * width's minimiser), preconditioned by H's diagonal lambda + 1/(n mu)
 * sum_{band} c_i x~_ik^2 (one pass over the band's rows; where the source
 * cannot give its rows' squares, callbacks or a kernel map, plain CG),
 * then the exact line search along s (P_mu along s is a convex piecewise
 * quadratic: its slope, piecewise linear and increasing, is solved by
 * bracketed Newton steps). The preconditioner halved the CG's Hessian
 * products on w8a from SGD's model (C = 1: 2,518 to 1,440; C = 1e3: 35,246
 * to 16,605), though with a few more Newton steps (50 to 64, 128 to 143).
 * A product reads the band's rows only (newton.c): at C = 1e3 on w8a the
 * band held 14 % of the rows at mu = 1 and 1.3 % (634 of 49,749) at the
 * last width, where a score pass over all rows per product had made the
 * CG 98 % of the finish's 20 s (2.4 s since, the same steps).
 *
 * The certificate is the loss's own duality gap. The map alpha_i = -c_i
 * h_mu'(s_i) is a feasible point of the *loss's* dual (the slope lies in
 * the box), and grad P_mu = lambda (w~ - v(alpha)), so v(alpha) = w~ -
 * g/lambda comes with the gradient. Every iteration computes P(w~) and
 * D(alpha) and the method stops when (P - D) / max(P, D) <= epsilon,
 * SDCA's relative gap, which bounds the primal suboptimality as SDCA's
 * stop does. How small mu must be: the smoothed dual is D_mu = D - mu/(2n)
 * sum_i c_i a_i^2, and
 *
 *     P - D = (P_mu - D_mu) + mu/n sum_{band} c_i |a_i| (1 - |a_i|),
 *
 * the smoothed gap (0 at the width's minimiser) plus the smoothing's share,
 * at most mu/(4n) sum_{band} c_i. Continuation: mu starts at 1; a stage
 * ends when its smoothed gap is at most the larger of half the target
 * epsilon max(P, D) and the smoothing's share (solving the width further
 * could not bring the loss's gap below that share), or when the line
 * search finds no decrease; the next width is mu times target / share
 * (the share falls about as mu), kept within [0.1, 0.5]: from an SGD
 * model near the optimum, a fixed factor 10 overshot (a9a, C = 1: mu =
 * 0.01 took 30 Newton iterations where 0.029 took 15). The run also stops
 * uncertified after 1000 Newton iterations (all stages), when mu would
 * fall below 1e-12, or on the caller's interrupt.
 *
 * The last stage on the dual (hinge_dual.c). The small widths are the
 * finish's cost: the band shrinks, H grows ill-conditioned (its band term
 * is 1/mu), and each stage takes more Newton steps of more CG products
 * (w8a, C = 1: widths 1, 0.1 and 0.01 took 4, 13 and 33 Newton steps of
 * 54, 482 and 1,982 products). Yet a width's minimiser already gives what
 * the exact problem's dual needs: alpha of the map is feasible, with
 * v(alpha) = w~ there, and most of its coordinates sit at their bounds.
 * So at the end of the first stage whose width is at most 0.1, the finish
 * hands alpha to coordinate ascent on the loss's own dual (LIBLINEAR's
 * dual method, with shrinking), which keeps the model of least P among
 * Newton's and the ascent's and stops on the same relative gap; on w8a
 * at C = 1 it certified in 101 sweeps (about a score pass each) where the
 * widths below 0.1 took 33 Newton steps. Where coordinate steps stall
 * (raw features, large C: where SDCA hands its hinge over to this method)
 * the ascent's own stall rule gives up within its budget of 200 sweeps,
 * and the widths continue from Newton's point as before, tried once.
 * A width that stalls hands over too: where P_mu fell by less than a
 * tenth over the width's last 50 Newton steps (raw digits, class 0 at
 * C = 1e3, nearly separable: at mu = 1 the line search cut the huge
 * directions to t ~ 1e-4 and the 1000 iterations ended uncertified) the
 * map's alpha at the current model goes to the ascent, which there
 * certified after 150 Newton steps and 3,065 sweeps.
 *
 * The ascent is tried once per solve, at whichever comes first: a stalled
 * width or the end of the first width <= 0.1. (A second try would start
 * from a point no better than the first one's: a stalled width's map is
 * farther from the optimum than a finished width's, and the first try's
 * stall rule already judged the coordinate steps slow there. On w8a at
 * C = 1e3 a width 0.01 "stalled" after the ascent had failed from the
 * width 0.1; tried again with a budget of 5000 sweeps the ascent tripled
 * the finish's time and Newton then certified from its own point.)
 * Budgets, in rows read (a score or an accumulation of one row: the
 * passes, the CG products over the band, the ascent's visits and its
 * certificate passes are all made of them): from a finished width the
 * ascent has its 200 sweeps, as before the stall hand-over; from a
 * stalled width it may read as many rows as the finish has read so far.
 * That is the rent-or-buy rule: the width left alone would go on at the
 * stalled pace up to the iteration cap, and an ascent that fails within
 * its budget costs at most what the finish had spent, so that the try
 * at most doubles the cost to that point. (Digits, class 0: the finish
 * had read 419 thousand rows, the ascent certified within 389 thousand;
 * its sweeps over 28 active coordinates cost little, its certificate
 * passes half of it. A row read in a sweep costs more time than one in a
 * score pass or a CG product: 7 times on w8a, visited in random order.)
 * Only from a stalled width may the ascent run on past its gap's
 * prediction while alpha settles (hinge_dual.c): there the best primal is
 * a stalled one and lags; from a finished width the gap's rate judges.
 *
 * Cost per iteration: one gradient pass (scores and one accumulation), the
 * preconditioner's pass over the band rows, the CG's Hessian products (an
 * inner product and an accumulation per band row each, or a score pass
 * when the band holds over half the rows) and the line search's score
 * pass and O(n) slopes; memory 10 (d + 1) + 4 n doubles, n indices (the
 * band's list) and n more during the dual ascent.
 *
 * Never worse. The steps lower P_mu, not P (P <= P_mu + mu/2 only), and
 * on data whose values near the largest the core accepts (rows of squared
 * norm 2.5e307: the README's six points times 1e153) the Hessian's
 * products overflow: the finish then ended above the model it was handed
 * (SDCA: P = 1.005 from 1; SGD: 2e271, from a model that SGD's first step
 * of 1/2 had left at 6e302, where w~ = 0 has P = 1). So it starts from
 * w~ = 0 when the model handed over is worse than that (or not finite),
 * and it returns the model handed over, with the better of the two lower
 * bounds and its own status (converged only if that gap meets epsilon),
 * whenever its own model ends with a larger P; SDCA then keeps the alpha
 * it came with, so that its next train continues from its own state.
 *
 * The write-back is newton.c's (ss_newton_write_back): w~, scores,
 * statistics (converged only when certified). SDCA's fallback
 * (ss_sdca_newton_fallback, sdca_newton.c) also keeps the certificate's alpha (the
 * map's, or the dual ascent's) as its dual variables, the model marked
 * stale so that a next train continues SDCA from alpha; the primal solvers
 * keep only the model.
 */
#include "newton.h"
#include "../common/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/** Newton iterations of one solve, over all stages (newton.c's cap). */
#define SS_HINGE_MAX_ITERATIONS 1000
/** CG stops at residual <= this ||g|| (newton.c's, for the squared hinge). */
#define SS_HINGE_CG_TOLERANCE 0.1
/** The continuation: the first width, its factor per stage, the least. */
#define SS_HINGE_MU_FIRST 1.0
#define SS_HINGE_MU_FACTOR 0.1
#define SS_HINGE_MU_FACTOR_MOST 0.5
#define SS_HINGE_MU_LEAST 1e-12
/** A stage ends when its smoothed gap is at most this share of epsilon max(P, D). */
#define SS_HINGE_STAGE_SHARE 0.5
/** The dual ascent's try (hinge_dual.c): at the end of the first stage
 *  whose width is at most this, within at most this many sweeps. */
#define SS_HINGE_DUAL_MU 0.1
#define SS_HINGE_DUAL_SWEEPS 200
/** A stage has stalled when P_mu fell by less than this share over its
 *  last this many Newton steps; the ascent is then tried (if it was not
 *  yet), within the rows the finish has read so far. */
#define SS_HINGE_STALL_STEPS 50
#define SS_HINGE_STALL_FALL 0.1

/* The smoothed loss h_mu at score s, label y (the header comment), with
 * *derivative = h_mu'(s) (in [-1, 1]) and *band: s lies where h_mu is
 * quadratic (second derivative 1/mu; elsewhere 0). q is how far s lies
 * past the kink: 1 - y s for the hinge, |s - y| for l1. */
static double smoothed_loss(SsLoss loss, double s, double y, double mu, double *derivative, bool *band)
{
  const bool hinge = loss == SS_LOSS_HINGE;
  const double q = hinge ? 1 - y * s : fabs(s - y);
  const double direction = hinge ? -y : (s < y ? -1.0 : 1.0);
  *band = false;
  *derivative = 0;
  if (hinge && q <= 0) return 0;
  if (q >= mu) {
    *derivative = direction;
    return q - 0.5 * mu;
  }
  *band = true;
  *derivative = direction * (q / mu);
  return 0.5 * q * (q / mu);
}

/* The values at a point: the loss's P and D, the smoothed P_mu and D_mu;
 * and the rows the gradient's accumulation read (alpha_i != 0). */
typedef struct {
  double primal, dual, smooth_primal, smooth_dual;
  int64_t support;
} HingeValues;

/* At w~ with scores s: g = grad P_mu, the band's curvatures, alpha of the
 * map and the values (the header comment). */
static HingeValues hinge_measure(Newton *nt, double mu, const double *w, const double *s, double *g,
                                 double *alpha)
{
  const SsSvm *self = nt->svm;
  const double lambda = self->lambda, inv_n = 1.0 / (double)nt->n;
  double *a = nt->z; /* -alpha_i / n */
  double loss = 0, smooth = 0, linear = 0, squares = 0;
  int64_t support = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i), y = self->labels[i];
    a[i] = alpha[i] = nt->curvature[i] = 0;
    if (!(c > 0)) continue;
    double derivative;
    bool band;
    smooth += c * smoothed_loss(self->loss, s[i], y, mu, &derivative, &band);
    loss += c * ss_loss_value(self->loss, NULL, s[i], y);
    alpha[i] = -c * derivative;
    linear -= c * derivative * y - c * derivative * nt->offset; /* -c_i loss*(a_i) - alpha_i b */
    squares += c * derivative * derivative;
    a[i] = -alpha[i] * inv_n;
    support += a[i] != 0;
    if (band) nt->curvature[i] = c * inv_n / mu;
  }
  ss_newton_list_curved(nt);
  for (int64_t k = 0; k < nt->m; ++k) g[k] = lambda * w[k];
  ss_newton_accumulate(nt, a, g);
  double v2 = 0; /* ||v(alpha)||^2, v = w~ - g / lambda */
  for (int64_t k = 0; k < nt->m; ++k) {
    const double v = w[k] - g[k] / lambda;
    v2 += v * v;
  }
  const double regularizer = 0.5 * lambda * ss_newton_dot(w, w, nt->m);
  HingeValues values = {.primal = regularizer + loss * inv_n, .smooth_primal = regularizer + smooth * inv_n,
                        .support = support};
  values.dual = linear * inv_n - 0.5 * lambda * v2;
  values.smooth_dual = values.dual - 0.5 * mu * squares * inv_n;
  return values;
}

/* P_mu at w~ with scores s. */
static double smoothed_objective(const Newton *nt, double mu, const double *w, const double *s)
{
  const SsSvm *self = nt->svm;
  double loss = 0, derivative;
  bool band;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (c > 0) loss += c * smoothed_loss(self->loss, s[i], self->labels[i], mu, &derivative, &band);
  }
  return 0.5 * self->lambda * ss_newton_dot(w, w, nt->m) + loss / (double)nt->n;
}

/* The smoothed loss's share of phi' and phi'' at t, for the exact line
 * search of phi(t) = P_mu(w~ + t p) (ss_newton_line_search):
 *
 *     phi'(t)  = lambda <w~ + t p, p> + 1/n sum_i c_i z_i h_mu'(s_i + t z_i),
 *     phi''(t) = lambda ||p||^2 + 1/(n mu) sum_{band} c_i z_i^2,   z_i = <x~_i, p>;
 *
 * @p context is the width mu. */
static void smoothed_line_share(const Newton *nt, const double *s, double t, const void *context, double *slope,
                                double *curvature)
{
  const SsSvm *self = nt->svm;
  const double mu = *(const double *)context, *z = nt->z, inv_n = 1.0 / (double)nt->n;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (!(c > 0)) continue;
    double derivative;
    bool band;
    smoothed_loss(self->loss, s[i] + t * z[i], self->labels[i], mu, &derivative, &band);
    *slope += c * z[i] * derivative * inv_n;
    if (band) *curvature += c * z[i] * z[i] * inv_n / mu;
  }
}

/* P at w~ = 0, whose scores are the fixed offset. */
static double zero_primal(const Newton *nt)
{
  const SsSvm *self = nt->svm;
  double loss = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (c > 0) loss += c * ss_loss_value(self->loss, NULL, nt->offset, self->labels[i]);
  }
  return loss / (double)nt->n;
}

SsStatus ss_newton_hinge_solve(SsSvm *self, double *alpha)
{
  /* vectors: w~, g, step, r, trial, diagonal, work (3), the start's w~;
   * rows: s_trial, then alpha (not kept) or the kept alpha as it came */
  Newton nt;
  if (ss_newton_begin(self, &nt, 10, 2) != SS_OK) return SS_ERR_ALLOC;
  const int64_t n = nt.n, m = nt.m;
  double *w = nt.vectors, *g = w + m, *step = g + m, *r = step + m, *trial = r + m, *diagonal = trial + m;
  double *work = diagonal + m, *start = work + 3 * m;
  double *s_trial = nt.rows, *scores = self->scores, *alpha_start = NULL;
  if (alpha) {
    alpha_start = s_trial + n;
    memcpy(alpha_start, alpha, (size_t)n * sizeof(double));
  } else {
    alpha = s_trial + n;
  }

  double mu = SS_HINGE_MU_FIRST, stage_g0 = 0; /* ||g|| at the stage's first step */
  int64_t iterations = 0;
  ss_newton_scores(&nt, w, true, scores);
  HingeValues at = hinge_measure(&nt, mu, w, scores, g, alpha);
  /* The model handed over, kept: the finish returns it where its own ends
   * worse (the header comment, "Never worse"). */
  memcpy(start, w, (size_t)m * sizeof(double));
  const double start_primal = at.primal, start_dual = at.dual;
  if (!(at.primal <= zero_primal(&nt))) {
    /* A model worse than w~ = 0 (or not finite) is no place to start from. */
    memset(w, 0, (size_t)m * sizeof(double));
    ss_newton_scores(&nt, w, true, scores);
    at = hinge_measure(&nt, mu, w, scores, g, alpha);
  }
  int64_t reads = n + at.support; /* the rows read so far: the finish's work */
  SsSvmStatus status = SS_SVM_STATUS_MAX_ITERATIONS;
  bool dual_tried = false, preconditioned = true;
  int64_t stage_steps = 0; /* the stage's Newton steps */
  double stage_checkpoint = 0; /* P_mu SS_HINGE_STALL_STEPS of them ago */
  bool stalled = false;
  for (;;) {
    const double scale = fmax(at.primal, at.dual);
    if (at.primal - at.dual <= self->epsilon * scale) {
      status = SS_SVM_STATUS_CONVERGED;
      break;
    }
    if (iterations == SS_HINGE_MAX_ITERATIONS || !isfinite(at.primal)) break;
    if (ss_newton_interrupted(self)) {
      status = SS_SVM_STATUS_INTERRUPTED;
      break;
    }
    /* The loss's gap is the smoothed gap plus the smoothing's share
     * mu/n sum_band c_i beta_i (1 - beta_i): a stage ends when its own
     * gap no longer dominates (a tighter solve at this width would not
     * bring the loss's gap under that share), or meets half the target. */
    const double smoothing = (at.primal - at.dual) - (at.smooth_primal - at.smooth_dual);
    bool stage_done = at.smooth_primal - at.smooth_dual <=
                      fmax(SS_HINGE_STAGE_SHARE * self->epsilon * scale, smoothing);
    if (!stage_done) {
      const double gnorm = sqrt(ss_newton_dot(g, g, m));
      if (!(stage_g0 > 0)) stage_g0 = gnorm;
      if (stage_steps == 0) stage_checkpoint = at.smooth_primal;
      const double forcing = fmin(SS_HINGE_CG_TOLERANCE, sqrt(gnorm / stage_g0));
      if (preconditioned) preconditioned = ss_newton_diagonal(&nt, diagonal); /* (a source without squares: once) */
      if (preconditioned) reads += nt.num_curved;
      const int64_t products = ss_newton_cg(&nt, g, INFINITY, preconditioned ? diagonal : NULL, forcing, step, r, work);
      reads += products * ss_newton_product_rows(&nt) + 2 * n; /* and the line search's pass, the trial's */
      iterations++;
      const double t = ss_newton_line_search(&nt, w, step, scores, smoothed_line_share, &mu);
      for (int64_t k = 0; k < m; ++k) trial[k] = w[k] + t * step[k];
      ss_newton_scores(&nt, trial, true, s_trial);
      const double smooth_primal = smoothed_objective(&nt, mu, trial, s_trial);
      if (smooth_primal < at.smooth_primal) {
        memcpy(w, trial, (size_t)m * sizeof(double));
        memcpy(scores, s_trial, (size_t)n * sizeof(double));
      } else {
        stage_done = true; /* no decrease left at this width */
      }
      if (++stage_steps % SS_HINGE_STALL_STEPS == 0) {
        stalled = smooth_primal > (1 - SS_HINGE_STALL_FALL) * stage_checkpoint;
        stage_checkpoint = smooth_primal;
      }
    }
    const bool stall_handover = stalled && !dual_tried;
    if (!dual_tried && ((stage_done && mu <= SS_HINGE_DUAL_MU) || stall_handover)) {
      dual_tried = true;
      /* alpha of the map and P at the model handed over: a stalled
       * width's last step moved w~ (a finished width's did not) */
      if (stall_handover) {
        at = hinge_measure(&nt, mu, w, scores, g, alpha);
        reads += at.support;
      }
      SsHingeDual ascent;
      memcpy(nt.curvature, alpha, (size_t)n * sizeof(double));
      memcpy(trial, w, (size_t)m * sizeof(double));
      const SsStatus tried =
          stall_handover
              ? ss_hinge_dual_ascent(&nt, nt.curvature, step, trial, s_trial, at.primal, INT64_MAX, reads, true, &ascent)
              : ss_hinge_dual_ascent(&nt, nt.curvature, step, trial, s_trial, at.primal, SS_HINGE_DUAL_SWEEPS,
                                     INT64_MAX, false, &ascent);
      reads += ascent.reads;
      if (tried == SS_OK && ascent.converged) {
        memcpy(alpha, nt.curvature, (size_t)n * sizeof(double));
        memcpy(w, trial, (size_t)m * sizeof(double));
        memcpy(scores, s_trial, (size_t)n * sizeof(double));
        at.primal = ascent.primal;
        at.dual = ascent.dual;
        status = SS_SVM_STATUS_CONVERGED;
        break;
      }
      if (tried == SS_ERR_INTERRUPTED) {
        status = SS_SVM_STATUS_INTERRUPTED;
        break;
      }
    }
    if (stage_done) {
      /* The share falls about as mu: the next width brings it to the
       * target, by at least a factor 2 and at most 10. */
      const double target = SS_HINGE_STAGE_SHARE * self->epsilon * scale;
      const double factor = fmin(SS_HINGE_MU_FACTOR_MOST, fmax(SS_HINGE_MU_FACTOR, target / smoothing));
      if (mu * factor < SS_HINGE_MU_LEAST) break;
      mu *= factor;
      stage_g0 = 0;
      stage_steps = 0;
      stalled = false;
    }
    at = hinge_measure(&nt, mu, w, scores, g, alpha);
    reads += at.support;
  }
  self->newton.iterations += iterations;
  if (!(at.primal <= start_primal) && isfinite(start_primal)) {
    /* Never worse than the model handed over: that model, with the better
     * of the two lower bounds (each D of a feasible alpha), certified if
     * its own gap meets epsilon; SDCA keeps the alpha it came with. */
    const double dual = isfinite(at.dual) ? fmax(at.dual, start_dual) : start_dual;
    memcpy(w, start, (size_t)m * sizeof(double));
    ss_newton_scores(&nt, w, true, scores);
    if (alpha_start) memcpy(alpha, alpha_start, (size_t)n * sizeof(double));
    at.primal = start_primal;
    at.dual = dual;
    const bool certified = start_primal - dual <= self->epsilon * fmax(start_primal, dual);
    if (status != SS_SVM_STATUS_INTERRUPTED) status = certified ? SS_SVM_STATUS_CONVERGED : SS_SVM_STATUS_MAX_ITERATIONS;
  }
  ss_newton_write_back(&nt, w, scores, at.primal, at.dual, status);
  ss_newton_end(&nt);
  return status == SS_SVM_STATUS_INTERRUPTED ? SS_ERR_INTERRUPTED : SS_OK;
}
