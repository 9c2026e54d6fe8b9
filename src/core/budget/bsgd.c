/* bsgd.c -- budgeted stochastic gradient descent (BSGD; Wang, Crammer,
 * Vucetic, JMLR 2012), the primal baseline of the BSCA paper
 * (docs/budget.rst).
 *
 * Primal of the kernel SVM without bias, Pegasos' learning rate:
 *
 *     P(w) = lambda/2 ||w||^2 + 1/n sum_i c_i max(0, 1 - y_i <w, phi(x_i)>),
 *     eta_t = 1 / (lambda t),  t = 1, 2, ...,  c_i >= 0 weights (default 1)
 *
 * Step t visits i = perm[k], computes f~_i = <w~, phi(x_i)> over the budgeted
 * expansion (B kernel values), then
 *
 *     w~ <- (1 - 1/t) w~                    (every beta_j scaled, O(B))
 *     if y_i f~_i < 1:  w~ <- w~ + eta_t c_i y_i phi(x_i)   (c_i times hinge's subgradient)
 *
 * adding to x_i's own term when x_i is still in the expansion, else as a new
 * term followed by budget maintenance when there are B + 1 terms. The dual
 * variables implied by the unbudgeted iterate, w = sum_i alpha_i y_i phi(x_i)
 * (alpha <- (1 - 1/t) alpha, alpha_i += eta_t c_i on a violation), are tracked
 * for the dual objective through one common scale factor (O(1) per step);
 * they are not confined to the box [0, C], so that dual can be low or
 * negative (the paper's Figure 1 shows it).
 */
#include "budget_train.h"

#include <string.h>

void ss_bsgd_steps(SsBudgetTrainer *tr, const int64_t *perm, int64_t k_begin, int64_t k_end)
{
  SsBudget *model = &tr->model;
  const int64_t n = tr->data->num_data;
  const double lambda = 1.0 / (tr->C * (double)n);
  for (int64_t k = k_begin; k < k_end; ++k) {
    const int64_t i = perm[k];
    const int64_t t = ++tr->iteration;
    const double y = tr->labels[i], n2 = tr->norms2[i];
    const double f = ss_budget_score_row_kept(model, &tr->kernel, tr->data, i, n2);
    tr->kernel_evaluations += model->size;
    const double shrink = 1.0 - 1.0 / (double)t;
    if (shrink == 0) { /* t = 1: w~ <- 0 */
      ss_budget_clear(model);
      memset(tr->alpha, 0, (size_t)n * sizeof(double));
      tr->alpha_scale = 1.0;
    } else {
      for (int64_t j = 0; j < model->size; ++j) model->beta[j] *= shrink;
      tr->alpha_scale *= shrink;
    }
    const double c = tr->weights ? tr->weights[i] : 1.0;
    if (y * f >= 1 || c == 0) continue;
    const double eta = c / (lambda * (double)t);
    tr->alpha[i] += eta / tr->alpha_scale;
    tr->num_updates++;
    const int64_t slot = model->slot_of[i];
    if (slot >= 0) {
      model->beta[slot] += y * eta;
    } else {
      ss_budget_append_row(model, tr->data, i, n2, y * eta, i);
      ss_budget_maintain(model, tr->strategy, &tr->kernel, &tr->counts);
    }
  }
}
