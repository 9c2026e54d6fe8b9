/* score_model.c -- load a stochsvm model file and score a LIBSVM data file.
 *
 *     score_model MODEL_FILE DATA_FILE
 *
 * Prints, for each row of DATA_FILE, the prediction and the k scores
 * separated by spaces; then, if every row has a numeric label, a final line
 * "# accuracy A (n rows)" for a classifier or "# mse E (n rows)" for a
 * regressor. The model may come from Python (stochsvm.save_model) or from
 * C (ss_model_save). Exit status 0 on success, 1 on any error (with a
 * message naming the file, and the line for data errors).
 *
 * Build against the installed library:
 *     cc -std=c11 score_model.c $(pkg-config --cflags --libs stochsvm) -o score_model
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stochsvm/model_file.h>

/* A growing CSR matrix with one label per row. */
typedef struct Rows {
  int64_t n, nnz, cap_rows, cap_nnz;
  int64_t *indptr;
  int32_t *indices;
  double *values, *labels;
  int labelled; /* every row had a label */
} Rows;

/* Room for `need` rows (labels, indptr) and `nnz` values; -1 if out of memory. */
static int reserve(Rows *r, int64_t need, int64_t nnz)
{
  if (need > r->cap_rows) {
    int64_t c = 2 * need + 64;
    double *labels = realloc(r->labels, (size_t)c * sizeof *labels);
    if (labels) r->labels = labels;
    int64_t *indptr = realloc(r->indptr, (size_t)(c + 1) * sizeof *indptr);
    if (indptr) r->indptr = indptr;
    if (!labels || !indptr) return -1;
    r->cap_rows = c;
  }
  if (nnz > r->cap_nnz) {
    int64_t c = 2 * nnz + 256;
    int32_t *indices = realloc(r->indices, (size_t)c * sizeof *indices);
    if (indices) r->indices = indices;
    double *values = realloc(r->values, (size_t)c * sizeof *values);
    if (values) r->values = values;
    if (!indices || !values) return -1;
    r->cap_nnz = c;
  }
  return 0;
}

/* Read one line into *line (growing it); 0 at end of file. */
static int read_line(FILE *f, char **line, size_t *cap)
{
  size_t len = 0;
  int c;
  while ((c = fgetc(f)) != EOF) {
    if (len + 2 > *cap) {
      size_t bigger = *cap ? 2 * *cap : 256;
      char *q = realloc(*line, bigger);
      if (!q) return -1;
      *line = q;
      *cap = bigger;
    }
    if (c == '\n') break;
    (*line)[len++] = (char)c;
  }
  if (c == EOF && len == 0) return 0;
  (*line)[len] = '\0';
  return 1;
}

/* Parse "label idx:val idx:val ..." (1-based, increasing indices); a line
 * whose first token has a ':' has no label. Returns 0 or prints an error. */
static int parse_line(char *s, Rows *r, int64_t d, const char *path, long lineno)
{
  char *tok = strtok(s, " \t\r");
  if (!tok || tok[0] == '#') return 0; /* blank line or comment */
  if (reserve(r, r->n + 1, r->nnz)) return -1;
  if (!strchr(tok, ':')) {
    char *end;
    errno = 0;
    r->labels[r->n] = strtod(tok, &end);
    if (*end || errno) {
      fprintf(stderr, "%s:%ld: bad label '%s'\n", path, lineno, tok);
      return -1;
    }
    tok = strtok(NULL, " \t\r");
  } else {
    r->labelled = 0;
  }
  long last = 0;
  for (; tok; tok = strtok(NULL, " \t\r")) {
    char *end;
    errno = 0;
    long idx = strtol(tok, &end, 10);
    double v = *end == ':' ? strtod(end + 1, &end) : 0;
    if (*end || errno || idx <= last) {
      fprintf(stderr, "%s:%ld: bad feature '%s' (want index:value, indices increasing from 1)\n",
              path, lineno, tok);
      return -1;
    }
    if (idx > d) {
      fprintf(stderr, "%s:%ld: feature %ld beyond the model's %lld features\n", path, lineno, idx,
              (long long)d);
      return -1;
    }
    if (reserve(r, r->n + 1, r->nnz + 1)) return -1;
    r->indices[r->nnz] = (int32_t)(idx - 1);
    r->values[r->nnz++] = v;
    last = idx;
  }
  r->indptr[++r->n] = r->nnz;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL_FILE DATA_FILE\n", argv[0]);
    return 1;
  }
  SsModel model;
  char message[512];
  SsStatus status = ss_model_load(&model, argv[1], message, sizeof message);
  if (status != SS_OK) {
    fprintf(stderr, "cannot load the model: %s (%s)\n", message, ss_status_string(status));
    return 1;
  }
  FILE *f = fopen(argv[2], "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open\n", argv[2]);
    ss_model_free(&model);
    return 1;
  }
  Rows rows = {0};
  rows.labelled = 1;
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  int ok = reserve(&rows, 1, 0) == 0, got = 0;
  if (ok) rows.indptr[0] = 0;
  while (ok && (got = read_line(f, &line, &cap)) > 0) {
    ++lineno;
    ok = parse_line(line, &rows, model.dimension, argv[2], lineno) == 0;
  }
  ok = ok && got == 0;
  fclose(f);
  free(line);
  int exit_code = 1;
  SsData data;
  int64_t k = model.num_outputs;
  double *scores = NULL, *predictions = NULL;
  if (ok && rows.n == 0) fprintf(stderr, "%s: no rows\n", argv[2]);
  if (ok && rows.n > 0 &&
      ss_data_init_csr(&data, SS_DTYPE_FLOAT64, rows.values, rows.indptr, rows.indices, rows.n,
                       model.dimension) == SS_OK &&
      (scores = malloc((size_t)(rows.n * k) * sizeof *scores)) &&
      (predictions = malloc((size_t)rows.n * sizeof *predictions)) &&
      ss_model_decision_function(&model, &data, scores) == SS_OK &&
      ss_model_predict(&model, &data, predictions) == SS_OK) {
    double total = 0;
    for (int64_t i = 0; i < rows.n; ++i) {
      printf("%.17g", predictions[i]);
      for (int64_t c = 0; c < k; ++c) printf(" %.17g", scores[i * k + c]);
      printf("\n");
      double e = predictions[i] - (rows.labelled ? rows.labels[i] : 0);
      total += model.task == SS_TASK_REGRESSION ? e * e : (e == 0);
    }
    if (rows.labelled)
      printf("# %s %.6f (%lld rows)\n", model.task == SS_TASK_REGRESSION ? "mse" : "accuracy",
             total / (double)rows.n, (long long)rows.n);
    exit_code = 0;
  } else if (ok && rows.n > 0) {
    fprintf(stderr, "%s: cannot score the data\n", argv[2]);
  }
  free(scores);
  free(predictions);
  free(rows.indptr);
  free(rows.indices);
  free(rows.values);
  free(rows.labels);
  ss_model_free(&model);
  return exit_code;
}
