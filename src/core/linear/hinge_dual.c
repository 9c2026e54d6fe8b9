/* hinge_dual.c -- the last stage of the hinge and l1 finish
 * (newton_hinge.c): coordinate ascent on the loss's own dual, started from
 * the dual point a smoothed Newton solve hands over.
 *
 * The problem is newton_hinge.c's: with x~_i = (x_i, B), scores
 * s_i = <w~, x~_i> + b (b the fixed offset when B = 0, else 0),
 *
 *     D(alpha) = -lambda/2 ||v(alpha)||^2 + 1/n sum_i alpha_i (y_i - b),
 *     v(alpha) = 1/(lambda n) sum_i alpha_i x~_i,
 *
 * over the box alpha_i in [min(0, c_i y_i), max(0, c_i y_i)] (the hinge)
 * or [-c_i, c_i] (l1; both ss_dual_box, loss.h), and the primal model is
 * w~ = v(alpha). Along one coordinate D is a concave quadratic,
 *
 *     dD/dalpha_i   = (y_i - s_i) / n,          s_i = <v(alpha), x~_i> + b,
 *     d2D/dalpha_i2 = -Q_i / (lambda n^2),      Q_i = ||x~_i||^2,
 *
 * so its maximiser in the box is alpha_i + lambda n (y_i - s_i) / Q_i,
 * clipped (Hsieh et al. 2008, "A dual coordinate descent method for
 * large-scale linear SVM", LIBLINEAR's -s 3; SDCA's closed-form step for
 * the hinge, sdca.c). Each step reads one row and, when alpha_i moves,
 * adds (delta / (lambda n)) x~_i to the model kept as v(alpha).
 *
 * Shrinking (the paper's section 3.2). A coordinate at a bound whose
 * gradient points out of the box by more than the largest violation of
 * the previous sweep, |projected gradient| over the coordinates that could
 * move, is taken out of the sweeps: at the optimum it stays at its bound.
 * A sweep visits the coordinates still in, in an order drawn from (seed,
 * sweep).
 *
 * The stop is the loss's relative duality gap, the certificate of every
 * finish. Any primal point bounds P* from above and any feasible alpha
 * from below, so the gap is read between D(alpha) and the best model seen:
 * the caller's (Newton's, whose value it passes) or a point v(alpha) of
 * the ascent, whose P is noisy from sweep to sweep (w8a, C = 1: it rose at
 * 2 of the first 8 checks, while D rose at every one). The certificate costs one
 * score pass: after every sweep at first, then every 1 + sweeps/4 sweeps,
 * at most 8, and never before the sweeps since the last one read as many
 * rows as it does (a shrunk list makes sweeps cheap: on digits, 28 of
 * 1,347 rows active, a certificate every 8 sweeps read 3 to 6 times the rows
 * of the sweeps); the ascent ends converged when P - D <= epsilon max(P, D).
 * The same pass gives every coordinate's gradient, so a coordinate taken
 * out whose gradient no longer points out of the box by the last sweep's
 * violation is put back. Before the stop is declared D is read again with
 * v(alpha) rebuilt from alpha (one accumulation pass), so that the
 * certificate is that of alpha itself, not of a model carrying the sweeps'
 * rounding.
 *
 * Why a last stage and not the whole finish: on raw features or at large C
 * (where SDCA's own steps stall and hand over to newton_hinge.c) the
 * coordinate steps converge slowly, and Newton's smoothed steps are the
 * method; near the optimum of a well-conditioned problem the smoothed
 * Hessian's band becomes small and ill-conditioned as the width falls, and
 * the last widths' Newton steps cost most of the finish, while from a
 * smoothed optimum most of the dual variables are already at their
 * bounds, and shrunk sweeps certify (docs/stopping.rst). The ascent
 * therefore runs under a budget of sweeps, or of rows read (the caller's
 * choice, newton_hinge.c: a sweep reads its active rows once and once
 * more each that moves, a certificate all rows), and gives up when its
 * gap's rate of fall over the last doubling of the sweeps, continued
 * geometrically, would not meet epsilon within that budget (and within
 * 200 sweeps), unless, from a stalled width, alpha still settles: the
 * spread of the last sweep's projected gradients fell by at least half
 * over the doubling. (From a stalled width the best primal can lag far
 * behind a D already at its optimum: raw digits, class 0 at C = 1e3, D
 * was there after about 800 sweeps and the primal of v(alpha) fell below
 * Newton's only after 950, to D after 3,065. From a finished width the
 * best primal is that width's minimiser's and the gap's rate is the
 * judge: there the settling rule had run w8a's ascent at C = 1e3 for 157
 * sweeps where 37 had been made.) A settling alpha still stops at the
 * budget. The caller then continues its widths from its own point.
 *
 * Cost: a sweep reads the rows still in twice (a score and, when alpha_i
 * moves, an accumulation); the certificate one pass over all rows. Memory:
 * n indices (the sweep's list), the rest the caller's.
 */
#include "newton.h"
#include "../common/loss.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/** The stream of the sweeps' orders (SDCA's epochs use streams 0, 1, ...). */
#define SS_HINGE_DUAL_STREAM 0x68696e6765ull
/** After this many sweeps the ascent judges its rate of fall. */
#define SS_HINGE_DUAL_FIRST_JUDGEMENT 8
/** The certificate is read after every sweep at first, then every
 *  1 + sweeps/4, at most every this many. */
#define SS_HINGE_DUAL_CHECK_MOST 8
/** The gap's rate of fall must meet epsilon within this many sweeps (or
 *  the budget, if smaller); only a settling alpha runs the ascent longer. */
#define SS_HINGE_DUAL_HORIZON 200

/* w~ = v(alpha), exactly (one accumulation pass); the rows it read. */
static int64_t dual_model(Newton *nt, const double *alpha, double *w)
{
  const double scale = 1.0 / (nt->svm->lambda * (double)nt->n);
  int64_t rows = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    nt->z[i] = alpha[i] * scale;
    rows += alpha[i] != 0;
  }
  memset(w, 0, (size_t)nt->m * sizeof(double));
  ss_newton_accumulate(nt, nt->z, w);
  return rows;
}

/* P(w~) and D(alpha) for w~ = v(alpha), with the scores s of w~. */
static void dual_values(const Newton *nt, const double *alpha, const double *w, double *s, double *primal,
                        double *dual)
{
  const SsSvm *self = nt->svm;
  ss_newton_scores(nt, w, true, s);
  double loss = 0, linear = 0;
  for (int64_t i = 0; i < nt->n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (!(c > 0)) continue;
    loss += c * ss_loss_value(self->loss, NULL, s[i], self->labels[i]);
    linear += alpha[i] * (self->labels[i] - nt->offset);
  }
  const double half_ww = 0.5 * self->lambda * ss_newton_dot(w, w, nt->m), inv_n = 1.0 / (double)nt->n;
  *primal = half_ww + loss * inv_n;
  *dual = linear * inv_n - half_ww;
}

/* Coordinate i's gradient g = y_i - s_i (n dD/dalpha_i) points out of the
 * box at a bound by more than the violations [low, high] of a sweep. */
static bool stays_out(double alpha, double lo, double hi, double g, double low, double high)
{
  return (alpha <= lo && g < low) || (alpha >= hi && g > high);
}

/* One sweep over the list's first *count coordinates (the others are out),
 * shrinking as the header says; [*low, *high] in: the previous sweep's
 * violations, out: this sweep's. Returns the rows read (a score each, an
 * accumulation each that moved). */
static int64_t dual_sweep(Newton *nt, double *alpha, double *w, int64_t *list, int64_t *count, double *low,
                       double *high)
{
  const SsSvm *self = nt->svm;
  const double lambda_n = self->lambda * (double)nt->n, B = nt->B, B2 = nt->m > nt->d ? B * B : 0.0;
  double new_low = INFINITY, new_high = -INFINITY;
  int64_t rows = 0;
  for (int64_t k = 0; k < *count; ++k) {
    const int64_t i = list[k];
    const double c = ss_newton_weight(self, i), y = self->labels[i];
    double lo, hi;
    ss_dual_box(self->loss, c, y, &lo, &hi);
    const double bias = nt->m > nt->d ? B * w[nt->d] : nt->offset;
    const double g = y - ss_source_inner_product(&self->source, i, w) - bias;
    rows++;
    if (stays_out(alpha[i], lo, hi, g, *low, *high)) {
      list[k--] = list[--*count]; /* out; the last one takes its place */
      list[*count] = i;
      continue;
    }
    /* the projected gradient: how far the coordinate could still move */
    const double projected = alpha[i] <= lo ? fmax(g, 0.0) : alpha[i] >= hi ? fmin(g, 0.0) : g;
    new_low = fmin(new_low, projected);
    new_high = fmax(new_high, projected);
    if (projected == 0) continue;
    const double Q = self->row_norms2[i] + B2;
    const double next = Q > 0 ? fmin(hi, fmax(lo, alpha[i] + lambda_n * g / Q)) : (g > 0 ? hi : lo);
    const double delta = next - alpha[i];
    if (delta == 0) continue;
    alpha[i] = next;
    rows++;
    ss_source_accumulate(&self->source, i, w, delta / lambda_n);
    if (nt->m > nt->d) w[nt->d] += delta / lambda_n * B;
  }
  /* (a sweep with nothing left to move keeps the old thresholds open) */
  *low = new_low <= 0 ? new_low : -INFINITY;
  *high = new_high >= 0 ? new_high : INFINITY;
  return rows;
}

/* Put back the coordinates out of the sweeps (list[*count, weighted); the
 * zero weights lie past them, never in) whose gradient, from the
 * certificate's scores s, no longer points out by [low, high]. */
static void dual_restore(const Newton *nt, const double *alpha, const double *s, int64_t *list, int64_t *count,
                         int64_t weighted, double low, double high)
{
  const SsSvm *self = nt->svm;
  for (int64_t k = *count; k < weighted; ++k) {
    const int64_t i = list[k];
    double lo, hi;
    ss_dual_box(self->loss, ss_newton_weight(self, i), self->labels[i], &lo, &hi);
    if (stays_out(alpha[i], lo, hi, self->labels[i] - s[i], low, high)) continue;
    list[k] = list[*count];
    list[(*count)++] = i;
  }
}

/* The values at v(alpha) (its scores in s, one pass over the rows): the
 * best model so far becomes v(alpha) where its primal value is lower. */
static void dual_check(Newton *nt, const double *alpha, const double *v, double *s, double *best,
                       SsHingeDual *out)
{
  double primal;
  out->reads += nt->n;
  dual_values(nt, alpha, v, s, &primal, &out->dual);
  if (primal < out->primal) {
    out->primal = primal;
    memcpy(best, v, (size_t)nt->m * sizeof(double));
  }
}

/* The stop of every finish: P - D <= epsilon max(P, D). */
static bool certified(const SsHingeDual *out, double epsilon)
{
  return out->primal - out->dual <= epsilon * fmax(out->primal, out->dual);
}

SsStatus ss_hinge_dual_ascent(Newton *nt, double *alpha, double *v, double *best, double *scores, double bound,
                              int64_t max_sweeps, int64_t max_reads, bool settle, SsHingeDual *out)
{
  SsSvm *self = nt->svm;
  const int64_t n = nt->n;
  int64_t *list = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (!list) return SS_ERR_ALLOC;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double c = ss_newton_weight(self, i);
    if (c > 0) list[count++] = i; /* (a zero weight fixes alpha_i = 0) */
    else alpha[i] = 0;
  }
  for (int64_t k = count, i = 0; i < n; ++i) /* the zero weights, past them */
    if (!(ss_newton_weight(self, i) > 0)) list[k++] = i;
  const int64_t weighted = count;

  out->primal = bound;
  out->converged = false;
  out->sweeps = 0;
  out->reads = dual_model(nt, alpha, v);
  dual_check(nt, alpha, v, scores, best, out);
  double low = -INFINITY, high = INFINITY, checkpoint_gap = INFINITY, checkpoint_violation = INFINITY;
  int64_t next_check = 1, checkpoint = 0, checkpoint_reads = 0;
  const double horizon = (double)(max_sweeps < SS_HINGE_DUAL_HORIZON ? max_sweeps : SS_HINGE_DUAL_HORIZON);
  SsStatus status = SS_OK;
  for (;;) {
    if (certified(out, self->epsilon)) {
      /* the dual value of alpha itself, not of v carrying the sweeps' rounding */
      out->reads += dual_model(nt, alpha, v);
      dual_check(nt, alpha, v, scores, best, out);
      out->converged = certified(out, self->epsilon);
      if (out->converged) break;
    }
    const double gap = (out->primal - out->dual) / fmax(out->primal, out->dual);
    if (out->sweeps >= max_sweeps || out->reads >= max_reads || !(gap > 0) || !isfinite(gap)) break;
    /* The stall rule, at each doubling of the sweeps: the last doubling's
     * rate of fall of the gap (of the best model: it does not rise),
     * continued geometrically, must meet epsilon within the budget (at
     * most SS_HINGE_DUAL_HORIZON sweeps); or, as the best primal can lag
     * far behind alpha, alpha must still settle: the last sweep's
     * violation (the spread of its projected gradients, the optimality
     * condition LIBLINEAR stops on) fell by at least half over it. */
    if (out->sweeps >= 2 * checkpoint && out->sweeps >= SS_HINGE_DUAL_FIRST_JUDGEMENT) {
      if (checkpoint > 0) {
        const double swept = (double)(out->sweeps - checkpoint), rate = log(checkpoint_gap / gap) / swept;
        const double more = log(gap / self->epsilon) / rate; /* sweeps, at that rate */
        const double reads_per_sweep = (double)(out->reads - checkpoint_reads) / swept;
        const bool falling = rate > 0 && (double)out->sweeps + more <= horizon &&
                             (double)out->reads + more * reads_per_sweep <= (double)max_reads;
        const bool settling = settle && isfinite(high - low) && high - low <= 0.5 * checkpoint_violation;
        if (!falling && !settling) break;
      }
      checkpoint = out->sweeps;
      checkpoint_reads = out->reads;
      checkpoint_gap = gap;
      checkpoint_violation = high - low;
    }
    if (ss_newton_interrupted(self)) {
      status = SS_ERR_INTERRUPTED;
      break;
    }
    /* (and on, while the sweeps since the check read fewer rows than a
     * check does: a shrunk list makes sweeps cheap, and the checks must
     * not cost most of the ascent) */
    const int64_t since = out->reads;
    while (out->sweeps < next_check ||
           (count > 0 && out->reads - since < n && out->sweeps < max_sweeps && out->reads < max_reads)) {
      ss_rng_shuffle(list, count, self->seed, SS_HINGE_DUAL_STREAM + (uint64_t)out->sweeps);
      out->reads += dual_sweep(nt, alpha, v, list, &count, &low, &high);
      out->sweeps++;
    }
    const int64_t interval = 1 + out->sweeps / 4;
    next_check = out->sweeps + (interval < SS_HINGE_DUAL_CHECK_MOST ? interval : SS_HINGE_DUAL_CHECK_MOST);
    dual_check(nt, alpha, v, scores, best, out);
    dual_restore(nt, alpha, scores, list, &count, weighted, low, high);
  }
  ss_newton_scores(nt, best, true, scores);
  free(list);
  return status;
}
