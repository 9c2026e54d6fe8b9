/* test_model_file_io.c -- the file rules of ss_model_load and ss_model_save
 * (model_file.h), at the C level so that they run under ASan/UBSan and
 * valgrind: only regular files are read (a FIFO, folder or device is refused
 * at once, never read or waited on), a truncated or corrupted file on disk is
 * SS_ERR_FORMAT naming the file, a declared section length is checked
 * against the file's size before anything is allocated; a save refuses
 * non-regular targets and leaves them alone, keeps the replaced file's mode,
 * follows a symbolic link (the link stays), rewrites a hard-linked file in
 * place, and replaces any other file atomically (a reader holding the old
 * file keeps reading it whole; no temporary file is left behind); a failed
 * open or write says why (no such file, file too large).
 *
 * In C a path ends at its first NUL byte, so "a path holding NUL" cannot be
 * passed here; the Python layer refuses such paths (tests/test_reliability.py).
 * POSIX only (FIFOs, symbolic and hard links): on Windows these tests pass
 * without checking anything. Each test works in its own fresh folder under
 * $TMPDIR (or /tmp) and removes it. */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minitest.h"
#include "stochsvm/model_file.h"
#include "stochsvm/svm.h"
#include "testutil.h"

#if !defined(_WIN32)

static double W[2] = {0.5, -1.5};
static double W_NEW[2] = {4.0, 8.0};
static double BIAS[1] = {0.25};
static double LABELS[2] = {-1, 1};

/* A binary linear model over d = 2 with weights w. */
static SsModel small_model(double *w)
{
  SsModel m;
  ss_model_init(&m);
  m.kind = SS_MODEL_LINEAR;
  m.task = SS_TASK_BINARY;
  m.dimension = 2;
  m.num_outputs = 1;
  m.num_classes = 2;
  m.labels = LABELS;
  m.loss = SS_LOSS_HINGE;
  m.weights = w;
  m.biases = BIAS;
  return m;
}

/* A fresh folder for one test; its path goes to dir (PATH_SIZE bytes). */
enum { PATH_SIZE = 1024 };

static int make_folder(char *dir)
{
  const char *base = getenv("TMPDIR");
  if (!base || !*base || strlen(base) > PATH_SIZE / 2 - 32) base = "/tmp";
  snprintf(dir, PATH_SIZE, "%s/ss_model_io_XXXXXX", base);
  return mkdtemp(dir) != NULL;
}

/* Remove every entry of the folder (files, links, FIFOs, empty folders), then the folder. */
static void remove_folder(const char *dir)
{
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[PATH_SIZE * 2];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* Number of entries of the folder (without . and ..). */
static int count_entries(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return -1;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) ++count;
  closedir(d);
  return count;
}

static void join(char *out, const char *dir, const char *name)
{
  size_t len = strlen(dir);
  memcpy(out, dir, len); /* dir is shorter than PATH_SIZE / 2 (make_folder) */
  out[len] = '/';
  snprintf(out + len + 1, PATH_SIZE - len - 1, "%s", name);
}

/* The first weight of the model file at path, or -99 if it does not load. */
static double first_weight(const char *path)
{
  SsModel back;
  if (ss_model_load(&back, path, NULL, 0) != SS_OK) return -99;
  double w = back.weights[0];
  ss_model_free(&back);
  return w;
}

static int write_bytes(const char *path, const unsigned char *bytes, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(bytes, 1, size, f) == size;
  return (fclose(f) == 0) && ok;
}

/* A FIFO with no writer, a folder and character devices are refused with
 * SS_ERR_IO at once (the watchdog of main.c would report a blocked open or
 * read as a hang), and the message names the path. */
void test_model_load_refuses_non_regular_files(void)
{
  char dir[PATH_SIZE], fifo[PATH_SIZE], msg[512];
  REQUIRE(make_folder(dir));
  join(fifo, dir, "pipe");
  REQUIRE(mkfifo(fifo, 0600) == 0);
  const char *paths[4] = {fifo, dir, "/dev/null", "/dev/zero"};
  for (int q = 0; q < 4; ++q) {
    SsModel back;
    msg[0] = '\0';
    CHECK_EQ_INT(ss_model_load(&back, paths[q], msg, sizeof msg), SS_ERR_IO);
    CHECK(strstr(msg, paths[q]) != NULL && strstr(msg, "not a regular file") != NULL);
    CHECK(back.weights == NULL && back.owns_memory == 0);
  }
  SsModel back;
  CHECK_EQ_INT(ss_model_load(&back, NULL, msg, sizeof msg), SS_ERR_BAD_ARG);
  CHECK_EQ_INT(ss_model_load(NULL, fifo, msg, sizeof msg), SS_ERR_BAD_ARG);
  remove_folder(dir);
}

/* Files on disk: every truncation and a corrupted byte give SS_ERR_FORMAT
 * with the file's name; a section that declares 2^64 - 1 bytes is refused
 * from the file's size, before any allocation of that size (ASan would
 * report the attempt). */
void test_model_load_truncated_and_corrupted_files(void)
{
  char dir[PATH_SIZE], path[PATH_SIZE], msg[512];
  REQUIRE(make_folder(dir));
  join(path, dir, "m.ssvm");
  SsModel m = small_model(W);
  size_t size;
  REQUIRE(ss_model_encoded_size(&m, &size) == SS_OK);
  unsigned char *bytes = malloc(size);
  REQUIRE(bytes);
  REQUIRE(ss_model_encode(&m, bytes, size) == SS_OK);
  SsModel back;
  for (size_t len = 0; len < size; len += 7) {
    REQUIRE(write_bytes(path, bytes, len));
    msg[0] = '\0';
    CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_ERR_FORMAT);
    CHECK(strncmp(msg, path, strlen(path)) == 0);
  }
  bytes[size / 2] ^= 0x10;
  REQUIRE(write_bytes(path, bytes, size));
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_ERR_FORMAT);
  CHECK(strstr(msg, "checksum") != NULL);
  bytes[size / 2] ^= 0x10;
  for (int b = 0; b < 8; ++b) bytes[16 + 4 + b] = 0xFF; /* HEAD's length: 2^64 - 1 */
  REQUIRE(write_bytes(path, bytes, size));
  CHECK_EQ_INT(ss_model_load(&back, path, msg, sizeof msg), SS_ERR_FORMAT);
  CHECK(strstr(msg, "truncated") != NULL);
  free(bytes);
  remove_folder(dir);
}

/* Saving over a FIFO, a folder or a device is SS_ERR_IO, and the target is
 * still what it was (no regular file put in its place, nothing left beside). */
void test_model_save_refuses_non_regular_targets(void)
{
  char dir[PATH_SIZE], fifo[PATH_SIZE], sub[PATH_SIZE], msg[512];
  REQUIRE(make_folder(dir));
  join(fifo, dir, "pipe");
  join(sub, dir, "folder");
  REQUIRE(mkfifo(fifo, 0600) == 0);
  REQUIRE(mkdir(sub, 0700) == 0);
  SsModel m = small_model(W);
  const char *targets[3] = {fifo, sub, "/dev/null"};
  for (int q = 0; q < 3; ++q) {
    struct stat before, after;
    REQUIRE(stat(targets[q], &before) == 0);
    msg[0] = '\0';
    CHECK_EQ_INT(ss_model_save(&m, targets[q], msg, sizeof msg), SS_ERR_IO);
    CHECK(strstr(msg, "not a regular file") != NULL);
    REQUIRE(stat(targets[q], &after) == 0);
    CHECK((before.st_mode & S_IFMT) == (after.st_mode & S_IFMT) && before.st_ino == after.st_ino);
  }
  CHECK_EQ_INT(count_entries(dir), 2); /* no temporary file left */
  CHECK_EQ_INT(ss_model_save(&m, NULL, msg, sizeof msg), SS_ERR_BAD_ARG);
  remove_folder(dir);
}

/* A new file gets 0666 minus the umask; a replaced file keeps its mode. */
void test_model_save_keeps_the_mode(void)
{
  char dir[PATH_SIZE], path[PATH_SIZE];
  REQUIRE(make_folder(dir));
  join(path, dir, "m.ssvm");
  mode_t mask = umask(022);
  SsModel m = small_model(W);
  struct stat st;
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
  REQUIRE(stat(path, &st) == 0);
  CHECK_EQ_INT(st.st_mode & 07777, 0644);
  const mode_t modes[2] = {0600, 0640};
  for (int q = 0; q < 2; ++q) {
    REQUIRE(chmod(path, modes[q]) == 0);
    m = small_model(q ? W : W_NEW);
    CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
    REQUIRE(stat(path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 07777, modes[q]);
    CHECK(first_weight(path) == m.weights[0]);
  }
  umask(mask);
  remove_folder(dir);
}

/* A symbolic link is followed: the file it points to gets the new model and
 * the link stays a link. A link that does not resolve is SS_ERR_IO and is
 * left as it is (no file created at its target). */
void test_model_save_follows_symbolic_links(void)
{
  char dir[PATH_SIZE], target[PATH_SIZE], link_path[PATH_SIZE], dangling[PATH_SIZE];
  char msg[512];
  REQUIRE(make_folder(dir));
  join(target, dir, "real.ssvm");
  join(link_path, dir, "link.ssvm");
  join(dangling, dir, "dangling.ssvm");
  SsModel m = small_model(W);
  REQUIRE(ss_model_save(&m, target, NULL, 0) == SS_OK);
  REQUIRE(symlink("real.ssvm", link_path) == 0);
  m = small_model(W_NEW);
  CHECK_EQ_INT(ss_model_save(&m, link_path, msg, sizeof msg), SS_OK);
  struct stat lst;
  REQUIRE(lstat(link_path, &lst) == 0);
  CHECK(S_ISLNK(lst.st_mode));
  CHECK(first_weight(target) == W_NEW[0]);
  CHECK(first_weight(link_path) == W_NEW[0]);
  REQUIRE(symlink("missing-folder/x.ssvm", dangling) == 0);
  CHECK_EQ_INT(ss_model_save(&m, dangling, msg, sizeof msg), SS_ERR_IO);
  CHECK(strstr(msg, dangling) != NULL);
  REQUIRE(lstat(dangling, &lst) == 0);
  CHECK(S_ISLNK(lst.st_mode));
  CHECK_EQ_INT(count_entries(dir), 3);
  remove_folder(dir);
}

/* A file with two hard links is rewritten in place: both names see the new
 * model and stay one file. */
void test_model_save_hard_links_stay_linked(void)
{
  char dir[PATH_SIZE], a[PATH_SIZE], b[PATH_SIZE];
  REQUIRE(make_folder(dir));
  join(a, dir, "a.ssvm");
  join(b, dir, "b.ssvm");
  SsModel m = small_model(W);
  REQUIRE(ss_model_save(&m, a, NULL, 0) == SS_OK);
  REQUIRE(link(a, b) == 0);
  m = small_model(W_NEW);
  CHECK_EQ_INT(ss_model_save(&m, b, NULL, 0), SS_OK);
  struct stat sa, sb;
  REQUIRE(stat(a, &sa) == 0 && stat(b, &sb) == 0);
  CHECK(sa.st_ino == sb.st_ino);
  CHECK_EQ_INT(sa.st_nlink, 2);
  CHECK(first_weight(a) == W_NEW[0] && first_weight(b) == W_NEW[0]);
  CHECK_EQ_INT(count_entries(dir), 2);
  remove_folder(dir);
}

/* Atomic replacement: the new model arrives as a new file renamed over the
 * old one, so a reader that opened the old file reads it whole and
 * unchanged; the folder holds no temporary file afterwards. */
void test_model_save_replaces_atomically(void)
{
  char dir[PATH_SIZE], path[PATH_SIZE];
  REQUIRE(make_folder(dir));
  join(path, dir, "m.ssvm");
  SsModel m = small_model(W);
  REQUIRE(ss_model_save(&m, path, NULL, 0) == SS_OK);
  size_t size;
  REQUIRE(ss_model_encoded_size(&m, &size) == SS_OK);
  unsigned char *old_bytes = malloc(size), *read_back = malloc(size + 1);
  REQUIRE(old_bytes && read_back);
  REQUIRE(ss_model_encode(&m, old_bytes, size) == SS_OK);
  int fd = open(path, O_RDONLY);
  REQUIRE(fd >= 0);
  struct stat before, after;
  REQUIRE(fstat(fd, &before) == 0);
  m = small_model(W_NEW);
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
  REQUIRE(stat(path, &after) == 0);
  CHECK(before.st_ino != after.st_ino); /* a new file took the name */
  ssize_t got = read(fd, read_back, size + 1);
  close(fd);
  CHECK(got == (ssize_t)size && memcmp(read_back, old_bytes, size) == 0);
  CHECK(first_weight(path) == W_NEW[0]);
  CHECK_EQ_INT(count_entries(dir), 1);
  /* an invalid model leaves the old file in place, untouched */
  m.dimension = 0;
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_ERR_BAD_ARG);
  CHECK(first_weight(path) == W_NEW[0]);
  CHECK_EQ_INT(count_entries(dir), 1);
  free(old_bytes);
  free(read_back);
  remove_folder(dir);
}

/* A name of 250 bytes is valid (NAME_MAX is 255 here), but its temporary
 * name, 13 bytes longer, is not: from 243 bytes on the save failed with
 * "cannot create a temporary file beside it". The temporary file then has
 * a short name in the same folder, and nothing is left behind. */
void test_model_save_a_long_name(void)
{
  char dir[PATH_SIZE], name[256], path[PATH_SIZE];
  REQUIRE(make_folder(dir));
  memset(name, 'm', 250);
  name[250] = '\0';
  join(path, dir, name);
  SsModel m = small_model(W);
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
  CHECK(first_weight(path) == W[0]);
  m = small_model(W_NEW); /* and a replacement */
  CHECK_EQ_INT(ss_model_save(&m, path, NULL, 0), SS_OK);
  CHECK(first_weight(path) == W_NEW[0]);
  CHECK_EQ_INT(count_entries(dir), 1);
  remove_folder(dir);
}

/* The child's side of test_model_save_says_why_a_write_failed: files of
 * at most 16 bytes (RLIMIT_FSIZE, SIGXFSZ ignored, so a write past it fails
 * with EFBIG). Returns the number of failed checks (its exit code). */
typedef struct LimitedSave {
  const char *dir, *path;
} LimitedSave;

static int save_past_the_size_limit(void *context)
{
  const char *dir = ((LimitedSave *)context)->dir, *path = ((LimitedSave *)context)->path;
  int failed = 0;
  signal(SIGXFSZ, SIG_IGN);
  const struct rlimit limit = {16, 16};
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 100;
  SsModel m = small_model(W_NEW);
  char message[512];
  failed += ss_model_save(&m, path, message, sizeof message) != SS_ERR_IO;
  failed += strstr(message, "m.ssvm: cannot write the file (file too large)") == NULL;
  failed += first_weight(path) != W[0]; /* the old model, untouched */
  failed += count_entries(dir) != 1;    /* and no temporary file left */
  return failed;
}

void test_model_save_says_why_a_write_failed(void)
{
  char dir[PATH_SIZE], path[PATH_SIZE], message[512];
  REQUIRE(make_folder(dir));
  join(path, dir, "absent.ssvm");
  SsModel back;
  CHECK_EQ_INT(ss_model_load(&back, path, message, sizeof message), SS_ERR_IO);
  CHECK(strstr(message, "absent.ssvm: cannot open for reading (no such file or folder)") != NULL);
  join(path, dir, "m.ssvm");
  SsModel m = small_model(W);
  REQUIRE(ss_model_save(&m, path, NULL, 0) == SS_OK);
  LimitedSave target = {dir, path};
  CHECK_EQ_INT(tu_child_exit_code(save_past_the_size_limit, &target, 60), 0);
  remove_folder(dir);
}

#else /* Windows: no FIFOs, links or POSIX modes; see the comment above. */

void test_model_load_refuses_non_regular_files(void) {}
void test_model_load_truncated_and_corrupted_files(void) {}
void test_model_save_refuses_non_regular_targets(void) {}
void test_model_save_keeps_the_mode(void) {}
void test_model_save_follows_symbolic_links(void) {}
void test_model_save_hard_links_stay_linked(void) {}
void test_model_save_replaces_atomically(void) {}
void test_model_save_says_why_a_write_failed(void) {}
void test_model_save_a_long_name(void) {}

#endif
