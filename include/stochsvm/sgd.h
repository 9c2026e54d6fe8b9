/* sgd.h -- the step schedule of the SGD solvers of the linear SVM object
 * (SS_SOLVER_SGD, SS_SOLVER_SVMSGD2, SS_SOLVER_SGDQN): eta_t = 1/(lambda (t + t0)).
 *
 * Knobs belong to their solver. The solver of an object is fixed when it is
 * created, and each setter below checks it at call time: on an object of
 * another solver it returns SS_ERR_BAD_STATE, changes nothing, and
 * ss_svm_get_last_error names both ("set_t0 applies to solvers sgd, svmsgd2 and sgdqn, this
 * object's solver is sgd"). The getters answer for any object (the value
 * that solver would use, or the neutral value stated).
 */
#ifndef STOCHSVM_SGD_H
#define STOCHSVM_SGD_H

#include "svm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief SGD schedule offset t0 > 1, finite: eta_t = 1/(lambda (t + t0)).
 *
 *  Default max(2, 2/lambda, L/lambda), recomputed at train time while unset.
 *  2/lambda is VLFeat's documented rule: the first step is eta = 1/2 (VLFeat's
 *  code uses max(2, ceil(1/lambda)), a first step of about 1). L bounds the
 *  curvature of the loss over the augmented rows (x_i, B), with
 *  R^2 = max_i ||x_i||^2 + B^2: L = 2 R^2 for the squared hinge, R^2/4 for the
 *  logistic loss, 0 for the hinge loss. The L/lambda term keeps the first step
 *  below 1/L, where a smooth loss would otherwise overshoot on unnormalised
 *  data. With R^2 <= 1 the default is 2/lambda for every loss; with
 *  unit-norm rows and B = 1 (R^2 = 2) it is 4/lambda for the squared hinge.
 *  SVMSGD2 and SGD-QN use a 99 % quantile of ||x_i||^2 for R^2 (a few
 *  outlier rows do not shrink every step), take L = R^2 + B^2 for the hinge
 *  and l1 losses (docs/sgdqn.rst), and take the larger of this and skip, so
 *  that their regularization step w <- (1 - skip/(t + t0)) w never flips the
 *  sign of w;
 *  ss_svm_calibrate_t0 (sgdqn.h) searches t0 as the paper does.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, t0 out of range); SS_ERR_BAD_STATE
 *          (not SGD, SVMSGD2 or SGD-QN). */
SS_API SsStatus ss_svm_set_t0(SsSvm *self, double t0);
/** @brief Go back to the default t0 (recomputed from lambda at train time).
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (as ss_svm_set_t0). */
SS_API SsStatus ss_svm_unset_t0(SsSvm *self);
/** @brief The t0 in force (the default is computed from lambda). */
SS_API double ss_svm_get_t0(const SsSvm *self);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_SGD_H */
