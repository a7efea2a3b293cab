/* stage_list.h: the nine stages of attention in the order a person steps
 * through them, as names. The screen's stepper (src/ui/stages.h says which
 * matrices each one shows), lesson files ("stage": "softmax") and the
 * inspector all walk this one list. Names only: no curses, no maths. */
#ifndef AV_STAGE_LIST_H
#define AV_STAGE_LIST_H

#include "i18n.h"

/* X(enum name, title, one-line purpose) in the order of the stepper. The
 * titles are also names (lesson files, the : prompt, file names): shown
 * through _(), parsed as they are. */
#define AV_STAGES(X) \
	X(TOKENS, N_("tokens"), N_("the sentence cut into tokens, with their positions")) \
	X(EMBEDDING, N_("embedding"), N_("token embedding + positional encoding = X")) \
	X(PROJECTION, N_("projection"), N_("Q, K and V: X times W_q, W_k and W_v")) \
	X(SCORES, N_("scores"), N_("how well each query matches each key")) \
	X(SCALED, N_("scaled"), N_("scores divided by the scale and the temperature")) \
	X(MASKED, N_("masked"), N_("hidden keys set to minus infinity")) \
	X(SOFTMAX, N_("softmax"), N_("each row turned into weights that sum to 1")) \
	X(CONTEXT, N_("context"), N_("weights times V: what each query gathers")) \
	X(OUTPUT, N_("output"), N_("heads side by side, output projection, residual"))

enum av_stage {
#define AV_STAGE_ENUM(name, title, purpose) AV_STAGE_##name,
	AV_STAGES(AV_STAGE_ENUM)
#undef AV_STAGE_ENUM
	AV_STAGE_COUNT
};

#endif
