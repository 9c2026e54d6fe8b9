/* replay.c -- runs a libFuzzer harness without libFuzzer: feeds it every
 * file named on the command line, or every file of the directories named.
 * Built by meson with the ordinary compiler, so the committed corpus (and
 * every crash input added to it) is a regression test of `meson test`,
 * under the sanitizer build too. Prints "replayed N inputs". */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);

static int replay_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  uint8_t *bytes = NULL;
  size_t size = 0, capacity = 0;
  for (;;) {
    if (size == capacity) {
      capacity = capacity ? 2 * capacity : 4096;
      uint8_t *grown = realloc(bytes, capacity);
      if (!grown) {
        free(bytes);
        fclose(f);
        return 1;
      }
      bytes = grown;
    }
    size_t got = fread(bytes + size, 1, capacity - size, f);
    if (got == 0) break;
    size += got;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(bytes, size);
  free(bytes);
  return 0;
}

int main(int argc, char **argv)
{
  int count = 0, errors = 0;
  for (int a = 1; a < argc; ++a) {
    struct stat st;
    if (stat(argv[a], &st) != 0) {
      fprintf(stderr, "no such file or directory: %s\n", argv[a]);
      ++errors;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += replay_file(argv[a]);
      ++count;
      continue;
    }
    DIR *dir = opendir(argv[a]);
    if (!dir) {
      ++errors;
      continue;
    }
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
      if (entry->d_name[0] == '.') continue;
      size_t len = strlen(argv[a]) + strlen(entry->d_name) + 2;
      char *path = malloc(len);
      if (!path) {
        ++errors;
        break;
      }
      snprintf(path, len, "%s/%s", argv[a], entry->d_name);
      errors += replay_file(path);
      ++count;
      free(path);
    }
    closedir(dir);
  }
  printf("replayed %d inputs\n", count);
  return errors != 0 || count == 0;
}
