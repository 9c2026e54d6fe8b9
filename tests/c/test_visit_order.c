/* test_visit_order.c -- the block-wise visiting orders. SS_VISIT_BLOCKS:
 * each epoch visits every example once, block by block (the 256 rows of a
 * block consecutively); SS_VISIT_INTERLEAVED: blocks read side by side, a
 * row of each in turn. Either order is a function of (seed, epoch) only;
 * the setter refuses unknown orders; set_shuffle still chooses between
 * data order and the uniform permutation. */
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/svm.h"
#include "testutil.h"

enum { N = 1000, D = 3 }; /* 3 full blocks and one of 232 rows */

void test_visit_order_setters(void)
{
  static double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 0.8, 31);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, N, D, 0.01);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_PERMUTATION);
  CHECK_EQ_INT(ss_svm_get_shuffle(svm), 1);
  CHECK_EQ_INT(ss_svm_set_visit_order(svm, SS_VISIT_BLOCKS), SS_OK);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_BLOCKS);
  CHECK_EQ_INT(ss_svm_get_shuffle(svm), 1);
  CHECK_EQ_INT(ss_svm_set_visit_order(svm, SS_VISIT_INTERLEAVED), SS_OK);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_INTERLEAVED);
  CHECK_EQ_INT(ss_svm_set_visit_order(svm, SS_VISIT_BLOCKS), SS_OK);
  CHECK_EQ_INT(ss_svm_set_visit_order(svm, (SsVisitOrder)4), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_visit_order(svm, (SsVisitOrder)-1), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_BLOCKS);
  CHECK_EQ_INT(ss_svm_set_visit_order(NULL, SS_VISIT_BLOCKS), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_svm_set_shuffle(svm, 0), SS_OK);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_DATA_ORDER);
  CHECK_EQ_INT(ss_svm_set_shuffle(svm, 1), SS_OK);
  CHECK_EQ_INT(ss_svm_get_visit_order(svm), SS_VISIT_PERMUTATION);
  ss_svm_delete(svm);
}

/* The visiting order seen through SGD on orthogonal examples: example i is
 * the unit vector e_i (d = n), so a step on example i changes coordinate i
 * of the model only, and the Pegasos shrinkage of the steps after it scales
 * every coordinate alike. With one step per train call the coordinate that
 * became non-zero names the example visited. */
enum { ORTHO = 600 }; /* blocks of 256, 256 and 88 rows */

/* visited[t] <- the example of step t of the first epoch in @p order from
 * @p seed, on the orthogonal examples @p X; 0, or -1 if anything failed. */
static int orthogonal_visits(SsVisitOrder order, uint64_t seed, const double *X, const double *y,
                             int64_t visited[ORTHO])
{
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SGD, &data, X, y, ORTHO, ORTHO, 0.01);
  char *seen = calloc(ORTHO, 1);
  int failed = !svm || !seen || ss_svm_set_visit_order(svm, order) != SS_OK ||
               ss_svm_set_bias_multiplier(svm, 0) != SS_OK || ss_svm_set_seed(svm, seed) != SS_OK ||
               ss_svm_set_max_num_iterations(svm, 1) != SS_OK;
  for (int t = 0; t < ORTHO && !failed; ++t) {
    failed = ss_svm_train(svm) != SS_OK;
    const double *w = ss_svm_get_model(svm);
    visited[t] = -1;
    for (int j = 0; j < ORTHO && !failed; ++j)
      if (w[j] != 0 && !seen[j]) visited[t] = j; /* the newly moved coordinate (hinge: margin 0 < 1) */
    failed = failed || visited[t] < 0;
    if (!failed) seen[visited[t]] = 1;
  }
  free(seen);
  ss_svm_delete(svm);
  return failed ? -1 : 0;
}

/* The orthogonal examples: X = I (n x n), alternating labels. */
static double *orthogonal_examples(double y[ORTHO])
{
  double *X = calloc((size_t)ORTHO * ORTHO, sizeof *X);
  for (int i = 0; X && i < ORTHO; ++i) {
    X[(size_t)i * ORTHO + i] = 1;
    y[i] = i % 2 ? 1 : -1;
  }
  return X;
}

void test_visit_order_blocks_visit_each_block_whole(void)
{
  enum { M = ORTHO, B = SS_SVM_VISIT_BLOCK };
  double y[M];
  double *X = orthogonal_examples(y);
  REQUIRE(X);
  int64_t order[2][M];
  for (int run = 0; run < 2; ++run) REQUIRE(orthogonal_visits(SS_VISIT_BLOCKS, 7, X, y, order[run]) == 0);
  /* the same (seed, epoch): the same order */
  CHECK(memcmp(order[0], order[1], sizeof order[0]) == 0);
  /* consecutive visits stay in one block until it is exhausted */
  int64_t t = 0, blocks_seen = 0;
  while (t < M) {
    const int64_t block = order[0][t] / B, size = block == M / B ? M % B : B;
    for (int64_t k = 0; k < size; ++k) CHECK_EQ_INT(order[0][t + k] / B, block);
    t += size;
    ++blocks_seen;
  }
  CHECK_EQ_INT(blocks_seen, 3);
  /* not the data order, within blocks nor between them */
  int64_t in_place = 0;
  for (int i = 0; i < M; ++i) in_place += order[0][i] == i;
  CHECK(in_place < M / 10);
  free(X);
}

/* SS_VISIT_INTERLEAVED seen through the same orthogonal examples: the
 * three blocks form one group of SS_SVM_VISIT_STREAMS >= 3, so the epoch
 * visits row j of each block in turn, each block's rows in data order,
 * every row once; another seed deals the blocks in another order. */
void test_visit_order_interleaved_streams(void)
{
  enum { M = ORTHO, B = SS_SVM_VISIT_BLOCK };
  REQUIRE(SS_SVM_VISIT_STREAMS >= 3);
  double y[M];
  double *X = orthogonal_examples(y);
  REQUIRE(X);
  int64_t order[3][M];
  const uint64_t seeds[3] = {7, 7, 8};
  for (int run = 0; run < 3; ++run)
    REQUIRE(orthogonal_visits(SS_VISIT_INTERLEAVED, seeds[run], X, y, order[run]) == 0);
  CHECK(memcmp(order[0], order[1], sizeof order[0]) == 0);
  CHECK(memcmp(order[0], order[2], sizeof order[0]) != 0);
  /* the blocks' order: that of the first three visits, one row 0 of each */
  int64_t first[3];
  for (int q = 0; q < 3; ++q) {
    first[q] = order[0][q];
    CHECK_EQ_INT(first[q] % B, 0);
  }
  CHECK(first[0] != first[1] && first[1] != first[2] && first[0] != first[2]);
  int64_t t = 0;
  for (int64_t j = 0; j < B; ++j)
    for (int q = 0; q < 3; ++q) {
      const int64_t size = first[q] + B <= M ? B : M - first[q];
      if (j < size) CHECK_EQ_INT(order[0][t++], first[q] + j);
    }
  CHECK_EQ_INT(t, M);
  free(X);
}

/* Abstract data that records which example each step reads (SGD takes one
 * inner product per step). */
typedef struct Recorder {
  int64_t *visits, count, capacity;
} Recorder;

static double recorded_inner_product(const void *user, int64_t i, const double *w)
{
  Recorder *r = (Recorder *)user;
  if (r->count < r->capacity) r->visits[r->count] = i;
  ++r->count;
  return w[0] * 0.5;
}

static void recorded_accumulate(const void *user, int64_t i, double *w, double a)
{
  (void)user;
  (void)i;
  w[0] += 0.5 * a;
}

/* Several groups of blocks (2600 rows: ten blocks of 256 and one of 40, in
 * groups of SS_SVM_VISIT_STREAMS): each of two epochs visits every row once,
 * each block's rows in data order. */
void test_visit_order_interleaved_epochs_are_permutations(void)
{
  enum { M = 2600, EPOCHS = 2 };
  static double y[M];
  static int64_t visits[EPOCHS * M + 1];
  for (int i = 0; i < M; ++i) y[i] = i % 2 ? 1 : -1;
  Recorder recorder = {.visits = visits, .count = 0, .capacity = EPOCHS * M + 1};
  SsSvm *svm = ss_svm_new_with_abstract_data(SS_SOLVER_SGD, &recorder, 1, M, y, 0.01, recorded_inner_product,
                                             recorded_accumulate);
  REQUIRE(svm);
  REQUIRE(ss_svm_set_visit_order(svm, SS_VISIT_INTERLEAVED) == SS_OK);
  REQUIRE(ss_svm_set_max_num_iterations(svm, EPOCHS * M) == SS_OK);
  REQUIRE(ss_svm_set_diagnostic_frequency(svm, EPOCHS * M) == SS_OK);
  recorder.count = 0; /* (the object took the rows' norms) */
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  REQUIRE(recorder.count == EPOCHS * M); /* the closing diagnostic is pending */
  for (int e = 0; e < EPOCHS; ++e) {
    const int64_t *v = visits + (int64_t)e * M;
    int64_t last[M / SS_SVM_VISIT_BLOCK + 1];
    char seen[M] = {0};
    for (int q = 0; q <= M / SS_SVM_VISIT_BLOCK; ++q) last[q] = -1;
    for (int t = 0; t < M; ++t) {
      REQUIRE(v[t] >= 0 && v[t] < M);
      CHECK(!seen[v[t]]);
      seen[v[t]] = 1;
      const int64_t block = v[t] / SS_SVM_VISIT_BLOCK;
      CHECK(v[t] > last[block]);
      last[block] = v[t];
    }
  }
  CHECK(memcmp(visits, visits + M, M * sizeof *visits) != 0); /* a fresh order per epoch */
  ss_svm_delete(svm);
}
