/* budget_expansion.c -- the budgeted kernel expansion f = sum_j beta_j phi(z_j)
 * of BSCA and BSGD (docs/budget.rst): storage of at most B + 1 dense
 * points with cached squared norms and a transposed copy (kept in step at
 * every write of a point: O(d) strided stores), appending and removing
 * terms, and scoring (the maintenance policy is budget_maintain.c, the
 * kernel budget_kernel.c). */
#include "budget.h"
#include "../common/vexp.h" /* SS_VECTOR_CLONES */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Doubles of scratch per row of capacity (budget.h: SsBudget.scratch). */
#define SCRATCH_ROWS 6

SsStatus ss_budget_init(SsBudget *budget, int64_t B, int64_t dimension, int64_t num_data)
{
  if (!budget || B < 1 || dimension < 1 || num_data < 0) return SS_ERR_BAD_ARG;
  /* Rows needed: B + 1, or n + 1 when B >= n terms are tracked (budget.h);
   * B = INT64_MAX would overflow B + 1 itself. */
  const int64_t rows_needed = (num_data > 0 && num_data < B) ? num_data : B;
  if (rows_needed == INT64_MAX ||
      (uint64_t)rows_needed + 1 > SIZE_MAX / sizeof(double) / 2 / (uint64_t)dimension ||
      (uint64_t)rows_needed + 1 > SIZE_MAX / sizeof(double) / SCRATCH_ROWS)
    return SS_ERR_ALLOC;
  SsBudget b = {0};
  b.budget = B;
  b.capacity = rows_needed + 1;
  b.dimension = dimension;
  b.num_data = num_data;
  const size_t cap = (size_t)b.capacity;
  b.points = malloc(cap * (size_t)dimension * sizeof(double));
  b.columns = malloc(cap * (size_t)dimension * sizeof(double));
  b.norms2 = malloc(cap * sizeof(double));
  b.beta = malloc(cap * sizeof(double));
  b.origin = malloc(cap * sizeof(int64_t));
  b.scratch = malloc(cap * SCRATCH_ROWS * sizeof(double));
  b.block_scratch = malloc((cap / SS_BUDGET_BLOCK + 1) * sizeof(int64_t));
  b.partners = malloc(cap * sizeof(int64_t));
  /* the kept rows serve merges, which only a budget below n needs */
  const bool maintained = num_data == 0 || B < num_data;
  bool kept_ok = true;
  b.merged_term = b.merged_from = b.merged_to = -1;
  for (int r = 0; r < SS_BUDGET_KEPT_ROWS; ++r) {
    b.kept[r].row = -1;
    if (maintained) kept_ok = (b.kept[r].values = malloc(cap * sizeof(double))) != NULL && kept_ok;
  }
  if (num_data > 0) b.slot_of = malloc((size_t)num_data * sizeof(int64_t));
  if (!b.points || !b.columns || !b.norms2 || !b.beta || !b.origin || !b.scratch ||
      !b.block_scratch || !b.partners || (num_data > 0 && !b.slot_of) || !kept_ok) {
    ss_budget_free(&b);
    return SS_ERR_ALLOC;
  }
  for (int64_t i = 0; i < num_data; ++i) b.slot_of[i] = -1;
  *budget = b;
  return SS_OK;
}

void ss_budget_free(SsBudget *budget)
{
  if (!budget) return;
  free(budget->points);
  free(budget->columns);
  free(budget->norms2);
  free(budget->beta);
  free(budget->origin);
  free(budget->slot_of);
  ss_budget_cholesky_free(budget);
  free(budget->scratch);
  free(budget->block_scratch);
  free(budget->partners);
  free(budget->merge_table);
  for (int r = 0; r < SS_BUDGET_KEPT_ROWS; ++r) free(budget->kept[r].values);
  memset(budget, 0, sizeof(*budget));
}

void ss_budget_clear(SsBudget *budget)
{
  ss_budget_cholesky_invalidate(budget);
  for (int64_t j = 0; j < budget->size; ++j)
    if (budget->origin[j] >= 0 && budget->slot_of) budget->slot_of[budget->origin[j]] = -1;
  budget->size = 0;
  budget->changes++;
}

void ss_budget_append_dense(SsBudget *budget, const double *z, double beta, int64_t origin)
{
  const int64_t j = budget->size++, d = budget->dimension;
  double *row = budget->points + j * d, n2 = 0;
  for (int64_t k = 0; k < d; ++k) {
    row[k] = z[k];
    n2 += z[k] * z[k];
  }
  budget->norms2[j] = n2;
  budget->beta[j] = beta;
  budget->origin[j] = origin;
  if (origin >= 0 && budget->slot_of) budget->slot_of[origin] = j;
  ss_budget_copy_to_columns(budget, j);
  ss_budget_cholesky_append(budget, j);
}

void ss_budget_point_changed(SsBudget *budget, int64_t j)
{
  ss_budget_copy_to_columns(budget, j);
  budget->changes++;
}

const double *ss_budget_kept_values(const SsBudget *budget, int64_t m, double gamma,
                                    int64_t *stale)
{
  *stale = -1;
  const int64_t row = budget->origin[m];
  if (row < 0 || m != budget->size - 1) return NULL;
  for (int r = 0; r < SS_BUDGET_KEPT_ROWS; ++r) {
    const SsBudgetKeptRow *kept = &budget->kept[r];
    if (kept->row != row || kept->size != m || kept->gamma != gamma ||
        kept->norm2 != budget->norms2[m])
      continue;
    if (kept->changes == budget->changes) return kept->values;
    /* one merge since, of a term appended after the score (the last,
     * removed without a move) into term merged_term < m */
    if (kept->changes == budget->merged_from && budget->changes == budget->merged_to &&
        budget->merged_term < m) {
      *stale = budget->merged_term;
      return kept->values;
    }
  }
  return NULL;
}

void ss_budget_remove_term(SsBudget *budget, int64_t j)
{
  const int64_t last = budget->size - 1, d = budget->dimension;
  if (budget->origin[j] >= 0 && budget->slot_of) budget->slot_of[budget->origin[j]] = -1;
  ss_budget_cholesky_remove(budget, j);
  if (j != last) {
    ss_budget_cholesky_move(budget, last, j);
    memcpy(budget->points + j * d, budget->points + last * d, (size_t)d * sizeof(double));
    ss_budget_copy_to_columns(budget, j);
    budget->norms2[j] = budget->norms2[last];
    budget->beta[j] = budget->beta[last];
    budget->origin[j] = budget->origin[last];
    if (budget->origin[j] >= 0 && budget->slot_of) budget->slot_of[budget->origin[j]] = j;
  }
  budget->size = last;
  budget->changes++;
}

/* |beta| as the smallest-term search ranks it, as an integer of the same
 * order: a non-negative double orders as its bits, so the bits of |beta|,
 * and -1 for a NaN coefficient, which counts as the smallest (the term is
 * garbage). An integer minimum vectorises; a double one does not (the
 * compiler may not reorder its comparisons). */
static inline int64_t smallest_key(double beta)
{
  uint64_t bits;
  memcpy(&bits, &beta, sizeof bits);
  bits &= ~(UINT64_C(1) << 63);
  return bits > UINT64_C(0x7FF0000000000000) ? -1 : (int64_t)bits;
}

/* The least key of terms j0 .. j1 - 1 (j0 < j1). */
SS_VECTOR_CLONES static int64_t least_key(const double *beta, int64_t j0, int64_t j1)
{
  int64_t least = smallest_key(beta[j0]);
  for (int64_t j = j0 + 1; j < j1; ++j) {
    const int64_t key = smallest_key(beta[j]);
    least = key < least ? key : least;
  }
  return least;
}

/* The first term of least key among j0 .. j1 - 1 (j0 < j1): the least key,
 * then the first term that has it, so a non-empty range always yields an
 * index, whatever its coefficients (infinite, NaN). */
static int64_t first_smallest(const SsBudget *budget, int64_t j0, int64_t j1)
{
  const int64_t least = least_key(budget->beta, j0, j1);
  int64_t j = j0;
  while (smallest_key(budget->beta[j]) != least) ++j;
  return j;
}

/* Blocks [begin, end) of ss_budget_smallest: each block's first smallest. */
static void smallest_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* each block writes its own entry */
  const SsBudget *budget = context;
  for (int64_t b = begin; b < end; ++b) {
    budget->block_scratch[b] =
        first_smallest(budget, b * SS_BUDGET_BLOCK, ss_budget_block_end(b, budget->size));
  }
}

int64_t ss_budget_smallest(const SsBudget *budget)
{
  if (budget->size == 0) return -1;
  /* a few instructions a term: split only at the kernel rows' length */
  SsThreadPool *pool = ss_threads_pool(budget->threads, budget->size);
  if (!pool) return first_smallest(budget, 0, budget->size);
  /* the blocks' first smallest, then the first of least key among them, in
   * block order: the first smallest of all */
  const int64_t num_blocks = ss_budget_num_blocks(budget->size);
  ss_parallel_for(pool, num_blocks, smallest_chunks, (void *)budget);
  int64_t best = budget->block_scratch[0];
  for (int64_t b = 1; b < num_blocks; ++b)
    if (smallest_key(budget->beta[budget->block_scratch[b]]) < smallest_key(budget->beta[best]))
      best = budget->block_scratch[b];
  return best;
}

double ss_budget_score_dense(const SsBudget *budget, const SsBudgetKernel *kernel,
                             const double *z, double nz)
{
  const int64_t d = budget->dimension;
  double f = 0;
  for (int64_t j = 0; j < budget->size; ++j)
    f += budget->beta[j] * ss_budget_kernel_value(kernel, ss_budget_dot(budget->points + j * d, z, d),
                                                  budget->norms2[j], nz);
  return f;
}

/* ||w||^2's Gram rows: the arguments, for the pool's chunks. */
typedef struct GramJob {
  const SsBudget *budget;
  const SsBudgetKernel *kernel;
  double *rows; /* rows[j] = sum_l beta_l k(z_j, z_l) */
} GramJob;

/* Rows [begin, end) of the Gram matrix times beta, each summed over l in order. */
static void gram_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  (void)slot; /* each row writes its own entry */
  const GramJob *job = context;
  const SsBudget *b = job->budget;
  const int64_t d = b->dimension;
  for (int64_t j = begin; j < end; ++j) {
    double row = 0;
    for (int64_t l = 0; l < b->size; ++l)
      row += b->beta[l] * ss_budget_kernel_value(job->kernel,
                                                 ss_budget_dot(b->points + j * d, b->points + l * d, d),
                                                 b->norms2[j], b->norms2[l]);
    job->rows[j] = row;
  }
}

double ss_budget_norm2(const SsBudget *budget, const SsBudgetKernel *kernel)
{
  const int64_t size = budget->size;
  if (size == 0) return 0;
  GramJob job = {budget, kernel, budget->scratch};
  ss_parallel_for(ss_threads_pool(budget->threads, size <= INT64_MAX / size ? size * size : INT64_MAX),
                  size, gram_chunks, &job);
  double w2 = 0;
  for (int64_t j = 0; j < size; ++j) w2 += budget->beta[j] * job.rows[j];
  return w2;
}
