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

/* A file's "training" record (what --train, --step and the screen's W write):
 * how its weights were trained. present false: the file has none. Only
 * "epochs" is required (a trace carries what its writer recorded): lr is
 * NAN, optimizer and target -1 where the record leaves them out. */
struct av_loaded_training {
	bool present;
	int epochs, steps;
	int epochs_before;   /* "epochs_before": of the run these weights started from */
	double lr;
	int optimizer;   /* enum av_optimizer, or -1 */
	int target;      /* enum av_target, or -1 */
};

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
 * epochs, steps, lr, optimizer and target are checked as the rest; its
 * loss is not read). */
bool av_weights_load_trained(const char *path, struct av_config *cfg, unsigned *given,
			     struct av_params *p, struct av_loaded_training *training,
			     char **cause);
bool av_weights_parse_trained(const char *text, const char *label, struct av_config *cfg,
			      unsigned *given, struct av_params *p,
			      struct av_loaded_training *training, char **cause);

#endif
