/* kernel_solver_helpers.c -- what the kernel solvers (sbp.c, kernel_sdca.c,
 * support_list.c, the budgeted adapter kernel_svm_budget.c) read from the
 * SsKernelSvm object: the box C of an example, the effective SBP step eta0,
 * and scores of a kernel expansion on the training rows.
 *
 * Layer: below the object (kernel_svm.c), which dispatches to the solvers;
 * it calls only kernel.c and common/, so no solver calls the object back
 * (docs/dev/architecture.md).
 */
#include "kernel_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

double ss_kernel_svm_box(const SsKernelSvm *self)
{
  /* 1/(lambda n) without overflowing lambda n: for lambda near DBL_MAX the
   * product was inf, C = 0, and the budgeted solvers refused to train
   * (SS_ERR_BAD_ARG). The smallest positive double stands for an underflow. */
  const double C = 1.0 / self->lambda / (double)self->num_data;
  return C > 0 ? C : DBL_TRUE_MIN;
}

double ss_kernel_svm_effective_eta0(const SsKernelSvm *self)
{
  if (self->eta0 > 0) return self->eta0;
  if (!self->has_data) return 0.0;
  double max_diagonal = 0;
  for (int64_t i = 0; i < self->num_data; ++i) {
    if (self->diagonal[i] > max_diagonal) max_diagonal = self->diagonal[i];
  }
  return max_diagonal > 0 ? 1.0 / sqrt(max_diagonal) : 1.0;
}

/* A score as fixed-block partial sums: partial[b stride] = sum over block b
 * of coef[k] K(x_{rows[k]}, x_i), summed in block order afterwards, so the
 * score is the same whichever thread computed which block. While the
 * blocks run on several threads, stride puts each sum on a cache line of
 * its own (SCRATCH_LINE bytes): two threads writing the sums of
 * neighbouring blocks into one line would pass it back and forth at every
 * block of every row. */
#define SCRATCH_LINE 64

typedef struct ScoreBlocks {
  const double *coef;
  double *partial;
  int64_t stride;
} ScoreBlocks;

static void score_block(void *context, int64_t block, int64_t lo, int64_t hi, const double *k)
{
  const ScoreBlocks *sb = context;
  const double *coef = sb->coef + lo;
  const int64_t len = hi - lo;
  double s0 = 0, s1 = 0;
  int64_t j = 0;
  for (; j + 2 <= len; j += 2) {
    s0 += coef[j] * k[j];
    s1 += coef[j + 1] * k[j + 1];
  }
  if (j < len) s0 += coef[j] * k[j];
  sb->partial[block * sb->stride] = s0 + s1;
}

/* f(x_i) with the scattered-row buffer zd (zero for CSR) and scratch for
 * the partial sums in partial: ss_kernel_row_num_blocks(m) doubles on one
 * thread; (blocks - 1) * SCRATCH_LINE / 8 + 1 doubles where the blocks
 * (two or more: m > SS_KERNEL_ROW_BLOCK) are split among threads. With
 * @p subset (NULL: none), a copy of rows[0..c) for a c that is m or a
 * multiple of SS_KERNEL_ROW_BLOCK, those rows are read from it as
 * consecutive rows and the rest from X, as blocks numbered on from there:
 * the same blocks of the same values. */
static double expansion_score(SsKernelSvm *self, const int64_t *rows, const double *coef,
                              int64_t m, int64_t i, double *zd, double *partial,
                              SsThreads threads, const SsRowSubset *subset)
{
  const SsData *X = &self->data;
  const int64_t num_blocks = ss_kernel_row_num_blocks(m);
  const bool split = num_blocks >= 2 && ss_threads_pool(threads, m);
  const int64_t stride = split ? SCRATCH_LINE / (int64_t)sizeof(double) : 1;
  const int64_t copied = subset ? subset->data.num_data : 0;
  ss_data_scatter_row(X, i, zd);
  if (copied > 0) {
    /* a bit copy's dots read x_i's bits (0/1 rows: popcounts, the CSR sums) */
    uint64_t z_bits[SS_ROW_BITS_MAX_DIMENSION / 64];
    const bool bits = ss_row_copy_bits_of(&subset->copy, X, i, z_bits);
    ScoreBlocks sb = {coef, partial, stride};
    ss_kernel_copy_row_blocks(&self->kernel, &subset->data, self->row_flags, &subset->copy,
                              subset->norms2, bits ? z_bits : NULL, zd, self->norms2[i], threads,
                              score_block, &sb);
  }
  if (copied < m) {
    ScoreBlocks rest = {coef + copied, partial + copied / SS_KERNEL_ROW_BLOCK * stride, stride};
    ss_kernel_row_blocks(&self->kernel, X, self->row_flags, self->norms2, rows + copied, m - copied,
                         zd, self->norms2[i], threads, score_block, &rest);
  }
  ss_data_clear_row(X, i, zd);
  double s = 0;
  for (int64_t b = 0; b < num_blocks; ++b) s += partial[b * stride];
  return s;
}

double ss_kernel_svm_expansion_score(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                     int64_t m, int64_t i, const SsRowSubset *prefix)
{
  if (m == 0) return 0.0;
  /* krow (n doubles) holds the partial sums: blocks <= m / SS_KERNEL_ROW_BLOCK + 1
   * doubles, or, split, 8 (blocks - 1) + 1 <= m / 32 + 1 <= n */
  const int64_t copied = prefix ? prefix->data.num_data : 0;
  if (!(copied > 0 && copied <= m && (copied == m || copied % SS_KERNEL_ROW_BLOCK == 0)))
    prefix = NULL;
  return expansion_score(self, rows, coef, m, i, self->zd, self->krow, self->threads, prefix);
}

/* The scores of chunks of examples, each thread with its own scattered
 * row and partial sums in its slot of the scratch: slot k at scratch + k
 * stride, its row zd first and its partial sums at zd + partial_at, each
 * starting on a cache line, so that no line holds two threads' scratch.
 * (Packed, they shared lines: on a9a at 0.1 epoch the six partial sums
 * of a row on one thread shared a line with two of the other's, written
 * at every block, and the two rows zd a line too.) */
typedef struct ScoresJob {
  SsKernelSvm *self;
  const int64_t *rows;
  const double *coef;
  int64_t m, chunk, stride, partial_at;
  int64_t base;              /* the first chunk of this slab (polled passes) */
  double *scratch, *scores;
  const SsRowSubset *subset; /* the listed rows' copy, or NULL */
} ScoresJob;

static void scores_chunks(void *context, int64_t begin, int64_t end, int slot)
{
  const ScoresJob *job = context;
  const SsThreads serial = {.count = 1};
  begin += job->base;
  end += job->base;
  const int64_t n = job->self->num_data, hi = end * job->chunk < n ? end * job->chunk : n;
  double *zd = job->scratch + slot * job->stride;
  for (int64_t i = begin * job->chunk; i < hi; ++i) {
    job->scores[i] = expansion_score(job->self, job->rows, job->coef, job->m, i, zd,
                                     zd + job->partial_at, serial, job->subset);
  }
}

/* @p count doubles rounded up to whole cache lines. */
static int64_t whole_lines(int64_t count)
{
  const int64_t per_line = SCRATCH_LINE / (int64_t)sizeof(double);
  return (count + per_line - 1) / per_line * per_line;
}

/* The n scores' rows run over a copy of the listed rows (a row subset,
 * kernel_internal.h: on ijcnn1 a listed CSR row, scattered over X, cost a
 * fetch from memory each), made once for the pass, with the same values;
 * not with set_row_copy(0), dense data, a kernel map or a precomputed
 * kernel (its row is read by X's row numbers), nor out of memory. 0/1 rows
 * of at most SS_ROW_BITS_MAX_DIMENSION features are copied as bits, their
 * dots with x_i popcounts against x_i's own bits (expansion_score; until
 * stop 50 they were sliced, as any other row: kernel Pegasos's steps on a9a
 * 12.5-18 ns a kernel value, where the SBP's bit rows take 3.3). */
bool ss_kernel_svm_row_subset(const SsKernelSvm *self, const int64_t *rows, int64_t m,
                              SsRowSubset *subset)
{
  if (!ss_kernel_svm_copies_rows(self)) return false;
  return ss_row_subset_make(subset, &self->data, rows, m, self->norms2, self->row_flags);
}

/* Whether the interrupt function stops a polled pass (self->pass_polls). */
static bool pass_stopped(const SsKernelSvm *self)
{
  return self->pass_polls && self->interrupt_fn && self->interrupt_fn(self->interrupt_user) != 0;
}

bool ss_kernel_svm_expansion_scores(SsKernelSvm *self, const int64_t *rows, const double *coef,
                                    int64_t m, double *scores)
{
  const int64_t n = self->num_data;
  if (m == 0) {
    for (int64_t i = 0; i < n; ++i) scores[i] = 0.0;
    return true;
  }
  /* A polled pass: slabs of rows worth about `period` kernel evaluations,
   * the interrupt function polled between them (each score is computed
   * alone, so the slabs change no bit). */
  const int64_t period = self->pass_poll_evaluations > 0 ? self->pass_poll_evaluations
                                                         : SS_KERNEL_PASS_POLL_EVALUATIONS;
  const int64_t slab_rows = self->pass_polls ? (period / m > 1 ? period / m : 1) : n;
  SsRowSubset copy = {0};
  const SsRowSubset *subset = ss_kernel_svm_row_subset(self, rows, m, &copy) ? &copy : NULL;
  /* The examples are cut into fixed chunks of about SS_PARALLEL_MIN_LENGTH
   * kernel values; each score is computed serially, exactly as
   * ss_kernel_svm_expansion_score computes it. Without the memory for the
   * threads' scratch the rows are threaded one by one instead. One job for
   * the n m evaluations: the length is n. */
  SsThreadPool *pool = ss_threads_pool(self->threads, n);
  const int slots = ss_thread_pool_num_slots(pool);
  const int64_t partial_at = whole_lines(self->dimension);
  const int64_t stride = partial_at + whole_lines(ss_kernel_row_num_blocks(m));
  const size_t bytes = (size_t)(slots * stride) * sizeof(double);
  unsigned char *raw = pool ? malloc(bytes + SCRATCH_LINE) : NULL;
  if (!raw) {
    bool stopped = false;
    for (int64_t i = 0; i < n && !stopped; ++i) {
      scores[i] = expansion_score(self, rows, coef, m, i, self->zd, self->krow, self->threads,
                                  subset);
      stopped = (i + 1) % slab_rows == 0 && i + 1 < n && pass_stopped(self);
    }
    ss_row_subset_free(&copy);
    return !stopped;
  }
  /* the first line boundary in raw (malloc aligns less on some systems) */
  double *scratch = (double *)(raw + (SCRATCH_LINE - (uintptr_t)raw % SCRATCH_LINE) % SCRATCH_LINE);
  memset(scratch, 0, bytes); /* the rows zd start zero */
  const int64_t chunk = m < SS_PARALLEL_MIN_LENGTH ? SS_PARALLEL_MIN_LENGTH / m : 1;
  ScoresJob job = {.self = self, .rows = rows, .coef = coef, .m = m, .chunk = chunk,
                   .stride = stride, .partial_at = partial_at, .scratch = scratch,
                   .scores = scores, .subset = subset};
  const int64_t chunks = (n + chunk - 1) / chunk;
  const int64_t slab = (slab_rows + chunk - 1) / chunk;
  bool stopped = false;
  for (job.base = 0; job.base < chunks && !stopped; job.base += slab) {
    ss_parallel_for(pool, chunks - job.base < slab ? chunks - job.base : slab, scores_chunks, &job);
    stopped = job.base + slab < chunks && pass_stopped(self);
  }
  free(raw);
  ss_row_subset_free(&copy);
  return !stopped;
}
