/* weights.h: loading parameters from a weights file (or any trace).
 *
 * {"config": {...}, "params": {"vocab": [...], "token_embedding": VxD,
 *  "position_embedding": LxD (learned only), "w_q": DxD, "b_q": D, "w_k",
 *  "b_k", "w_v", "b_v", "w_o", "b_o"}}; biases are optional (all four or
 *  none) and their presence sets cfg->bias; a learned position table sets
 *  cfg->max_positions to its row count. Optional "format" ("attnview-weights"
 *  or "attnview-trace") and "version" (1). A trace's other keys are ignored;
 *  without "format": "attnview-trace" only the documented trace keys
 *  ("sentence", "source", "tokens", "source_tokens", "stages", "training")
 *  and "reference" (the PyTorch results of tests/fixtures/ref-*.json) are,
 *  and any other key is an error, as are unknown keys in "params". */
#ifndef AV_WEIGHTS_H
#define AV_WEIGHTS_H

#include <stdbool.h>
#include "model.h"
#include "sample.h"
#include "trace_json.h"

/* A file's "training" record (what --train, --step and the screen's W write):
 * how its weights were trained, in the writers' own struct (which only
 * borrows its loss list: from a trainer, or from here, where it is owned).
 * present false: the file has none. Only
 * "epochs" is required (a trace carries what its writer recorded): lr is
 * NAN, optimizer, target and loss NULL where the record leaves them out.
 * Free with av_loaded_training_free. */
struct av_loaded_training {
	bool present;
	struct av_training_record record;   /* record.loss is loss */
	double *loss;    /* "loss": record.epochs numbers (malloc'd), or NULL */
};

void av_loaded_training_free(struct av_loaded_training *t);

/* Loads path into p and its config into cfg (keys absent from the file's
 * config keep cfg's value; *given, which may be NULL, gets their AV_CFG_*
 * bits). Shapes are checked against the config: "w.json: \"params\".\"w_q\":
 * expected 3x3, got 3x4". On success p is overwritten (not freed; release
 * it with av_params_free); on failure p, cfg and *given are untouched. */
bool av_weights_load(const char *path, struct av_config *cfg, unsigned *given,
		     struct av_params *p, char **cause);

/* The same from text already in memory (label names it in messages). */
bool av_weights_parse(const char *text, const char *label, struct av_config *cfg,
		      unsigned *given, struct av_params *p, char **cause);

/* av_weights_load, and the file's "training" record into *training (whose
 * fields are checked as the rest: "loss", when given, is one finite number
 * per epoch, and no more than fit AV_TRAIN_HISTORY_BYTES, train.h, the
 * history a trainer keeps). *training is overwritten, not freed. */
bool av_weights_load_trained(const char *path, struct av_config *cfg, unsigned *given,
			     struct av_params *p, struct av_loaded_training *training,
			     char **cause);
bool av_weights_parse_trained(const char *text, const char *label, struct av_config *cfg,
			      unsigned *given, struct av_params *p,
			      struct av_loaded_training *training, char **cause);

#endif
