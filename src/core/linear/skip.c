/* skip.c -- how often SVMSGD2 and SGD-QN apply the regularizer (Bordes,
 * Bottou, Gallinari 2009, section 5.2; docs/sgdqn.rst).
 *
 * The gradient of E_i = lambda/2 ||w||^2 + loss_i has a dense part lambda w
 * and a part that is as sparse as x_i. Both solvers apply the dense part only
 * every `skip` iterations, scaled by skip, as one "special example": a sparse
 * step then costs O(nnz(x_i)) and the regularizer O(d / skip) on average.
 * The paper takes skip = c / s, where s is the average fraction of non-zero
 * features of an example, so that the regularizer costs about 1/c of the
 * sparse steps; c = 16 (SS_SVM_SKIP_CONSTANT). On dense data skip = 16.
 *
 * The density s is counted once, when the data is set: the fraction of the
 * n d values that are non-zero (stored zeros of a sparse matrix do not
 * count, so dense and CSR copies of one matrix get the same skip). With a
 * kernel map it is the fraction of the n d (2 order + 1) mapped values that
 * are non-zero, as the explicitly mapped matrix would count it (a zero maps
 * to zeros, x = 1 to zero sines), so that both paths train the same model.
 * Abstract data count as dense (s = 1).
 */
#include "svm_internal.h"

#include <math.h>

bool ss_solver_uses_skip(SsSolver solver)
{
  return solver == SS_SOLVER_SVMSGD2 || solver == SS_SOLVER_SGDQN;
}

/* Non-zero values of the map of x (all 2 order + 1 of them zero for x = 0). */
static int64_t mapped_nonzero(const SsHomKerMap *map, double x)
{
  if (x == 0) return 0;
  double phi[2 * SS_HOMKERMAP_MAX_ORDER + 1];
  const int64_t D = ss_homkermap_dimension(map);
  ss_homkermap_evaluate(map, x, phi, 1);
  int64_t nonzero = 0;
  for (int64_t k = 0; k < D; ++k) nonzero += phi[k] != 0;
  return nonzero;
}

/* Non-zero values among count values of either type (of their maps, with @p map). */
static int64_t count_nonzero(const void *values, SsDType dtype, int64_t count, const SsHomKerMap *map)
{
  int64_t nonzero = 0;
  if (dtype == SS_DTYPE_FLOAT32) {
    const float *v = values;
    for (int64_t k = 0; k < count; ++k) nonzero += map ? mapped_nonzero(map, v[k]) : v[k] != 0;
  } else {
    const double *v = values;
    for (int64_t k = 0; k < count; ++k) nonzero += map ? mapped_nonzero(map, v[k]) : v[k] != 0;
  }
  return nonzero;
}

double ss_source_density(const SsDataSource *source)
{
  if (source->kind != SS_DATA_DESCRIPTOR) return 1.0;
  const SsData *data = &source->descriptor;
  const SsHomKerMap *map = data->homkermap;
  const int64_t n = data->num_data, d = data->dimension;
  int64_t nonzero = 0;
  if (data->layout == SS_LAYOUT_DENSE) {
    const size_t size = data->dtype == SS_DTYPE_FLOAT32 ? sizeof(float) : sizeof(double);
    for (int64_t i = 0; i < n; ++i)
      nonzero += count_nonzero((const char *)data->values + (size_t)(i * data->row_stride) * size,
                               data->dtype, d, map);
  } else {
    if (data->indptr[n] > 0) nonzero = count_nonzero(data->values, data->dtype, data->indptr[n], map);
  }
  const double D = map ? (double)ss_homkermap_dimension(map) : 1.0;
  return (double)nonzero / ((double)n * (double)d * D);
}

int64_t ss_svm_effective_skip(const SsSvm *self)
{
  if (self->skip > 0) return self->skip;
  if (!(self->density > 0)) return 1; /* all-zero data: the regularizer is all there is */
  double skip = round((double)SS_SVM_SKIP_CONSTANT / self->density);
  return skip < 1 ? 1 : (int64_t)skip;
}

SsStatus ss_svm_set_skip(SsSvm *self, int64_t skip)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "set_skip");
  if (ss_svm_require_solver(self, "set_skip", SS_SOLVERS_SKIP) != SS_OK) return SS_ERR_BAD_STATE;
  if (skip < 1) return ss_svm_fail(self, SS_ERR_BAD_ARG, "set_skip: skip must be >= 1, got %lld", (long long)skip);
  self->skip = skip;
  return ss_svm_succeed(self);
}

SsStatus ss_svm_unset_skip(SsSvm *self)
{
  if (!self) return SS_ERR_BAD_ARG;
  if (self->training) return ss_svm_refuse_while_training(self, "unset_skip");
  if (ss_svm_require_solver(self, "unset_skip", SS_SOLVERS_SKIP) != SS_OK) return SS_ERR_BAD_STATE;
  self->skip = 0;
  return ss_svm_succeed(self);
}

int64_t ss_svm_get_skip(const SsSvm *self) { return self ? ss_svm_effective_skip(self) : 0; }
double ss_svm_get_density(const SsSvm *self) { return self ? self->density : NAN; }
