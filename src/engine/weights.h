/* weights.h: loading parameters from a weights file (or any trace).
 *
 * {"config": {...}, "params": {"vocab": [...], "token_embedding": VxD,
 *  "position_embedding": LxD (learned only), "w_q": DxD, "b_q": D, "w_k",
 *  "b_k", "w_v", "b_v", "w_o", "b_o"}}; biases are optional (all four or
 *  none); a trace's other keys are ignored. */
#ifndef AV_WEIGHTS_H
#define AV_WEIGHTS_H

#include <stdbool.h>
#include "model.h"

/* Loads path into p and its config into cfg (keys absent from the file's
 * config keep cfg's value; *given gets their AV_CFG_* bits). Shapes are
 * checked against the config: "w_q: expected 3x3, got 3x4". */
bool av_weights_load(const char *path, struct av_config *cfg, unsigned *given,
		     struct av_params *p, char **cause);

/* The same from text already in memory (label names it in messages). */
bool av_weights_parse(const char *text, const char *label, struct av_config *cfg,
		      unsigned *given, struct av_params *p, char **cause);

#endif
