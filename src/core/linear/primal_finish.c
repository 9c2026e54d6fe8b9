/* primal_finish.c -- the primal stochastic solvers' (SGD, SVMSGD2, SGD-QN,
 * RES, LRES) hand-over to a deterministic method where their own run would
 * end uncertified: the certified finish.
 *
 * The problem is the one the solvers minimise (primal_certificate.c):
 *
 *     P(w~) = lambda/2 ||w~||^2 + 1/n sum_i c_i loss(y_i, <w~, x~_i>).
 *
 * A stochastic run stops "converged" only when its objective window is flat
 * and the dual bound D(alpha(w~)) of the map alpha_i = -c_i loss'(s_i)
 * certifies it (run.c: P - D <= min(10 epsilon, 0.05) D). On raw features
 * or at extreme C the steps the schedule allows are far too short or too
 * noisy for the ill-conditioned problem: the objective creeps and the run
 * ends on its cap at up to thousands of times the optimum. There, with a
 * smooth loss (squared hinge, logistic, l2), the run hands over to the
 * primal truncated Newton method of newton.c (the hinge and l1: below),
 * from the model it reached,
 * which stops on the same map's relative gap
 *
 *     (P - D) / max(P, D) <= epsilon,
 *
 * so that a "converged" finish has P - P* <= P - D <= epsilon max(P, D):
 * within a factor 1 + epsilon / (1 - epsilon) of the optimum (about 1.001x
 * at the default epsilon = 1e-3), tighter than the window's own 1.05x.
 *
 * When. The run's end must be uncertified: its cap, or the stall rule
 * (primal_stalled), which reads the relative gap g = (P - D) / D of the
 * same certificate at the run's diagnostics from its 4th epoch on (its best
 * so far: a stochastic iterate's g is noisy, on a9a with the logistic loss
 * at C = 0.01 it went 0.025, 0.92, 0.11, 0.36 over epochs 2 to 6) and, at
 * each doubling of the run's epochs T, the power p of the last doubling,
 * g ~ T^-p. It hands over when g did not fall over the doubling, or when
 * that power law would need more than twice the cap to bring g down to
 * what the window certifies, min(10 epsilon, 0.05):
 *
 *     T (g / min(10 epsilon, 0.05))^(1/p) > 2 cap.
 *
 * SGD's gap falls like 1/T at best (p <= 1 for the 1/(lambda t)
 * schedule): a run whose measured p is higher is being judged generously.
 * Measured (docs/stopping.rst): on raw breast_cancer at C = 100 and 1e3 the
 * rule fires after 9 epochs (the caps are 100 to 2,268); on a9a and w8a at
 * C = 0.01 and 0.1 every run that converged by itself before its cap
 * converged the same, bit for bit; the one that converged at its 100th
 * (last) epoch (SGD-QN, logistic, a9a, C = 0.1) hands over at the 9th.
 * The cost: one accumulation pass per diagnostic from the 4th epoch on
 * (the diagnostics are geometric, about 1.5x apart).
 *
 * Whose cap. A cap set by the caller (ss_svm_set_max_num_iterations; an
 * estimator's max_iter) asks for a cheap, rough model: the default mode,
 * SS_SVM_NEWTON_FALLBACK_AUTO, hands over only under the object's default
 * cap. ss_svm_set_newton_fallback(SS_SVM_NEWTON_FALLBACK_ON) hands over
 * under any cap (the estimators do so when max_iter is None, since they
 * pass their own default cap), OFF never. (SDCA's fallback, newton.c, treats
 * AUTO as ON: its capped model is the map of an unconverged dual, often
 * worse than the zero model, not a rough one.)
 *
 * The write-back. Newton's model becomes the solver's (u = w, factor 1, the
 * bias), with its scores and statistics: status converged only when the
 * certificate met epsilon, else max_iterations (or interrupted); the duality
 * gap and dual objective of the map are reported. The solvers' own state is
 * kept as it stands: the iteration t (so the learning-rate schedule
 * continues where the stochastic run left it: the Newton iterations are not
 * stochastic steps and are counted apart, num_newton_iterations), SGD-QN's
 * diagonal B and RES's and LRES's curvature Bhat (estimates of the same
 * problem's curvature). A warm start from a certified finish therefore takes
 * the late, short steps of the schedule from the optimum: the model moves by
 * the steps' noise only, and the next run ends on its own certified window
 * or hands over again. The objective history restarts from Newton's model
 * (the window must not compare it with the stochastic iterates before it);
 * the step back-offs taken, and so the schedule's offset, are kept.
 *
 * The hinge and l1 losses (SGD, SVMSGD2, SGD-QN; RES and LRES refuse
 * them) finish by Newton's method on the smoothed loss with continuation
 * (newton_hinge.c), certified by the loss's own duality gap, with the same
 * modes, cap owner, write-back and warm start. Their stochastic iterates
 * have no tight certificate (primal_certificate.c: the map alpha_i = -c_i
 * loss'(s_i) is a subgradient, wrong on the margin), so the stall rule
 * cannot read them, and the window's "converged" is a heuristic that has
 * stopped runs at a few percent above the optimum. The hand-over therefore
 * comes on the cap and also where the window fires: a flat window is the
 * cheap case of the finish (the model is near the optimum, a few Newton
 * iterations certify it), and without it the run could not say
 * "converged" honestly. Measured: docs/stopping.rst ("The hinge and l1
 * finish").
 */
#include "svm_internal.h"

#include <math.h>

static bool is_primal_solver(SsSolver solver)
{
  return solver == SS_SOLVER_SGD || solver == SS_SOLVER_SVMSGD2 || solver == SS_SOLVER_SGDQN ||
         solver == SS_SOLVER_RES || solver == SS_SOLVER_LRES;
}

/* The hinge and l1 losses: no tight certificate of the stochastic
 * iterates, a smoothing method to finish with (newton_hinge.c). */
static bool piecewise_linear(const SsSvm *self)
{
  return self->loss == SS_LOSS_HINGE || self->loss == SS_LOSS_L1;
}

/* Would a run ending uncertified hand over (the mode, the cap's owner, the
 * stopping rule, a loss with a Newton method)? */
static bool finish_wanted(const SsSvm *self)
{
  const SsSdcaNewton *nt = &self->newton;
  if (!is_primal_solver(self->solver) || nt->disabled || !(self->epsilon > 0)) return false;
  if (!nt->forced && self->max_num_iterations > 0) return false; /* the caller's cap */
  if (self->stopping_rule != SS_SVM_STOP_DEFAULT) return false;
  return ss_svm_primal_certificate_kind(self) == SS_RUN_BOUND_TIGHT || piecewise_linear(self);
}

/** The stall rule's first checkpoint, in epochs into the run: the first
 *  epochs of a stochastic run are its noisiest. */
#define SS_PRIMAL_STALL_FIRST_EPOCHS 4.0
/** It fires when the power law would need this many times the cap. */
#define SS_PRIMAL_STALL_MARGIN 2.0

static bool primal_stalled(SsSvm *self, const SsRunMeasure *m)
{
  SsSdcaNewton *nt = &self->newton;
  /* (The hinge's and l1's bound is far below P* even at the optimum: it
   * cannot tell a stall from a run close to the end.) */
  if (!finish_wanted(self) || piecewise_linear(self)) return false;
  const double n = (double)self->source.num_data;
  const double epochs = (double)(self->iteration - nt->run_start) / n;
  if (epochs < SS_PRIMAL_STALL_FIRST_EPOCHS) return false;
  /* The certificate of this diagnostic's model (its scores are measured):
   * at every diagnostic from the first checkpoint on, since a stochastic
   * iterate's gap is noisy (a9a, logistic, C = 0.01: 0.025, 0.92, 0.11,
   * 0.36 at epochs 2 to 6) and the rule reads its best so far. */
  const double D = ss_svm_primal_certificate(self, self->scores);
  if (isnan(D)) return false; /* out of memory: no judgement */
  const double gap = D > 0 ? (m->primal - D) / D : INFINITY;
  double before, before_epochs;
  if (!ss_stall_doubled(nt, epochs, gap, &before, &before_epochs)) return false;
  const double now = nt->best_gap;
  const double target = fmin(SS_RUN_WINDOW_GAP_SLACK * self->epsilon, SS_RUN_WINDOW_GAP_LIMIT);
  if (now <= target) return false; /* the window may certify */
  if (!isfinite(now) || !(now < before)) return true; /* no progress over a doubling */
  /* The power law of the last doubling, gap ~ epochs^-p, continued. */
  const double power = log(before / now) / log(epochs / before_epochs);
  const double cap = (double)nt->run_cap / n;
  return epochs * pow(now / target, 1.0 / power) > SS_PRIMAL_STALL_MARGIN * cap;
}

static SsStatus finish(SsSvm *self)
{
  const SsStatus status = piecewise_linear(self) ? ss_newton_hinge_solve(self, NULL) : ss_newton_solve(self);
  if (status != SS_ERR_ALLOC) ss_run_history_clear(&self->history); /* (back-offs kept) */
  return status;
}

SsStatus ss_primal_train(SsSvm *self, SsStatus (*train)(SsSvm *self))
{
  self->newton.iterations = 0;
  self->newton.primal_stalled = primal_stalled; /* epochs.c's ops->stalled */
  ss_sdca_stall_begin(self); /* (the stall rule's record, shared with SDCA's) */
  const SsStatus status = train(self);
  if (status != SS_OK || !finish_wanted(self)) return status;
  /* The hand-over needs the closing diagnostic's status: made now. */
  const SsStatus settled = ss_svm_settle_final(self);
  if (settled != SS_OK) return settled;
  const SsSvmStatus ended = self->statistics.status;
  /* The cap, or (the hinge and l1) the window's uncertified "converged". */
  if (ended == SS_SVM_STATUS_MAX_ITERATIONS || (ended == SS_SVM_STATUS_CONVERGED && piecewise_linear(self)))
    return finish(self);
  return settled;
}
