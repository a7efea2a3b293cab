/* compare.h: a snapshot of one matrix — its values, shape, labels, which
 * cells were hidden keys and the settings it was made under — and the
 * difference of two snapshots (the screen's pin and compare). No curses.
 *
 * A snapshot owns copies of everything, so it outlives the trace it was
 * taken from: pin, retrain or change the mode, and compare. */
#ifndef AV_COMPARE_H
#define AV_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include "model_config.h"

struct av_snapshot {
	char what[64];             /* "softmax head 0", "figure 4 W_q" */
	int rows, cols;
	float *values;             /* (rows, cols) */
	unsigned char *mask;       /* (rows, cols) 1 = visible, 0 = hidden key */
	bool weights;              /* softmax weights 0..1 (else signed values) */
	bool hidden_as_inf;        /* a hidden cell holds -1e20, a stand-in for
				      -inf, not a value (the masked stage) */
	char **row_labels;         /* rows strings ("china") */
	char **col_labels;         /* cols strings ("panda", "3") */
	bool rows_are_dims, cols_are_dims;   /* labels are indices, not tokens */
	/* the settings it was made under */
	struct av_config cfg;
	int head;
	int epochs;                /* epochs trained before, 0 = as initialised */
};

/* Allocates a rows x cols snapshot: values 0, every cell visible, labels
 * "" (set them with av_snapshot_label). s is overwritten, not freed. */
void av_snapshot_alloc(struct av_snapshot *s, int rows, int cols);

/* Sets row (or column) label i to text (copied). */
void av_snapshot_label(struct av_snapshot *s, bool row, int i, const char *text);

/* Copies a (rows, cols) block with the given row stride into s->values;
 * mask (rows, cols, stride mask_stride) may be NULL (all visible). */
void av_snapshot_fill(struct av_snapshot *s, const float *data, int stride,
		      const unsigned char *mask, int mask_stride);

/* Deep copy; dst is overwritten, not freed. */
void av_snapshot_copy(struct av_snapshot *dst, const struct av_snapshot *src);

void av_snapshot_free(struct av_snapshot *s);

/* "softmax head 0, causal, dk, T=1" (plus ", trained 50 epochs"): what a
 * snapshot is and the settings it was made under, for the screen (and what
 * W writes of it), in the screen's language: "，" joins the parts in
 * Chinese. */
void av_snapshot_describe(const struct av_snapshot *s, char *buf, size_t size);

/* Per cell of a difference: visible in both, or hidden in one or both. */
enum av_diff_cell {
	AV_DIFF_BOTH,           /* visible in both: delta is live - pinned */
	AV_DIFF_HIDDEN_BOTH,    /* a hidden key in both */
	AV_DIFF_HIDDEN_LIVE,    /* hidden now, visible when pinned */
	AV_DIFF_HIDDEN_PINNED   /* visible now, hidden when pinned */
};

struct av_diff {
	int rows, cols;
	float *delta;              /* (rows, cols) live - pinned */
	unsigned char *state;      /* (rows, cols) enum av_diff_cell */
	double max_abs;            /* max |delta| over the cells it is a number for */
	int max_row, max_col;      /* where (-1 when every delta is 0) */
	int changed;               /* cells with delta != 0 */
	int visibility_changed;    /* cells hidden in one snapshot only */
	bool labels_differ;        /* same shape, other tokens */
};

/* d = live - pinned, cell by cell. Refused (false, *cause says both shapes)
 * when the shapes differ: there is no difference to take. Where a cell is
 * hidden in one snapshot and hidden_as_inf (-1e20 stands for -inf), its
 * delta is +-1e20 and is left out of max_abs; hidden weights are a real 0
 * and count. d is overwritten, not freed. */
bool av_snapshot_diff(struct av_diff *d, const struct av_snapshot *live,
		      const struct av_snapshot *pinned, char **cause);

void av_diff_free(struct av_diff *d);

#endif
