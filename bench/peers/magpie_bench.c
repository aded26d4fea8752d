/* Timing driver for MAGPIE's move generator (lives outside the Arbitre repo).
 * stdin: one position a line, "CGP_BOARD RACK"; argv[1]: repeats.
 * stdout: "count best us_count us_best" a line (median microseconds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "impl/config.h"
#include "impl/cgp.h"
#include "impl/move_gen.h"
#include "ent/game.h"
#include "ent/move.h"
#include "ent/player.h"
#include "util/io_util.h"

static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y;
}
static void run(Config *c, const char *cmd) {
  ErrorStack *es = error_stack_create();
  config_load_command(c, cmd, es);
  if (error_stack_is_empty(es)) config_execute_command(c, es);
  if (!error_stack_is_empty(es)) { error_stack_print_and_reset(es); exit(1); }
  error_stack_destroy(es);
}
int main(int argc, char **argv) {
  int repeat = argc > 1 ? atoi(argv[1]) : 5;
  /* argv[2] (optional): "all" or "top" to run one mode only (for instruction counts) */
  int do_all = argc < 3 || strcmp(argv[2], "top") != 0;
  int do_top = argc < 3 || strcmp(argv[2], "all") != 0;
  ErrorStack *es = error_stack_create();
  ConfigArgs args = {.data_paths = "data", .settings_filename = NULL, .use_wmp = false};
  Config *config = config_create(&args, es);
  if (!error_stack_is_empty(es)) { error_stack_print_and_reset(es); return 1; }
  run(config, "set -lex FRA_ARB -s1 score -s2 score -wmp false -threads 1 -savesettings false");
  Game *game = config_game_create(config);
  MoveList *all = move_list_create_small(400000);
  MoveList *one = move_list_create_small(1);
  char line[4096], board[1024], rack[64], cgp[2048];
  double *t = malloc(sizeof(double) * (size_t)repeat);
  while (fgets(line, sizeof line, stdin)) {
    if (sscanf(line, "%1023s %63s", board, rack) != 2) continue;
    snprintf(cgp, sizeof cgp, "%s %s/ 0/0 0 lex FRA_ARB;", board, rack);
    game_load_cgp(game, cgp, es);
    if (!error_stack_is_empty(es)) { error_stack_print_and_reset(es); return 1; }
    MoveGenArgs a = {.game = game, .move_list = all, .move_record_type = MOVE_RECORD_ALL_SMALL,
                     .move_sort_type = MOVE_SORT_SCORE, .eq_margin_movegen = 0,
                     .target_equity = EQUITY_MAX_VALUE,
                     .target_leave_size_for_exchange_cutoff = UNSET_LEAVE_SIZE};
    double tc, tb; int count = 0, best = -1;
    for (int r = 0; r < repeat && do_all; r++) {
      double s = now(); generate_moves(&a); t[r] = now() - s;
    }
    if (!do_all) t[repeat / 2] = 0;
    qsort(t, (size_t)repeat, sizeof(double), cmpd); tc = t[repeat / 2];
    for (int i = 0; i < move_list_get_count(all); i++)
      if (small_move_get_tiles_played(all->small_moves[i]) > 0) count++;
    MoveGenArgs b = a; b.move_list = one; b.move_record_type = MOVE_RECORD_BEST_SMALL;
    for (int r = 0; r < repeat && do_top; r++) {
      double s = now(); generate_moves(&b); t[r] = now() - s;
    }
    if (!do_top) t[repeat / 2] = 0;
    qsort(t, (size_t)repeat, sizeof(double), cmpd); tb = t[repeat / 2];
    if (move_list_get_count(one) > 0 && small_move_get_tiles_played(one->small_moves[0]) > 0)
      best = small_move_get_score(one->small_moves[0]);
    printf("%d %d %.2f %.2f\n", count, best, tc, tb);
    fflush(stdout);
  }
  return 0;
}
