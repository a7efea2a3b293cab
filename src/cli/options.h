/* options.h: the command line, parsed (getopt_long) and turned into a
 * session. The screen and the batch modes share both steps. */
#ifndef AV_OPTIONS_H
#define AV_OPTIONS_H

#include <stdbool.h>
#include "model_config.h"
#include "session.h"
#include "tokenizer.h"
#include "train.h"

enum av_color_when { AV_COLOR_AUTO, AV_COLOR_ALWAYS, AV_COLOR_NEVER };

struct av_options {
	const char *sample;        /* --sample NAME|PATH, or NULL for the built-in */
	const char *weights;       /* --weights FILE */
	const char *sentence;      /* the SENTENCE operand (words joined by spaces) */
	char *sentence_buf;
	const char *source;        /* --source */
	const char *dump;          /* --dump FILE|- */
	const char *print;         /* --print STAGE */
	const char *theme;         /* --theme NAME|PATH */
	int head;                  /* --head N */
	bool head_given;           /* --head was given (else a lesson step's head) */
	enum av_color_when color;
	bool list_samples;
	const char *lesson;        /* --lesson NAME|PATH: its sample and weights */
	bool list_lessons;
	int lesson_step;           /* --step N (1-based) with --lesson, or 0 */
	const char *model;         /* --model NAME|DIR: a real GPT-2 (issue 12) */
	int layer;                 /* --layer N, or -1: the model's last layer */

	struct av_config cfg;      /* values given on the command line ... */
	unsigned cfg_given;        /* ... and which (AV_CFG_* bits) */
	int hidden_keys[AV_MAX_TOKENS];
	int n_hidden_keys;
	bool mask_keys_given;      /* --mask-keys, even with no positions */

	/* training: --train EPOCHS (0 when not given) and the settings that
	 * override the sample's "training" (train_given: AV_GIVEN_* bits) */
	int train_epochs;
	struct av_train_settings train;
	unsigned train_given;
};

enum { AV_GIVEN_LR = 1, AV_GIVEN_OPTIMIZER = 2, AV_GIVEN_TARGET = 4,
       AV_GIVEN_TRAIN_PARAMS = 8 };

enum av_parse_result { AV_PARSE_RUN, AV_PARSE_EXIT_OK, AV_PARSE_ERROR };

/* Parses argv; --help and --version print and give AV_PARSE_EXIT_OK; errors
 * set *cause. A listing given with another option is refused here; how the
 * batch options go together is av_options_check's. */
enum av_parse_result av_options_parse(struct av_options *o, int argc, char **argv,
				      char **cause);

/* The batch options among themselves: --dump with --print, --train without
 * --dump or with --print, --lr and the like without --train. Separate from
 * the parse so that main can first say what is wrong with them as a whole
 * (--lead with any of them). */
bool av_options_check(const struct av_options *o, char **cause);

/* Loads the sample (and weights), applies the options over them, checks the
 * result and runs the forward pass once. */
bool av_options_setup(const struct av_options *o, struct av_session *s, char **cause);

/* The training settings: the sample's "training", overridden by --lr,
 * --optimizer, --target and --train-params. */
void av_options_train_settings(const struct av_options *o, const struct av_sample *sample,
			       struct av_train_settings *set);

void av_options_free(struct av_options *o);

#endif
