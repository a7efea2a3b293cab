/* sample.h: lesson settings (samples/NAME.json).
 *
 * {"name", "title", "description", "sentence", "source" (cross),
 *  "sentences": [...], "vocab": [...] (optional; default: the words of
 *  "sentences" in order of first appearance, then those of "sentence" and
 *  "source"), "config": {...}, "training": {"epochs", "lr", "optimizer",
 *  "target", "pairs": [["china","panda"], ...], "track": ["china","panda"]}}
 *  and "comment" (free text, ignored). Any other key, here or in "config"
 *  or "training", is an error. "name" and "sentence" are required; cross
 *  mode requires "source"; "vocab" words are unique; pairs and track words
 *  must be in the vocabulary; target "pairs" needs "pairs". */
#ifndef AV_SAMPLE_H
#define AV_SAMPLE_H

#include <stdbool.h>
#include "model_config.h"

/* A corpus entry of a cross-mode sample pairs the decoder's sentence with the
 * encoder's: "le chat ||| the cat". */
#define AV_CORPUS_SEPARATOR "|||"

enum av_target { AV_TARGET_SELF, AV_TARGET_PREVIOUS, AV_TARGET_PAIRS };
enum av_optimizer { AV_OPT_ADAM, AV_OPT_SGD };
extern const char *const av_target_names[];
extern const char *const av_optimizer_names[];

struct av_training_config {
	int epochs;                   /* default 200 */
	double lr;                    /* default 0.01 */
	enum av_optimizer optimizer;  /* default adam */
	enum av_target target;        /* default self */
	int n_pairs;
	char *(*pairs)[2];            /* n_pairs word pairs */
	char *track[2];               /* tracked pair for the score plot, or NULL */
};

struct av_sample {
	char *path;          /* where it was loaded from, or "(built-in)" */
	char *name, *title, *description;
	char *title_zh, *description_zh; /* in Chinese where the file has it, else NULL */
	char *sentence;      /* default sentence */
	char *source;        /* default source sentence, or NULL */
	int n_sentences;
	char **sentences;    /* training corpus */
	int n_vocab;
	char **vocab;
	struct av_config cfg;
	unsigned cfg_given;  /* AV_CFG_* bits of keys present in "config" */
	struct av_training_config training;
};

/* Parses sample JSON text; label names it in messages ("LABEL: ..."). s is
 * overwritten (not freed); on failure it is left zeroed. */
bool av_sample_parse(const char *text, const char *label, struct av_sample *s, char **cause);

/* Loads a sample file. */
bool av_sample_load_file(const char *path, struct av_sample *s, char **cause);

/* Resolves --sample NAME_OR_PATH: a path (contains '/' or ends in .json)
 * is used as is; a name is looked for as NAME.json in $ATTNVIEW_DATA_DIR/samples,
 * the build tree (AV_SRCDIR/samples) and PKGDATADIR/samples, in that order.
 * The error lists where it looked and the samples that exist. */
bool av_sample_load(const char *name_or_path, struct av_sample *s, char **cause);

/* The built-in default sample (compiled in from samples/china-panda.json). */
bool av_sample_load_builtin(struct av_sample *s, char **cause);
extern const char av_builtin_sample_json[];

/* Names of the samples found on the search path, malloc'd NULL-terminated
 * list (for --list-samples and error messages). */
char **av_sample_list(void);

void av_sample_free(struct av_sample *s);

#endif
