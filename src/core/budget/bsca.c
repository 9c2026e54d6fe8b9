/* bsca.c -- budgeted stochastic coordinate ascent (BSCA; Qaadan, Schueler,
 * Glasmachers, Algorithm 1; the math: docs/budget.rst).
 *
 * Dual box QP of the kernel SVM without bias, C = 1/(lambda n):
 *
 *     max_alpha  1^T alpha - 1/2 alpha^T Q alpha,   0 <= alpha_i <= C,
 *     Q_ij = y_i y_j k(x_i, x_j).
 *
 * The weight vector w = sum_i alpha_i y_i phi(x_i) is replaced by the
 * budgeted expansion w~ = sum_j beta_j phi(z_j) of at most B terms; alpha is
 * kept only for the box constraints. Step t visits i = perm[k] and
 *
 *     f~_i  = sum_j beta_j k(z_j, x_i)                       (B kernel values)
 *     delta = clip(alpha_i + (1 - y_i f~_i) / Q_ii, 0, c_i C) - alpha_i
 *
 * (the exact coordinate maximiser of the dual, with the gradient 1 - y_i f_i
 * taken from w~ instead of w). If delta != 0: alpha_i += delta and
 * y_i delta phi(x_i) is added to w~ -- to x_i's own term when x_i is still in
 * the expansion (a term whose coefficient returns to exactly 0 is dropped),
 * else as a new term; a model of B + 1 terms is brought back to B by budget
 * maintenance (budget.h). Each step costs O(B) kernel evaluations, whatever
 * n. There is no KKT stopping rule (KKT violations do not vanish under a
 * budget): the caller runs a fixed number of epochs. Points with Q_ii = 0
 * (a zero vector under a linear or polynomial kernel) are skipped.
 *
 * Per-example weights c_i >= 0 (default 1) make the box 0 <= alpha_i <= c_i C,
 * the dual of the weighted primal 1/n sum_i c_i hinge_i (budget_train.h).
 */
#include "budget_train.h"

/* alpha_i += delta, and y_i delta phi(x_i) into w~: to x_i's own term when
 * x_i is still in the expansion (dropped when its coefficient returns to
 * exactly 0), else as a new term, brought back to B terms by maintenance. */
static void move_alpha(SsBudgetTrainer *tr, int64_t i, double a_new)
{
  SsBudget *model = &tr->model;
  const double y = tr->labels[i], delta = a_new - tr->alpha[i];
  tr->alpha[i] = a_new;
  const int64_t slot = model->slot_of[i];
  if (slot >= 0) {
    model->beta[slot] += y * delta;
    if (model->beta[slot] == 0) ss_budget_remove_term(model, slot);
  } else {
    ss_budget_append_row(model, tr->data, i, tr->norms2[i], y * delta, i);
    ss_budget_maintain(model, tr->strategy, &tr->kernel, &tr->counts);
  }
}

/* A warm start at a smaller C (ss_budget_solver_start) used to clip alpha
 * only: w~ kept the old alpha's terms, so the steps' gradients 1 - y_i f~_i
 * and the dual read through w~ answered the old C (B = n, C = 100 then 1:
 * "converged" at 1.21x the optimum, or the cap at 5.2x). */
void ss_bsca_clip_to_box(SsBudgetTrainer *tr)
{
  const int64_t n = tr->data->num_data;
  for (int64_t i = 0; i < n; ++i) {
    const double Ci = tr->weights ? tr->C * tr->weights[i] : tr->C;
    if (tr->alpha[i] > Ci) move_alpha(tr, i, Ci);
  }
}

void ss_bsca_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end)
{
  SsBudget *model = &tr->model;
  const double C = tr->C;
  for (int64_t k = k_begin; k < k_end; ++k) {
    const int64_t i = perm[k];
    const double y = tr->labels[i], n2 = tr->norms2[i];
    const double f = ss_budget_score_row_kept(model, &tr->kernel, tr->data, i, n2);
    tr->kernel_evaluations += model->size;
    const double Qii = ss_budget_kernel_value(&tr->kernel, n2, n2, n2);
    if (!(Qii > 0)) continue;
    const double a_old = tr->alpha[i];
    double a_new = a_old + (1.0 - y * f) / Qii;
    const double Ci = tr->weights ? C * tr->weights[i] : C;
    a_new = a_new < 0 ? 0.0 : (a_new > Ci ? Ci : a_new);
    if (a_new - a_old == 0) continue;
    tr->num_updates++;
    move_alpha(tr, i, a_new);
  }
  tr->iteration += k_end - k_begin;
}
