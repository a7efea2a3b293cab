/* batch.h: the modes that need no terminal: --dump, --print, --list-samples. */
#ifndef AV_BATCH_H
#define AV_BATCH_H

#include <stdbool.h>
#include "options.h"
#include "session.h"

/* Writes the trace of s to o->dump, atomically. */
bool av_batch_dump(const struct av_options *o, const struct av_session *s, char **cause);

/* Prints the stage o->print of s on standard output. */
bool av_batch_print(const struct av_options *o, const struct av_session *s, char **cause);

/* Prints the names of the samples found, one a line. */
bool av_batch_list_samples(char **cause);

#endif
