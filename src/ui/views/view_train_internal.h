/* view_train_internal.h: what view_train.c and train_panels.c share: the
 * training view's state, its panels and the panels' drawing functions. */
#ifndef AV_UI_VIEW_TRAIN_INTERNAL_H
#define AV_UI_VIEW_TRAIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "train.h"
#include "ui/curses.h"

struct av_app;
struct av_trainer;

#define HIST_BINS 20          /* plt.hist(..., bins=20) */
#define TWO_COLUMNS 56        /* columns for the heatmap and histogram */

/* P_BACK covers the whole region under the others (the gaps between them). */
/* P_MAP2, on tall terminals, shows the map P_MAP does not (the vocabulary
 * under the sentences, or the sentences under the vocabulary). */
/* P_MATS, on wide and tall terminals (the projector layout), shows the
 * weight matrices and their gradients in a column of their own; smaller,
 * g shows them in P_MAP's place. */
enum panel { P_BACK, P_INFO, P_LOSS, P_TRACK, P_MAP, P_MAP2, P_HIST, P_GRAD, P_HINT, P_MATS,
	     P_COUNT };

/* What the matrices panel shows (g cycles): off (the attention map; the
 * projector layout shows both), the gradients dW, the weights W, both. */
enum { AV_MATS_OFF, AV_MATS_GRAD, AV_MATS_WEIGHTS, AV_MATS_BOTH };
#define AV_MATS_MAX_LABELS 1024   /* row and column numbers the matrices label (more
				    than the copied corner, MAT_CORNER) */

/* A speed: `epochs` every `every` ticks. */
struct av_train_speed {
	int epochs, every;
	const char *label;
};
/* The speeds, slowest first (view_train.c). */
extern const struct av_train_speed av_train_speeds[];

struct av_train_view {
	struct av_trainer *tr;
	unsigned long serial;      /* which trainer tr is: new ones count up */
	/* what a yes to "discard N epochs of training?" goes on to do (quit,
	 * new weights, reset), or NULL */
	void (*after_discard)(struct av_app *a);
	const struct av_view *back;   /* where t returns: the stepper or all heads */
	bool running;
	int speed;
	unsigned ticks;
	int goal;                  /* the sample's epochs: training pauses there once */
	bool goal_seen;
	int capped;                /* epochs the last tick managed when its budget ran out */
	double step_us;            /* the last tick's time per optimiser step */

	int sentence;              /* the corpus sentence on the map */
	bool vocab;                /* the map shows the vocabulary's scores */
	int vrow, vcol;            /* the vocabulary cursor */
	bool scores;               /* the sentence map shows scaled scores, not weights */
	int mats;                  /* AV_MATS_*: the matrices panel's content */
	bool wide;                 /* the projector layout (P_MATS has its own column) */
	int row_h;                 /* screen rows per matrix row in the maps (1, 2) */
	long steps_done;           /* optimiser steps since the trainer started or r */
	long saved_at;             /* steps_done when last saved, -1 never */
	int unsaved_before;        /* unsaved epochs of earlier trainers this one
				      goes on from (epochs_before's, not yet
				      written): a discard loses them too */
	bool adam_restarted;       /* leaving freed Adam's moments: say so on return */

	/* computed from the trainer when stale (after steps and changes) */
	bool stale;
	int bins;
	int hist[HIST_BINS];
	int hist_n;
	double hist_lo, hist_hi;
	double loss_now;           /* the corpus loss at the current weights */
	struct av_train_diagnosis diag;   /* what went wrong, if anything */
	float *vscores;            /* (H, V, V) */
	size_t vscores_size;

	WINDOW *w[P_COUNT];
	unsigned dirty;            /* panels to redraw; 0 = all */
};

/* The learning rates the screen takes, from [ and ] and from :lr alike (a
 * sample, a lesson or a teacher may have set one outside: [ and ] bring it
 * back in one press). */
#define AV_TRAIN_LR_MIN 1e-6
#define AV_TRAIN_LR_MAX 100.0
/* Whether lr is within them; false + *cause "the learning rate stays
 * between 1e-06 and 100" when not. */
bool av_train_lr_allowed(double lr, char **cause);

/* "→" or "->", as the locale allows. */
const char *av_train_panel_arrow(void);
/* The header line (the view's header hook). */
void av_train_panel_header(struct av_app *a);
/* Epoch, loss and state; the settings with their keys. */
void av_train_panel_info(struct av_app *a, WINDOW *w);
/* The loss curve over the epochs so far. */
void av_train_panel_loss(struct av_app *a, WINDOW *w);
/* The tracked pair: its sparkline and seed 001's table of epochs. */
void av_train_panel_track(struct av_app *a, WINDOW *w);
/* The attention weights of the corpus sentences, stacked. */
void av_train_panel_sentence_map(struct av_app *a, WINDOW *w);
/* The vocabulary's scores for every pair of words. */
void av_train_panel_vocab_map(struct av_app *a, WINDOW *w);
/* The histogram of every score of the corpus. */
void av_train_panel_hist(struct av_app *a, WINDOW *w);
/* The trained weight matrices and/or their last gradients, with numbers. */
void av_train_panel_mats(struct av_app *a, WINDOW *w);
/* The norm of each trained tensor's gradient, with advice. */
void av_train_panel_grad(struct av_app *a, WINDOW *w);
/* "W_q", "emb", ...: a tensor's short name. */
const char *av_train_panel_param_name(int id);
/* The remedy for a diagnosis, in a sentence. */
void av_train_panel_remedy(const struct av_trainer *tr, const struct av_train_diagnosis *d,
			   char *buf, size_t size);
/* The diagnosis's cause ("lr raised 0.01 to 81.92", "T=0.01", ...) and its
 * fix ("r resets, then lr down ([)", ...). */
void av_train_panel_cause(const struct av_trainer *tr, const struct av_train_diagnosis *d,
			  char *buf, size_t size);
const char *av_train_panel_fix(const struct av_train_diagnosis *d);
/* The one-column layout's hint at the missing panels, wrapped into the
 * rows of w; av_train_hint_rows: the rows it needs at width columns (1 or
 * 2: at 40 columns "56+ columns show the heatmap and the histogram" does
 * not fit one). */
void av_train_panel_hint(struct av_app *a, WINDOW *w);
int av_train_hint_rows(int width);

#endif
