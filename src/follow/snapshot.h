/* snapshot.h: struct av_state, the snapshot of what a follower needs to
 * recompute the leader's screen (issue 10, the classroom; not the pinned
 * matrix of compare.h, which has struct av_snapshot). The engine is
 * deterministic, so this is state, not pixels: the same sample (checked by
 * a content hash), sentence, config and training recipe give the same
 * numbers on every student's terminal, laid out for that terminal's own
 * size, colours and language.
 *
 * No curses here and nothing about the layout: the cursor is a cell of the
 * stage's matrices (and the query and key tokens under it), not a screen
 * row and column. The stage and the view are indices into the tables
 * below, which the screen must keep in step with its own (src/ui/stages.h's
 * AV_STAGES order; the screen's views). */
#ifndef AV_FOLLOW_SNAPSHOT_H
#define AV_FOLLOW_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include "model_config.h"
#include "sample.h"
#include "tokenizer.h"
#include "train.h"

/* Bounds of the snapshot's strings and numbers (the decoder refuses more). */
#define AV_SNAP_NAME_MAX 128           /* bytes of a sample, weights or lesson name */
#define AV_SNAP_TEXT_MAX AV_MAX_SENTENCE_BYTES   /* bytes of the sentence, the source */
#define AV_SNAP_MAX_LESSON_STEP 10000
/* A run's epochs, its steps into the epoch in progress and the training
 * view's corpus sentence are bounded as a run and its corpus are (train.h:
 * AV_TRAIN_MAX_EPOCHS, AV_TRAIN_MAX_STEPS, AV_TRAIN_MAX_SENTENCES), the
 * bounds a weights file's training record has too: a teacher's run of one
 * head goes on to 2 097 152 epochs, and a bound of its own here (a round
 * million) stopped such a run reaching the class. A recipe's or track's
 * step, counted from the run's start (epoch * sentences + sentence), is at
 * most where a run of AV_TRAIN_MAX_EPOCHS epochs over the largest corpus
 * gets to. */
#define AV_SNAP_MAX_AT ((long long)AV_TRAIN_MAX_EPOCHS * AV_TRAIN_MAX_SENTENCES + \
			AV_TRAIN_MAX_STEPS)
#define AV_SNAP_MAX_RECIPE 64          /* settings changes in one training run */
#define AV_SNAP_MAX_FIGURE 15          /* the figures view's figure index */
#define AV_SNAP_MAX_PANEL 15           /* and its focused panel */
#define AV_SNAP_MAX_RUNS 4             /* training runs in a row, each from where
					  the one before left the weights */
#define AV_SNAP_MAX_TRACKS 16          /* tracked pairs chosen in one run */
#define AV_SNAP_MAX_CELL (4 * AV_MAX_D_MODEL - 1)   /* the cursor's row and column:
					  a stage shows at most four matrices side
					  by side (src/ui/stages.h's AV_MAX_PARTS),
					  each at most AV_MAX_D_MODEL wide or high */

/* The stages, in the stepper's order (src/engine/stage_list.h). The wire
 * keeps its own names so that a protocol is not changed by a rename. */
#define AV_SNAP_STAGE_COUNT 9
extern const char *const av_snap_stage_names[];  /* "tokens", ..., "output", NULL */

/* The view: the stepper, all heads as a grid or as bars, training, the
 * figures, the comparison with a pinned matrix. */
enum av_snap_view { AV_SNAP_VIEW_STAGE, AV_SNAP_VIEW_HEADS, AV_SNAP_VIEW_TRAIN,
		    AV_SNAP_VIEW_FIGURES, AV_SNAP_VIEW_BARS, AV_SNAP_VIEW_COMPARE };
extern const char *const av_snap_view_names[];   /* "stage", "heads", "train",
						    "figures", "bars", "compare", NULL */

/* Where the parameters came from: a sample's config (drawn from the seed)
 * or a weights file. Either way the follower must have the same file: the
 * name says which, the hash (FNV-1a 64 of the file's bytes) proves it. */
enum av_snap_origin { AV_SNAP_FROM_SAMPLE, AV_SNAP_FROM_WEIGHTS };
extern const char *const av_snap_origin_names[]; /* "sample", "weights", NULL */

/* One setting of a training run: from sentence step `at` of the run on
 * (counted from its start: epoch * sentences + sentence), the optimiser
 * trains with these. `reset`: the optimiser's state (Adam's moments and
 * step count) starts afresh here, as the training view does when the
 * optimiser or the trained tensors change. */
struct av_snap_recipe {
	long at;
	enum av_target target;
	enum av_optimizer optimizer;
	enum av_train_set params;
	double lr;                    /* > 0, finite */
	bool reset;
};

/* The training view's tracked pair (seed 001's china -> panda), as its
 * words (a vocabulary's ids differ with the unknown words a sentence
 * added), chosen from sentence step `at` of the run on; both "" for none.
 * Its history starts where it was chosen, so a replay chooses it there. */
struct av_snap_track {
	long at;
	char pair[2][AV_SNAP_NAME_MAX + 1];
};

/* A training run. The engine is deterministic, so the run is sent as its
 * recipe, not its weights: the settings it started with and every change
 * made while it ran, each with the step it applied at, and how far it got.
 * A follower replays it step for step and gets the teacher's weights bit
 * for bit (a weights file of a small layer would fit a message too, but not
 * one with D=512, and the recipe also gives the follower the loss curve of
 * its own training view). The init the trained tensors were drawn with is
 * the run's own (the training view's i draws them again and starts over). */
struct av_snap_training {
	bool active;                  /* false: the parameters are as initialised */
	enum av_init init;
	/* The settings the run trained under: its corpus runs with them (the
	 * loss goes through the mask, the scale and the temperature; cross
	 * mode's entries read the source). The screen may change them after
	 * the run with the trained weights kept, so they travel apart from the
	 * config shown. */
	enum av_mode mode;
	enum av_scale scale;
	double temperature;
	bool has_source;
	char source[AV_SNAP_TEXT_MAX + 1];
	int epochs;                   /* epochs done, 0..AV_TRAIN_MAX_EPOCHS */
	int steps;                    /* and sentences of the next, 0..AV_TRAIN_MAX_STEPS */
	int n_recipe;                 /* 1..AV_SNAP_MAX_RECIPE; recipe[0].at is 0 and
					 the steps grow strictly */
	struct av_snap_recipe recipe[AV_SNAP_MAX_RECIPE];
	int n_tracks;                 /* 1..AV_SNAP_MAX_TRACKS, likewise from 0 */
	struct av_snap_track tracks[AV_SNAP_MAX_TRACKS];
};

struct av_state {
	uint64_t seq;                 /* the leader's counter: newer is larger */

	/* identity of the data */
	char sample[AV_SNAP_NAME_MAX + 1];   /* the sample's name (non-empty) */
	enum av_snap_origin origin;
	char weights[AV_SNAP_NAME_MAX + 1];  /* the weights' name, "" unless origin is weights */
	uint64_t content_hash;               /* of the weights file, else of the sample */

	/* the text: valid UTF-8 that tokenizes; the source only in cross mode */
	char sentence[AV_SNAP_TEXT_MAX + 1];
	bool has_source;
	char source[AV_SNAP_TEXT_MAX + 1];

	/* the config the screen can change */
	enum av_mode mode;
	enum av_scale scale;
	double temperature;           /* AV_MIN_TEMPERATURE..AV_MAX_TEMPERATURE */
	uint64_t seed;                /* 0..AV_MAX_SEED */
	enum av_init init;
	int d_model;                  /* 1..AV_MAX_D_MODEL, a multiple of heads */
	int heads;                    /* 1..d_model */

	/* where the leader is looking */
	int stage;                    /* 0..AV_SNAP_STAGE_COUNT-1 */
	enum av_snap_view view;
	int head;                     /* 0..heads-1 */
	int query, key;               /* the cursor's tokens, or -1: query < the
					 sentence's tokens, key < the keys' (the
					 source's in cross mode) */
	int row, col;                 /* the cursor's cell, 0..AV_SNAP_MAX_CELL: its
					 row and column in the stage's matrices side
					 by side (in the heads view, the view's own).
					 Where the columns are model dimensions
					 (embedding, projection, context, output) no
					 token says the column; the screen keeps the
					 cell within the matrices it shows */
	/* The stepper's view origin (view stage; else 0), 0..AV_SNAP_MAX_CELL:
	 * the first row and column of the stage's matrices the teacher's
	 * screen shows, counted as row and col are (in the tokens stage,
	 * first_row is the tokens table's first line: the sentence's tokens,
	 * then in cross mode a heading line and the source's; first_col 0).
	 * A cell, not a screen position, so it means the same on a screen of
	 * any size, cell width or row height: how far the view reaches from
	 * there is each screen's own. A follower starts its view there when
	 * that keeps the cursor's cell in view, so at the teacher's size it
	 * shows the teacher's rows and columns (a page of > or Ctrl-D, not
	 * only the cursor's cell), on a larger one those and more; on a
	 * smaller one it scrolls the least that shows the cursor. The other
	 * views leave it 0: the all-heads grid and bars page by the cursor
	 * alone (the cursor says the page), the comparison has its own
	 * cursor and a scroll per panel, the training view and the figures
	 * show no stepper matrix, and --model (its own stepper) cannot lead. */
	int first_row, first_col;
	bool key_hidden[AV_MAX_TOKENS];     /* the padding mask, by key position */

	int figure;                   /* the figure shown (view figures), 0..AV_SNAP_MAX_FIGURE */
	int panel;                    /* its focused panel (what y pins), 0..AV_SNAP_MAX_PANEL */
	/* the training view's panels (view train; else all 0): the vocabulary's
	 * map instead of a sentence's, scaled scores instead of weights, the
	 * matrices panel (0 off, 1 gradients, 2 weights, 3 both) and the
	 * corpus sentence on the map, 0..AV_TRAIN_MAX_SENTENCES-1 */
	bool train_vocab, train_scores;
	int train_mats, train_sentence;
	int compare;                  /* the comparison's display (view compare; else 0):
					 0 pinned|live, 1 pinned|live|difference,
					 2 the difference */

	/* a lesson, when one runs */
	char lesson[AV_SNAP_NAME_MAX + 1];  /* "" when none */
	int lesson_step;                    /* 0..AV_SNAP_MAX_LESSON_STEP */
	uint64_t lesson_hash;               /* of the lesson file's text (0: none) */

	/* The parameters: drawn (or loaded) as the identity and config say,
	 * then trained by each run of before[] in order and by training, each
	 * run's trainer made from the weights the one before left. A teacher
	 * who trains, changes the mask and trains again has two runs; a lesson
	 * step that trains in the stepper is a run too. */
	int n_before;                 /* 0..AV_SNAP_MAX_RUNS-1 */
	struct av_snap_training before[AV_SNAP_MAX_RUNS - 1];   /* active runs */
	struct av_snap_training training;
};

/* A snapshot with every field at its default: the built-in sample's name
 * "china-panda", sentence "a", the default config, stage 0, no cursor. */
void av_state_init(struct av_state *s);

/* True when every field is within its bounds and consistent (UTF-8 text
 * that tokenizes, head < heads, the cursor and the hidden keys within the
 * tokens, D % H == 0, ...); false + *cause saying which field is wrong.
 * The decoder runs this on everything it reads; the encoder on everything
 * it writes, so a leader cannot publish what a follower would refuse. */
bool av_state_validate(const struct av_state *s, char **cause);

/* Equal in everything but seq: the leader publishes only when its state
 * changed (a key that changes nothing sends nothing). */
bool av_state_same(const struct av_state *a, const struct av_state *b);

/* Equal training runs (inactive ones are equal whatever their fields). */
bool av_state_same_training(const struct av_snap_training *a,
			    const struct av_snap_training *b);

/* Equal runs before the last (n_before and each of before[]). */
bool av_state_same_runs_before(const struct av_state *a, const struct av_state *b);

/* A run's settings trained under: mode, scale, temperature and source
 * (NULL, or one longer than a snapshot holds: none). */
void av_snap_set_under(struct av_snap_training *t, enum av_mode mode, enum av_scale scale,
		       double temperature, const char *source);

/* The same set to the state's config: what a run made now trains under. */
void av_state_run_under(struct av_snap_training *t, const struct av_state *s);

/* True when next is prev's run gone further (the same start and recipe,
 * perhaps with changes added, and not fewer steps): a follower that
 * replayed prev can go on from there instead of starting over. */
bool av_state_recipe_continues(const struct av_snap_training *prev,
			       const struct av_snap_training *next);

/* Where the teacher is, for a follower exploring on its own: "softmax,
 * head 3" (or "all heads, softmax", "training, epoch 40", "figures"), with
 * the lesson step when a lesson runs ("qkv-walkthrough step 2: softmax,
 * head 3"). Written into out (size bytes, always NUL-terminated, cut at a
 * character boundary). */
void av_state_where(const struct av_state *s, char *out, size_t size);

/* av_state_where, with a comparison named by what its pin holds ("comparing,
 * figure 2", or the pinned stage and head) where pin, the state it was
 * pinned in, is known (not NULL): the snapshot's own stage is the
 * stepper's, left behind when a figure was pinned. */
void av_state_where_compared(const struct av_state *s, const struct av_state *pin, char *out,
			     size_t size);

/* FNV-1a 64 of len bytes: the content hash of a sample or weights file. */
uint64_t av_state_hash(const void *data, size_t len);

#endif
