/* gen_model_file_corpus.c -- writes the seed corpus of fuzz_model_file:
 * valid encodings of small linear, homogeneous-kernel-map and kernel models
 * (binary, one-vs-rest, regression; with and without metadata). Not built by
 * meson; run by hand when the format changes:
 *   cc -Iinclude tests/fuzz/gen_model_file_corpus.c <the core's .c files> -lm -o gen
 *   ./gen tests/fuzz/corpus/fuzz_model_file */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stochsvm/model_file.h"

static int write_model(const char *dir, const char *name, const SsModel *m)
{
  size_t size = 0;
  char message[256] = "";
  if (ss_model_validate(m, message, sizeof message) != SS_OK) {
    fprintf(stderr, "%s: %s\n", name, message);
    return 1;
  }
  ss_model_encoded_size(m, &size);
  void *bytes = malloc(size);
  ss_model_encode(m, bytes, size);
  char path[1024];
  snprintf(path, sizeof path, "%s/valid-%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  fwrite(bytes, 1, size, f);
  fclose(f);
  free(bytes);
  return 0;
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  int bad = 0;
  double labels2[] = {-1, 1}, labels3[] = {0, 1, 7};
  double w[] = {0.5, -1.0, 2.0, 0.0, 1.5, -0.25, 3.0, 1.0, -2.0};
  double b[] = {0.1, -0.2, 0.3};
  SsModel m;

  ss_model_init(&m); /* linear binary, d = 3 */
  m.kind = SS_MODEL_LINEAR; m.task = SS_TASK_BINARY; m.dimension = 3; m.num_outputs = 1;
  m.num_classes = 2; m.labels = labels2; m.loss = 0; m.lambda = 1e-3; m.bias_multiplier = 1;
  m.weights = w; m.biases = b;
  bad |= write_model(dir, "linear-binary", &m);
  m.metadata = "{\"solver\": \"sgd\"}";
  bad |= write_model(dir, "linear-binary-meta", &m);
  m.metadata = NULL;
  m.task = SS_TASK_ONE_VS_REST; m.num_outputs = 3; m.num_classes = 3; m.labels = labels3;
  bad |= write_model(dir, "linear-ovr", &m);
  m.task = SS_TASK_REGRESSION; m.num_outputs = 1; m.num_classes = 0; m.labels = NULL;
  bad |= write_model(dir, "linear-regression", &m);

  /* linear with a homogeneous kernel map: d = 1, order 1 -> D = 3 */
  ss_model_init(&m);
  m.kind = SS_MODEL_LINEAR; m.task = SS_TASK_BINARY; m.dimension = 1; m.num_outputs = 1;
  m.num_classes = 2; m.labels = labels2; m.lambda = 1e-2; m.bias_multiplier = 1;
  m.has_homkermap = 1; m.homkermap_kernel = 1; m.homkermap_window = 1; m.homkermap_gamma = 1.0;
  m.homkermap_order = 1; m.homkermap_period = 5.0; m.weights = w; m.biases = b;
  bad |= write_model(dir, "homkermap-binary", &m);
  m.dimension = 3; /* D = 9 */
  bad |= write_model(dir, "homkermap-d3", &m);

  /* kernel models: 3 support vectors in d = 4 (CSR) */
  int64_t indptr[] = {0, 2, 3, 5};
  int32_t indices[] = {0, 3, 1, 0, 2};
  double values[] = {1.0, -1.0, 0.5, 2.0, -0.5};
  double coef[] = {0.5, -0.25, 1.0, 0.1, 0.2, -0.3, -1.0, 0.0, 0.4};
  ss_model_init(&m);
  m.kind = SS_MODEL_KERNEL; m.task = SS_TASK_BINARY; m.dimension = 4; m.num_outputs = 1;
  m.num_classes = 2; m.labels = labels2; m.lambda = 1e-2; m.biases = b;
  m.kernel = SS_MODEL_KERNEL_RBF; m.gamma = 0.5; m.coef0 = 0; m.degree = 3;
  m.num_support_vectors = 3; m.sv_indptr = indptr; m.sv_indices = indices; m.sv_values = values;
  m.coefficients = coef;
  bad |= write_model(dir, "kernel-rbf-binary", &m);
  m.kernel = SS_MODEL_KERNEL_POLYNOMIAL; m.coef0 = 1.0; m.degree = 2;
  m.task = SS_TASK_ONE_VS_REST; m.num_outputs = 3; m.num_classes = 3; m.labels = labels3;
  bad |= write_model(dir, "kernel-poly-ovr", &m);
  m.kernel = SS_MODEL_KERNEL_SIGMOID; m.task = SS_TASK_REGRESSION; m.num_outputs = 1;
  m.num_classes = 0; m.labels = NULL; m.metadata = "{}";
  bad |= write_model(dir, "kernel-sigmoid-regression", &m);
  m.kernel = SS_MODEL_KERNEL_LINEAR; m.metadata = NULL; m.task = SS_TASK_BINARY;
  m.num_classes = 2; m.labels = labels2;
  bad |= write_model(dir, "kernel-linear-binary", &m);
  return bad;
}
