/* layout.h: where each part of the screen goes, as pure arithmetic on the
 * terminal size (no curses, so the tests can try any size).
 *
 *   header      1 row: sample, mode, D H dh, scale, T, seed, "k/N stage"
 *   tokens      1 row (2 in cross mode: the source tokens too)
 *   title       2 rows: stage name and formula; shapes (1 row in cross
 *               mode at 12 lines: the shapes go to the caption)
 *   panel       the rest: heatmaps, the tokens table, the heads grid
 *   legend      1 row: colours to values
 *   inspector   0..7 rows: how the cell under the cursor was computed
 *   status      1 row: messages, the editor, key hints
 *
 * Below AV_MIN_COLS x AV_MIN_LINES the screen shows only a "terminal too
 * small" message. At 80x24 the inspector has 4 rows; smaller terminals
 * shrink it first, then drop the legend; from 40 lines it has 7 (what
 * does not fit there goes to the free rows under the stepper's figure). */
#ifndef AV_UI_LAYOUT_H
#define AV_UI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AV_MIN_COLS 40
#define AV_MIN_LINES 12

struct av_rect {
	int y, x, h, w;
};

struct av_layout {
	int cols, lines;
	bool too_small;
	struct av_rect header, tokens, title, panel, legend, inspector, status;
};

/* token_rows is 1, or 2 in cross mode. */
void av_layout_compute(struct av_layout *l, int cols, int lines, int token_rows);

/* The fewest lines the figure needs with token_rows rows of tokens (two in
 * cross mode): less is "too small". */
int av_layout_min_lines(int token_rows);

/* "terminal too small: 30×10, needs at least 40×12" (malloc'd). */
char *av_layout_too_small_text(int cols, int lines, int token_rows);

/* What the header shows. */
struct av_header_info {
	const char *sample;
	const char *lesson;        /* "lesson 4/17" in place of the sample's
				    * name (--lesson), or NULL: kept longer */
	const char *mode;
	int d_model, heads, head_dim;
	const char *scale;
	double temperature;
	uint64_t seed;
	const char *init;          /* "xavier", "torch": how the seed's weights
				    * were drawn when not as the sample says,
				    * or NULL; shown and dropped with the seed */
	int stage, n_stages;       /* stage is 0-based; shown 1-based as k/N;
				    * no stages (0): the view's label alone */
	const char *stage_name;
	const char *view;          /* "all heads", "pinned: softmax head 0, ...",
				    * or NULL for the stepper: before the stage */
	bool view_in_title;        /* the view's title row begins with the
				    * label ("all heads: scores"): it may go
				    * before the lesson's place and the mode */
	const char *weights;       /* "trained 200 ep" after training, or NULL:
				    * shown with the seed */
	const char *model;         /* --model: "layer 5/12" in place of the seed
				    * (never dropped), or NULL */
	const char *classroom;     /* "3 following", "exploring" (--lead,
				    * --follow), or NULL: dropped last */
	int stage_reserve;         /* columns kept for "k/N name" (the widest
				    * stage), so stepping does not make the
				    * other pieces come and go; 0 = its own */
};

/* The header line, fitted to width columns: the least important pieces
 * are shortened or dropped first, whole (layout.c, enum squeeze: the
 * program name, the sample, the seed, then the settings; in a class the
 * sample's name after the seed and the sizes), the details of
 * the view's label after its colon word by word, and the stage "k/N name"
 * stays at the right; what still does not fit is cut after a word, never
 * inside one. malloc'd, exactly width columns wide (padded with spaces)
 * when width allows. */
char *av_layout_header(const struct av_header_info *h, int width);

/* Whether a line may break between the characters before and after:
 * not before a closing mark or a Chinese comma or full stop (，。、）」…),
 * nor after an opening mark (（「《“), as Chinese typesetting requires
 * (kinsoku), nor between a digit and a CJK character after it (a number
 * and its measure word, "12个"). Anything else may break (where a wrapper
 * allows it). */
bool av_line_may_break(uint32_t before, uint32_t after);

/* Word wrap: the bytes of s that make the next line of at most width
 * columns (as measure counts them; av_text_width on screen): whole words,
 * broken at spaces; Chinese fills the line, breaking beside a CJK
 * character where av_line_may_break allows, never inside a run of narrow
 * characters (a Latin word, a number such as 12×4) while such a break
 * fits; a word wider than the line with no such break (a long number) is
 * broken between two characters, never inside one. Text without CJK
 * characters wraps at spaces only. No line ends at a space between a
 * number and a CJK character ("另有 8" / "个相差…") while the two fit a
 * line together.
 * *next is where the line after it starts (its leading spaces skipped).
 * Returns 0 only for an empty s. */
size_t av_wrap_line(const char *s, int width, int (*measure)(const char *),
		    const char **next);

/* A status line's key hints fitted to width columns: the groups ("? help",
 * "n/p stage", ...) are separated by two spaces in hints, and the groups
 * that do not fit whole are dropped from the end (never a cut word).
 * malloc'd; "" when not even the first fits. */
char *av_layout_hints(const char *hints, int width, int (*measure)(const char *));

#endif
