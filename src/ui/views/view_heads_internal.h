/* view_heads_internal.h: what the all-heads view's three files share.
 *
 *   view_heads.c   the view: stage choice, title, legend, inspector, keys
 *   heads_grid.c   one small heatmap per head (seed 000's 2x4 grid)
 *   heads_bars.c   one query's weights over the keys, per head (§5.2)
 *
 * The two faces are split because each plans its own arrangement (how many
 * heads per row, cell or bar sizes, what pages) from the panel's size, and
 * together they outgrew one readable file.
 *
 * Paging is stateless: the first visible column (row) is the cursor's
 * column (row) rounded down to a whole page, so the cursor is always on the
 * screen and < > move a page at a time, as in the stepper. */
#ifndef AV_UI_VIEW_HEADS_INTERNAL_H
#define AV_UI_VIEW_HEADS_INTERNAL_H

#include <stdbool.h>
#include "ui/app.h"

/* The grid's cells (a->heads_cells): numbers whenever they fit, else colour
 * (the default); or, after z, numbers (paging over the columns when they do
 * not all fit) or colour only. */
enum {
	AV_HEADS_CELLS_AUTO,
	AV_HEADS_CELLS_NUMBERS,
	AV_HEADS_CELLS_COMPACT
};

/* The per-head matrices the grid shows at stage st for one head: Q_h, K_h
 * and V_h at the projection (the head's columns of Q, K, V), the scores,
 * scaled, masked or weights matrix, or context_h. Each shown[i] is a window
 * into full[i], the stage's whole part, from column col0[i] on (the
 * inspector explains a cell of the whole part). Returns the count. */
int av_heads_parts(const struct av_trace *t, enum av_stage st, int head,
		   struct av_part shown[AV_MAX_PARTS], struct av_part full[AV_MAX_PARTS],
		   int col0[AV_MAX_PARTS]);

/* The stage the grid draws for the stepper's stage st: st itself when it
 * has per-head data, else the nearest stage that has (projection before
 * the attention, context after); *substituted says which. */
enum av_stage av_heads_grid_stage(enum av_stage st, bool *substituted);

/* What a face drew, for the title line and the paging keys. */
struct av_heads_page {
	int first_col, last_col, total_cols;   /* columns (keys, dimensions) */
	int first_row, last_row, total_rows;   /* rows (queries) of the tiles */
	int first_head, last_head;             /* heads on the screen */
	bool numbers;                          /* numbers in the cells / bars */
	bool numbers_fit;                      /* ... without paging */
};

/* Draws the grid (heads_grid.c) or the bars (heads_bars.c) into the whole
 * of w and fills *pg. */
void av_heads_grid_draw(struct av_app *a, WINDOW *w, struct av_heads_page *pg);
void av_heads_bars_draw(struct av_app *a, WINDOW *w, struct av_heads_page *pg);

/* The stage the bars show for the stepper's stage st: scores, scaled,
 * masked or softmax itself, else the softmax (*substituted). */
enum av_stage av_heads_bars_stage(enum av_stage st, bool *substituted);

/* The bars' y axis: the query's smallest value in any head (or 0) to its
 * largest (hidden keys and −∞ left out). */
void av_heads_bars_range(const struct av_app *a, double *lo, double *hi);

/* The same plans without drawing (for z: what the screen shows now). */
void av_heads_grid_plan_page(const struct av_app *a, int width, int height,
			     struct av_heads_page *pg);
void av_heads_bars_plan_page(const struct av_app *a, int width, int height,
			     struct av_heads_page *pg);

/* --- small drawing helpers (view_heads.c) -------------------------------- */

/* av_put clipped to the window: nothing outside it, and a string cut at the
 * right edge never leaves half a wide character there. */
int av_heads_put(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr);

/* av_fill clipped to the window. */
void av_heads_fill(WINDOW *w, int y, int x, int n, attr_t attr);

/* s cut to at most width columns at a character boundary, without an
 * ellipsis when width < 4 (a "…" would leave no letter to read). */
void av_heads_fit(char *out, size_t size, const char *s, int width);
/* A key's label out, fitted from token (av_heads_fit) into width: the
 * key's index instead where the token was cut with no room for "…" (s10
 * and s11 both read "s1") or not at all (a wide character in one
 * column), when the index fits. */
void av_heads_key_index_if_cut(char *out, size_t size, const char *token, int key, int width);

/* Whether key's word in width columns would be its index instead
 * (av_heads_key_index_if_cut). */
bool av_heads_key_falls_back(const struct av_trace *t, int key, int width);

/* How a face labels the keys in width columns, one form for all of them,
 * as the rows are labelled where there is room: "0 the" when every key's
 * index and word fit; else the words, when each fits (or is cut with "…")
 * and no two read alike; else the indices. A word falling back to its
 * index alone read "0  1  2  on 4"; a repeated one "the … the". */
enum av_heads_key_form {
	AV_HEADS_KEY_NUMBERED,   /* "0 the" */
	AV_HEADS_KEY_WORDS,      /* "the" */
	AV_HEADS_KEY_INDICES     /* "0" */
};
enum av_heads_key_form av_heads_key_form(const struct av_trace *t, int width);

/* Key's label in the form, fitted into width columns. */
void av_heads_key_label(const struct av_trace *t, int key, enum av_heads_key_form form, int width,
			char *out, size_t size);

/* A weight (0..1) in width columns: "0.423", "0.42", ".42", or "" when
 * not even that fits. */
void av_heads_weight_text(char *buf, size_t size, double v, int width);

/* The token a row or column label names. */
const char *av_heads_token(const struct av_trace *t, enum av_axis axis, int i);

/* First index of the page holding cur, for pages of per items. */
int av_heads_page_start(int cur, int per);

/* The heads arrangement both faces use: per_row heads in a row, rows of
 * them; tiles of tile_w x tile_h; first_grid_row..+visible_grid_rows on the
 * screen (the selected head's row is always among them). */
struct av_heads_arrangement {
	int per_row, grid_rows, tile_w, tile_h;
	int first_grid_row, visible_grid_rows;
};

/* The arrangement with grid_rows rows of heads (balanced: 8 heads in 2 rows
 * is 4 + 4; more rows when tiles would be narrower than
 * AV_HEADS_TILE_MIN_W) and tiles at least min_h tall, in width x height. */
#define AV_HEADS_TILE_MIN_W 10
/* The arrangement with grid_rows rows of heads (balanced: 8 heads in 2 rows
 * is 4 + 4; more rows when tiles would be narrower than
 * AV_HEADS_TILE_MIN_W), tall enough that shown rows of them fill the height
 * (Tab pages the rest), and at least min_h tall, in width x height. */
void av_heads_arrange(int heads, int grid_rows, int shown, int width, int height, int min_h,
		      int selected_head, struct av_heads_arrangement *ar);

/* How many heads an arrangement shows at once. */
int av_heads_visible(const struct av_heads_arrangement *ar, int heads);

/* Comparing two arrangements' scores (n criteria, most important first):
 * true when a wins over b at the first criterion where they differ. */
bool av_heads_score_better(const long *a, const long *b, int n);

#endif
