#include <stdio.h>
#include <stochsvm/svm.h>

int main(void) {
  double X[] = {3, 2,  2, 4,  4, 3,  0, 0,  -1, 1,  1, -1};  /* 6 points in 2-D, one per row */
  double y[] = {1, 1, 1, -1, -1, -1};
  SsData data;
  if (ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, 6, 2, 2) != SS_OK) return 1;

  SsSvm *svm = ss_svm_new(SS_SOLVER_SGD, &data, y, 0.01);  /* lambda = 0.01 */
  if (svm == NULL) return 1;
  ss_svm_set_bias_multiplier(svm, 1.0);                    /* learn a bias b */
  SsStatus status = ss_svm_train(svm);

  const double *w = ss_svm_get_model(svm);
  double b = ss_svm_get_bias(svm);
  printf("w = (%.3f, %.3f)  b = %.3f  objective = %.4f\n", w[0], w[1], b,
         ss_svm_get_statistics(svm)->objective);
  int separated = 1;
  for (int i = 0; i < 6; ++i) separated &= y[i] * (w[0] * X[2*i] + w[1] * X[2*i + 1] + b) > 0;
  ss_svm_delete(svm);
  return status == SS_OK && separated ? 0 : 1;
}
