/* sdca_trend.c -- the budgeted checks of a linear SDCA run with the
 * logistic loss that its gap's trend says would fail: skipped.
 *
 * Under the diagnostic budget (run.c, epochs.c) the k-th check of a run
 * comes once the steps have done 10 k diagnostics' worth of work: every
 * 3 to 4 epochs for the logistic loss. Each is a full pass over the data
 * with an exponential and three logarithms per example (the loss
 * log(1 + exp(-y s)) and the entropy terms of the dual), and the rule
 * (relative gap g = (P - D) / D <= epsilon) fails at every one but the
 * last: on a9a (lambda = 1/n, epsilon 1e-8) 11 checks of 12 failed, the
 * first ones by five to seven decades.
 *
 * For the logistic loss the conjugate is strongly convex and g falls
 * geometrically, at a rate per epoch that changes slowly over a run
 * (a9a: about 0.55, w8a 0.8, covtype 0.4). From the last two checks
 * made, (t1, g1) and (t2, g2) with g2 < g1, the trend
 *
 *     ln g(t) = ln g2 - rho (t - t2),   rho = ln(g1 / g2) / (t2 - t1),
 *
 * predicts the gap of a check due at t. When it predicts a gap above
 * SS_SDCA_FUTILE_MARGIN epsilon the check is skipped, unless the Newton
 * fallback's stall rule (newton.c) would judge a doubling of the run's
 * epochs at it (it judges only at checks, and a run that skipped them
 * handed over late: an ill-conditioned problem of tests/c/test_sdca_newton.c
 * ran past 1000 epochs): the run counts a skipped check as
 * made (run.c), so the checks that are made are a subset of those the
 * budget would make, at the same iterations. A skip therefore never makes
 * a run stop earlier, nor on another model than one of its own checks; a
 * wrong prediction only costs time (the run stops at a later check). The
 * margin leaves two decades for the rate to speed up between two checks:
 * on the trajectories of a9a, w8a, ijcnn1 and covtype (a check every
 * epoch, lambda = 1/n) no skipped check would have met epsilon, and the
 * default runs make 8 checks instead of 12 (a9a: those at epochs 14, 17,
 * 24 and 27 skipped), 13 instead of 19 (w8a), 6 instead of 7 (covtype),
 * all 4 (ijcnn1), at the same stops. Only the logistic loss: the hinge losses'
 * gaps follow a power law (and shrinking asks for checks of its own,
 * ss_sdca_diagnostic_wanted), and the other smooth losses are left as they
 * were.
 */
#include "svm_internal.h"

#include <math.h>

/** A check is skipped while the trend predicts a gap above this many
 *  times epsilon. */
#define SS_SDCA_FUTILE_MARGIN 100.0

void ss_sdca_trend_begin(SsSvm *self)
{
  self->trend.count = 0;
}

void ss_sdca_trend_record(SsSvm *self, const SsRunMeasure *m)
{
  SsSdcaTrend *tr = &self->trend;
  const double gap = (m->primal - m->dual) / m->dual;
  if (!(m->dual > 0) || !isfinite(gap)) {
    tr->count = 0; /* no trend through a check without a relative gap */
    return;
  }
  if (tr->count == 2) {
    tr->iteration[0] = tr->iteration[1];
    tr->gap[0] = tr->gap[1];
  }
  tr->count = tr->count < 2 ? tr->count + 1 : 2;
  tr->iteration[tr->count - 1] = self->iteration;
  tr->gap[tr->count - 1] = gap;
}

bool ss_sdca_diagnostic_futile(const SsSvm *self)
{
  const SsSdcaTrend *tr = &self->trend;
  if (self->loss != SS_LOSS_LOGISTIC || !(self->epsilon > 0) || tr->count < 2 || ss_sdca_stall_check_due(self))
    return false;
  const double g1 = tr->gap[0], g2 = tr->gap[1];
  const double span = (double)(tr->iteration[1] - tr->iteration[0]);
  if (!(g2 > 0 && g2 < g1) || !(span > 0)) return false; /* no fall: no prediction */
  const double rho = log(g1 / g2) / span;
  const double predicted = log(g2) - rho * (double)(self->iteration - tr->iteration[1]);
  return predicted > log(SS_SDCA_FUTILE_MARGIN * self->epsilon);
}
