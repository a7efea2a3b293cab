/* model_cli.h: --model NAME|DIR, a real GPT-2 (issue 12), for --print and
 * --dump: one layer (--layer N, default the last) as the single-layer trace,
 * plus the token ids and the next-token top-k. */
#ifndef AV_MODEL_CLI_H
#define AV_MODEL_CLI_H

#include <stdbool.h>
#include "options.h"

/* Loads the model o->model (a directory; in restricted mode only an
 * installed model's name, models/NAME under the data folder), runs the
 * sentence (or a default one) and prints or dumps the layer. --train and
 * the teaching layer's options are refused. color: colour the tables. */
bool av_model_cli_run(const struct av_options *o, bool restricted, bool color, char **cause);

#endif
