/* panels.h: snapshots (engine compare.h) drawn as labelled heatmaps, and
 * several of them arranged side by side, stacked, or a page at a time:
 * what the figures view and the pin-and-compare view show. The matrices
 * go through heatmap.h's av_heatmap_draw like the stepper's, so cells,
 * numbers, hidden keys and scrolling look the same everywhere. */
#ifndef AV_UI_PANELS_H
#define AV_UI_PANELS_H

#include <stdbool.h>
#include "compare.h"
#include "ui/colors.h"
#include "ui/curses.h"
#include "ui/widgets/heatmap.h"

#define AV_PANELS_MAX 4

struct av_app;

/* One matrix on screen: its snapshot, the name over it and its scroll
 * state (kept between draws). */
struct av_panel {
	struct av_snapshot snap;
	char name[64];
	struct av_heatmap hm;
	bool row_sums;             /* the weights' row sums fit beside it */
	bool mask01;               /* a 0/1 mask, not weights: no row sums */
};

/* Where the panels go: a rectangle each (h == 0: not on this page). */
struct av_panel_place {
	int y, x, h, w;
};

/* A snapshot of one stepper part: values, hidden cells, token or index
 * labels, the trace's settings; what is "softmax head 0" and the like. */
void av_panel_snapshot_part(struct av_snapshot *s, const struct av_trace *t,
			    const struct av_part *p, const char *what, int head);

/* The columns and rows a panel needs to show all of its snapshot (cells of
 * at least 6 columns, 2 when compact; with the row sums or without). */
void av_panel_need(const struct av_snapshot *s, bool compact, bool row_sums, int *w, int *h);

/* Places n panels in a width x height area: all of them whole if any
 * arrangement allows (side by side, then two rows, ...), with row sums if
 * they fit (sums[] says where); otherwise as many as fit a page around
 * panel focus, each scrolling within its rectangle. Returns the number of
 * panels placed (h > 0). */
int av_panels_arrange(struct av_panel *panels, int n, bool compact, int width, int height,
		      int focus, struct av_panel_place *place);

/* Panels compared cell by cell (the pinned matrix and the live one) read
 * alike: one cell width, the narrowest any of the n placed ones takes in
 * its place, and decimals that fit all of their values, the ones of a
 * panel not on this page too (a page the same as the next). Sets their
 * hm.share_*; call it after av_panels_arrange, before av_panel_draw. */
void av_panels_share_format(struct av_panel *panels, int n,
			    const struct av_panel_place *place, bool compact);

/* Draws panel p into the rectangle place of w (a derived window each
 * time): the name (marked when focused), the heatmap with the cursor at
 * (row, col) clamped to the panel, and "▼ rows a-b of N" below when the
 * rows do not all fit. */
void av_panel_draw(WINDOW *w, struct av_colors *c, struct av_panel *p,
		   const struct av_panel_place *place, int row, int col, bool compact,
		   bool focused);

void av_panel_free(struct av_panel *p);

/* What a view of panels shows (the figures, the comparison), for W's figure
 * formats: its title, formula (or ""), panels, and the stem of the default
 * file name ("figure2"). Filled by a view's shown() (app.h). */
struct av_shown {
	char title[200];
	char formula[200];
	char stem[32];
	int n;
	struct av_panel panels[AV_PANELS_MAX];
};

void av_shown_free(struct av_shown *s);

/* text at (y, x) wrapped at spaces into at most max_lines lines of width
 * columns; when the text is longer still, the last one ends in whole words
 * and "…" (a cut word read as another one).
 * Returns the lines used. */
int av_put_wrapped(WINDOW *w, int y, int x, const char *text, int width, int max_lines,
		   attr_t attr);

/* The lines av_put_wrapped needs for the whole of text. */
int av_wrapped_lines(const char *text, int width);

#endif
