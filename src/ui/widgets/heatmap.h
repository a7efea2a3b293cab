/* heatmap.h: a stage's matrices drawn side by side as one labelled heatmap:
 * query tokens down, key tokens or dimensions across, the numbers inside
 * the cells when they fit, hidden (masked) cells with their own glyph and
 * colour, the selected head's columns marked, the cursor cell highlighted,
 * and horizontal/vertical scrolling with indicators for wide matrices
 * (D = 512). Also the legend (the colorbar) and the cell number format. */
#ifndef AV_UI_HEATMAP_H
#define AV_UI_HEATMAP_H

#include <stdbool.h>
#include "ui/colors.h"
#include "ui/curses.h"
#include "ui/stages.h"

struct av_heatmap {
	const struct av_trace *t;
	const struct av_part *parts;
	int n_parts;
	int cur_row, cur_col;     /* cursor; cur_col runs over all parts' columns */
	bool no_cursor;           /* the cursor is on no cell of this figure (a
				     compared matrix smaller than the other):
				     scroll to the nearest, mark none */
	int scroll_col, scroll_row;  /* first visible column and row, kept between draws */
	bool compact;             /* colour-only cells, no numbers */
	/* The stepper's figure (others leave these 0 and get the plain one):
	 * projector sizes (wider cells with 4 decimals from 120 columns,
	 * labels on every part, centred; taller cells from `lines` 36). */
	bool projector;
	int lines;                /* the terminal's height */
	int stage;                /* the stage the cursor was placed for (the
				     stepper opens a stage on its own part) */
	int own_first;            /* and the first column of that part then */
	/* A lesson step's highlighted cells, (query, key) of the parts whose
	 * rows are queries and columns keys (the scores and weights); each is
	 * drawn in brackets, bold and underlined, so it shows without colour.
	 * NULL/0: none. */
	const int (*marks)[2];
	int n_marks;
	/* Figures compared cell by cell share one number format (the pinned
	 * and live matrices: 1.60 beside 1.596 read as two numbers): cells at
	 * most share_cell_w wide (0: as wide as the window allows), and
	 * decimals that fit share_range, negative when share_neg, as well as
	 * the figure's own values. panels.h's av_panels_share_format. */
	int share_cell_w;
	double share_range;
	bool share_neg;
	bool integers;            /* whole numbers only (a 0/1 mask): "1", not "1.000" */
	bool rows_noted;          /* the caller says which rows show (panels.c's note
				     under a panel): not in the first title too */
	bool on_factor;           /* the cursor is on the scores' factors */
	int factor_col;           /* ... at this column of Q_h, K_hᵀ */
	/* filled by av_heatmap_draw (first_col to total_rows by
	 * av_heatmap_place too): */
	int first_col, last_col;  /* visible columns */
	int first_row, last_row;  /* visible rows */
	int total_rows;           /* rows of the tallest part */
	int used_rows;            /* rows of the window the figure took */
	int decimals;             /* the first part's cells: av_cell_format's
				     decimals, or AV_HEATMAP_NO_NUMBERS (compact
				     or nothing drawn); what a view that sums up
				     the numbers says they are read at */
};

#define AV_HEATMAP_NO_NUMBERS (-2)

/* Columns of all parts together. */
int av_heatmap_total_cols(const struct av_part *parts, int n_parts);

/* The part and its column for an overall column. */
void av_heatmap_locate(const struct av_part *parts, int n_parts, int vcol, int *part, int *col);

/* The columns of a cell av_heatmap_draw gives hm's parts in a window
 * width columns wide (share_cell_w caps it as there). */
int av_heatmap_cell_width(const struct av_heatmap *hm, int width);

/* Draws into the whole of w, scrolling so the cursor is visible. */
void av_heatmap_draw(WINDOW *w, struct av_colors *c, struct av_heatmap *hm);

/* What av_heatmap_draw would show in w, without drawing: the cursor
 * clamped, the scroll placed and first_col to total_rows filled (all left
 * as they were when there is nothing to draw). The classroom reads the
 * teacher's view here before the screen is drawn. */
void av_heatmap_place(WINDOW *w, struct av_heatmap *hm);

/* Whether cell (r, c) of part p is one of marks (its rows queries, its
 * columns keys). */
bool av_heatmap_marked(const struct av_part *p, const int (*marks)[2], int n_marks, int r,
		       int c);

/* Marks a cell at (y, x) of cw columns drawn with attribute at: "[" in the
 * column before it and "]" in the one after (each only inside [lo, hi)),
 * and the cell's cw columns bold and underlined (the attribute a terminal
 * without colour still shows). */
void av_heatmap_mark_cell(WINDOW *w, int y, int x, int cw, int lo, int hi);

/* The decimals that let every value up to maxabs (negative when neg) fit
 * in width characters: 3, 2, 1, 0, or -1 when even 0 does not fit. */
int av_cell_decimals(double maxabs, bool neg, int width);

/* As av_cell_decimals with at most `most` decimals (wide cells show 4). */
int av_cell_decimals_max(double maxabs, bool neg, int width, int most);

/* A value as a cell shows it: decimals from av_cell_decimals; -1 gives a
 * short exponent form ("1e+03"); "#" fill when nothing fits; "inf",
 * "-inf", "nan" for the numbers that are not finite. ASCII, so bytes are
 * columns (the stepper's cells then write the minus as U+2212, as the
 * inspector does). */
void av_cell_format(char *buf, size_t size, double v, int decimals, int width);

/* Whether v reads 0 in a cell with these decimals ("0.000", "0e+00"):
 * true for 0.0004 at 3 decimals, false for 1e-09 in the exponent form. */
bool av_cell_reads_zero(double v, int decimals);

/* A formatted cell's leading '-' as the inspector's minus sign (U+2212; the
 * screen writes '-' for it on an ASCII terminal): one column either way,
 * so every number on the screen has the same sign. size must leave 2 more
 * bytes. */
void av_cell_minus(char *buf, size_t size);

/* The largest |value| of a part, leaving out hidden cells. */
double av_part_range(const struct av_trace *t, const struct av_part *p, bool *neg);

/* What a part's cells choose their decimals to fit: av_part_range, but 1
 * for weights (every weight reads as 0.xxx or 1.xxx, whatever the row's
 * largest). */
double av_part_number_range(const struct av_trace *t, const struct av_part *p, bool *neg);

/* The legend: "value −2.31 ████████ +2.31  ╳ −∞ masked" in one row of w,
 * "name −2.31 …" when name is given (the figure has more matrices, each
 * shaded on its own scale: which one this is). Returns the columns it
 * took. */
int av_legend_draw(WINDOW *w, int y, struct av_colors *c, enum av_part_kind kind,
		   const char *name, double range, bool masked_entry, bool as_inf);

/* A row label: "3 japan", a CJK token aligned by its columns. */
void av_row_label(const struct av_trace *t, enum av_axis axis, int i, char *buf, size_t size);

#endif
