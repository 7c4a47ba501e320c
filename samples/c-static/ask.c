/* ask.c — libamxqa from C99 without any heap allocation in the program:
 * the model file and the passage are mmap'd, the model handle and the
 * session live in static arrays, the answer in a stack buffer.
 *
 *   amxqa-sample-c MODEL PASSAGE_FILE QUESTION...
 *
 * Prints one line per question: the answer, or "(no answer)".
 */
#define _POSIX_C_SOURCE 200809L
#include <amxqa.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Enough for the default reference-shape model at 4,096 passage tokens; the
 * program checks amxqa_session_size() against it. .bss costs nothing until
 * touched. */
#define SESSION_BYTES (64u << 20)
static unsigned char session_mem[SESSION_BYTES] __attribute__((aligned(64)));
static unsigned char model_mem[AMXQA_MODEL_STORAGE_BYTES] __attribute__((aligned(64)));

/* Maps a whole file read-only; an empty file gives len 0 and a non-NULL pointer. */
static const void* map_file(const char* path, size_t* len) {
  static const unsigned char empty[64] __attribute__((aligned(64))) = {0};
  struct stat st;
  void* p;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return NULL;
  }
  *len = (size_t)st.st_size;
  if (*len == 0) {
    close(fd);
    return empty;
  }
  p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char** argv) {
  size_t model_len = 0, passage_len = 0, need;
  const void* model_bytes;
  const char* passage;
  amxqa_model* model;
  amxqa_session* session;
  amxqa_session_options options;
  amxqa_status st;
  int i;

  /* stdio would otherwise malloc its stdout buffer on first use. */
  static char stdout_buffer[4096];
  setvbuf(stdout, stdout_buffer, _IOLBF, sizeof stdout_buffer);
  if (argc < 4) {
    fprintf(stderr, "usage: %s MODEL PASSAGE_FILE QUESTION...\n", argv[0]);
    return 2;
  }
  model_bytes = map_file(argv[1], &model_len);
  passage = (const char*)map_file(argv[2], &passage_len);
  if (!model_bytes || !passage) {
    fprintf(stderr, "cannot map %s\n", model_bytes ? argv[2] : argv[1]);
    return 1;
  }
  st = amxqa_model_open(model_bytes, model_len, model_mem, &model);
  if (st != AMXQA_OK) {
    fprintf(stderr, "%s: %s: %s\n", argv[1], amxqa_status_name(st), amxqa_last_error(NULL));
    return 1;
  }
  amxqa_session_options_default(&options);
  need = amxqa_session_size(model, &options);
  if (need == 0 || need > sizeof session_mem) {
    fprintf(stderr, "session needs %lu bytes; this sample reserves %lu\n", (unsigned long)need,
            (unsigned long)sizeof session_mem);
    return 1;
  }
  st = amxqa_session_init(model, &options, session_mem, sizeof session_mem, &session);
  if (st != AMXQA_OK) {
    fprintf(stderr, "session: %s: %s\n", amxqa_status_name(st), amxqa_last_error(NULL));
    return 1;
  }
  for (i = 3; i < argc; ++i) {
    char answer[512];
    amxqa_answer_info info = amxqa_answer_info_init();
    st = amxqa_answer(session, argv[i], strlen(argv[i]), passage, passage_len, answer, sizeof answer, &info);
    if (st != AMXQA_OK && st != AMXQA_ERR_OUTPUT_TOO_SMALL) {
      fprintf(stderr, "%s: %s\n", amxqa_status_name(st), amxqa_last_error(session));
      amxqa_session_finish(session);
      return 1;
    }
    printf("%s\t[%s, %.2f ms]\n", info.abstained ? "(no answer)" : answer, amxqa_isa_name(info.isa),
           (double)(info.prefill_ns + info.decode_ns) / 1e6);
  }
  amxqa_session_finish(session);
  return 0;
}
