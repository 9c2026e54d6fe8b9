/* run.c -- the training-run driver (run.h): the loop, the diagnostic
 * schedule, the stopping rules and the divergence test, written once for
 * every solver of both objects.
 *
 * The loop cuts the run [t_begin, t_begin + max_num_iterations) at epoch
 * boundaries (t multiple of n), at diagnostics and at interrupt polls, all
 * functions of t only, and hands each piece to the object's steps.
 *
 * Diagnostics. With a diagnostic frequency f set, at every multiple of f.
 * By default on a geometric schedule of epochs, 1, 2, 3, 4, 6, 9, 13, 19, 28,
 * ... (each a half more than the last): a diagnostic is a full pass over the
 * data, and this schedule costs O(log E) passes over a run of E epochs
 * instead of one pass per epoch; but a short run pays several (6 passes in
 * 9 epochs), and so does a run whose epochs are cheaper than a pass (SDCA
 * with shrinking visits a fraction of the examples). An object whose steps
 * cost far more than a diagnostic sets a smaller unit than the epoch
 * (settings.schedule_unit: the SBP's n kernel evaluations per step against
 * an O(n log n) diagnostic).
 *
 * Under a diagnostic budget beta (settings.diagnostic_budget > 0, the
 * object reporting each epoch's cost c_e in diagnostics), the schedule
 * follows the work done instead: at the end of an epoch, the k-th
 * diagnostic of the run takes place once
 *
 *     k <= beta sum_e c_e,
 *
 * so the diagnostics cost at most beta times the steps (up to the error of
 * the object's cost model; 1.5 beta with those the object asks for, when
 * its own estimate says the rule may fire: SDCA's shrinking steps estimate
 * the gap), and they are evenly spread over the work: a
 * stop comes at most 1/beta diagnostics' worth of work (3 to 7 epochs of
 * unshrunk SDCA at beta = 0.1, epochs.c) after the rule could first fire.
 * A run also ends with a diagnostic; at the iteration cap an object may ask
 * (settings.defer_final) to make that one itself when it is needed.
 *
 * Stopping rules, with tolerance epsilon (0 disables them):
 *
 *   relative gap (SDCA, BSCA)   P - D <= epsilon max(D, 0).
 *       D <= P* <= P, so this certifies P - P* <= epsilon P*, that is
 *       P <= (1 + epsilon) P*, exactly, whenever D is a true dual value
 *       (SDCA; BSCA until its budget maintenance first changes the model,
 *       after which its D is an estimate and the rule a heuristic).
 *
 *   objective window (the primal solvers)   with P the objective now (at
 *       t) and P_a, P_b the objectives recorded at the last diagnostics at or
 *       before a quarter (t_a) and a half (t_b) of the run (ages counted from
 *       the first diagnostic of the history),
 *           max - min of the objectives recorded in [t_b, t] <= epsilon P
 *           and (P_b - P) / (t - t_b) <= 1/2 (P_a - P_b) / (t_b - t_a):
 *       the objective stayed within a band of relative width epsilon over
 *       the last half of the run (noise included), and it now falls at most
 *       half as fast as it did over the quarter before (it is not falling at a steady pace: a linear
 *       decrease, the mark of steps too small, never passes). If P_t - P*
 *       decays like c / t (SGD's rate on a strongly convex objective), the
 *       rate ratio is 1/4 and P_b - P = P - P*, so the rule fires within
 *       about (1 + epsilon) P*; at the slower c / sqrt(t), within about
 *       (1 + 2.4 epsilon) P*. A heuristic, not a certificate; it needs four
 *       diagnostics at least.
 *
 *   certified window (SGD, SVMSGD2, SGD-QN, RES, LRES): when the window
 *       fires, the object computes a dual lower bound D <= P* of its iterate
 *       (ops->dual_bound; primal_certificate.c), and the stop stands only
 *       if P - D <= min(10 epsilon, 0.05) D: with the smooth losses a
 *       "converged" stop is within 1.05x of the optimum, certified. (The
 *       hinge and l1 losses' bound is too loose to judge by: the window
 *       alone decides.)
 *
 *   scores variation (the former SGD rule, kept as an option)
 *       ||s - s_prev|| / n < epsilon between consecutive diagnostics.
 *
 *   budget rule (BSCA: the relative-gap rule of an object with ops->budget_full)
 *       A model held to a budget of B points cannot represent the optimum
 *       once the solution needs more: its gap has a floor that no number of
 *       iterations removes (on a9a with B = 500, (P - D) / P about 0.1,
 *       where epsilon = 1e-3). The rule watches g = (P - D) / D, the
 *       quantity the gap test compares with epsilon (NaN while D <= 0); not
 *       (P - D) / P, which stays near 1 while D is far below P and then
 *       hardly moves however fast D rises (ijcnn1, B = 500: 0.96, 0.94,
 *       0.89, 0.87 over the first four epochs, 0.35 after 100; g fell from
 *       26 to 6.8 meanwhile). Where the relative-gap test has not fired,
 *       with t_b the last diagnostic at or before half of the run (ages
 *       counted from the first diagnostic of the history), the run stops,
 *       status BUDGET_LIMITED, when
 *           the budget was full at t_b (so at every diagnostic since),
 *           t - t_b is two epochs at least (diagnostics set every few steps
 *           would otherwise judge the noise of a few steps; with one, train
 *           calls of n/2 iterations, each ending on a diagnostic, stopped
 *           BSCA on the digits, B = 100, C = 100, at epoch 3, t_b = 1.5, at
 *           2.5x the objective that one call reaches: the gap of a
 *           maintained model dips and rises over an epoch or two early in
 *           the run; the default schedule, 1, 2, 3, 4, 6, ... epochs, first
 *           judges at epoch 4, t_b = 2, either way), and
 *           min of g over (t_b, t] > (1 - SS_RUN_BUDGET_MIN_GAIN) min of g up to t_b:
 *       the best gap of the run's last half improved on the best before it
 *       by less than a quarter. Guarantee: the rule never fires while the
 *       budget has room (B >= n: never; there the gap test decides), nor
 *       while the gap falls by a quarter or more per doubling of the run (a
 *       gap falling like 1/t halves per doubling; like 1/sqrt(t), it falls
 *       by 29 %); like the window it needs four diagnostics at least (with
 *       three it would judge the third epoch against the second, an age of
 *       2 against 1, in the noisy start of the run). It says nothing of how
 *       far P is from the optimum of the budgeted problem: it stops a run
 *       whose gap stopped paying for its epochs. The gap of a maintained
 *       model is an estimate (D is read through the budgeted model), which
 *       is why the rule compares minima over half-runs rather than two
 *       single values.
 *
 *   stall (an object with ops->stalled: linear SDCA with a smooth loss)
 *       After a training diagnostic that stopped nothing, the object may
 *       judge that its gap falls too slowly to meet epsilon within the cap
 *       (newton.c); the run then ends there with the cap's status, and the
 *       object continues by other means (SDCA's Newton fallback, which
 *       alone may turn the status into CONVERGED).
 *
 * Divergence (primal solvers): P not finite, or P > SS_RUN_DIVERGENCE_FACTOR
 * max(P(w = 0), P_0), P_0 the objective where the history began (a warm
 * start from a model set by the caller), and over SS_RUN_DIVERGENCE_GROWTH
 * times the objective of the previous diagnostic (growing geometrically: the
 * first large steps of SGD on heavily weighted examples can rise slowly and
 * fall back; that is not divergence), stops the run (status ERROR and SS_ERR_NUMERIC when not finite;
 * DIVERGED and SS_ERR_DIVERGED otherwise). A dual solver's dual objective
 * rises at every step and its P cannot run away: only the finiteness test
 * applies. A diverging run never reads "converged": both tests come first.
 *
 * Step back-off (an object with ops->back_off: the linear SGD family, RES
 * and LRES at their default steps). Where the run would end on a non-finite
 * step or score or on the divergence test, or when a diagnostic at least one
 * epoch after the first of the history finds P above the divergence
 * reference (worse than w = 0 after the first large steps have had an epoch
 * to settle: a run that left its start behind), the object may instead set
 * its model back to w = 0 and restart its step schedule with shorter steps
 * (epochs.c; RES and LRES also forget their curvature, res_steps.c): the
 * history starts again from there (the reference stays) and the run goes
 * on, within its cap; from then on only a certified window stops it (the
 * window alone may read steps made too short as convergence). Where it never
 * fires, nothing differs: the test only reads what the diagnostic measured. An
 * object that has no back-off left (or none at all: a step size set by the
 * caller) ends as described above.
 */
#include "run.h"

#include <math.h>
#include <stdlib.h>

static int64_t min64(int64_t a, int64_t b)
{
  return a < b ? a : b;
}

/* a + b for b >= 0, INT64_MAX if that overflows. */
static int64_t saturating_add(int64_t a, int64_t b)
{
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The first multiple of f (>= 1) after t >= 0, INT64_MAX if that overflows. */
static int64_t next_multiple(int64_t t, int64_t f)
{
  int64_t q = t / f + 1;
  return q > INT64_MAX / f ? INT64_MAX : q * f;
}

/* The first diagnostic after t: a multiple of the frequency, or the end of
 * the first scheduled unit e u > t (e = 1, 2, 3, 4, 6, 9, ...; u an epoch n
 * unless the object sets a smaller schedule unit). */
static int64_t next_diagnostic(const SsRunSettings *s, int64_t t)
{
  if (s->diagnostic_frequency > 0) return next_multiple(t, s->diagnostic_frequency);
  const int64_t n = s->schedule_unit > 0 ? s->schedule_unit : s->num_data;
  int64_t e = 1;
  while (e <= t / n) {
    int64_t step = e / SS_RUN_SCHEDULE_DIVISOR;
    e = saturating_add(e, step > 1 ? step : 1);
    if (e > INT64_MAX / n) return INT64_MAX;
  }
  return e * n;
}

bool ss_run_diagnostic_scheduled(const SsRunSettings *s, int64_t t)
{
  if (s->diagnostic_frequency == 0 && s->diagnostic_budget > 0) return true;
  return t > 0 && next_diagnostic(s, t - 1) == t;
}

/* ------------------------------------------------------------------------ */
/*                                  History                                 */
/* ------------------------------------------------------------------------ */

void ss_run_history_clear(SsRunHistory *history)
{
  history->count = 0;
  history->reference = NAN;
  history->backed_off = false;
}

void ss_run_history_free(SsRunHistory *history)
{
  free(history->iteration);
  free(history->objective);
  free(history->budget_gap);
  *history = (SsRunHistory){.reference = NAN};
}

static SsStatus record(SsRunHistory *h, int64_t t, double objective, double budget_gap)
{
  if (h->count > 0 && h->iteration[h->count - 1] >= t) {
    /* The same point diagnosed again (a final diagnostic on the grid, or
     * the iteration number set back): keep the history increasing in t. */
    while (h->count > 0 && h->iteration[h->count - 1] >= t) --h->count;
  }
  if (h->count == h->capacity) {
    int64_t capacity = h->capacity > 0 ? 2 * h->capacity : 32;
    int64_t *iteration = realloc(h->iteration, (size_t)capacity * sizeof(int64_t));
    if (!iteration) return SS_ERR_ALLOC;
    h->iteration = iteration;
    double *objective = realloc(h->objective, (size_t)capacity * sizeof(double));
    if (!objective) return SS_ERR_ALLOC;
    h->objective = objective;
    double *budget_gap = realloc(h->budget_gap, (size_t)capacity * sizeof(double));
    if (!budget_gap) return SS_ERR_ALLOC;
    h->budget_gap = budget_gap;
    h->capacity = capacity;
  }
  h->iteration[h->count] = t;
  h->objective[h->count] = objective;
  h->budget_gap[h->count] = budget_gap;
  ++h->count;
  return SS_OK;
}

/* The last record at or before t (its index); -1 if none. */
static int64_t recorded_at_or_before(const SsRunHistory *h, int64_t t)
{
  int64_t lo = 0, hi = h->count; /* the first record after t */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (h->iteration[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/* ------------------------------------------------------------------------ */
/*                               Stopping rules                             */
/* ------------------------------------------------------------------------ */

static bool window_flat(const SsRunHistory *h, double epsilon)
{
  const int64_t k = h->count - 1;
  if (k < 3) return false;
  const int64_t origin = h->iteration[0], t = h->iteration[k];
  const int64_t a = recorded_at_or_before(h, origin + (t - origin) / 4);
  const int64_t b = recorded_at_or_before(h, origin + (t - origin) / 2);
  if (a < 0 || b <= a || b >= k) return false;
  const double P = h->objective[k], Pa = h->objective[a], Pb = h->objective[b];
  /* The objective's rate of decrease over [t_a, t_b] and over [t_b, t]. */
  const double early = (Pa - Pb) / (double)(h->iteration[b] - h->iteration[a]);
  const double late = (Pb - P) / (double)(t - h->iteration[b]);
  double highest = P, lowest = P;
  for (int64_t j = b; j < k; ++j) {
    highest = fmax(highest, h->objective[j]);
    lowest = fmin(lowest, h->objective[j]);
  }
  return highest - lowest <= epsilon * P && late <= 0.5 * early;
}

/* Whether the window can fire at a diagnostic of this run at or before
 * iteration @p t_last, given the records so far (k the last, at t_k). At
 * such a t' the band spans the records from b' (the last at or before half
 * of t' - origin) to t', and b' is at or before b, the one of t_last: so
 * the band holds the records [b, k] already kept. If it fires, with
 * highest and lowest its band's ends and P' <= highest the objective at t',
 *
 *     max[b,k] - min[b,k] <= highest - lowest <= epsilon P' <= epsilon highest,
 *
 * so highest <= lowest / (1 - epsilon) <= min[b,k] / (1 - epsilon), and
 *
 *     max[b,k] - min[b,k] <= epsilon / (1 - epsilon) min[b,k].
 *
 * False when the records kept break this (a proof, whatever the objective
 * does next, as long as the history is not cleared), or when no diagnostic
 * is left before t_last; true otherwise. */
bool ss_run_window_may_fire_by(const SsRunHistory *h, int64_t t_last, double epsilon)
{
  if (!(epsilon > 0)) return false; /* the window is off */
  const int64_t k = h->count - 1;
  if (k < 0) return true;
  if (t_last <= h->iteration[k]) return false;
  if (!(epsilon < 1)) return true;
  const int64_t origin = h->iteration[0];
  const int64_t b = recorded_at_or_before(h, origin + (t_last - origin) / 2);
  if (b < 0 || b >= k) return true; /* one record or none in its band: no proof */
  double highest = h->objective[k], lowest = h->objective[k];
  for (int64_t j = b; j < k; ++j) {
    highest = fmax(highest, h->objective[j]);
    lowest = fmin(lowest, h->objective[j]);
  }
  if (!(lowest > 0)) return true;
  return highest - lowest <= epsilon / (1 - epsilon) * lowest;
}

/* The primal solvers' rule: when the window fires, the object's dual lower
 * bound D <= P* (ops->dual_bound, computed only then) must not contradict
 * it: P - D <= min(SS_RUN_WINDOW_GAP_SLACK epsilon, SS_RUN_WINDOW_GAP_LIMIT)
 * D, so that a "converged" stop is within 1.05x of the optimum, certified.
 * Without a tight bound (the hinge and l1 losses) the window alone
 * decides. */
static bool certified_window(const SsRun *run, const SsRunMeasure *m, double epsilon)
{
  if (!window_flat(run->history, epsilon)) return false;
  /* After a step back-off the steps are shorter by a guess: a flat objective
   * may then mean steps too short as much as an optimum (LIBSVM's
   * breast-cancer, whose sample-id column makes SGD's back-off steps 1e-14:
   * "converged" at 3.5x-13x), so only a certificate can stop the run. */
  const bool alone = !run->history->backed_off;
  if (!run->ops->dual_bound) return alone;
  SsRunBound kind = SS_RUN_BOUND_NONE;
  const double D = run->ops->dual_bound(run->object, &kind);
  if (kind == SS_RUN_BOUND_NONE) return alone;
  if (isnan(D)) return false; /* out of memory: no certificate, no stop */
  const double limit = fmin(SS_RUN_WINDOW_GAP_SLACK * epsilon, SS_RUN_WINDOW_GAP_LIMIT);
  return m->primal - D <= limit * fmax(D, 0.0);
}

static bool converged(const SsRun *run, const SsRunMeasure *m)
{
  const double epsilon = run->settings.epsilon;
  if (!(epsilon > 0)) return false;
  switch (run->settings.criterion) {
  case SS_RUN_RELATIVE_GAP: return m->primal - m->dual <= epsilon * fmax(m->dual, 0.0);
  case SS_RUN_OBJECTIVE_WINDOW: return certified_window(run, m, epsilon);
  case SS_RUN_SCORES_VARIATION: return m->variation < epsilon;
  case SS_RUN_NO_RULE: return false;
  }
  return false;
}

/* (P - D) / D of a measure whose object's budget is full (the budget rule's
 * record), NaN otherwise; D the dual, or its estimate where the object has
 * no dual value (BSCA after maintenance). */
static double budget_gap(const SsRun *run, const SsRunMeasure *m)
{
  if (run->settings.criterion != SS_RUN_RELATIVE_GAP || !run->ops->budget_full ||
      !run->ops->budget_full(run->object))
    return NAN;
  const double D = isnan(m->dual) ? m->dual_estimate : m->dual;
  return D > 0 ? (m->primal - D) / D : NAN;
}

/* The gap test met by an estimate of the dual that is no bound (BSCA after
 * budget maintenance): the budgeted run has settled, certified nothing. */
static bool estimate_settled(const SsRun *run, const SsRunMeasure *m)
{
  const double epsilon = run->settings.epsilon;
  return epsilon > 0 && run->settings.criterion == SS_RUN_RELATIVE_GAP && isnan(m->dual) &&
         isfinite(m->dual_estimate) && m->primal - m->dual_estimate <= epsilon * fmax(m->dual_estimate, 0.0);
}

/* The budget rule (the opening comment): the budget was full at the half of
 * the run, and the best gap (P - D) / D since improved on the best before by
 * less than SS_RUN_BUDGET_MIN_GAIN. NaN gaps (budget not full) never pass. */
static bool budget_limited(const SsRun *run)
{
  const SsRunHistory *h = run->history;
  const int64_t k = h->count - 1;
  if (!(run->settings.epsilon > 0) || k < 3 || isnan(h->budget_gap[k])) return false;
  const int64_t origin = h->iteration[0];
  const int64_t b = recorded_at_or_before(h, origin + (h->iteration[k] - origin) / 2);
  if (b < 0 || b >= k || isnan(h->budget_gap[b]) ||
      h->iteration[k] - h->iteration[b] < 2 * run->settings.num_data)
    return false;
  double before = INFINITY, since = INFINITY;
  for (int64_t j = 0; j <= b; ++j)
    if (!isnan(h->budget_gap[j])) before = fmin(before, h->budget_gap[j]);
  for (int64_t j = b + 1; j <= k; ++j) {
    if (isnan(h->budget_gap[j])) return false;
    since = fmin(since, h->budget_gap[j]);
  }
  return since > (1 - SS_RUN_BUDGET_MIN_GAIN) * before;
}

/* Far above the reference and growing by an order of magnitude between
 * diagnostics. A transient of a method whose iterates stay bounded (SGD's
 * first steps on heavily weighted examples: ||w|| <= max_i c_i R / lambda
 * for a Lipschitz loss) grows slowly and falls back; it is not divergence. */
static bool diverged(const SsRun *run, const SsRunMeasure *m)
{
  const SsRunHistory *h = run->history;
  return run->settings.divergence_test && h->reference > 0 && h->count > 0 &&
         m->primal > SS_RUN_DIVERGENCE_FACTOR * h->reference &&
         m->primal > SS_RUN_DIVERGENCE_GROWTH * h->objective[h->count - 1];
}

/* Above the divergence reference (worse than w = 0) at a diagnostic at least
 * an epoch after the first one of the history: not the transient of the
 * first large steps, which the first epoch of a history is left to settle. */
static bool above_reference(const SsRun *run, const SsRunMeasure *m)
{
  const SsRunHistory *h = run->history;
  return run->settings.divergence_test && h->reference > 0 && h->count > 0 &&
         m->primal > h->reference &&
         run->ops->iteration(run->object) - h->iteration[0] >= run->settings.num_data;
}

/* Ask the object for a step back-off (run.c's opening comment); on success
 * the history starts again from the model it set. */
static bool back_off(SsRun *run)
{
  if (!run->ops->back_off || !run->ops->back_off(run->object)) return false;
  run->history->count = 0;
  run->history->backed_off = true;
  return true;
}

SsStatus ss_run_diagnose(SsRun *run, SsSvmStatus status, bool notify)
{
  const SsRunOps *ops = run->ops;
  SsRunMeasure m = {.primal = NAN, .dual = NAN, .dual_estimate = NAN, .variation = INFINITY, .finite = true,
                    .next_check = run->next_check};
  SsStatus s = ops->measure(run->object, status, &m);
  /* The object's pass polled the interrupt function, which stopped it. */
  run->pass_interrupted = s == SS_ERR_INTERRUPTED;
  if (s != SS_OK) return s;
  const bool training = status == SS_SVM_STATUS_TRAINING;
  if (!m.finite || !isfinite(m.primal)) {
    if (training && back_off(run)) goto notify;
    ops->set_status(run->object, SS_SVM_STATUS_ERROR);
    return SS_ERR_NUMERIC;
  }
  if (training || status == SS_SVM_STATUS_MAX_ITERATIONS) {
    const bool runaway = diverged(run, &m);
    if (training && (runaway || above_reference(run, &m)) && back_off(run)) goto notify;
    if (runaway) {
      ops->set_status(run->object, SS_SVM_STATUS_DIVERGED);
      return SS_ERR_DIVERGED;
    }
    s = record(run->history, ops->iteration(run->object), m.primal, budget_gap(run, &m));
    if (s != SS_OK) return s;
    run->converged = converged(run, &m);
    run->budget_limited = !run->converged && (estimate_settled(run, &m) || budget_limited(run));
    if (run->converged) ops->set_status(run->object, SS_SVM_STATUS_CONVERGED);
    if (run->budget_limited) ops->set_status(run->object, SS_SVM_STATUS_BUDGET_LIMITED);
    run->stalled = training && !run->converged && !run->budget_limited && ops->stalled &&
                   ops->stalled(run->object, &m);
    if (run->stalled) ops->set_status(run->object, SS_SVM_STATUS_MAX_ITERATIONS);
  }
notify:
  if (notify && ops->notify && ops->notify(run->object) != 0) {
    ops->set_status(run->object, SS_SVM_STATUS_INTERRUPTED);
    return SS_ERR_INTERRUPTED;
  }
  return SS_OK;
}

/* ------------------------------------------------------------------------ */
/*                                  The loop                                */
/* ------------------------------------------------------------------------ */

SsStatus ss_run_train(SsRun *run)
{
  const SsRunOps *ops = run->ops;
  const SsRunSettings *s = &run->settings;
  const int64_t n = s->num_data;
  const int64_t t_begin = ops->iteration(run->object);
  const int64_t t_end = saturating_add(t_begin, s->max_num_iterations);

  SsStatus status = SS_OK;
  int64_t t = t_begin, last_poll = t_begin, prepared_epoch = -1;
  const bool budgeted = s->diagnostic_frequency == 0 && s->diagnostic_budget > 0 && ops->epoch_cost;
  double work = 0;           /* the steps' cost so far (budget), in diagnostics */
  int64_t num_diagnosed = 0; /* diagnostics of this run before the final one */
  bool stopped = false;
  bool settled = false; /* the statistics already tell how the run ended */
  run->converged = run->budget_limited = run->stalled = false;
  run->final_deferred = run->interrupted_deferred = run->pass_interrupted = false;
  run->next_check = t_end;
  if (run->progress) ss_run_publish(run->progress, t_begin);
  if (s->divergence_test && run->history->count == 0) {
    const double start = ops->start_objective ? ops->start_objective(run->object) : NAN;
    run->history->reference = isfinite(start) ? fmax(start, s->zero_objective) : s->zero_objective;
  }
  while (t < t_end && !stopped) {
    const int64_t epoch = t / n;
    if (epoch != prepared_epoch && ops->begin_epoch) {
      status = ops->begin_epoch(run->object, epoch);
      if (status != SS_OK) break;
    }
    prepared_epoch = epoch;
    const int64_t epoch_end = saturating_add(epoch * n, n);
    const int64_t diagnostic = budgeted ? INT64_MAX : next_diagnostic(s, t);
    const int64_t poll = saturating_add(last_poll, s->interrupt_period);
    const int64_t stop = min64(min64(t_end, epoch_end), min64(diagnostic, poll));

    status = ops->steps(run->object, t, stop);
    t = ops->iteration(run->object);
    if (run->progress) ss_run_publish(run->progress, t);
    /* A non-finite score within the steps: a back-off restarts them. */
    if (status == SS_ERR_NUMERIC && back_off(run)) status = SS_OK;
    if (status != SS_OK) break;
    if (t == epoch_end && ops->end_epoch) ops->end_epoch(run->object);
    bool due = t == diagnostic;
    if (budgeted && t == epoch_end) {
      work += ops->epoch_cost(run->object);
      /* The object may ask for more, within half the budget again. */
      const double k = (double)(num_diagnosed + 1);
      due = k <= s->diagnostic_budget * work ||
            (k <= 1.5 * s->diagnostic_budget * work && ops->diagnostic_wanted &&
             ops->diagnostic_wanted(run->object));
      /* One the object predicts to fail: skipped, counted as made. */
      if (due && t < t_end && ops->diagnostic_futile && ops->diagnostic_futile(run->object)) {
        ++num_diagnosed;
        due = false;
      }
    }

    if (due && t < t_end) {
      ++num_diagnosed;
      /* Under a diagnostic budget the next one comes an epoch later at the earliest. */
      run->next_check = min64(budgeted ? saturating_add(epoch_end, n) : next_diagnostic(s, t), t_end);
      status = ss_run_diagnose(run, SS_SVM_STATUS_TRAINING, true);
      /* (a pass the interrupt stopped told nothing: the run ends as at a poll) */
      settled = status != SS_OK && !run->pass_interrupted;
      stopped = status != SS_OK || run->converged || run->budget_limited || run->stalled;
    }
    if (!stopped && t - last_poll >= s->interrupt_period) {
      last_poll = t;
      if (s->interrupt_fn && s->interrupt_fn(s->interrupt_user) != 0) {
        status = SS_ERR_INTERRUPTED;
        stopped = true;
      }
    }
  }

  if (status == SS_OK && !stopped) {
    /* The cap: the final diagnostic (the rule may still fire on it), or,
     * when nothing watches the run's end, the object makes it once it is
     * needed (a full pass over the data that a single-epoch run would
     * otherwise pay for even when no one reads its statistics). */
    if (s->defer_final) run->final_deferred = true;
    else status = ss_run_diagnose(run, SS_SVM_STATUS_MAX_ITERATIONS, true);
  } else if (status == SS_ERR_INTERRUPTED && !settled && s->defer_interrupted) {
    /* Stopped by the interrupt poll, where a diagnostic is a long pass that
     * nothing interrupts (a kernel object's n rows against its support
     * vectors: seconds to minutes after a Ctrl+C): the object describes its
     * model without one. */
    run->interrupted_deferred = true;
    ops->set_status(run->object, SS_SVM_STATUS_INTERRUPTED);
  } else if (status == SS_ERR_INTERRUPTED && !settled) {
    /* Stopped by the interrupt poll: describe the model where it stands. */
    SsStatus diagnosed = ss_run_diagnose(run, SS_SVM_STATUS_INTERRUPTED, false);
    if (diagnosed != SS_OK) status = diagnosed;
  } else if (status != SS_OK && !settled) {
    /* A step failed (non-finite value, no memory). */
    ops->set_status(run->object, SS_SVM_STATUS_ERROR);
  }
  return status;
}
