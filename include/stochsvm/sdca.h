/* sdca.h -- the knobs and state of stochastic dual coordinate ascent
 * (SS_SOLVER_SDCA, src/core/linear/sdca.c, sdca_shift.c): the dual
 * variables, the CoCoA+ shift and shrinking.
 *
 * Knobs belong to their solver. The solver of an object is fixed when it is
 * created, and each setter below checks it at call time: on an object of
 * another solver it returns SS_ERR_BAD_STATE, changes nothing, and
 * ss_svm_get_last_error names both ("set_shrinking applies to solver sdca, this
 * object's solver is sgd"). The getters answer for any object (the value
 * that solver would use, or the neutral value stated).
 */
#ifndef STOCHSVM_SDCA_H
#define STOCHSVM_SDCA_H

#include "svm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief SDCA: set the dual variables alpha (n finite values, copied, each in
 *  its loss's domain: y alpha_i / c_i in [0, 1] for hinge and logistic, >= 0
 *  for hinge2, |alpha_i / c_i| <= 1 for l1). The model becomes
 *  w~ = 1/(lambda n) sum_i alpha_i (x_i, B). SS_ERR_BAD_STATE for other
 *  solvers or without data. */
SS_API SsStatus ss_svm_set_dual_variables(SsSvm *self, const double *alpha);
/** @brief SDCA: add a shift (r, r_b) to the model derived from the dual
 *  variables, w = r + 1/(lambda n) sum_i alpha_i x_i and b = r_b + B^2/(lambda n)
 *  sum_i alpha_i, until the model is next rebuilt from them (set_dual_variables,
 *  a restart of the dual, a change of lambda, bias multiplier or data). The
 *  following steps maximise the dual of the shifted problem: CoCoA+'s local
 *  subproblem (sdca_shift.c). The duality gap in the statistics is that of the
 *  shifted problem. Resets the shrinking state.
 *  @param shift       @c dimension finite values, added to w (borrowed).
 *  @param bias_shift  finite, added to b.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL, non-finite); SS_ERR_BAD_STATE (not
 *          SDCA, or no data). */
SS_API SsStatus ss_svm_shift_sdca_model(SsSvm *self, const double *shift, double bias_shift);
/** @brief SDCA: turn shrinking on (non-zero, the default) or off.
 *
 *  With the hinge and squared hinge losses, SDCA skips an example whose dual
 *  variable sits at a bound of its box while its projected gradient says it
 *  will stay there (beyond the range the active examples' projected gradients
 *  covered in the previous epoch; Hsieh et al. 2008, as LIBLINEAR). An
 *  epoch visits the examples active when it began, in an order drawn for
 *  them from the seed and the epoch (with the default visit order; in the
 *  first epoch, the unshrunk solver's permutation), so it costs
 *  O(active examples). A skipped visit still counts as an iteration, so
 *  epochs, diagnostics and the iteration number are unchanged; only its
 *  cost drops. All examples become
 *  active again when the spread of the active ones' projected gradients over
 *  an epoch falls below a tolerance (first 0.1, divided by 10 each time it is
 *  reached with every example active). The duality gap is always computed
 *  over all examples, so the stopping rule and the reported objectives do not
 *  depend on shrinking; the steps' own estimate of the gap only decides when
 *  to compute it (at once when the estimate is below the tolerance, besides
 *  the diagnostic budget's schedule). Other losses never shrink.
 *
 *  The shrinking state is kept between train calls (train N equals N/2 + N/2
 *  bit for bit) and reset, with every example active, whenever the dual
 *  variables are set or restarted. A fresh object given the dual variables of
 *  another therefore continues exactly (to rounding) only with shrinking off.
 *  Calling this setter also resets the state.
 *  @return SS_OK; SS_ERR_BAD_ARG (NULL); SS_ERR_BAD_STATE (not SDCA). */
SS_API SsStatus ss_svm_set_shrinking(SsSvm *self, int enabled);
/** @brief Which model an SDCA object holds (ss_svm_get_sdca_model). */
typedef enum SsSdcaModel {
  SS_SDCA_MODEL_NONE = -1,    /**< not an SDCA object, or never trained */
  SS_SDCA_MODEL_DUAL = 0,     /**< w~(alpha), the dual variables' own model */
  SS_SDCA_MODEL_EARLIER = 1,  /**< a converged run's: w~(alpha_j) of an earlier diagnostic of the
                                   train call, of lower primal objective */
  SS_SDCA_MODEL_AVERAGE = 2,  /**< a converged run's (hinge and l1 losses): the tail average of
                                   the call's epoch models, of lower primal objective */
  SS_SDCA_MODEL_RAY = 3,      /**< a run stopped on its cap: t* w~(alpha), the best point of the
                                   ray through w~(alpha) */
  SS_SDCA_MODEL_NEWTON = 4    /**< a run that handed over to the Newton fallback: Newton's w~,
                                   the dual variables its certificate's point (the next train
                                   rebuilds w~(alpha) from them) */
} SsSdcaModel;

/** @brief The model SDCA returned: w~(alpha), or after a converged run the
 *  certified model of least primal objective (an earlier diagnostic's, or
 *  the tail average), or after a run stopped on its cap the best point of
 *  the ray (docs/sdca.rst, "The best model"), or after a run that handed
 *  over to the Newton fallback Newton's model (ss_svm_set_newton_fallback).
 *  Reading it makes the closing diagnostic a run left pending, as the
 *  statistics do.
 *  @return an SsSdcaModel; SS_SDCA_MODEL_NONE for NULL, other solvers and
 *          untrained objects. */
SS_API SsSdcaModel ss_svm_get_sdca_model(const SsSvm *self);

/** @brief SDCA's dual variables (n values, owned by the object), or NULL for
 *  other solvers and objects without data. The model is w~(alpha), except
 *  after a run stopped on its cap (the best point of the ray through it)
 *  and after a converged run whose diagnostics measured a lower model (an
 *  earlier one, or with the hinge and l1 losses the tail average of the
 *  epochs' models), which it returns with the gap P(model) - D(alpha); a
 *  further train continues from alpha and w~(alpha) (docs/sdca.rst). */
SS_API const double *ss_svm_get_dual_variables(const SsSvm *self);
/** @brief 1 if SDCA shrinking is on (the default), else 0. */
SS_API int ss_svm_get_shrinking(const SsSvm *self);
/** @brief SDCA: examples skipped by shrinking at present (0 for other solvers). */
SS_API int64_t ss_svm_get_num_shrunk(const SsSvm *self);

#ifdef __cplusplus
}
#endif

#endif /* STOCHSVM_SDCA_H */
