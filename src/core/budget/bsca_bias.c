/* bsca_bias.c -- BSCA with an unregularized bias: budgeted stochastic
 * coordinate ascent on pairs of coordinates (SMO steps, the partner chosen
 * among recently visited points), the dual of the SVM that LIBSVM solves
 * (docs/budget.rst; the paper, Qaadan, Schueler, Glasmachers, drops
 * the bias).
 *
 * Why: without a bias, f = sum_i alpha_i y_i k(x_i, .) and for a kernel that
 * is nearly constant on the data (a9a: rbf, gamma = 2^-7, binary rows,
 * k in [0.80, 1], mean 0.89) Q = Y K Y has one eigenvalue of about 0.89 n
 * along y, against Q_ii = 1. A coordinate step delta on alpha_i moves every
 * score by about 0.89 y_i delta: the offset of f is whatever the last few
 * steps left it, and test accuracy swings between 0.52 and 0.84 from one
 * epoch to the next while the dual rises steadily and the accuracy of the
 * best threshold stays at 0.84-0.85 (bench/results/budget_paper.md).
 *
 * The problem with bias b (w = sum_i alpha_i y_i phi(x_i), C = 1/(lambda n),
 * per-example weights c_i >= 0, default 1):
 *
 *     max_alpha  1^T alpha - 1/2 alpha^T Q alpha,
 *     0 <= alpha_i <= c_i C,  sum_i y_i alpha_i = 0,
 *
 * removes that direction from the feasible set. Steps keep the equality.
 * Iteration t visits i = perm[k] of the epoch's permutation, scores it, and
 * pairs it with the partner j among the last SS_BSCA_POOL visited points
 * that violates the optimality conditions most with it, by the values
 * v_j = y_j - f~_j stored when j was last touched (LIBSVM's first-order
 * working-set rule, on a small candidate set; no partner, no step). The pair
 * moves along u = y_i e_i - y_j e_j:
 *
 *     f~_j  afresh from the budgeted model (B more kernel values)
 *     eta = k(x_i, x_i) + k(x_j, x_j) - 2 k(x_i, x_j)     (= u^T Q u)
 *     t   = ((y_i - f~_i) - (y_j - f~_j)) / eta,   the exact maximiser along u,
 *           clipped so that alpha_i + y_i t and alpha_j - y_j t stay in their boxes
 *     alpha_i += y_i t,  alpha_j -= y_j t,  w~ += t phi(x_i) - t phi(x_j)
 *
 * (each term folded into the point's own entry when present, else appended
 * and followed by budget maintenance); then x_i takes the oldest pool
 * entry's place. With eta <= 0 (duplicate points) the
 * dual is linear along u and t goes to the bound in the ascent direction.
 * Without maintenance every step increases the dual, and the scores are
 * invariant to b, so b is not needed during training. It is set at each
 * evaluation (kernel_svm_budget.c) to the minimiser of the primal over b for
 * the budgeted w~, which for an exact optimum is the KKT bias.
 */
#include "budget_train.h"

#include <math.h>

/* Add c phi(x_i) to the expansion (x_i's own term when present). */
static void add_term(SsBudgetTrainer *tr, int64_t i, double c)
{
  SsBudget *model = &tr->model;
  const int64_t slot = model->slot_of[i];
  if (slot >= 0) {
    model->beta[slot] += c;
    if (model->beta[slot] == 0) ss_budget_remove_term(model, slot);
  } else {
    ss_budget_append_row(model, tr->data, i, tr->norms2[i], c, i);
    ss_budget_maintain(model, tr->strategy, &tr->kernel, &tr->counts);
  }
}

/* The interval of t keeping alpha + s t in [0, C] (s = +1 or -1). */
static void box_interval(double alpha, double s, double C, double *lo, double *hi)
{
  if (s > 0) {
    *lo = -alpha;
    *hi = C - alpha;
  } else {
    *lo = alpha - C;
    *hi = alpha;
  }
}

/* Example i's upper bound c_i C (per-example weights, bsca.c). */
static double box_of(const SsBudgetTrainer *tr, int64_t i)
{
  return tr->weights ? tr->C * tr->weights[i] : tr->C;
}

/* Can alpha_j grow along +y_j (I_up) / shrink along it (I_low)? */
static bool in_up(double y, double a, double C) { return y > 0 ? a < C : a > 0; }
static bool in_low(double y, double a, double C) { return y > 0 ? a > 0 : a < C; }

void ss_bsca_pair_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end)
{
  SsBudget *model = &tr->model;
  for (int64_t k = k_begin; k < k_end; ++k) {
    const int64_t i = perm[k];
    const double yi = tr->labels[i], ni = tr->norms2[i];
    const double Ci = box_of(tr, i);
    const double fi = ss_budget_score_row_kept(model, &tr->kernel, tr->data, i, ni);
    tr->kernel_evaluations += model->size;
    const double vi = yi - fi;
    /* The partner: the most violating pool entry by its stored value. */
    int best = -1;
    double best_gap = 0;
    for (int q = 0; q < SS_BSCA_POOL; ++q) {
      const int64_t j = tr->pool_index[q];
      if (j < 0 || j == i) continue;
      const double vj = tr->pool_value[q], aj = tr->alpha[j], yj = tr->labels[j];
      const double gap = vi - vj, Cj = box_of(tr, j);
      const bool ok = gap > 0 ? in_up(yi, tr->alpha[i], Ci) && in_low(yj, aj, Cj)
                              : in_low(yi, tr->alpha[i], Ci) && in_up(yj, aj, Cj);
      if (ok && fabs(gap) > best_gap) {
        best_gap = fabs(gap);
        best = q;
      }
    }
    double vi_new = vi;
    if (best >= 0) {
      const int64_t j = tr->pool_index[best];
      const double yj = tr->labels[j], nj = tr->norms2[j], Cj = box_of(tr, j);
      const double fj = ss_budget_score_row_kept(model, &tr->kernel, tr->data, j, nj);
      tr->kernel_evaluations += model->size + 1;
      const double kij = ss_budget_kernel_value(
          &tr->kernel, ss_budget_row_dot_row(tr->data, i, j, tr->row_scratch), ni, nj);
      const double kii = ss_budget_kernel_value(&tr->kernel, ni, ni, ni);
      const double kjj = ss_budget_kernel_value(&tr->kernel, nj, nj, nj);
      const double eta = kii + kjj - 2 * kij;
      const double G = vi - (yj - fj); /* u^T grad D, u = y_i e_i - y_j e_j */
      double lo_i, hi_i, lo_j, hi_j;
      box_interval(tr->alpha[i], yi, Ci, &lo_i, &hi_i);
      box_interval(tr->alpha[j], -yj, Cj, &lo_j, &hi_j);
      const double lo = fmax(lo_i, lo_j), hi = fmin(hi_i, hi_j);
      double t;
      if (eta > 0) t = G / eta;
      else t = G > 0 ? hi : (G < 0 ? lo : 0.0);
      t = t < lo ? lo : (t > hi ? hi : t);
      double vj_new = yj - fj;
      if (t != 0 && isfinite(t)) {
        /* alpha exactly at the bound it was clipped to */
        tr->alpha[i] = t == hi_i ? (yi > 0 ? Ci : 0.0)
                                 : (t == lo_i ? (yi > 0 ? 0.0 : Ci) : tr->alpha[i] + yi * t);
        tr->alpha[j] = t == hi_j ? (yj < 0 ? Cj : 0.0)
                                 : (t == lo_j ? (yj < 0 ? 0.0 : Cj) : tr->alpha[j] - yj * t);
        tr->num_updates++;
        add_term(tr, i, t);
        add_term(tr, j, -t);
        vi_new -= t * (kii - kij);
        vj_new -= t * (kij - kjj);
      }
      tr->pool_value[best] = vj_new;
    }
    /* x_i joins the pool in the place of the oldest entry. */
    const int q = (int)(tr->iteration % SS_BSCA_POOL);
    tr->pool_index[q] = i;
    tr->pool_value[q] = vi_new;
    tr->iteration++;
  }
}
