/* classroom.h: --lead and --follow on the screen (issue 10), a thin layer
 * over src/follow: the leader publishes its state after every key, a
 * follower applies each snapshot it receives. First version: the stage,
 * head, all-heads view, sentence, source, config and hidden keys follow;
 * the cursor, the training run, figures, lessons, exploring with a
 * "teacher: ..." line and snapping back with a key are still to come. */
#ifndef AV_UI_CLASSROOM_H
#define AV_UI_CLASSROOM_H

#include <poll.h>
#include <stdbool.h>

struct av_app;
struct av_ui_config;

/* Opens the room of cfg->lead_dir or cfg->follow_dir (neither: nothing to
 * do, true). false + *cause when the leader cannot open the room. */
bool av_classroom_open(struct av_app *a, const struct av_ui_config *cfg, char **cause);
void av_classroom_free(struct av_app *a);

/* Waits up to wait_ms (-1: no limit) for a key on the terminal or for the
 * room, serving the room. 1: the terminal has input; 0: it has not (the
 * room was served or the time ran out); 2: a signal came (a resize: ncurses
 * has a KEY_RESIZE to read); -1: the terminal hung up. */
int av_classroom_wait(struct av_app *a, int wait_ms);

/* After a key: the leader publishes its state if it changed. */
void av_classroom_after_key(struct av_app *a);

#endif
