/* budget_train.h -- private: the state shared by the budgeted kernel solvers
 * BSCA (bsca.c) and BSGD (bsgd.c), their epoch driver and the diagnostic
 * pass (budget_train.c); never installed.
 *
 * Problem (docs/budget.rst): labels y_i in {-1, +1}, C = 1/(lambda n),
 *   primal  P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i <w, phi(x_i)>)
 *   dual    D(alpha) = lambda (1^T alpha - 1/2 alpha^T Q alpha),  0 <= alpha_i <= c_i C,
 *           Q_ij = y_i y_j k(x_i, x_j), w(alpha) = sum_i alpha_i y_i phi(x_i),
 * both in the lambda scaling of the linear SVM (D <= P; the usual C-scaled
 * values are P / lambda and D / lambda). No bias. c_i >= 0 are per-example
 * weights (SsBudgetTrainer.weights; NULL: all 1).
 */
#ifndef STOCHSVM_BUDGET_TRAIN_H
#define STOCHSVM_BUDGET_TRAIN_H

#include "budget.h"

typedef enum SsBudgetSolver {
  SS_BUDGET_SOLVER_BSCA = 0,
  SS_BUDGET_SOLVER_BSGD = 1,
  SS_BUDGET_SOLVER_BSCA_BIAS = 2 /**< BSCA with an unregularized bias (bsca_bias.c) */
} SsBudgetSolver;

/** BSCA with bias: candidate partners kept (bsca_bias.c). */
#define SS_BSCA_POOL 64

typedef struct SsBudgetTrainer {
  /* The problem (borrowed). */
  const SsData *data;        /**< no kernel map */
  const double *labels;      /**< [n] in {-1, +1} */
  const double *norms2;      /**< [n] ||x_i||^2 */
  SsBudgetKernel kernel;
  double C;                  /**< box bound, 1/(lambda n) */
  const double *weights;     /**< [n] per-example weights c_i (borrowed), NULL: all 1 */
  SsBudgetStrategy strategy;
  /* The state, kept between calls. */
  SsBudget model;            /**< the expansion w~ (budget B) */
  double *alpha;             /**< [n] dual variables; BSGD stores them divided by alpha_scale */
  double alpha_scale;        /**< BSGD: alpha_i = alpha_scale * alpha[i]; BSCA: 1 */
  int64_t iteration;         /**< steps done in total (t) */
  double *row_scratch;       /**< [dimension] zeros, BSCA with bias's k(x_i, x_j); NULL otherwise */
  int64_t *pool_index;       /**< BSCA with bias: [SS_BSCA_POOL] recently visited points, -1 empty */
  double *pool_value;        /**< their y_j - f~_j when last scored */
  /* Counters. */
  SsBudgetCounts counts;     /**< maintenance */
  int64_t maintenance_at_reset; /**< counts.num_maintenance when the model was last emptied
                                     (ss_budget_trainer_reset; 0 at init): while they are
                                     equal, w~ = w(alpha) (ss_budget_dual_exact) */
  int64_t num_updates;       /**< steps that changed the model (a term added or updated) */
  int64_t kernel_evaluations;
} SsBudgetTrainer;

/** Initialise the state for n = data->num_data points and budget B (alpha
 *  zeroed, model empty). @return SS_OK, SS_ERR_ALLOC, SS_ERR_BAD_ARG. */
SsStatus ss_budget_trainer_init(SsBudgetTrainer *tr, const SsData *data, const double *labels,
                                const double *norms2, SsBudgetKernel kernel, double C,
                                SsBudgetStrategy strategy, int64_t B);
void ss_budget_trainer_free(SsBudgetTrainer *tr);
/** Forget the model and alpha (iteration back to 0, counters kept). */
void ss_budget_trainer_reset(SsBudgetTrainer *tr);

/** Steps k_begin .. k_end - 1 of an epoch whose order is perm (each step
 *  visits x_{perm[k]}); iteration advances by k_end - k_begin. */
void ss_bsca_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end);
void ss_bsgd_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end);
/** BSCA without the bias, after a change of C (tr->C set): alpha_i above its
 *  new box c_i C comes down to it, and each change y_i delta phi(x_i) is
 *  taken out of w~ as a step's (bsca.c), so w~ stays the expansion of alpha
 *  (up to budget maintenance, as after any step). */
void ss_bsca_clip_to_box(SsBudgetTrainer *tr);
/** BSCA with an unregularized bias: pair steps (perm[k], perm[k + 1]) at even
 *  k, keeping sum_i y_i alpha_i = 0. Needs tr->row_scratch
 *  (ss_budget_trainer_enable_bias). */
void ss_bsca_pair_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end);
/** Allocate the row scratch the pair steps need. @return SS_OK, SS_ERR_ALLOC. */
SsStatus ss_budget_trainer_enable_bias(SsBudgetTrainer *tr);
/** The b minimising sum_i c_i max(0, 1 - y_i (f_i + b)) (labels +-1, weights
 *  c_i >= 0, NULL: all 1). Unweighted: the middle of the interval between the
 *  P-th and (P+1)-th smallest y_i - f_i, P the number of positives.
 *  work: 2 n doubles. */
double ss_budget_primal_bias(const double *scores, const double *labels, const double *weights,
                             int64_t n, double *work);

/** Run num_epochs epochs of the solver from the stored iteration (epoch e =
 *  t / n uses the permutation drawn from (seed, e), so runs split at epoch
 *  boundaries equal one run). @return SS_OK, SS_ERR_ALLOC, SS_ERR_NUMERIC. */
SsStatus ss_budget_train_epochs(SsBudgetTrainer *tr, SsBudgetSolver solver, int64_t num_epochs,
                                uint64_t seed);

/** Whether the dual D~ of ss_budget_objectives is D(alpha), a true dual
 *  value (D~ <= P*): BSCA's w~ = w(alpha), because no budget maintenance
 *  changed the model since it was last emptied. After maintenance D~ is an
 *  estimate read through the budgeted model, which may lie above P* and even
 *  above P(w~) (docs/budget.rst, "Objectives"). */
bool ss_budget_dual_exact(const SsBudgetTrainer *tr);

/** The diagnostic pass, O(n B) kernel evaluations (+ O(B^2) for ||w~||^2,
 *  written to norm2 when non-NULL; not counted in kernel_evaluations):
 *  primal P(w~) of the budgeted model, and the dual of the tracked alpha
 *  evaluated through the model, D~ = lambda (1^T alpha - 1/2 sum_i alpha_i y_i f~(x_i)),
 *  which is D(alpha) exactly while w~ = w(alpha) (ss_budget_dual_exact).
 *  Writes scores[i] = f~(x_i) when scores is non-NULL. */
void ss_budget_objectives(const SsBudgetTrainer *tr, double *primal, double *dual, double *scores,
                          double *norm2);

#endif /* STOCHSVM_BUDGET_TRAIN_H */
