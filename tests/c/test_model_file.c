/* test_model_file.c -- model files (model_file.h): round trips of every model
 * kind, scores against independent computations, validation, and decoding of
 * truncated, corrupted, newer and extended files; atomic saving. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/homkermap.h"
#include "stochsvm/model_file.h"
#include "stochsvm/svm.h"
#include "testutil.h"

/* A small linear model: k outputs over d = 3 features. */
static double W[3 * 3] = {0.5, -1.25, 2.0, -0.75, 0.125, 1.5, 3.0, -2.0, 0.25};
static double B[3] = {0.1, -0.2, 0.3};
static double LABELS3[3] = {7, -1, 4.5};
static double LABELS2[2] = {-1, 1};
static char META[] = "{\"estimator\": \"test\"}";

static SsModel linear_model(SsModelTask task)
{
  SsModel m;
  ss_model_init(&m);
  m.kind = SS_MODEL_LINEAR;
  m.task = task;
  m.dimension = 3;
  m.num_outputs = task == SS_TASK_ONE_VS_REST ? 3 : 1;
  m.num_classes = task == SS_TASK_ONE_VS_REST ? 3 : task == SS_TASK_BINARY ? 2 : 0;
  m.labels = task == SS_TASK_ONE_VS_REST ? LABELS3 : task == SS_TASK_BINARY ? LABELS2 : NULL;
  m.loss = task == SS_TASK_REGRESSION ? SS_LOSS_L2 : SS_LOSS_HINGE;
  m.lambda = 0.01;
  m.bias_multiplier = 1;
  m.weights = W;
  m.biases = B;
  m.metadata = META;
  return m;
}

/* Three support vectors in d = 3 as CSR: (1, 0, 2), (), (0, -1, 0.5). */
static int64_t SV_INDPTR[4] = {0, 2, 2, 4};
static int32_t SV_INDICES[4] = {0, 2, 1, 2};
static double SV_VALUES[4] = {1, 2, -1, 0.5};
static double SV_DENSE[3][3] = {{1, 0, 2}, {0, 0, 0}, {0, -1, 0.5}};
static double COEF[2 * 3] = {0.5, -1, 2, -0.25, 0.75, 1};

static SsModel kernel_model(SsModelKernel kernel)
{
  SsModel m;
  ss_model_init(&m);
  m.kind = SS_MODEL_KERNEL;
  m.task = SS_TASK_BINARY;
  m.dimension = 3;
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = LABELS2;
  m.kernel = kernel;
  m.gamma = 0.7;
  m.coef0 = 0.3;
  m.degree = 3;
  m.num_support_vectors = 3;
  m.sv_indptr = SV_INDPTR;
  m.sv_indices = SV_INDICES;
  m.sv_values = SV_VALUES;
  m.coefficients = COEF;
  m.biases = B;
  return m;
}

/* Independent kernel values on dense vectors. */
static double ref_kernel(SsModelKernel kernel, const double *x, const double *z)
{
  double dot = 0, dist = 0;
  for (int q = 0; q < 3; ++q) {
    dot += x[q] * z[q];
    dist += (x[q] - z[q]) * (x[q] - z[q]);
  }
  switch (kernel) {
    case SS_MODEL_KERNEL_RBF: return exp(-0.7 * dist);
    case SS_MODEL_KERNEL_POLYNOMIAL: return pow(0.7 * dot + 0.3, 3);
    case SS_MODEL_KERNEL_SIGMOID: return tanh(0.7 * dot + 0.3);
    case SS_MODEL_KERNEL_LINEAR: break;
  }
  return dot;
}

static const double X4[4 * 3] = {1, 2, 3, -1, 0.5, 0, 0, 0, 0, 2, -3, 1};

static unsigned char *encode(const SsModel *m, size_t *size)
{
  if (ss_model_encoded_size(m, size) != SS_OK) return NULL;
  unsigned char *buffer = malloc(*size);
  if (buffer && ss_model_encode(m, buffer, *size) != SS_OK) {
    free(buffer);
    return NULL;
  }
  return buffer;
}

static int same_doubles(const double *a, const double *b, int64_t n)
{
  return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

void test_model_linear_round_trip(void)
{
  const SsModelTask tasks[3] = {SS_TASK_BINARY, SS_TASK_ONE_VS_REST, SS_TASK_REGRESSION};
  for (int t = 0; t < 3; ++t) {
    SsModel m = linear_model(tasks[t]), back;
    size_t size;
    unsigned char *buffer = encode(&m, &size);
    REQUIRE(buffer);
    char msg[256];
    CHECK_EQ_INT(ss_model_decode(&back, buffer, size, msg, sizeof msg), SS_OK);
    CHECK_EQ_INT(back.owns_memory, 1);
    CHECK_EQ_INT(back.kind, m.kind);
    CHECK_EQ_INT(back.task, m.task);
    CHECK_EQ_INT(back.dimension, 3);
    CHECK_EQ_INT(back.num_outputs, m.num_outputs);
    CHECK_EQ_INT(back.num_classes, m.num_classes);
    CHECK_EQ_INT(back.loss, m.loss);
    CHECK(back.lambda == m.lambda && back.bias_multiplier == m.bias_multiplier);
    CHECK(same_doubles(back.weights, W, 3 * m.num_outputs));
    CHECK(same_doubles(back.biases, B, m.num_outputs));
    if (m.num_classes) CHECK(same_doubles(back.labels, m.labels, m.num_classes));
    CHECK(back.labels == NULL || m.num_classes > 0);
    CHECK(back.metadata && strcmp(back.metadata, META) == 0);
    /* scores and predictions against a direct computation */
    SsData data;
    REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X4, 4, 3, 3) == SS_OK);
    double scores[4 * 3], predictions[4];
    CHECK_EQ_INT(ss_model_decision_function(&back, &data, scores), SS_OK);
    CHECK_EQ_INT(ss_model_predict(&back, &data, predictions), SS_OK);
    int64_t k = m.num_outputs;
    for (int i = 0; i < 4; ++i) {
      int best = 0;
      for (int c = 0; c < k; ++c) {
        double s = B[c];
        for (int q = 0; q < 3; ++q) s += W[c * 3 + q] * X4[i * 3 + q];
        CHECK_CLOSE(scores[i * k + c], s, 1e-12);
        if (s > scores[i * k + best]) best = c;
      }
      if (tasks[t] == SS_TASK_BINARY) CHECK(predictions[i] == LABELS2[scores[i] > 0]);
      if (tasks[t] == SS_TASK_ONE_VS_REST) CHECK(predictions[i] == LABELS3[best]);
      if (tasks[t] == SS_TASK_REGRESSION) CHECK(predictions[i] == scores[i]);
    }
    /* the encoding is canonical: re-encoding the decoded model gives the same bytes */
    size_t size2;
    unsigned char *again = encode(&back, &size2);
    CHECK(again && size2 == size && memcmp(again, buffer, size) == 0);
    free(again);
    ss_model_free(&back);
    CHECK(back.weights == NULL && back.owns_memory == 0);
    free(buffer);
  }
}

void test_model_kernel_scores(void)
{
  const SsModelKernel kernels[4] = {SS_MODEL_KERNEL_LINEAR, SS_MODEL_KERNEL_RBF,
                                    SS_MODEL_KERNEL_POLYNOMIAL, SS_MODEL_KERNEL_SIGMOID};
  /* the same rows as X4, in CSR */
  const int64_t indptr[5] = {0, 3, 5, 5, 8};
  const int32_t indices[8] = {0, 1, 2, 0, 1, 0, 1, 2};
  const float values[8] = {1, 2, 3, -1, 0.5f, 2, -3, 1};
  for (int q = 0; q < 4; ++q) {
    for (int64_t outputs = 1; outputs <= 3; outputs += 2) {
      SsModel m = kernel_model(kernels[q]), back;
      if (outputs == 3) {
        m.task = SS_TASK_ONE_VS_REST;
        m.num_outputs = m.num_classes = 3;
        m.labels = LABELS3;
        double *coef3 = malloc(9 * sizeof *coef3);
        REQUIRE(coef3);
        for (int t = 0; t < 9; ++t) coef3[t] = 0.25 * t - 1;
        m.coefficients = coef3;
      }
      size_t size;
      unsigned char *buffer = encode(&m, &size);
      REQUIRE(buffer);
      CHECK_EQ_INT(ss_model_decode(&back, buffer, size, NULL, 0), SS_OK);
      CHECK(same_doubles(back.sv_values, SV_VALUES, 4) && back.sv_indptr[3] == 4);
      CHECK(same_doubles(back.coefficients, m.coefficients, 3 * outputs));
      CHECK(back.gamma == 0.7 && back.coef0 == 0.3 && back.degree == 3);
      SsData dense, csr;
      REQUIRE(ss_data_init_dense(&dense, SS_DTYPE_FLOAT64, X4, 4, 3, 3) == SS_OK);
      REQUIRE(ss_data_init_csr(&csr, SS_DTYPE_FLOAT32, values, indptr, indices, 4, 3) == SS_OK);
      double s1[12], s2[12];
      CHECK_EQ_INT(ss_model_decision_function(&back, &dense, s1), SS_OK);
      CHECK_EQ_INT(ss_model_decision_function(&back, &csr, s2), SS_OK);
      for (int i = 0; i < 4; ++i)
        for (int c = 0; c < outputs; ++c) {
          double s = B[c];
          for (int j = 0; j < 3; ++j)
            s += m.coefficients[c * 3 + j] * ref_kernel(kernels[q], X4 + 3 * i, SV_DENSE[j]);
          CHECK_REL(s1[i * outputs + c], s, 1e-12);
          CHECK_REL(s2[i * outputs + c], s, 1e-12);
        }
      if (outputs == 3) free(m.coefficients);
      ss_model_free(&back);
      free(buffer);
    }
  }
}

void test_model_homkermap_scores(void)
{
  SsHomKerMap map;
  REQUIRE(ss_homkermap_init(&map, SS_HOMKERNEL_CHI2, 1.0, 2, 0, SS_HOMWINDOW_RECTANGULAR) == SS_OK);
  const double X[2 * 3] = {0.2, 0.5, 0.3, 0.0, 0.9, 0.1};
  double w[15];
  for (int t = 0; t < 15; ++t) w[t] = 0.1 * t - 0.6;
  double b = 0.25;
  SsModel m = linear_model(SS_TASK_BINARY);
  m.has_homkermap = 1;
  m.homkermap_kernel = SS_HOMKERNEL_CHI2;
  m.homkermap_window = SS_HOMWINDOW_RECTANGULAR;
  m.homkermap_gamma = 1.0;
  m.homkermap_order = 2;
  m.homkermap_period = map.period;
  m.weights = w;
  m.biases = &b;
  CHECK_EQ_INT(ss_model_weight_dimension(&m), 15);
  SsModel back;
  size_t size;
  unsigned char *buffer = encode(&m, &size);
  REQUIRE(buffer);
  REQUIRE(ss_model_decode(&back, buffer, size, NULL, 0) == SS_OK);
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X, 2, 3, 3) == SS_OK);
  double expanded[2 * 15], scores[2];
  REQUIRE(ss_homkermap_expand(&map, &data, expanded, NULL, NULL) == SS_OK);
  CHECK_EQ_INT(ss_model_decision_function(&back, &data, scores), SS_OK);
  for (int i = 0; i < 2; ++i) {
    double s = b;
    for (int t = 0; t < 15; ++t) s += w[t] * expanded[i * 15 + t];
    CHECK_REL(scores[i], s, 1e-12);
  }
  /* data that already carries a map is refused (the model applies its own) */
  SsData mapped = data;
  REQUIRE(ss_data_set_homkermap(&mapped, &map) == SS_OK);
  CHECK_EQ_INT(ss_model_decision_function(&back, &mapped, scores), SS_ERR_BAD_ARG);
  ss_model_free(&back);
  free(buffer);
}

void test_model_validate_rejects(void)
{
  char msg[200];
  SsModel m = linear_model(SS_TASK_BINARY);
  CHECK_EQ_INT(ss_model_validate(&m, msg, sizeof msg), SS_OK);
  CHECK_EQ_INT(ss_model_validate(NULL, msg, sizeof msg), SS_ERR_BAD_ARG);
  double nan_w[3] = {1, NAN, 0};
  double twice[2] = {1, 1};
#define REJECT(field, value)                                        \
  do {                                                              \
    SsModel bad = linear_model(SS_TASK_BINARY);                     \
    bad.field = value;                                              \
    msg[0] = '\0';                                                  \
    CHECK_EQ_INT(ss_model_validate(&bad, msg, sizeof msg), SS_ERR_BAD_ARG); \
    CHECK(strlen(msg) > 0);                                         \
    size_t sz;                                                      \
    CHECK_EQ_INT(ss_model_encoded_size(&bad, &sz), SS_ERR_BAD_ARG);  \
  } while (0)
  REJECT(kind, (SsModelKind)7);
  REJECT(task, (SsModelTask)0);
  REJECT(dimension, 0);
  REJECT(num_outputs, 2);
  REJECT(num_classes, 3);
  REJECT(labels, NULL);
  REJECT(labels, twice);
  REJECT(weights, NULL);
  REJECT(weights, nan_w);
  REJECT(lambda, -1.0);
  REJECT(bias_multiplier, INFINITY);
  REJECT(loss, 55);
  REJECT(has_homkermap, 1); /* with a zero period */
  /* metadata not UTF-8 (Python refused the files C wrote): Latin-1, a stray
   * continuation byte, a cut, an overlong, a surrogate, above U+10FFFF */
  REJECT(metadata, "note: caf\xe9");
  REJECT(metadata, "\x80");
  REJECT(metadata, "\xe2\x82");
  REJECT(metadata, "\xc0\xaf");
  REJECT(metadata, "\xed\xa0\x80");
  REJECT(metadata, "\xf4\x90\x80\x80");
#undef REJECT
  char utf8[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"; /* up to U+10FFFF */
  m.metadata = utf8;
  CHECK_EQ_INT(ss_model_validate(&m, msg, sizeof msg), SS_OK);
  m.metadata = META;
  SsModel k = kernel_model(SS_MODEL_KERNEL_RBF);
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_OK);
  k.gamma = 0;
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_ERR_BAD_ARG);
  k = kernel_model(SS_MODEL_KERNEL_POLYNOMIAL);
  k.degree = 0;
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_ERR_BAD_ARG);
  int32_t bad_indices[4] = {2, 0, 1, 2}; /* unsorted row */
  k = kernel_model(SS_MODEL_KERNEL_RBF);
  k.sv_indices = bad_indices;
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_ERR_BAD_ARG);
  int32_t out_of_range[4] = {0, 3, 1, 2};
  k.sv_indices = out_of_range;
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_ERR_BAD_ARG);
  int64_t decreasing[4] = {0, 2, 1, 4};
  k = kernel_model(SS_MODEL_KERNEL_RBF);
  k.sv_indptr = decreasing;
  CHECK_EQ_INT(ss_model_validate(&k, NULL, 0), SS_ERR_BAD_ARG);
  /* scoring checks its arguments too */
  SsData data;
  REQUIRE(ss_data_init_dense(&data, SS_DTYPE_FLOAT64, X4, 2, 2, 3) == SS_OK); /* d = 2 */
  double scores[4];
  m = linear_model(SS_TASK_BINARY);
  CHECK_EQ_INT(ss_model_decision_function(&m, &data, scores), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_model_decision_function(&m, NULL, scores), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_model_predict(NULL, &data, scores), SS_ERR_BAD_ARG);
}

/* Every prefix of a valid file is refused as SS_ERR_FORMAT, with a reason. */
void test_model_decode_truncated(void)
{
  SsModel m = kernel_model(SS_MODEL_KERNEL_RBF);
  m.metadata = META;
  size_t size;
  unsigned char *buffer = encode(&m, &size);
  REQUIRE(buffer);
  for (size_t len = 0; len < size; ++len) {
    unsigned char *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
    REQUIRE(copy);
    memcpy(copy, buffer, len);
    SsModel back;
    char msg[256] = "";
    SsStatus status = ss_model_decode(&back, copy, len, msg, sizeof msg);
    if (status != SS_ERR_FORMAT) printf("  prefix of %zu bytes: status %d\n", len, (int)status);
    CHECK_EQ_INT(status, SS_ERR_FORMAT);
    CHECK(strlen(msg) > 0);
    CHECK(back.weights == NULL && back.sv_values == NULL && back.owns_memory == 0);
    free(copy);
  }
  /* and a byte too many */
  unsigned char *longer = malloc(size + 1);
  REQUIRE(longer);
  memcpy(longer, buffer, size);
  longer[size] = 0;
  SsModel back;
  CHECK_EQ_INT(ss_model_decode(&back, longer, size + 1, NULL, 0), SS_ERR_FORMAT);
  free(longer);
  free(buffer);
}

/* Any single corrupted byte is detected (CRC-32 catches every burst of up
 * to 32 bits; the header's fields are checked one by one). */
void test_model_decode_corrupted(void)
{
  SsModel models[2] = {linear_model(SS_TASK_ONE_VS_REST), kernel_model(SS_MODEL_KERNEL_POLYNOMIAL)};
  for (int q = 0; q < 2; ++q) {
    size_t size;
    unsigned char *buffer = encode(&models[q], &size);
    REQUIRE(buffer);
    for (size_t pos = 0; pos < size; ++pos) {
      for (int flip = 1; flip < 256; flip <<= 3) {
        buffer[pos] ^= (unsigned char)flip;
        SsModel back;
        SsStatus status = ss_model_decode(&back, buffer, size, NULL, 0);
        if (status == SS_OK) printf("  byte %zu ^ %d accepted\n", pos, flip);
        CHECK(status == SS_ERR_FORMAT || status == SS_ERR_VERSION);
        buffer[pos] ^= (unsigned char)flip;
      }
    }
    free(buffer);
  }
}

/* Reference CRC-32, bit by bit (independent of the core's table). */
static uint32_t ref_crc32(const unsigned char *p, size_t n)
{
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/* Append a section with the given tag and payload (len bytes) to an encoded file. */
static unsigned char *append_bytes(const unsigned char *buffer, size_t size, const char tag[4],
                                   const void *payload, size_t len, size_t *new_size)
{
  *new_size = size + 16 + len;
  unsigned char *out = malloc(*new_size);
  if (!out) return NULL;
  memcpy(out, buffer, size);
  out[12]++; /* one more section (the count's low byte) */
  unsigned char *s = out + size;
  memcpy(s, tag, 4);
  for (int b = 0; b < 8; ++b) s[4 + b] = (unsigned char)((uint64_t)len >> (8 * b));
  memcpy(s + 12, payload, len);
  uint32_t crc = ref_crc32(s, 12 + len);
  for (int b = 0; b < 4; ++b) s[12 + len + b] = (unsigned char)(crc >> (8 * b));
  return out;
}

static unsigned char *append_section(const unsigned char *buffer, size_t size, const char tag[4],
                                     const char *payload, size_t *new_size)
{
  return append_bytes(buffer, size, tag, payload, strlen(payload), new_size);
}

void test_model_decode_versions(void)
{
  SsModel m = linear_model(SS_TASK_BINARY);
  size_t size;
  unsigned char *buffer = encode(&m, &size);
  REQUIRE(buffer);
  CHECK(buffer[0] == 0x89 && memcmp(buffer + 1, "SSVM\r\n\x1a", 7) == 0);
  CHECK_EQ_INT(buffer[8], SS_MODEL_FILE_VERSION);
  /* the first section's CRC is the reference CRC of its tag, length and payload */
  uint32_t stored = 0;
  for (int b = 0; b < 4; ++b) stored |= (uint32_t)buffer[16 + 12 + 56 + b] << (8 * b);
  CHECK(stored == ref_crc32(buffer + 16, 12 + 56));
  SsModel back;
  char msg[256];
  buffer[8] = SS_MODEL_FILE_VERSION + 1;
  CHECK_EQ_INT(ss_model_decode(&back, buffer, size, msg, sizeof msg), SS_ERR_VERSION);
  CHECK(strstr(msg, "newer") != NULL);
  buffer[8] = SS_MODEL_FILE_VERSION;
  size_t size2;
  unsigned char *optional = append_section(buffer, size, "xtra", "ignored by this reader", &size2);
  REQUIRE(optional);
  CHECK_EQ_INT(ss_model_decode(&back, optional, size2, msg, sizeof msg), SS_OK);
  CHECK(same_doubles(back.weights, W, 3));
  ss_model_free(&back);
  free(optional);
  unsigned char *critical = append_section(buffer, size, "XTRA", "must be understood", &size2);
  REQUIRE(critical);
  CHECK_EQ_INT(ss_model_decode(&back, critical, size2, msg, sizeof msg), SS_ERR_VERSION);
  free(critical);
  unsigned char *twice = append_section(buffer, size, "META", "again", &size2);
  REQUIRE(twice);
  CHECK_EQ_INT(ss_model_decode(&back, twice, size2, msg, sizeof msg), SS_ERR_FORMAT);
  free(twice);
  free(buffer);
  CHECK_EQ_INT(ss_model_decode(NULL, "x", 1, NULL, 0), SS_ERR_BAD_ARG);
}

static int file_exists(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

void test_model_save_load(void)
{
  const char *path = "test_model_file_tmp.ssvm";
  char msg[512];
  SsModel m = linear_model(SS_TASK_ONE_VS_REST), back;
  remove(path);
  CHECK_EQ_INT(ss_model_save(&m, path, msg, sizeof msg), SS_OK);
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_OK);
  CHECK(same_doubles(back.weights, W, 9) && same_doubles(back.labels, LABELS3, 3));
  ss_model_free(&back);
  /* saving again replaces the file (a regression model now) */
  SsModel r = linear_model(SS_TASK_REGRESSION);
  CHECK_EQ_INT(ss_model_save(&r, path, msg, sizeof msg), SS_OK);
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_OK);
  CHECK_EQ_INT(back.task, SS_TASK_REGRESSION);
  ss_model_free(&back);
  /* an invalid model leaves the file as it was */
  r.dimension = 0;
  CHECK_EQ_INT(ss_model_save(&r, path, msg, sizeof msg), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_OK);
  ss_model_free(&back);
  /* a folder that does not exist: SS_ERR_IO and no file left behind */
  CHECK_EQ_INT(ss_model_save(&m, "no-such-folder/x.ssvm", msg, sizeof msg), SS_ERR_IO);
  CHECK(strstr(msg, "no-such-folder/x.ssvm") != NULL);
  CHECK_EQ_INT(ss_model_load(&back, "no-such-folder/x.ssvm", msg, sizeof msg), SS_ERR_IO);
  /* a text file is not a model; the message names the file */
  FILE *f = fopen(path, "wb");
  REQUIRE(f);
  fputs("+1 1:0.5 3:1\n", f);
  fclose(f);
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_ERR_FORMAT);
  CHECK(strstr(msg, path) != NULL && strstr(msg, "signature") != NULL);
  CHECK(back.weights == NULL);
  remove(path);
  CHECK(!file_exists(path));
}

/* A model trained by SsSvm, saved and loaded, scores as the object does. */
void test_model_from_trained_svm(void)
{
  enum { N = 200, D = 4 };
  double X[N * D], y[N];
  tu_make_blobs(X, y, N, D, 1.0, 3);
  SsData data;
  SsSvm *svm = tu_new_dense(SS_SOLVER_SDCA, &data, X, y, N, D, 0.01);
  REQUIRE(svm);
  CHECK_EQ_INT(ss_svm_train(svm), SS_OK);
  SsModel m;
  ss_model_init(&m);
  m.kind = SS_MODEL_LINEAR;
  m.task = SS_TASK_BINARY;
  m.dimension = D;
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = LABELS2;
  m.loss = ss_svm_get_loss(svm);
  m.lambda = ss_svm_get_lambda(svm);
  m.bias_multiplier = ss_svm_get_bias_multiplier(svm);
  m.weights = (double *)ss_svm_get_model(svm);
  double b = ss_svm_get_bias(svm);
  m.biases = &b;
  const char *path = "test_model_file_svm.ssvm";
  SsModel back;
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
  CHECK_EQ_INT(ss_model_load(&back, path, NULL, 0), SS_OK);
  remove(path);
  double scores[N], predictions[N];
  CHECK_EQ_INT(ss_model_decision_function(&back, &data, scores), SS_OK);
  CHECK_EQ_INT(ss_model_predict(&back, &data, predictions), SS_OK);
  const double *ref = ss_svm_get_scores(svm);
  for (int i = 0; i < N; ++i) {
    CHECK_REL(scores[i], ref[i], 1e-12);
    CHECK(predictions[i] == (scores[i] > 0 ? 1.0 : -1.0));
  }
  ss_model_free(&back);
  ss_svm_delete(svm);
}

/* A well-framed SCAL section (valid checksum) whose content is wrong: an
 * unknown method, a feature count other than the model's, a payload size
 * that does not match, a non-finite scale; twice. Each is SS_ERR_FORMAT. */
void test_model_scaling_section_rejects(void)
{
  SsModel m = linear_model(SS_TASK_BINARY); /* d = 3 */
  size_t size;
  unsigned char *buffer = encode(&m, &size);
  REQUIRE(buffer);
  unsigned char payload[16 + 16 * 3];
  const double values[6] = {0, 1, -1, 0.5, 2, 4};
  /* method, 0, d, then d offsets and d scales, little-endian */
  const struct { uint32_t method; int64_t d; size_t len; double poison; } cases[5] = {
      {1, 3, sizeof payload, 0}, {9, 3, sizeof payload, 0}, {2, 4, sizeof payload, 0},
      {2, 3, sizeof payload - 8, 0}, {3, 3, sizeof payload, INFINITY}};
  for (int q = 0; q < 5; ++q) {
    memset(payload, 0, sizeof payload);
    for (int b = 0; b < 4; ++b) payload[b] = (unsigned char)(cases[q].method >> (8 * b));
    for (int b = 0; b < 8; ++b) payload[8 + b] = (unsigned char)((uint64_t)cases[q].d >> (8 * b));
    for (int t = 0; t < 6; ++t) {
      uint64_t bits;
      double v = (t == 4 && cases[q].poison != 0) ? cases[q].poison : values[t];
      memcpy(&bits, &v, 8);
      for (int b = 0; b < 8; ++b) payload[16 + 8 * t + b] = (unsigned char)(bits >> (8 * b));
    }
    size_t size2;
    unsigned char *file = append_bytes(buffer, size, "SCAL", payload, cases[q].len, &size2);
    REQUIRE(file);
    SsModel back;
    char msg[256] = "";
    SsStatus status = ss_model_decode(&back, file, size2, msg, sizeof msg);
    if (q == 0) {
      CHECK_EQ_INT(status, SS_OK); /* the well-formed one loads, minmax */
      CHECK_EQ_INT(back.scaling, SS_MODEL_SCALING_MINMAX);
      CHECK(back.scaling_scale && back.scaling_scale[2] == 4);
      ss_model_free(&back);
      /* ... and appears once only */
      size_t size3;
      unsigned char *twice = append_bytes(file, size2, "SCAL", payload, cases[q].len, &size3);
      REQUIRE(twice);
      CHECK_EQ_INT(ss_model_decode(&back, twice, size3, msg, sizeof msg), SS_ERR_FORMAT);
      free(twice);
    } else {
      if (status != SS_ERR_FORMAT) printf("  case %d: status %d\n", q, (int)status);
      CHECK_EQ_INT(status, SS_ERR_FORMAT);
      CHECK(strstr(msg, q == 4 ? "scaling" : "SCAL") != NULL);
      CHECK(back.scaling_offset == NULL);
    }
    free(file);
  }
  free(buffer);
}
