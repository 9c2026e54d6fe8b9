/* sbp_race.c -- the SBP at its defaults races the exact kernel SDCA finish.
 *
 * The problem. With nu derived from lambda (sbp_nu.c) the SBP solves the SVM
 *
 *     P(f) = lambda/2 ||w||^2 + 1/n sum_i max(0, 1 - y_i (f(x_i) + b)),
 *
 * by its averaged iterate, at the sublinear rate of a stochastic method, at
 * n kernel evaluations per step: an epoch costs n^2. The exact kernel SDCA
 * of kernel_finish.c solves the same problem to a certified relative gap
 * (1e-3) at a cost E that depends on the data: about the kernel rows of its
 * support vectors and of its cache misses, n evaluations each. Neither wins
 * everywhere (bench/results/kernel_speed.md, C = 32):
 *
 *     a9a    (32,561 rows, gamma 2^-7): the SBP's window stops after 0.12
 *            epoch, 1.3e8 evaluations; the exact solve costs 5.3e8;
 *     ijcnn1 (49,990 rows, gamma 2):    the exact solve costs 3.8e8 (0.15
 *            epoch of SBP steps); the SBP's objective still falls 2-3 % per
 *            doubling at 4 epochs (1e10), and its window waits for tens of
 *            epochs: over an hour where the exact solve takes 11 s.
 *
 * When the SBP's window will fire cannot be known in advance (it depends on
 * the rate of its averaged iterate on the data). E can be predicted.
 *
 * The prediction. On more than its m = 4096 rows the nu warm-up (sbp_nu.c,
 * "Large n") has already solved a stratified sample of m rows exactly, at
 * the same C, by the same solver with the same cache, at a cost E_m. At a
 * fixed C the exact solver's cost per squared row, E / n^2 (the fraction of
 * the rows whose kernel rows it computes), changes little with n
 * (bench/results/kernel_exact.md: a9a 0.41 on 5,000 rows and 0.50 on all
 * 32,561; ijcnn1 0.135 and 0.152), so
 *
 *     E^ = E_m (n / m)^2.
 *
 * The halves' solves (m/2 rows each) give an exponent of their own, E_m /
 * E_(m/2) = 2^p; it is used only to raise the prediction, p kept in [2, 3]:
 * a run whose sample costs grow faster than n^2 (more of the rows become
 * support vectors, or the cache holds fewer of them) is predicted dearer;
 * one whose costs grow slower keeps the square (the cache's share of the
 * rows shrinks as n grows: on the sample it holds the whole kernel matrix,
 * 8 m^2 bytes = 128 MB, and on n rows a fraction of it).
 *
 * The rule (a race, as in renting or buying skis). The SBP can stop by
 * itself only at a diagnostic. At each diagnostic of the run that stopped
 * nothing, the run hands over to the exact finish (it ends as on its cap,
 * the driver's stall, run.c) once its own work, the kernel evaluations W
 * since its steps began (the warm-up's excluded; dual bounds included), has
 * reached E^ or would pass it before the run's next diagnostic (the
 * driver's next_check), W extrapolated at the run's rate so far: steps
 * past the last diagnostic within E^ cannot end the run before E^, so
 * renting them buys nothing. Let S be the SBP's work to its own stop and E
 * the finish's real cost. If S <= E^ (within the rate's prediction), the
 * run ends by itself at cost S; otherwise it costs W + E with W <= E^ and
 * S > E^. With E^ = E, the total is at most 2 times the better of S and
 * E, and within a factor 1 + max(k, 1/k) when E^ is k times E. (Until stop
 * 45 the run handed over at the first diagnostic past E^, up to half an
 * interval of the schedule later: on ijcnn1 at 0.19 epoch, 1.28 E^, where
 * now at 0.125.) On a9a the window (1.3e8) comes before E^ (the figures
 * are in bench/results/kernel_speed.md), so its stop stays as it was; on
 * ijcnn1 the run hands over before E^ and the exact solve ends it,
 * certified.
 *
 * What the race does not judge. W leaves out the warm-up, which is paid
 * either way; on just over m rows the warm-up is most of E^ (6,000 noisy
 * generated rows at C = 30: 1.01e7 of E^ = 1.41e7), so a run whose total
 * count has reached E^ may have W a third of it. A window stop before E^
 * stands; it is the window's to be real: the SBP's is refused while its
 * averaged margin is not positive (run_dual_bound, kernel_svm.c), where
 * it had stopped that set "converged" at 11x the optimum with W = 0.32 E^;
 * the run then goes on and hands over here at 0.28 epoch.
 *
 * The window's proof. The rule above lets the steps run while a window
 * stop before E^ is possible at all by their count. The records of the
 * run say more: a window at a diagnostic t' spans the records of the last
 * half of the run to t', and for every t' up to where the work would reach
 * E^ that half already holds records kept; if they spread wider than any
 * band the window accepts, epsilon / (1 - epsilon) of their least, no
 * objective to come can make it fire there (ss_run_window_may_fire_by,
 * run.c, has the argument), and the run hands over at once. On ijcnn1
 * (C = 32, the bias) the objectives 0.304, 0.066, 0.048 at the first three
 * diagnostics (n/32 steps apart) rule out a stop before E^ at the third,
 * one diagnostic before the rule above hands over; on a9a E^ lies a dozen
 * diagnostics ahead, no record of the band that far is kept yet, and the
 * window's own stop (0.12 epoch) is unchanged. The proof holds for the
 * present run of the driver: the history is cleared only when a run ends
 * (a window stop whose nu is then refined, kernel_svm.c), and the proof
 * rules out exactly that end before E^.
 *
 * When. The SBP on a nu derived from lambda (a caller's nu is another C's
 * problem, which the finish does not solve), where the finish may run on the
 * cap (ss_kernel_finish_allowed: the mode not OFF, epsilon > 0, and in mode
 * AUTO no cap set by the caller), and only on more rows than the warm-up's
 * sample: on fewer, the warm-up solved the whole problem, the run is cheap,
 * and the small-set rules stand (a window stop on n <= 5,120 rows hands over
 * too, kernel_finish.c). The statistics report E^ (exact_cost).
 *
 * A warm start. After a hand-over the object keeps the finish's dual state
 * (kernel_finish.c, "The start"), and the next finish of the same problem
 * (the same C and bias form; set_data, set_weights and the other changes
 * of the problem forget the state) starts from that optimum. A train call
 * that continues such an object (a second train(), the estimators'
 * warm_start) would otherwise pay about E^ of SBP steps again, and a
 * continued run's first diagnostic, where the race is judged, comes later
 * with every call (the schedule spaces them by the object's iteration
 * count). The race is then lost before the first step: the call goes
 * straight to the finish. (After set_lambda the kept state is only a
 * scaled start, whose cost is not known: the race runs against the new
 * warm-up's E^.)
 */
#include "kernel_internal.h"

/** The halves' exponent is used only between these (the opening comment). */
#define SS_SBP_RACE_MIN_EXPONENT 2.0
#define SS_SBP_RACE_MAX_EXPONENT 3.0

double ss_sbp_race_exact_cost(int64_t n, int64_t m, double sample_evaluations, double half_evaluations)
{
  if (!(sample_evaluations > 0) || m <= 0 || n <= m) return 0;
  double p = SS_SBP_RACE_MIN_EXPONENT;
  if (half_evaluations > 0) p = fmax(p, fmin(log2(sample_evaluations / half_evaluations), SS_SBP_RACE_MAX_EXPONENT));
  return sample_evaluations * pow((double)n / (double)m, p);
}

bool ss_sbp_race_lost(const SsKernelSvm *self, int64_t next_check)
{
  const double predicted = ss_sbp_exact_cost(self);
  if (!(predicted > 0) || !ss_kernel_finish_allowed(self)) return false;
  if (ss_kernel_race_lost(self, predicted, next_check)) return true;
  /* Or the window provably cannot fire before the work reaches E^ ("The
   * window's proof"): the iteration where it would, at the rate so far. */
  const double work = (double)(self->num_kernel_evaluations - self->race_start);
  const int64_t steps = self->iteration - self->race_start_iteration;
  if (steps <= 0 || !(work > 0)) return false;
  const double reach = (double)self->iteration + (predicted - work) * ((double)steps / work);
  const int64_t t_last = reach < 0x1p62 ? (int64_t)reach : INT64_C(1) << 62;
  return !ss_run_window_may_fire_by(&self->history, t_last, self->epsilon);
}

bool ss_sbp_race_lost_at_start(const SsKernelSvm *self)
{
  return ss_sbp_exact_cost(self) > 0 && ss_kernel_finish_allowed(self) && ss_kernel_finish_kept_for_this_C(self);
}
