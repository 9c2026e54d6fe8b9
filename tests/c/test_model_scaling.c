/* test_model_scaling.c -- models with a feature scaling (the SCAL section,
 * written by `stochsvm train --scale` and by ss_model_save): saved and
 * loaded through the public API, scored on raw rows exactly as the unscaled
 * model scores the rows scaled by hand, in every data layout and scoring
 * path (CSR without offsets, dense blocks, several blocks), and malformed
 * sections refused. tests/test_model_file.py scores a model written by the
 * Python CLI with the C example. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/model_file.h"
#include "stochsvm/svm.h"

enum { D = 4 };

static double W[D] = {0.5, -1.25, 2.0, 0.75};
static double BIAS[1] = {0.1};
static double LABELS[2] = {-1, 1};
static double OFFSET[D] = {1.5, 0.0, -2.0, 0.25};
static double SCALE[D] = {0.5, 2.0, 0.125, 1.0 / 3.0};
static double NO_OFFSET[D] = {0, 0, 0, 0};

/* Three support vectors in d = 4 (CSR). */
static int64_t SV_INDPTR[4] = {0, 2, 2, 5};
static int32_t SV_INDICES[5] = {0, 3, 1, 2, 3};
static double SV_VALUES[5] = {1, -0.5, 2, 0.25, 1};
static double COEF[3] = {0.75, -1, 0.5};

static SsModel model_of(SsModelKind kind, double *offset)
{
  SsModel m;
  ss_model_init(&m);
  m.kind = kind;
  m.task = SS_TASK_BINARY;
  m.dimension = D;
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = LABELS;
  m.loss = SS_LOSS_HINGE;
  m.biases = BIAS;
  if (kind == SS_MODEL_LINEAR) {
    m.weights = W;
  } else {
    m.kernel = SS_MODEL_KERNEL_RBF;
    m.gamma = 0.3;
    m.num_support_vectors = 3;
    m.sv_indptr = SV_INDPTR;
    m.sv_indices = SV_INDICES;
    m.sv_values = SV_VALUES;
    m.coefficients = COEF;
  }
  m.scaling = SS_MODEL_SCALING_STANDARD;
  m.scaling_offset = offset;
  m.scaling_scale = SCALE;
  return m;
}

/* n rows of pseudo-random data with about half the entries zero, dense
 * (row-major, stride D) and the same rows as CSR. */
typedef struct Rows {
  int64_t n;
  double *dense;
  int64_t *indptr;
  int32_t *indices;
  double *values;
} Rows;

static int make_rows(Rows *r, int64_t n)
{
  r->n = n;
  r->dense = malloc((size_t)(n * D) * sizeof(double));
  r->indptr = malloc((size_t)(n + 1) * sizeof(int64_t));
  r->indices = malloc((size_t)(n * D) * sizeof(int32_t));
  r->values = malloc((size_t)(n * D) * sizeof(double));
  if (!r->dense || !r->indptr || !r->indices || !r->values) return 0;
  uint64_t state = 12345;
  int64_t nnz = 0;
  r->indptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < D; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const int draw = (int)(state >> 58); /* 0..63 */
      const double v = draw < 32 ? 0.0 : (draw - 48) / 8.0;
      r->dense[i * D + j] = v;
      if (v != 0) {
        r->indices[nnz] = j;
        r->values[nnz++] = v;
      }
    }
    r->indptr[i + 1] = nnz;
  }
  return 1;
}

static void free_rows(Rows *r)
{
  free(r->dense);
  free(r->indptr);
  free(r->indices);
  free(r->values);
}

/* The scores of the model without its scaling on rows scaled by hand. */
static void reference_scores(const SsModel *m, const Rows *r, double *scores)
{
  double *scaled = malloc((size_t)(r->n * D) * sizeof *scaled);
  if (!scaled) return;
  for (int64_t t = 0; t < r->n * D; ++t)
    scaled[t] = (r->dense[t] - m->scaling_offset[t % D]) * m->scaling_scale[t % D];
  SsModel plain = *m;
  plain.scaling = SS_MODEL_SCALING_NONE;
  plain.scaling_offset = plain.scaling_scale = NULL;
  SsData data;
  if (ss_data_init_dense(&data, SS_DTYPE_FLOAT64, scaled, r->n, D, D) == SS_OK)
    (void)ss_model_decision_function(&plain, &data, scores);
  free(scaled);
}

void test_model_scaling_saved_loaded_and_applied(void)
{
  Rows rows;
  /* 40,000 rows: the dense path scores them in 3 blocks of 16,384 rows */
  REQUIRE(make_rows(&rows, 40000));
  const int64_t n = rows.n;
  double *expected = malloc((size_t)n * sizeof(double)), *got = malloc((size_t)n * sizeof(double));
  REQUIRE(expected && got);
  const char *path = "test_model_scaling_tmp.ssvm";
  for (int kind = SS_MODEL_LINEAR; kind <= SS_MODEL_KERNEL; ++kind) {
    for (int with_offset = 0; with_offset <= 1; ++with_offset) {
      SsModel m = model_of((SsModelKind)kind, with_offset ? OFFSET : NO_OFFSET), back;
      char msg[256];
      remove(path);
      CHECK_EQ_INT(ss_model_save(&m, path, msg, sizeof msg), SS_OK);
      CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_OK);
      CHECK_EQ_INT(back.scaling, SS_MODEL_SCALING_STANDARD);
      CHECK(back.scaling_offset && memcmp(back.scaling_offset, m.scaling_offset, sizeof OFFSET) == 0);
      CHECK(back.scaling_scale && memcmp(back.scaling_scale, SCALE, sizeof SCALE) == 0);
      reference_scores(&m, &rows, expected);
      SsData dense, csr;
      REQUIRE(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, rows.dense, n, D, D) == SS_OK);
      REQUIRE(ss_data_init_csr(&csr, SS_DTYPE_FLOAT64, rows.values, rows.indptr, rows.indices, n, D) ==
              SS_OK);
      const SsData *layouts[2] = {&dense, &csr};
      for (int q = 0; q < 2; ++q) {
        CHECK_EQ_INT(ss_model_decision_function(&back, layouts[q], got), SS_OK);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; ++i) bad += !(fabs(got[i] - expected[i]) <= 1e-14 * (1 + fabs(expected[i])));
        if (bad) printf("  kind %d offset %d layout %d: %lld scores differ\n", kind, with_offset, q, (long long)bad);
        CHECK_EQ_INT(bad, 0);
      }
      /* predictions follow the scaled scores */
      CHECK_EQ_INT(ss_model_predict(&back, &csr, got), SS_OK);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += got[i] != (expected[i] > 0 ? 1.0 : -1.0);
      CHECK_EQ_INT(wrong, 0);
      ss_model_free(&back);
      CHECK(back.scaling_offset == NULL && back.scaling == SS_MODEL_SCALING_NONE);
    }
  }
  remove(path);
  free(expected);
  free(got);
  free_rows(&rows);
}

/* The bytes of a SCAL section (tag, length, payload, CRC) are those the
 * Python writer appends: the section comes last, after META. */
void test_model_scaling_section_layout(void)
{
  SsModel m = model_of(SS_MODEL_LINEAR, OFFSET);
  size_t size;
  REQUIRE(ss_model_encoded_size(&m, &size) == SS_OK);
  unsigned char *bytes = malloc(size);
  REQUIRE(bytes && ss_model_encode(&m, bytes, size) == SS_OK);
  const size_t payload = 16 + 16 * D, section = 16 + payload;
  const unsigned char *s = bytes + size - section;
  CHECK(memcmp(s, "SCAL", 4) == 0);
  CHECK_EQ_INT(s[4], payload);
  CHECK_EQ_INT(s[12], SS_MODEL_SCALING_STANDARD);
  CHECK_EQ_INT(s[20], D);
  double first_offset, first_scale;
  memcpy(&first_offset, s + 28, 8); /* little-endian hosts; the test machines are */
  memcpy(&first_scale, s + 28 + 8 * D, 8);
  CHECK(first_offset == OFFSET[0] && first_scale == SCALE[0]);
  CHECK_EQ_INT(bytes[12], 4); /* HEAD, LABL, LINR, SCAL */
  free(bytes);
}

/* Invalid scalings are refused by validation (hence by saving), and
 * malformed SCAL sections by decoding. */
void test_model_scaling_rejects(void)
{
  char msg[256];
  double inf_scale[D] = {1, INFINITY, 1, 1};
  SsModel m = model_of(SS_MODEL_LINEAR, OFFSET);
  m.scaling = (SsModelScaling)4;
  CHECK_EQ_INT(ss_model_validate(&m, msg, sizeof msg), SS_ERR_BAD_ARG);
  CHECK(strstr(msg, "scaling") != NULL);
  m = model_of(SS_MODEL_LINEAR, NULL);
  CHECK_EQ_INT(ss_model_validate(&m, msg, sizeof msg), SS_ERR_BAD_ARG);
  m = model_of(SS_MODEL_LINEAR, OFFSET);
  m.scaling_scale = inf_scale;
  CHECK_EQ_INT(ss_model_validate(&m, msg, sizeof msg), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_model_save(&m, "never_written.ssvm", msg, sizeof msg), SS_ERR_BAD_ARG);

  /* every cut inside the SCAL section, and a flipped bit in it (a
   * well-framed section with a wrong method or size: test_model_file.c) */
  m = model_of(SS_MODEL_KERNEL, OFFSET);
  size_t size;
  REQUIRE(ss_model_encoded_size(&m, &size) == SS_OK);
  unsigned char *bytes = malloc(size);
  REQUIRE(bytes && ss_model_encode(&m, bytes, size) == SS_OK);
  SsModel back;
  for (size_t len = size - (16 + 16 + 16 * D); len < size; ++len) {
    CHECK_EQ_INT(ss_model_decode(&back, bytes, len, msg, sizeof msg), SS_ERR_FORMAT);
    CHECK(back.scaling_offset == NULL);
  }
  bytes[size - 4 - 8] ^= 1; /* a scale's bit: the checksum no longer matches */
  CHECK_EQ_INT(ss_model_decode(&back, bytes, size, msg, sizeof msg), SS_ERR_FORMAT);
  free(bytes);
}
