/* sgdqn.h -- the knobs of SVMSGD2 and SGD-QN (Bordes, Bottou, Gallinari 2009;
 * SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN; src/core/linear/skip.c, sgdqn.c,
 * calibrate_t0.c; docs/sgdqn.rst): the skip, the diagonal scaling and the
 * search of t0.
 *
 * Knobs belong to their solver. The solver of an object is fixed when it is
 * created, and each setter below checks it at call time: on an object of
 * another solver it returns SS_ERR_BAD_STATE, changes nothing, and
 * ss_svm_get_last_error names both ("set_skip applies to solvers svmsgd2 and sgdqn, this
 * object's solver is sgd"). The getters answer for any object (the value
 * that solver would use, or the neutral value stated).
 */
#ifndef STOCHSVM_SGDQN_H
#define STOCHSVM_SGDQN_H

#include "svm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The paper's constant c in the default skip c / s. */
#define SS_SVM_SKIP_CONSTANT 16

/** @brief Iterations between two regularization steps of SVMSGD2 and SGD-QN
 *  (the regularizer is applied as one special example every @p skip
 *  iterations, at the iterations t with (t + 1) mod skip = 0).
 *  @param skip >= 1. skip = 1 regularizes at every step (SVMSGD2 then is
 *  plain SGD with an O(d) shrink per step).
 *  Default: round(c / s), c = SS_SVM_SKIP_CONSTANT, s the fraction of
 *  non-zero values in the data (counted when the data is set; 1 for
 *  abstract data and data with a kernel map), at least 1.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL or skip < 1); SS_ERR_BAD_STATE
 *          (not SVMSGD2 or SGD-QN). */
SS_API SsStatus ss_svm_set_skip(SsSvm *self, int64_t skip);
/** @brief Go back to the default skip round(c / s).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (not SVMSGD2 or SGD-QN). */
SS_API SsStatus ss_svm_unset_skip(SsSvm *self);
/** @brief The skip in force (the default is computed from the data's density). */
SS_API int64_t ss_svm_get_skip(const SsSvm *self);
/** @brief The fraction s of non-zero values of the data (1 without data
 *  and for abstract data; with a kernel map, of the mapped values, as the
 *  explicitly mapped matrix would count them). */
SS_API double ss_svm_get_density(const SsSvm *self);
/** @brief SGD-QN's diagonal rescaling B: dimension + 1 values owned by the
 *  object (the last one scales the bias coordinate w_b), valid until the
 *  object is deleted; NULL for other solvers. Starts at 1/lambda, is kept
 *  between train calls and reset to 1/lambda by ss_svm_set_lambda and
 *  ss_svm_reset_scaling, set by ss_svm_set_scaling. For the built-in
 *  (convex) losses every value stays in [1/(2 lambda), 1/lambda]. */
SS_API const double *ss_svm_get_scaling(const SsSvm *self);
/** @brief SGD-QN: B <- 1/lambda, and the leaky average restarts (r = 2).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (not SGD-QN). */
SS_API SsStatus ss_svm_reset_scaling(SsSvm *self);
/** @brief SGD-QN: the number u of updates of B since its last reset (the
 *  leaky average's r is 2 + u); 0 for other solvers. */
SS_API int64_t ss_svm_get_scaling_updates(const SsSvm *self);
/** @brief SGD-QN: set B and its update count (to continue another object's
 *  run exactly, with ss_svm_set_model, ss_svm_set_bias and
 *  ss_svm_set_iteration_number).
 *  @param scaling  dimension + 1 values (copied), each finite and > 0.
 *  @param updates  >= 0: r becomes 2 + updates.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, a value out of range; nothing
 *          changes); SS_ERR_BAD_STATE (not SGD-QN). */
SS_API SsStatus ss_svm_set_scaling(SsSvm *self, const double *scaling, int64_t updates);

/** Number of t0 values in the default grid of ss_svm_calibrate_t0. */
#define SS_SVM_CALIBRATION_GRID 10

/** @brief Pick t0 as the paper does: from the present state (model, bias,
 *  iteration number, SGD-QN scaling), run one pass over a random 10 % subset
 *  of the data (ceil(n / 10) examples, at least 1, drawn from the seed) for
 *  each candidate t0, evaluate the primal objective on that subset, and set
 *  the candidate with the lowest one (ss_svm_set_t0). The state is restored
 *  after each trial: only t0 changes. Candidates whose trial diverges
 *  count as +infinity. No callback is called and statistics are unchanged.
 *  Cost: about 2 n / 10 row operations per candidate.
 *  Solvers SS_SOLVER_SGD, SS_SOLVER_SVMSGD2 and SS_SOLVER_SGDQN.
 *  @param candidates    num_candidates values, each finite and > 1 (borrowed);
 *                       NULL for the default grid 10^1, 10^2, ..., 10^10
 *                       (SS_SVM_CALIBRATION_GRID values; num_candidates ignored).
 *  @param objectives    NULL, or room for as many values as candidates: the
 *                       subset objective reached with each (+INFINITY if it diverged).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL self, num_candidates < 1, a candidate
 *          out of range); SS_ERR_BAD_STATE (no data, or a solver without
 *          t0); SS_ERR_BAD_DATA (labels not -1/+1 for a classification loss);
 *          SS_ERR_NUMERIC (every candidate diverged; t0 unchanged); SS_ERR_ALLOC. */
SS_API SsStatus ss_svm_calibrate_t0(SsSvm *self, const double *candidates, int64_t num_candidates,
                                    double *objectives);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_SGDQN_H */
