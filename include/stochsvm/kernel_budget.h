/* kernel_budget.h -- the budgeted solvers of the kernel SVM object: BSCA and
 * BSGD with budget maintenance (Qaadan, Schueler, Glasmachers; Wang,
 * Crammer, Vucetic). Included by kernel_svm.h.
 *
 * With solver SS_KSOLVER_BSCA or SS_KSOLVER_BSGD the model is an expansion
 * f(x) = sum_j beta_j K(z_j, x) of at most B points z_j (no bias). Each
 * iteration visits one example (epoch permutations drawn from (seed, e)) and
 * costs at most B kernel evaluations, whatever n. When a step adds a B+1-th
 * point, budget maintenance brings the model back to B points:
 *
 *   merge    the point of smallest |beta_m| and the same-sign point of least
 *            weight degradation become one point on the segment between
 *            them (golden-section search, closed-form coefficient); Gaussian
 *            (rbf) kernel only. Without a same-sign partner: removal.
 *   remove   the point of smallest |beta| is dropped (any kernel).
 *   project  that point is dropped and its term projected onto the span of
 *            the others (a B x B SPD solve, O(B^2 d + B^3); any kernel).
 *
 * The support vectors of a budgeted model are dense rows (merging moves them
 * off the data). There is no stopping rule: training runs
 * max_num_iterations iterations. Repeated training continues (alpha, the
 * expansion, the iteration number and the counters are kept); changing the
 * budget, the maintenance or the data restarts the solver; changing lambda
 * keeps the state: BSCA without the bias moves alpha into the new box
 * [0, c_i / (lambda n)] and takes each change y_i delta phi(x_i) out of the
 * expansion as a step would, so the model stays that of alpha (a warm start
 * at a smaller C converges as a cold start; it kept the old terms and ended
 * at 1.2x to 5.2x the optimum); once budget maintenance has changed the
 * model (no longer alpha's expansion) BSCA without the bias restarts at a
 * smaller C, the cold start's run (taking the clipped terms out added terms
 * maintenance merged again: B = 100 of 300 rows, C = 100 then 1, the cap at
 * P = 25.9 against the cold 0.49); BSCA with the bias restarts (clipping
 * would break sum_i y_i alpha_i = 0); BSGD keeps alpha and its expansion.
 * A precomputed kernel is refused (the points must be vectors).
 */
#ifndef STOCHSVM_KERNEL_BUDGET_H
#define STOCHSVM_KERNEL_BUDGET_H

#include "stochsvm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque kernel SVM object (its functions: kernel_svm.h). */
typedef struct SsKernelSvm_ SsKernelSvm;

/** @brief Budget maintenance strategies of BSCA and BSGD. */
typedef enum SsBudgetMaintenance {
  SS_BUDGET_MAINTENANCE_AUTO = 0,    /**< merge for the rbf kernel, remove otherwise (default) */
  SS_BUDGET_MAINTENANCE_MERGE = 1,   /**< merge two points (rbf kernel only) */
  SS_BUDGET_MAINTENANCE_REMOVE = 2,  /**< drop the point of smallest |beta| */
  SS_BUDGET_MAINTENANCE_PROJECT = 3  /**< drop it and project its term onto the others */
} SsBudgetMaintenance;

/** @brief What the budgeted solver did, accumulated since the solver
 *  (re)started. Filled by ss_kernel_svm_get_budget_statistics. */
typedef struct SsBudgetStatistics {
  int64_t budget;               /**< B in force */
  int64_t num_points;           /**< points in the expansion now, <= B */
  int64_t num_updates;          /**< steps that changed the model (BSCA: delta != 0; BSGD: margin violations) */
  int64_t num_maintenance;      /**< steps that triggered budget maintenance */
  int64_t num_merges;           /**< of which merges */
  int64_t num_removals;         /**< of which removals (incl. merges without a same-sign partner) */
  int64_t num_projections;      /**< of which projections */
  double weight_degradation;    /**< sum over maintenance steps of ||w~_before - w~_after||^2 */
  double solver_seconds;        /**< CPU time of this thread spent in the solver's steps
                                     (diagnostics excluded); wall clock where no thread clock exists */
} SsBudgetStatistics;

/** @brief Set the budget B (maximum number of support vectors) of BSCA/BSGD.
 *  @param budget >= 1, any int64_t; default 500. Restarts the solver (alpha
 *         and model state). Storage is min(budget, n) + 1 points, so a budget
 *         far above n (e.g. 10^9) costs no more than budget = n; training
 *         fails with SS_ERR_ALLOC only when those points do not fit in memory.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, budget < 1); SS_ERR_BAD_STATE (a
 *          solver other than BSCA and BSGD, which keeps every support
 *          vector: refused rather than ignored). */
SS_API SsStatus ss_kernel_svm_set_budget(SsKernelSvm *self, int64_t budget);

/** @brief The budget B in force (default 500). */
SS_API int64_t ss_kernel_svm_get_budget(const SsKernelSvm *self);

/** @brief Set the budget maintenance strategy.
 *  @param maintenance one of SsBudgetMaintenance; default AUTO.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, unknown value, MERGE with a kernel
 *          other than rbf); SS_ERR_BAD_STATE (a solver other than BSCA and
 *          BSGD). Restarts the solver. */
SS_API SsStatus ss_kernel_svm_set_budget_maintenance(SsKernelSvm *self,
                                                     SsBudgetMaintenance maintenance);

/** @brief The maintenance strategy as set (AUTO unless changed). */
SS_API SsBudgetMaintenance ss_kernel_svm_get_budget_maintenance(const SsKernelSvm *self);

/** @brief Copy the budget statistics of the budgeted solver into @p out
 *  (all zero, budget set, before training or for another solver).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL). */
SS_API SsStatus ss_kernel_svm_get_budget_statistics(const SsKernelSvm *self,
                                                    SsBudgetStatistics *out);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_KERNEL_BUDGET_H */
