/* batch.h: the modes that need no terminal: --dump, --print, --train,
 * --list-samples. */
#ifndef AV_BATCH_H
#define AV_BATCH_H

#include <stdbool.h>
#include "options.h"
#include "session.h"

/* Writes the trace of s to o->dump, atomically, with the "training"
 * record when training is not NULL (s holds a lesson step's trained
 * weights: --weights of the dump is then as trained as --train's). */
struct av_training_record;
bool av_batch_dump(const struct av_options *o, const struct av_session *s,
		   const struct av_training_record *training, char **cause);

/* --train: trains a copy of s's parameters for o->train_epochs epochs on the
 * sample's sentences (settings: the sample's, overridden by the options),
 * puts them in s, re-runs it and writes its trace with the "training"
 * record to o->dump. */
bool av_batch_train(const struct av_options *o, struct av_session *s, char **cause);

/* Prints the stage o->print of s on standard output. */
bool av_batch_print(const struct av_options *o, const struct av_session *s, char **cause);

/* Whether --print's tables are coloured: --color, else NO_COLOR, TERM=dumb
 * and whether standard output is a terminal. */
bool av_batch_use_color(enum av_color_when when);

/* Prints the names of the samples found, one a line. */
bool av_batch_list_samples(char **cause);
/* --list-lessons: NAME<TAB>title, one a line. */
bool av_batch_list_lessons(char **cause);

#endif
